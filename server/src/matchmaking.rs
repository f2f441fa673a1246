//! Matchmaking: which two versions play the next colour-swapped pair of games.
//!
//! A pure function of the active versions' ratings, uncertainties, game counts
//! and waiting times ([`choose`]). The rules, in order:
//! 1. **Wait bound**: a version that has waited longer than the bound is the
//!    anchor (the longest-waiting first).
//! 2. **Placement**: otherwise a version that still needs placement games is
//!    the anchor (the one that needs most), so a new version plays at once.
//! 3. **Rotation**: otherwise the version that has waited longest is the
//!    anchor. Every schedule resets the anchor's wait, so with N free versions
//!    a version is the anchor within N − 1 schedules: nobody is left out.
//!
//! The anchor's opponent is the one whose pair tells most, scoring each
//! candidate `4p(1 − p) · (1 + u) / (1 + n)`: `p` the expected score (close
//! ratings score high, so the top versions meet each other), `u` the pair's
//! rating variance relative to 200² Elo² (uncertain ratings score higher), and
//! `n` the games the two have already played (pairs that met often score
//! lower, so every pair keeps meeting: a pair's score only falls as it plays).

use std::collections::{HashMap, HashSet};

/// A version that can be scheduled.
#[derive(Debug, Clone, PartialEq)]
pub struct Entrant {
    /// The version's id.
    pub id: i64,
    /// Its rating (Elo scale).
    pub rating: f64,
    /// The rating's standard error (Elo).
    pub sd: f64,
    /// Placement games it still needs.
    pub placement_left: u32,
    /// Seconds since it last started a game (or became active).
    pub waited_secs: u64,
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
pub struct Pairing {
    /// The version chosen first.
    pub anchor: i64,
    /// Its opponent.
    pub opponent: i64,
    /// Why the anchor was chosen.
    pub reason: Reason,
}

/// Games already played between two versions (unordered).
#[derive(Debug, Clone, Default)]
pub struct PairCounts(HashMap<(i64, i64), u32>);

impl PairCounts {
    /// Adds `games` between `a` and `b`.
    pub fn add(&mut self, a: i64, b: i64, games: u32) {
        *self.0.entry((a.min(b), a.max(b))).or_insert(0) += games;
    }

    /// Games between `a` and `b`.
    #[must_use]
    pub fn get(&self, a: i64, b: i64) -> u32 {
        self.0.get(&(a.min(b), a.max(b))).copied().unwrap_or(0)
    }
}

/// How much a game between two versions tells (higher is more).
#[must_use]
pub fn information(a: &Entrant, b: &Entrant, games_between: u32) -> f64 {
    let p = 1.0 / (1.0 + 10f64.powf((b.rating - a.rating) / 400.0));
    let closeness = 4.0 * p * (1.0 - p);
    let uncertainty = ((a.sd.powi(2) + b.sd.powi(2)) / (200.0 * 200.0)).min(4.0);
    closeness * (1.0 + uncertainty) / (1.0 + f64::from(games_between))
}

/// Chooses the next pair among the entrants that are not `busy`; `None` when
/// fewer than two are free. `jitter` breaks ties (a value in [0, 1) per call
/// and entrant index; pass a constant for determinism).
#[must_use]
pub fn choose(
    entrants: &[Entrant],
    pairs: &PairCounts,
    busy: &HashSet<i64>,
    wait_bound_secs: u64,
    jitter: &mut dyn FnMut() -> f64,
) -> Option<Pairing> {
    let free: Vec<&Entrant> = entrants.iter().filter(|e| !busy.contains(&e.id)).collect();
    if free.len() < 2 {
        return None;
    }
    let longest_wait = |list: &[&Entrant]| -> Option<i64> {
        list.iter().max_by(|a, b| a.waited_secs.cmp(&b.waited_secs).then(b.id.cmp(&a.id))).map(|e| e.id)
    };
    let over: Vec<&Entrant> = free.iter().copied().filter(|e| e.waited_secs > wait_bound_secs).collect();
    let placing: Vec<&Entrant> = free.iter().copied().filter(|e| e.placement_left > 0).collect();
    let (anchor, reason) = if let Some(a) = longest_wait(&over) {
        (a, Reason::WaitBound)
    } else if let Some(a) = placing
        .iter()
        .max_by(|a, b| a.placement_left.cmp(&b.placement_left).then(a.waited_secs.cmp(&b.waited_secs)))
    {
        (a.id, Reason::Placement)
    } else {
        (longest_wait(&free)?, Reason::Rotation)
    };
    let a = free.iter().find(|e| e.id == anchor)?;
    let opponent = free
        .iter()
        .filter(|e| e.id != anchor)
        .map(|b| (information(a, b, pairs.get(a.id, b.id)) * (1.0 + 1e-6 * jitter()), b.id))
        .max_by(|x, y| x.0.total_cmp(&y.0))?
        .1;
    Some(Pairing { anchor, opponent, reason })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entrant(id: i64, rating: f64) -> Entrant {
        Entrant { id, rating, sd: 50.0, placement_left: 0, waited_secs: 0 }
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
        e[0].waited_secs = 10;
        let p = choose(&e, &PairCounts::default(), &HashSet::new(), 300, &mut no_jitter()).expect("pair");
        assert_eq!((p.anchor, p.opponent, p.reason), (1, 2, Reason::Rotation));
    }

    #[test]
    fn placement_comes_first_and_then_the_wait_bound_beats_it() {
        let mut e = vec![entrant(1, 1500.0), entrant(2, 1500.0), entrant(3, 1500.0)];
        e[2].placement_left = 4;
        e[0].waited_secs = 100;
        let p = choose(&e, &PairCounts::default(), &HashSet::new(), 300, &mut no_jitter()).expect("pair");
        assert_eq!((p.anchor, p.reason), (3, Reason::Placement));
        e[1].waited_secs = 301;
        let p = choose(&e, &PairCounts::default(), &HashSet::new(), 300, &mut no_jitter()).expect("pair");
        assert_eq!((p.anchor, p.reason), (2, Reason::WaitBound));
    }

    #[test]
    fn pairs_that_met_often_give_way() {
        let mut e = vec![entrant(1, 1500.0), entrant(2, 1510.0), entrant(3, 1700.0)];
        e[0].waited_secs = 5;
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
        let mut e: Vec<Entrant> = (0..n).map(|i| entrant(i as i64, 1000.0 + 100.0 * i as f64)).collect();
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
                x.waited_secs += 1;
            }
            for id in [p.anchor, p.opponent] {
                let i = id as usize;
                worst_gap = worst_gap.max(step - last_seen[i]);
                last_seen[i] = step;
                e[i].waited_secs = 0;
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
}
