//! The shared random opening of a pair of games: a number of uniformly random
//! legal plies from the start position, from the pair's seed.
//!
//! It is opening 0 of [`bao_game::opening::random_opening`], the one generator
//! that `bao-referee tournament` draws from too: a pair with seed `s` starts
//! where a tournament run with `--seed s --openings random:PLIES` starts its
//! first game pair.

use bao_game::opening::NoRandomOpening;
use bao_rules::{Position, Variant};

/// The position after `plies` random legal plies from the start, from `seed`
/// (the start itself for 0 plies).
///
/// # Errors
/// When no draw of that many plies leaves a game to play: never a silent
/// start position.
pub fn random_opening(variant: Variant, plies: u32, seed: u64) -> Result<Position, NoRandomOpening> {
    bao_game::opening::random_opening(&Position::start(variant), plies, seed, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bao_rules::Outcome;
    use bao_tournament::plan::Plan;
    use bao_tournament::schedule::Mode;

    #[test]
    fn openings_depend_only_on_the_seed_and_are_legal_and_ongoing() {
        let a = random_opening(Variant::Kiswahili, 4, 7).unwrap();
        assert_eq!(a, random_opening(Variant::Kiswahili, 4, 7).unwrap());
        assert_eq!(a.outcome(), Outcome::Ongoing);
        assert_ne!(a, Position::start(Variant::Kiswahili));
        let distinct: std::collections::HashSet<String> =
            (0..20).map(|s| random_opening(Variant::Kiswahili, 4, s).unwrap().to_string()).collect();
        assert!(distinct.len() > 10, "{}", distinct.len());
        assert_eq!(random_opening(Variant::Kujifunza, 0, 1), Ok(Position::start(Variant::Kujifunza)));
    }

    /// A three-bot round-robin plan, as a tournament would store it.
    fn sample_plan() -> Plan {
        let bot = |name: &str| bao_supervise::BotSpec {
            name: Some(name.to_owned()),
            program: "bot".into(),
            args: vec![],
            dir: None,
        };
        Plan::new(vec![bot("a"), bot("b"), bot("c")], Mode::RoundRobin, 1, 4).unwrap()
    }

    /// One generator for both: a server pair with seed `s` starts where a tournament with
    /// `--seed s --openings random:PLIES` starts its first game pair.
    #[test]
    fn a_tournament_and_the_server_draw_the_same_openings_from_one_seed() {
        let mut seen = std::collections::HashSet::new();
        for seed in [0, 7, 42, 1 << 40, u64::MAX] {
            let plan = Plan { seed, opening_source: "random:6".into(), ..sample_plan() };
            plan.check().unwrap();
            let first = plan.games_to_play().next().unwrap();
            assert_eq!(first.opening, 0);
            let tournament = plan.opening(first.opening).unwrap();
            let server = random_opening(bao_rules::Variant::Kiswahili, 6, seed).unwrap();
            assert_eq!(tournament, server, "seed {seed}");
            assert_ne!(tournament.to_string(), plan.start, "seed {seed}: six plies were played");
            seen.insert(tournament.to_string());
        }
        assert!(seen.len() > 1, "other seeds give other openings");
    }
}
