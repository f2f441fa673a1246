//! Matchmaking: which two versions play the next colour-swapped pair of games.
//!
//! A pure function of the active versions' ratings, game counts and waiting
//! times ([`choose`]). The rules, in order:
//! 1. **Wait bound**: a version that has waited longer than the bound is the
//!    anchor (the longest-waiting first).
//! 2. **Placement**: otherwise a version that still needs placement games is
//!    the anchor (the one that needs most), so a new version plays at once.
//! 3. **Rotation**: otherwise the version that has waited longest is the
//!    anchor (ties broken at random, never by id). Every schedule resets the
//!    anchor's wait, so with N free versions a version is the anchor within
//!    N − 1 schedules: nobody is left out.
//!
//! The anchor's opponent is the one with the highest `w / (1 + n)`: `n` the
//! games the two have played, and `w` the pair's **weight**
//! `1 + (SPREAD − 1) · 4p(1 − p)`, `p` the expected score of the two ratings.
//! The weight runs from 1 (ratings far apart) to [`SPREAD`] (equal ratings),
//! so close ratings meet more often, up to [`SPREAD`] times as often as the
//! farthest pair, and never less often than that: each pair's `n + 1` tracks
//! its weight, so between any two pairs of active versions the games played
//! stay within a factor of about [`SPREAD`] (the simulation below and the e2e
//! arena check [`FAIRNESS_BOUND`], which allows for the rounding of small counts).

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

/// A version that can be scheduled; `P` is its id (the server's
/// [`crate::domain::VersionId`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Entrant<P> {
    /// The version's id.
    pub id: P,
    /// Its rating (Elo scale).
    pub rating: f64,
    /// Placement games it still needs.
    pub placement_left: u32,
    /// Milliseconds since it last started a game (or became active).
    pub waited_ms: u64,
}

/// Why a pair was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The anchor had waited longer than the bound.
    WaitBound,
    /// The anchor needs placement games.
    Placement,
    /// The anchor had waited longest.
    Rotation,
}

/// The next pair: `anchor` plays `opponent` twice, colours swapped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pairing<P> {
    /// The version chosen first.
    pub anchor: P,
    /// Its opponent.
    pub opponent: P,
    /// Why the anchor was chosen.
    pub reason: Reason,
}

/// Games already played between two versions (unordered).
#[derive(Debug, Clone)]
pub struct PairCounts<P>(HashMap<(P, P), u32>);

impl<P> Default for PairCounts<P> {
    fn default() -> Self {
        PairCounts(HashMap::new())
    }
}

impl<P: Copy + Ord + Hash> PairCounts<P> {
    /// Adds `games` between `a` and `b`.
    pub fn add(&mut self, a: P, b: P, games: u32) {
        *self.0.entry((a.min(b), a.max(b))).or_insert(0) += games;
    }

    /// Games between `a` and `b`.
    #[must_use]
    pub fn get(&self, a: P, b: P) -> u32 {
        self.0.get(&(a.min(b), a.max(b))).copied().unwrap_or(0)
    }
}

/// How much more often the closest pair of ratings meets than the farthest.
pub const SPREAD: f64 = 3.0;

/// The bound docs/server.md states: over a stretch of time with the same active
/// versions, no pair of them plays more than this many times the games of the
/// pair that played least (the weights alone give [`SPREAD`]; the rest is the
/// rounding of small counts and games in pairs).
pub const FAIRNESS_BOUND: f64 = 4.0;

/// The weight of a pair: 1 for ratings far apart up to [`SPREAD`] for equal ratings.
#[must_use]
pub fn weight<P>(a: &Entrant<P>, b: &Entrant<P>) -> f64 {
    let p = 1.0 / (1.0 + 10f64.powf((b.rating - a.rating) / 400.0));
    1.0 + (SPREAD - 1.0) * 4.0 * p * (1.0 - p)
}

/// How much the next pair of games between two versions is due (higher is more).
#[must_use]
pub fn priority<P>(a: &Entrant<P>, b: &Entrant<P>, games_between: u32) -> f64 {
    weight(a, b) / (1.0 + f64::from(games_between))
}

/// Chooses the next pair among the entrants that are not `busy`; `None` when
/// fewer than two are free. `jitter` breaks ties (a value in [0, 1) per call;
/// pass a constant for determinism).
#[must_use]
pub fn choose<P: Copy + Ord + Hash>(
    entrants: &[Entrant<P>],
    pairs: &PairCounts<P>,
    busy: &HashSet<P>,
    wait_bound_secs: u64,
    jitter: &mut dyn FnMut() -> f64,
) -> Option<Pairing<P>> {
    let free: Vec<(&Entrant<P>, f64)> =
        entrants.iter().filter(|e| !busy.contains(&e.id)).map(|e| (e, jitter())).collect();
    if free.len() < 2 {
        return None;
    }
    let longest_wait = |list: &[(&Entrant<P>, f64)]| -> Option<P> {
        list.iter()
            .max_by(|(a, ja), (b, jb)| a.waited_ms.cmp(&b.waited_ms).then(ja.total_cmp(jb)))
            .map(|(e, _)| e.id)
    };
    let bound_ms = wait_bound_secs.saturating_mul(1000);
    let over: Vec<(&Entrant<P>, f64)> =
        free.iter().copied().filter(|(e, _)| e.waited_ms > bound_ms).collect();
    let placing: Vec<(&Entrant<P>, f64)> =
        free.iter().copied().filter(|(e, _)| e.placement_left > 0).collect();
    let (anchor, reason) = if let Some(a) = longest_wait(&over) {
        (a, Reason::WaitBound)
    } else if let Some((a, _)) = placing.iter().max_by(|(a, ja), (b, jb)| {
        a.placement_left.cmp(&b.placement_left).then(a.waited_ms.cmp(&b.waited_ms)).then(ja.total_cmp(jb))
    }) {
        (a.id, Reason::Placement)
    } else {
        (longest_wait(&free)?, Reason::Rotation)
    };
    let (a, _) = free.iter().find(|(e, _)| e.id == anchor)?;
    let opponent = free
        .iter()
        .filter(|(e, _)| e.id != anchor)
        .map(|(b, j)| (priority(a, b, pairs.get(a.id, b.id)) * (1.0 + 1e-6 * j), b.id))
        .max_by(|x, y| x.0.total_cmp(&y.0))?
        .1;
    Some(Pairing { anchor, opponent, reason })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entrant(id: i64, rating: f64) -> Entrant<i64> {
        Entrant { id, rating, placement_left: 0, waited_ms: 0 }
    }

    fn no_jitter() -> impl FnMut() -> f64 {
        || 0.0
    }

    #[test]
    fn needs_two_free_entrants() {
        let e = [entrant(1, 1500.0), entrant(2, 1500.0)];
        let busy: HashSet<i64> = [2].into();
        assert_eq!(choose(&e, &PairCounts::default(), &busy, 300, &mut no_jitter()), None);
        assert!(choose(&e, &PairCounts::default(), &HashSet::new(), 300, &mut no_jitter()).is_some());
    }

    #[test]
    fn close_ratings_are_preferred_so_the_top_meet() {
        let mut e = vec![entrant(1, 2000.0), entrant(2, 1990.0), entrant(3, 1500.0), entrant(4, 1000.0)];
        e[0].waited_ms = 10;
        let p = choose(&e, &PairCounts::default(), &HashSet::new(), 300, &mut no_jitter()).expect("pair");
        assert_eq!((p.anchor, p.opponent, p.reason), (1, 2, Reason::Rotation));
    }

    #[test]
    fn placement_comes_first_and_then_the_wait_bound_beats_it() {
        let mut e = vec![entrant(1, 1500.0), entrant(2, 1500.0), entrant(3, 1500.0)];
        e[2].placement_left = 4;
        e[0].waited_ms = 100;
        let p = choose(&e, &PairCounts::default(), &HashSet::new(), 300, &mut no_jitter()).expect("pair");
        assert_eq!((p.anchor, p.reason), (3, Reason::Placement));
        e[1].waited_ms = 301_000;
        let p = choose(&e, &PairCounts::default(), &HashSet::new(), 300, &mut no_jitter()).expect("pair");
        assert_eq!((p.anchor, p.reason), (2, Reason::WaitBound));
    }

    #[test]
    fn pairs_that_met_often_give_way() {
        let mut e = vec![entrant(1, 1500.0), entrant(2, 1510.0), entrant(3, 1700.0)];
        e[0].waited_ms = 5;
        let mut pairs = PairCounts::default();
        let p = choose(&e, &pairs, &HashSet::new(), 300, &mut no_jitter()).expect("pair");
        assert_eq!(p.opponent, 2, "the closest rating first");
        pairs.add(2, 1, 2);
        let p = choose(&e, &pairs, &HashSet::new(), 300, &mut no_jitter()).expect("pair");
        assert_eq!(p.opponent, 3, "after a pair of games the 200 Elo gap tells more");
        pairs.add(1, 3, 2);
        let p = choose(&e, &pairs, &HashSet::new(), 300, &mut no_jitter()).expect("pair");
        assert_eq!(p.opponent, 2, "and then back");
    }

    /// Simulates schedules one after the other (one slot): every version is in a
    /// pair at least once every N − 1 schedules, and every pair keeps meeting.
    #[test]
    fn nobody_waits_more_than_n_minus_1_schedules_and_every_pair_meets() {
        let n = 12usize;
        let mut e: Vec<Entrant<i64>> = (0..n).map(|i| entrant(i as i64, 1000.0 + 100.0 * i as f64)).collect();
        let mut pairs = PairCounts::default();
        let mut last_seen = vec![0usize; n];
        let mut worst_gap = 0usize;
        let mut seed = 12345u64;
        let mut jitter = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for step in 1..=3000usize {
            let p = choose(&e, &pairs, &HashSet::new(), u64::MAX, &mut jitter).expect("pair");
            pairs.add(p.anchor, p.opponent, 2);
            for x in &mut e {
                x.waited_ms += 1;
            }
            for id in [p.anchor, p.opponent] {
                let i = id as usize;
                worst_gap = worst_gap.max(step - last_seen[i]);
                last_seen[i] = step;
                e[i].waited_ms = 0;
            }
        }
        assert!(worst_gap < n, "a version waited {worst_gap} schedules with {n} versions");
        for a in 0..n as i64 {
            for b in (a + 1)..n as i64 {
                assert!(pairs.get(a, b) > 0, "{a} and {b} never met (ratings {} apart)", 100 * (b - a));
            }
        }
        // Neighbours meet more often than the extremes.
        assert!(pairs.get(5, 6) > pairs.get(0, 11));
    }
    /// A discrete-event simulation of the game loop: `slots` pairs at a time,
    /// each pair of games lasting a random time, versions busy while they play.
    /// Returns the games per pair after `pairs_to_play` pairs.
    fn simulate(ratings: &[f64], slots: usize, pairs_to_play: usize, seed: u64) -> PairCounts<i64> {
        let mut rng = seed;
        let mut next = move || {
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (rng >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut e: Vec<Entrant<i64>> =
            ratings.iter().enumerate().map(|(i, &r)| entrant(i as i64, r)).collect();
        let mut last_start = vec![0u64; e.len()];
        let mut pairs = PairCounts::default();
        // (end time, a, b)
        let mut running: Vec<(u64, i64, i64)> = Vec::new();
        let (mut now, mut started) = (0u64, 0usize);
        while started < pairs_to_play || !running.is_empty() {
            let busy: HashSet<i64> = running.iter().flat_map(|&(_, a, b)| [a, b]).collect();
            if running.len() < slots && started < pairs_to_play {
                for x in &mut e {
                    x.waited_ms = now - last_start[x.id as usize];
                }
                if let Some(p) = choose(&e, &pairs, &busy, 300, &mut next) {
                    // A pair of games lasts 20 ms to 2 s.
                    let length = 20 + (next() * 1980.0) as u64;
                    running.push((now + length, p.anchor, p.opponent));
                    last_start[p.anchor as usize] = now;
                    last_start[p.opponent as usize] = now;
                    started += 1;
                    continue;
                }
            }
            running.sort_by_key(|r| r.0);
            let (end, a, b) = running.remove(0);
            now = end;
            pairs.add(a, b, 2);
        }
        pairs
    }

    fn spread(pairs: &PairCounts<i64>, n: i64) -> (u32, u32) {
        let counts: Vec<u32> =
            (0..n).flat_map(|a| ((a + 1)..n).map(move |b| (a, b))).map(|(a, b)| pairs.get(a, b)).collect();
        (counts.iter().copied().min().unwrap_or(0), counts.iter().copied().max().unwrap_or(0))
    }

    /// Five versions of very different strength (400 Elo apart), two pairs at a
    /// time, 200 games: every pair within the documented factor of the others,
    /// and the neighbours meet more often than the extremes. Over many seeds.
    #[test]
    fn five_far_apart_versions_spread_their_games_within_the_bound() {
        let ratings = [2300.0, 1900.0, 1500.0, 1100.0, 700.0];
        let (mut neighbours, mut extremes, mut worst) = (0, 0, 0.0f64);
        for seed in 1..=50u64 {
            for slots in [1, 2] {
                let pairs = simulate(&ratings, slots, 100, seed);
                let (min, max) = spread(&pairs, 5);
                assert!(min > 0, "seed {seed}, {slots} slots: a pair never met");
                worst = worst.max(f64::from(max) / f64::from(min));
                assert!(
                    f64::from(max) <= FAIRNESS_BOUND * f64::from(min),
                    "seed {seed}, {slots} slots: {max} games against {min}"
                );
                neighbours += pairs.get(0, 1) + pairs.get(3, 4);
                extremes += pairs.get(0, 4) + pairs.get(1, 4);
            }
        }
        eprintln!("worst ratio {worst:.2}; neighbours {neighbours} games, far pairs {extremes}");
        assert!(
            f64::from(neighbours) > 1.3 * f64::from(extremes),
            "neighbours {neighbours}, far pairs {extremes}"
        );
    }

    /// The same over a long run with twelve versions: the ratio tends to the weights'.
    #[test]
    fn a_long_run_keeps_every_pair_within_the_weights_ratio() {
        let ratings: Vec<f64> = (0..12).map(|i| 800.0 + 150.0 * f64::from(i)).collect();
        let pairs = simulate(&ratings, 3, 6000, 7);
        let (min, max) = spread(&pairs, 12);
        let ratio = f64::from(max) / f64::from(min);
        eprintln!("12 versions, 12,000 games: {min} to {max} games per pair, ratio {ratio:.2}");
        assert!(ratio <= SPREAD * 1.2, "{max} games against {min}: ratio {ratio:.2}");
        assert!(pairs.get(5, 6) as f64 > 1.5 * pairs.get(0, 11) as f64, "close ratings meet more often");
    }
}
