//! The plan of a tournament: everything that decides which games are played
//! and how (bots, schedule, seed, openings, clocks, adjudication, limits,
//! SPRT, shard). It is stored as `plan.json` in the output folder; a run
//! resumes only under the same plan, and shards merge only when their plans
//! agree on everything but the shard.

use std::path::Path;

use bao_rules::Position;
use serde::{Deserialize, Serialize};

use crate::tournament::schedule::{Mode, ScheduledGame};
use crate::tournament::shard::Shard;
use bao_game::{GameConfig, TimeControl};
use bao_stats::SprtParameters;
use bao_supervise::{BotSpec, ResourceLimits};

/// The version of the plan format.
pub const PLAN_VERSION: u32 = 1;

/// A tournament's plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// [`PLAN_VERSION`].
    pub plan_version: u32,
    /// The seed of the openings (and recorded in every log).
    pub seed: u64,
    /// Round-robin or gauntlet.
    pub mode: Mode,
    /// Rounds.
    pub rounds: u32,
    /// Games per pairing in each round.
    pub games_per_round: u32,
    /// The bots, in order (the gauntlet's first bot is the challenger).
    pub bots: Vec<BotSpec>,
    /// Clocks.
    pub time_control: TimeControl,
    /// Draw adjudication after this many plies.
    pub max_plies: Option<u32>,
    /// Resource limits for every bot.
    pub limits: ResourceLimits,
    /// Namespaces for every bot (absent in plans written before this field existed).
    #[serde(default)]
    pub isolation: bao_supervise::Isolation,
    /// `start`, `random:PLIES` or `file`.
    pub opening_source: String,
    /// The openings in notation, indexed by [`ScheduledGame::opening`].
    pub openings: Vec<String>,
    /// Stop early when a sequential probability ratio test decides (two bots only).
    pub sprt: Option<SprtParameters>,
    /// Every game of the tournament (all shards).
    pub schedule: Vec<ScheduledGame>,
    /// The part of the schedule this folder plays; `None` for all of it.
    pub shard: Option<Shard>,
}

/// Why a plan cannot be read or used.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// I/O.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Not a plan.
    #[error("{path} is not a tournament plan: {message}")]
    Invalid {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        message: String,
    },
}

impl Plan {
    /// The games this plan's shard plays (all of them without a shard).
    pub fn games_to_play(&self) -> impl Iterator<Item = &ScheduledGame> {
        self.schedule.iter().filter(|g| self.shard.is_none_or(|s| s.holds_pair(g.pair)))
    }

    /// The name of bot `index`.
    #[must_use]
    pub fn bot_name(&self, index: usize) -> String {
        self.bots.get(index).map_or_else(|| format!("bot #{index}"), BotSpec::display_name)
    }

    /// The configuration of one game, with the referee's lag monitor.
    ///
    /// # Errors
    /// An opening that is not a position (only in a hand-edited plan; [`Plan::check`] catches it).
    pub fn game_config(
        &self,
        game: &ScheduledGame,
        lag: Option<bao_game::lag::LagMonitor>,
    ) -> Result<GameConfig, String> {
        let opening = self.opening(game.opening)?;
        let mut config =
            GameConfig::new(self.bots[game.south].clone(), self.bots[game.north].clone(), opening.variant());
        config.start = opening;
        config.time = self.time_control;
        config.max_plies = self.max_plies;
        config.seed = self.seed;
        config.limits = self.limits;
        config.isolation = self.isolation;
        config.lag = lag;
        Ok(config)
    }

    fn opening(&self, index: u32) -> Result<Position, String> {
        let text =
            self.openings.get(index as usize).ok_or_else(|| format!("there is no opening #{index}"))?;
        text.parse::<Position>().map_err(|e| format!("opening #{index} {text:?} is not a position: {e}"))
    }

    /// Checks that the plan is consistent: games numbered in order, bots and openings that exist.
    ///
    /// # Errors
    /// The first inconsistency.
    pub fn check(&self) -> Result<(), String> {
        if self.plan_version != PLAN_VERSION {
            return Err(format!("plan_version {} (this referee reads {PLAN_VERSION})", self.plan_version));
        }
        for i in 0..self.openings.len() {
            self.opening(u32::try_from(i).map_err(|_| "too many openings".to_owned())?)?;
        }
        for (i, g) in self.schedule.iter().enumerate() {
            if g.game as usize != i || g.pair != g.game / 2 {
                return Err(format!("schedule entry {i} is numbered game {} pair {}", g.game, g.pair));
            }
            if g.south >= self.bots.len() || g.north >= self.bots.len() || g.south == g.north {
                return Err(format!("game {i} pairs bots {} and {}", g.south, g.north));
            }
            if g.opening as usize >= self.openings.len() {
                return Err(format!("game {i} uses opening {}, which is not listed", g.opening));
            }
        }
        Ok(())
    }

    /// Reads and checks a plan file.
    ///
    /// # Errors
    /// An unreadable file, or one that is not a consistent plan.
    pub fn load(path: &Path) -> Result<Plan, PlanError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| PlanError::Read { path: path.to_path_buf(), source })?;
        let invalid = |message: String| PlanError::Invalid { path: path.to_path_buf(), message };
        let plan: Plan = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
        plan.check().map_err(invalid)?;
        Ok(plan)
    }

    /// Writes the plan atomically (a temporary file, fsync, rename, fsync of the folder).
    ///
    /// # Errors
    /// Any I/O error.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let mut text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        text.push('\n');
        crate::tournament::folder::write_atomically(path, text.as_bytes())
    }

    /// The first difference between two plans, as `field: stored vs new`, or `None` when they agree.
    #[must_use]
    pub fn difference(&self, other: &Plan) -> Option<String> {
        let a = serde_json::to_value(self).ok()?;
        let b = serde_json::to_value(other).ok()?;
        first_difference(&a, &b, "")
    }

    /// The plan without its shard (what shards of one tournament share).
    #[must_use]
    pub fn unsharded(&self) -> Plan {
        Plan { shard: None, ..self.clone() }
    }
}

/// The path of the first difference between two JSON values, with both values (shortened).
fn first_difference(a: &serde_json::Value, b: &serde_json::Value, path: &str) -> Option<String> {
    use serde_json::Value;
    let child = |key: &str| if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| {
                let null = Value::Null;
                first_difference(x.get(k).unwrap_or(&null), y.get(k).unwrap_or(&null), &child(k))
            })
        }
        (Value::Array(x), Value::Array(y)) => {
            if let Some(d) = x
                .iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (p, q))| first_difference(p, q, &child(&i.to_string())))
            {
                return Some(d);
            }
            (x.len() != y.len()).then(|| format!("{path}: {} entries vs {}", x.len(), y.len()))
        }
        _ => (a != b).then(|| format!("{path}: {} vs {}", shorten(a), shorten(b))),
    }
}

fn shorten(v: &serde_json::Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= 80 {
        text
    } else {
        format!("{}…", text.chars().take(80).collect::<String>())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::tournament::schedule;

    /// A three-bot round-robin plan of 12 games.
    pub(crate) fn sample_plan() -> Plan {
        let bot = |name: &str| BotSpec {
            name: Some(name.to_owned()),
            program: "bot".into(),
            args: vec![],
            dir: None,
        };
        let start = Position::start(bao_rules::Variant::Kiswahili).to_string();
        Plan {
            plan_version: PLAN_VERSION,
            seed: 7,
            mode: Mode::RoundRobin,
            rounds: 1,
            games_per_round: 4,
            bots: vec![bot("a"), bot("b"), bot("c")],
            time_control: TimeControl::default(),
            max_plies: Some(40),
            limits: ResourceLimits::default(),
            isolation: bao_supervise::Isolation::default(),
            opening_source: "start".into(),
            openings: vec![start; 2],
            sprt: None,
            schedule: schedule::build(Mode::RoundRobin, 3, 1, 4).unwrap(),
            shard: None,
        }
    }

    #[test]
    fn a_plan_round_trips_and_checks() {
        let plan = sample_plan();
        plan.check().unwrap();
        let back: Plan = serde_json::from_str(&serde_json::to_string(&plan).unwrap()).unwrap();
        assert_eq!(back, plan);
        assert_eq!(plan.difference(&back), None);
    }

    #[test]
    fn differences_name_the_field() {
        let a = sample_plan();
        let b = Plan { seed: 8, ..a.clone() };
        assert_eq!(a.difference(&b).unwrap(), "seed: 7 vs 8");
        let mut c = a.clone();
        c.bots[1].args.push("--fast".into());
        assert_eq!(a.difference(&c).unwrap(), "bots.1.args: 0 entries vs 1");
        let d = Plan { shard: Some(Shard { index: 1, count: 2 }), ..a.clone() };
        assert!(a.difference(&d).unwrap().starts_with("shard: null vs"));
        assert_eq!(d.unsharded().difference(&a), None);
    }

    #[test]
    fn shards_split_the_games() {
        let plan = sample_plan();
        let one = Plan { shard: Some(Shard { index: 1, count: 2 }), ..plan.clone() };
        let two = Plan { shard: Some(Shard { index: 2, count: 2 }), ..plan.clone() };
        let mut games: Vec<u32> = one.games_to_play().chain(two.games_to_play()).map(|g| g.game).collect();
        games.sort_unstable();
        let all: Vec<u32> = plan.games_to_play().map(|g| g.game).collect();
        assert_eq!(games, all);
        assert!(one.games_to_play().all(|g| g.pair % 2 == 0));
    }

    #[test]
    fn inconsistent_plans_are_refused() {
        let mut plan = sample_plan();
        plan.schedule[3].south = 9;
        assert!(plan.check().unwrap_err().contains("game 3"));
        let mut plan = sample_plan();
        plan.openings[1] = "nonsense".into();
        assert!(plan.check().unwrap_err().contains("opening #1"));
    }
}
