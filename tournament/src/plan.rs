//! The plan of a tournament: everything that decides which games are played
//! and how (bots, schedule, seed, openings, clocks, adjudication, limits,
//! SPRT, shard). It is stored as `plan.json` in the output folder; a run
//! resumes only under the same plan, and shards merge only when their plans
//! agree on everything but the shard.
//!
//! The plan holds the parameters of the schedule and of the openings, not a list of games:
//! game `n`'s pairing, colours and opening are derived when they are needed ([`Plan::game`],
//! [`Plan::game_config`]), so `plan.json` and the referee's memory do not grow with the
//! number of games. (Plan version 1 listed every game and every opening; it is refused with
//! a message naming the version.)

use std::path::Path;

use bao_rules::Position;
use serde::{Deserialize, Serialize};

use crate::openings::{self, OpeningSource};
use crate::schedule::{Mode, Schedule, ScheduleError, ScheduledGame};
use crate::shard::Shard;
use bao_game::{GameConfig, TimeControl};
use bao_stats::SprtParameters;
use bao_supervise::{BotSpec, ResourceLimits};

/// The version of the plan format: 2 derives the schedule and the openings from their
/// parameters (version 1 listed every game and opening).
pub const PLAN_VERSION: u32 = 2;

/// The rules revision of a plan that does not record one (written before rules revision 2).
const fn unrecorded_rules_revision() -> u32 {
    1
}

/// The longest duration of a time control read from a plan (a week): longer values would
/// overflow the clock's arithmetic.
pub const MAX_DURATION: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);

/// A tournament's plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// [`PLAN_VERSION`].
    pub plan_version: u32,
    /// The revision of the rules the tournament's games are played under
    /// ([`bao_rules::RULES_REVISION`] of the referee that started it). Absent in plans written
    /// before it was recorded, whose games were played under rules revision 1.
    #[serde(default = "unrecorded_rules_revision")]
    pub rules_revision: u32,
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
    /// Each bot's own time control (`--bot ... tc=`/`st=`), by bot; empty when no bot has one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bot_time_controls: Vec<Option<TimeControl>>,
    /// Clocks.
    pub time_control: TimeControl,
    /// Draw adjudication after this many plies.
    pub max_plies: Option<u32>,
    /// Resource limits for every bot.
    pub limits: ResourceLimits,
    /// Namespaces for every bot (absent in plans written before this field existed).
    #[serde(default)]
    pub isolation: bao_supervise::Isolation,
    /// The variables of the referee's environment passed on to every bot under `--isolation
    /// full` (`--pass-env`; names only, their values are read when a game starts).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pass_env: Vec<String>,
    /// Whether the bot not to move is frozen (`--no-ponder`; absent: pondering on).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_ponder: bool,
    /// The number of games of the schedule (all shards): derived from the bots, the mode, the
    /// rounds and the games per round, stored so that a reader need not derive it.
    pub games: u32,
    /// `start`, `random:PLIES` or `file`.
    pub opening_source: String,
    /// The start position, in notation: the opening of `start`, and where the random plies of
    /// `random:PLIES` start from.
    pub start: String,
    /// The positions of an openings file, in order (opening `j` is `book[j % book.len()]`);
    /// empty for the other sources.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub book: Vec<String>,
    /// Stop early when a sequential probability ratio test decides (two bots only).
    pub sprt: Option<SprtParameters>,
    /// The part of the schedule this folder plays; `None` for all of it.
    pub shard: Option<Shard>,
}

pub use crate::error::PlanError;

impl Plan {
    /// A plan of `bots` playing `rounds` rounds of `games_per_round` games per pairing in
    /// `mode`, from the start position of Bao la Kiswahili, with the default clocks and
    /// limits, no adjudication, no SPRT and no shard; change its fields for more (then
    /// [`Plan::check`] it).
    ///
    /// # Errors
    /// A schedule these parameters cannot make (fewer than two bots, an odd number of games).
    pub fn new(
        bots: Vec<BotSpec>,
        mode: Mode,
        rounds: u32,
        games_per_round: u32,
    ) -> Result<Plan, ScheduleError> {
        let games = Schedule::new(mode, bots.len(), rounds, games_per_round)?.len();
        Ok(Plan {
            plan_version: PLAN_VERSION,
            rules_revision: bao_rules::RULES_REVISION,
            seed: 0,
            mode,
            rounds,
            games_per_round,
            bots,
            bot_time_controls: Vec::new(),
            time_control: TimeControl::default(),
            max_plies: None,
            limits: ResourceLimits::default(),
            isolation: bao_supervise::Isolation::default(),
            pass_env: Vec::new(),
            no_ponder: false,
            games,
            opening_source: OpeningSource::Start.to_string(),
            start: Position::start(bao_rules::Variant::Kiswahili).to_string(),
            book: Vec::new(),
            sprt: None,
            shard: None,
        })
    }

    /// The schedule (every game of every shard), derived from the plan's parameters.
    ///
    /// # Errors
    /// Parameters no schedule has (only in a hand-edited plan; [`Plan::check`] catches them).
    pub fn schedule(&self) -> Result<Schedule, ScheduleError> {
        Schedule::new(self.mode, self.bots.len(), self.rounds, self.games_per_round)
    }

    /// Game `game` of the schedule, if there is one.
    #[must_use]
    pub fn game(&self, game: u32) -> Option<ScheduledGame> {
        self.schedule().ok()?.game(game)
    }

    /// The games this plan's shard plays (all of them without a shard), in order, derived one
    /// at a time.
    pub fn games_to_play(&self) -> impl Iterator<Item = ScheduledGame> + use<> {
        let shard = self.shard;
        self.schedule()
            .ok()
            .into_iter()
            .flat_map(Schedule::into_games)
            .filter(move |g| shard.is_none_or(|s| s.holds_pair(g.pair)))
    }

    /// Whether every game starts from the same position.
    #[must_use]
    pub fn one_opening(&self) -> bool {
        match self.opening_source.parse::<OpeningSource>() {
            Ok(OpeningSource::Random { plies }) => plies == 0,
            Ok(OpeningSource::File(_)) => self.book.windows(2).all(|w| w[0] == w[1]),
            _ => true,
        }
    }

    /// The name of bot `index`.
    #[must_use]
    pub fn bot_name(&self, index: usize) -> String {
        self.bots.get(index).map_or_else(|| format!("bot #{index}"), BotSpec::display_name)
    }

    /// The configuration of one game.
    ///
    /// # Errors
    /// An opening that is not a position (only in a hand-edited plan; [`Plan::check`] catches it).
    pub fn game_config(&self, game: &ScheduledGame) -> Result<GameConfig, PlanError> {
        let opening = self.opening(game.opening)?;
        let mut config =
            GameConfig::new(self.bots[game.south].clone(), self.bots[game.north].clone(), opening.variant());
        config.start = opening;
        config.time = self.time_control;
        let own = |bot: usize| self.bot_time_controls.get(bot).copied().flatten();
        config.side_time = [own(game.south), own(game.north)];
        config.max_plies = self.max_plies;
        config.seed = self.seed;
        config.limits = self.limits;
        config.isolation = self.isolation;
        config.sandbox.pass_env.clone_from(&self.pass_env);
        config.no_ponder = self.no_ponder;
        Ok(config)
    }

    /// Verifies the log `text` of scheduled game `game` (`bao-referee verify`) and checks that
    /// its header is this plan's game: the bots, the opening, the clocks, adjudication, seed
    /// and limits. Used by the tournament for every log
    /// it writes and by `merge` for every log it takes.
    ///
    /// # Errors
    /// Why the log is not evidence of that game, in words.
    pub fn check_log(&self, game: &ScheduledGame, text: &str) -> Result<bao_game::verify::Verified, String> {
        let verified = bao_game::verify::verify_log(text).map_err(|e| e.to_string())?;
        let first = text.lines().next().unwrap_or_default();
        let Ok(bao_game::log::LogRecord::Header(header)) = serde_json::from_str(first) else {
            return Err("line 1: not a header record".to_owned());
        };
        let config = self.game_config(game).map_err(|e| e.to_string())?;
        let mismatch = |field: &str, log: String, plan: String| {
            Err(format!(
                "line 1: the header's {field} is {log}, but game {} of the plan has {plan}",
                game.game
            ))
        };
        for (field, bot, spec) in
            [("south", &header.south, &config.south), ("north", &header.north, &config.north)]
        {
            if bot.name != spec.display_name() || bot.command != spec.command_line() {
                return mismatch(
                    field,
                    format!("{} {:?}", bot.name, bot.command),
                    format!("{} {:?}", spec.display_name(), spec.command_line()),
                );
            }
        }
        if header.start != bao_game::wire::notation(&config.start) {
            return mismatch("start", header.start, config.start.to_string());
        }
        if header.time_control != config.time {
            return mismatch(
                "time_control",
                format!("{:?}", header.time_control),
                format!("{:?}", config.time),
            );
        }
        if header.max_plies != config.max_plies {
            return mismatch(
                "max_plies",
                format!("{:?}", header.max_plies),
                format!("{:?}", config.max_plies),
            );
        }
        if header.seed != config.seed {
            return mismatch("seed", header.seed.to_string(), config.seed.to_string());
        }
        if header.limits != config.limits {
            return mismatch("limits", format!("{:?}", header.limits), format!("{:?}", config.limits));
        }
        Ok(verified)
    }

    /// Opening `index` (see docs/tournament.md, *Openings*): the start position, `PLIES`
    /// random plies from it drawn on the seed's stream `index`, or the book's position
    /// `index % len`.
    ///
    /// # Errors
    /// A plan whose start, source or book is not what it should be (only a hand-edited plan;
    /// [`Plan::check`] catches them), or random plies that always end the game.
    pub fn opening(&self, index: u32) -> Result<Position, PlanError> {
        self.opening_or_why(index).map_err(PlanError::Inconsistent)
    }

    /// [`Plan::opening`], its error in words.
    fn opening_or_why(&self, index: u32) -> Result<Position, String> {
        let start = self.start_position()?;
        match self.opening_source() {
            Some(OpeningSource::Start) => Ok(start),
            Some(OpeningSource::Random { plies }) => {
                openings::random_opening(&start, plies, self.seed, index).map_err(|e| e.to_string())
            }
            Some(OpeningSource::File(_)) => {
                if self.book.is_empty() {
                    return Err("opening_source is file, but the book is empty".to_owned());
                }
                let text = &self.book[index as usize % self.book.len()];
                text.parse::<Position>().map_err(|e| {
                    format!(
                        "book position #{} {text:?} is not a position: {e}",
                        index as usize % self.book.len()
                    )
                })
            }
            None => {
                Err(format!("opening_source {:?}: expected start, random:PLIES or file", self.opening_source))
            }
        }
    }

    /// The start position.
    fn start_position(&self) -> Result<Position, String> {
        self.start.parse::<Position>().map_err(|e| format!("start {:?} is not a position: {e}", self.start))
    }

    /// The opening source: `file` stands for the book.
    fn opening_source(&self) -> Option<OpeningSource> {
        match self.opening_source.as_str() {
            "file" => Some(OpeningSource::File(std::path::PathBuf::new())),
            "" => None,
            other => other.parse().ok().filter(|s| !matches!(s, OpeningSource::File(_))),
        }
    }

    /// Checks that the plan is consistent: games numbered in order, bots and openings that exist.
    ///
    /// # Errors
    /// The first inconsistency.
    pub fn check(&self) -> Result<(), PlanError> {
        self.check_or_why().map_err(PlanError::Inconsistent)
    }

    /// [`Plan::check`], its error in words.
    fn check_or_why(&self) -> Result<(), String> {
        if self.plan_version != PLAN_VERSION {
            return Err(format!("plan_version {} (this referee reads {PLAN_VERSION})", self.plan_version));
        }
        if self.rules_revision != bao_rules::RULES_REVISION {
            return Err(format!(
                "rules_revision {revision}: the tournament was started under rules revision {revision}, \
                 and this referee plays rules revision {}; a table never mixes games judged by two \
                 revisions of the rules. Finish it with the referee that started it, or start a new \
                 folder (docs/game-log.md, \"Versions\")",
                bao_rules::RULES_REVISION,
                revision = self.rules_revision
            ));
        }
        let schedule = self.schedule().map_err(|e| e.to_string())?;
        if schedule.len() != self.games {
            return Err(format!(
                "games is {}, but the schedule of {} bots ({}, {} round(s) of {} games per pairing) has {}",
                self.games,
                self.bots.len(),
                self.mode.name(),
                self.rounds,
                self.games_per_round,
                schedule.len()
            ));
        }
        if !self.bot_time_controls.is_empty() && self.bot_time_controls.len() != self.bots.len() {
            return Err(format!(
                "{} bot time controls for {} bots",
                self.bot_time_controls.len(),
                self.bots.len()
            ));
        }
        if let Some(shard) = self.shard {
            shard.check()?;
        }
        let tc = &self.time_control;
        for (name, value) in [
            ("base", tc.base),
            ("increment", Some(tc.increment)),
            ("move_time", tc.move_time),
            ("startup", Some(tc.startup)),
            ("margin", Some(tc.margin)),
        ] {
            if value.is_some_and(|d| d > MAX_DURATION) {
                return Err(format!(
                    "time_control.{name} is more than {} ms, the longest a referee accepts",
                    MAX_DURATION.as_millis()
                ));
            }
        }
        let start = self.start_position()?;
        if start.outcome().is_over() {
            return Err(format!("start {:?} is a finished game", self.start));
        }
        let source = self.opening_source().ok_or_else(|| {
            format!("opening_source {:?}: expected start, random:PLIES or file", self.opening_source)
        })?;
        match source {
            OpeningSource::File(_) if self.book.is_empty() => {
                return Err("opening_source is file, but the book is empty".to_owned());
            }
            OpeningSource::File(_) => {}
            _ if !self.book.is_empty() => {
                return Err(format!(
                    "a book of {} positions with opening_source {}",
                    self.book.len(),
                    self.opening_source
                ));
            }
            _ => {}
        }
        for (i, text) in self.book.iter().enumerate() {
            let position = text
                .parse::<Position>()
                .map_err(|e| format!("book position #{i} {text:?} is not a position: {e}"))?;
            if position.variant() != start.variant() || position.outcome().is_over() {
                return Err(format!("book position #{i} {text:?} is not a {} game to play", start.variant()));
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
            .map_err(|reason| PlanError::Read { path: path.to_path_buf(), reason })?;
        let invalid = |message: String| PlanError::Invalid { path: path.to_path_buf(), message };
        if let Some(version) = old_version(&text) {
            return Err(invalid(format!(
                "plan_version {version} (written by an earlier referee, listing every game); this \
                 referee reads plan_version {PLAN_VERSION}. Finish that tournament with the referee that \
                 started it, or start a new folder"
            )));
        }
        let plan: Plan = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
        plan.check_or_why().map_err(invalid)?;
        Ok(plan)
    }

    /// Writes the plan atomically (a temporary file, fsync, rename, fsync of the folder).
    ///
    /// # Errors
    /// Any I/O error.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let mut text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        text.push('\n');
        crate::folder::write_atomically(path, text.as_bytes())
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

/// The `plan_version` of a plan file of an earlier format, if it is one.
fn old_version(text: &str) -> Option<u64> {
    #[derive(Deserialize)]
    struct Version {
        plan_version: u64,
    }
    let version = serde_json::from_str::<Version>(text).ok()?.plan_version;
    (version < u64::from(PLAN_VERSION)).then_some(version)
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
            rules_revision: bao_rules::RULES_REVISION,
            seed: 7,
            mode: Mode::RoundRobin,
            rounds: 1,
            games_per_round: 4,
            bots: vec![bot("a"), bot("b"), bot("c")],
            time_control: TimeControl::default(),
            bot_time_controls: Vec::new(),
            max_plies: Some(40),
            limits: ResourceLimits::default(),
            isolation: bao_supervise::Isolation::default(),
            pass_env: Vec::new(),
            no_ponder: false,
            games: 12,
            opening_source: "start".into(),
            start,
            book: Vec::new(),
            sprt: None,
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
        assert_eq!(games.len(), 12);
        games.sort_unstable();
        let all: Vec<u32> = plan.games_to_play().map(|g| g.game).collect();
        assert_eq!(games, all);
        assert!(one.games_to_play().all(|g| g.pair % 2 == 0));
    }

    #[test]
    fn inconsistent_plans_are_refused() {
        let plan = Plan { games: 13, ..sample_plan() };
        assert!(plan.check().unwrap_err().to_string().starts_with("games is 13, but the schedule of 3 bots"));
        let plan = Plan { games_per_round: 3, ..sample_plan() };
        assert!(plan.check().unwrap_err().to_string().contains("--games 3"));
        let plan = Plan { start: "nonsense".into(), ..sample_plan() };
        assert!(plan.check().unwrap_err().to_string().starts_with("start \"nonsense\" is not a position"));
        let plan = Plan { opening_source: "file".into(), ..sample_plan() };
        assert!(plan.check().unwrap_err().to_string().contains("the book is empty"));
        let plan = Plan { opening_source: "book.txt".into(), ..sample_plan() };
        assert!(plan.check().unwrap_err().to_string().contains("expected start, random:PLIES or file"));
        let plan = Plan {
            opening_source: "file".into(),
            book: vec![sample_plan().start, "x".into()],
            ..sample_plan()
        };
        assert!(plan.check().unwrap_err().to_string().contains("book position #1 \"x\""));
    }

    #[test]
    fn openings_are_derived_from_the_source() {
        let plan = sample_plan();
        assert_eq!(plan.opening(5).unwrap().to_string(), plan.start);
        assert!(plan.one_opening());
        let random = Plan { opening_source: "random:6".into(), ..sample_plan() };
        random.check().unwrap();
        let start: Position = plan.start.parse().unwrap();
        for j in [0, 1, 7] {
            assert_eq!(random.opening(j).unwrap(), openings::random_opening(&start, 6, 7, j).unwrap());
        }
        assert_ne!(random.opening(0).unwrap(), random.opening(1).unwrap());
        assert!(!random.one_opening());
        let one = random.opening(0).unwrap().to_string();
        let two = random.opening(1).unwrap().to_string();
        let book =
            Plan { opening_source: "file".into(), book: vec![one.clone(), two.clone()], ..sample_plan() };
        book.check().unwrap();
        let cycled: Vec<String> = (0..3).map(|j| book.opening(j).unwrap().to_string()).collect();
        assert_eq!(cycled, vec![one.clone(), two, one]);
        assert!(!book.one_opening());
    }

    #[test]
    fn the_games_are_derived_from_the_parameters() {
        let plan = sample_plan();
        let listed: Vec<ScheduledGame> = plan.games_to_play().collect();
        assert_eq!(listed, crate::schedule::build(Mode::RoundRobin, 3, 1, 4).unwrap());
        assert_eq!(plan.game(11), Some(listed[11]));
        assert_eq!(plan.game(12), None);
    }

    #[test]
    fn a_version_1_plan_is_refused_naming_its_version() {
        let dir = std::env::temp_dir().join(format!("bao-plan-v1-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("plan.json");
        std::fs::write(&path, r#"{"plan_version":1,"seed":0,"schedule":[],"openings":[]}"#).unwrap();
        let e = Plan::load(&path).unwrap_err().to_string();
        assert!(
            e.contains("plan.json is not a tournament plan: plan_version 1 (written by an earlier referee"),
            "{e}"
        );
        assert!(e.contains("this referee reads plan_version 2"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_plan_file_with_shard_count_zero_or_a_huge_clock_is_a_clear_error() {
        let dir = std::env::temp_dir().join(format!("bao-plan-bounds-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("plan.json");
        let write = |plan: &Plan| std::fs::write(&path, serde_json::to_string(plan).unwrap()).unwrap();

        write(&Plan { shard: Some(Shard { index: 1, count: 0 }), ..sample_plan() });
        let e = Plan::load(&path).unwrap_err().to_string();
        assert!(e.contains("plan.json is not a tournament plan: shard 1/0: the shard count is 0"), "{e}");

        write(&Plan { shard: Some(Shard { index: 3, count: 2 }), ..sample_plan() });
        let e = Plan::load(&path).unwrap_err().to_string();
        assert!(e.contains("shard 3/2: the index is outside 1..=2"), "{e}");

        let mut huge = sample_plan();
        huge.time_control.base = Some(std::time::Duration::from_millis(u64::MAX));
        write(&huge);
        let e = Plan::load(&path).unwrap_err().to_string();
        assert!(e.contains("time_control.base is more than 604800000 ms"), "{e}");

        std::fs::remove_dir_all(&dir).unwrap();
    }

    proptest::proptest! {
        /// The corpus-free smoke test of the `plan` fuzz target: any number in a plan file
        /// replaced by any other is read and checked without panicking.
        #[test]
        fn a_plan_with_any_number_changed_never_panics(which in 0usize..400, value in proptest::prelude::any::<u64>()) {
            let text = serde_json::to_string(&sample_plan()).unwrap();
            let mut value_json: serde_json::Value = serde_json::from_str(&text).unwrap();
            let mut seen = 0;
            replace_nth_number(&mut value_json, which, value, &mut seen);
            if let Ok(plan) = serde_json::from_value::<Plan>(value_json)
                && plan.check().is_ok()
            {
                for game in plan.games_to_play().take(64) {
                    proptest::prop_assert!(plan.game_config(&game).is_ok());
                    let _ = plan.check_log(&game, "");
                }
            }
        }
    }

    fn replace_nth_number(v: &mut serde_json::Value, n: usize, with: u64, seen: &mut usize) {
        match v {
            serde_json::Value::Number(_) => {
                if *seen == n {
                    *v = serde_json::Value::from(with);
                }
                *seen += 1;
            }
            serde_json::Value::Array(items) => {
                items.iter_mut().for_each(|x| replace_nth_number(x, n, with, seen))
            }
            serde_json::Value::Object(map) => {
                map.values_mut().for_each(|x| replace_nth_number(x, n, with, seen))
            }
            _ => {}
        }
    }
}
