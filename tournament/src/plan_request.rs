//! What a new tournament's [`Plan`] is built from: the caller's choices (a command line, a
//! program), checked together and turned into the plan that is stored and played.

use bao_game::TimeControl;
use bao_rules::Position;
use bao_stats::SprtParameters;
use bao_supervise::{Isolation, ResourceLimits};

use crate::bots::Bot;
use crate::openings::{self, OpeningSource};
use crate::plan::{PLAN_VERSION, Plan};
use crate::schedule::{Mode, Schedule};
use crate::shard::Shard;

/// A tournament as its caller describes it, before any check.
#[derive(Debug, Clone)]
pub struct PlanRequest {
    /// The bots, in order (the gauntlet's first bot is the challenger).
    pub bots: Vec<Bot>,
    /// Round-robin or gauntlet.
    pub mode: Mode,
    /// Rounds.
    pub rounds: u32,
    /// Games per pairing in each round (even: colours are swapped).
    pub games_per_round: u32,
    /// The seed of the random openings (and recorded in every log).
    pub seed: u64,
    /// Where the openings come from.
    pub openings: OpeningSource,
    /// The start position (the opening of `start`, where random plies start from).
    pub start: Position,
    /// Clocks of the bots without their own.
    pub time_control: TimeControl,
    /// Draw adjudication after this many plies.
    pub max_plies: Option<u32>,
    /// Resource limits for every bot.
    pub limits: ResourceLimits,
    /// Namespaces for every bot.
    pub isolation: Isolation,
    /// Variables passed on to every bot under full isolation (names only).
    pub pass_env: Vec<String>,
    /// Whether the bot not to move is frozen.
    pub no_ponder: bool,
    /// Stop early when a sequential probability ratio test decides (two bots only).
    pub sprt: Option<SprtParameters>,
    /// The part of the schedule this folder plays.
    pub shard: Option<Shard>,
}

impl PlanRequest {
    /// The plan: the schedule made, an openings file read, random openings tried once.
    ///
    /// # Errors
    /// No bots, a schedule that cannot be made, an unreadable openings file, random plies that
    /// always end the game, an SPRT without exactly two bots or with a shard.
    pub fn into_plan(self) -> Result<Plan, crate::Error> {
        let input = crate::Error::Input;
        if self.bots.is_empty() {
            return Err(input("no bots: give them with --bot name=NAME cmd=CMD or --config FILE".to_owned()));
        }
        let games = Schedule::new(self.mode, self.bots.len(), self.rounds, self.games_per_round)?.len();
        // Only a file's positions are stored; start and random openings are derived from the seed.
        let book = match &self.openings {
            OpeningSource::File(path) => {
                openings::read_file(path, self.start.variant())?.iter().map(ToString::to_string).collect()
            }
            OpeningSource::Start | OpeningSource::Random { .. } => Vec::new(),
        };
        if let OpeningSource::Random { plies } = self.openings {
            // Random plies that always end the game are refused before anything is written.
            openings::random_opening(&self.start, plies, self.seed, 0)
                .map_err(openings::OpeningError::from)?;
        }
        if self.sprt.is_some() && self.bots.len() != 2 {
            return Err(input(format!("--sprt needs exactly two bots, {} given", self.bots.len())));
        }
        if self.sprt.is_some() && self.shard.is_some() {
            return Err(input(
                "--sprt cannot be combined with --shard: the test must see every game to decide when to stop"
                    .to_owned(),
            ));
        }
        let time = self.time_control;
        let bot_time_controls: Vec<Option<TimeControl>> =
            self.bots.iter().map(|b| b.clock.map(|c| c.time_control(time.startup, time.margin))).collect();
        Ok(Plan {
            plan_version: PLAN_VERSION,
            rules_revision: bao_rules::RULES_REVISION,
            seed: self.seed,
            mode: self.mode,
            rounds: self.rounds,
            games_per_round: self.games_per_round,
            bot_time_controls: if bot_time_controls.iter().all(Option::is_none) {
                Vec::new()
            } else {
                bot_time_controls
            },
            bots: self.bots.into_iter().map(|b| b.spec).collect(),
            time_control: time,
            max_plies: self.max_plies,
            limits: self.limits,
            isolation: self.isolation,
            pass_env: self.pass_env,
            no_ponder: self.no_ponder,
            games,
            opening_source: self.openings.to_string(),
            start: self.start.to_string(),
            book,
            sprt: self.sprt,
            shard: self.shard,
        })
    }
}

impl Plan {
    /// The warning for a plan whose games would replay one another: every game starts from one
    /// position and a pairing meets more than once with the same colours, so deterministic bots
    /// (most engines, and the sample bots with a fixed seed) replay identical games and the
    /// statistics count copies. `None` when the games can differ.
    #[must_use]
    pub fn replay_warning(&self) -> Option<String> {
        let per_colour = u64::from(self.games_per_round) * u64::from(self.rounds) / 2;
        (self.one_opening() && per_colour > 1).then(|| {
            format!(
                "every game starts from the same position and each pairing plays {per_colour} games \
                 with the same colours: deterministic bots will replay identical games, and the \
                 statistics would count copies. Use --openings random:6 (or a file of openings) for \
                 distinct games."
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bot(name: &str) -> Bot {
        let spec = bao_supervise::BotSpec {
            name: Some(name.to_owned()),
            program: "x".into(),
            args: Vec::new(),
            dir: None,
        };
        Bot { spec, clock: None }
    }

    fn request(bots: usize) -> PlanRequest {
        PlanRequest {
            bots: (0..bots).map(|i| bot(&format!("b{i}"))).collect(),
            mode: Mode::RoundRobin,
            rounds: 1,
            games_per_round: 2,
            seed: 7,
            openings: OpeningSource::Start,
            start: Position::start(bao_rules::Variant::Kiswahili),
            time_control: TimeControl::default(),
            max_plies: None,
            limits: ResourceLimits::default(),
            isolation: Isolation::default(),
            pass_env: Vec::new(),
            no_ponder: false,
            sprt: None,
            shard: None,
        }
    }

    fn refused(request: PlanRequest) -> String {
        match request.into_plan() {
            Ok(plan) => panic!("accepted: {plan:?}"),
            Err(e) => {
                assert!(e.is_input(), "the caller's fault: {e}");
                e.to_string()
            }
        }
    }

    fn sprt() -> SprtParameters {
        SprtParameters::new(0.05, 0.05, 0.0, 10.0, bao_stats::EloModel::Normalized).expect("valid")
    }

    #[test]
    fn a_request_becomes_the_plan_it_describes() {
        let plan = request(3).into_plan().expect("a plan");
        assert_eq!((plan.games, plan.seed, plan.bots.len()), (6, 7, 3));
        plan.check().expect("a consistent plan");
        assert!(plan.replay_warning().is_none(), "one game per colour: nothing replays");
        let twice = PlanRequest { rounds: 2, ..request(2) }.into_plan().expect("a plan");
        assert!(twice.replay_warning().is_some_and(|w| w.contains("2 games with the same colours")));
    }

    #[test]
    fn impossible_requests_are_refused_with_what_is_wrong() {
        assert!(refused(request(0)).starts_with("no bots"));
        assert!(refused(PlanRequest { games_per_round: 3, ..request(2) }).contains("--games 3"));
        assert!(
            refused(PlanRequest { sprt: Some(sprt()), ..request(3) }).contains("exactly two bots, 3 given")
        );
        let sharded =
            PlanRequest { sprt: Some(sprt()), shard: Some(Shard { index: 1, count: 2 }), ..request(2) };
        assert!(refused(sharded).contains("cannot be combined with --shard"));
        let missing =
            PlanRequest { openings: OpeningSource::File("/nonexistent/openings.txt".into()), ..request(2) };
        assert!(refused(missing).contains("/nonexistent/openings.txt"));
    }
}
