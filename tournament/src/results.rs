//! The statistics of a tournament, computed from the running counts of its
//! journal ([`Tally`]: a resumed run and a merge of shards use the same code,
//! and no journal entry is held): per pairing and per bot,
//! wins/losses/draws, score, Elo with a 95% interval, LOS, pentanomial
//! counts of game pairs, and the SPRT; written to `results.json`.
//!
//! Draws come only from adjudication (`max_plies`) or from both bots failing
//! at once; an aborted game does not count.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::plan::Plan;
use crate::schedule::Mode;
use crate::shard::Shard;
use crate::tally::Tally;
use bao_stats::{PairingSummary, SprtSummary};

/// The version of the results format. Version 2: `missing` is ranges, with a count
/// ([`MissingGames`]), instead of every game number.
pub const RESULTS_VERSION: u32 = 2;

/// The most ranges [`MissingGames`] lists (its count is always exact).
pub const MAX_MISSING_RANGES: usize = 1_000;

/// The planned games not counted yet, compact: a range `[a, b]` is every game of this folder's
/// schedule (its shard's, for a shard) numbered `a` to `b`, all missing; the first
/// [`MAX_MISSING_RANGES`] ranges are listed, the rest only counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MissingGames {
    /// Games missing in all.
    pub count: u64,
    /// The first ranges, in game order, `[first, last]` (inclusive).
    pub ranges: Vec<[u32; 2]>,
    /// Ranges past [`MAX_MISSING_RANGES`], not listed.
    pub ranges_left_off: u64,
}

impl MissingGames {
    /// Whether no game is missing.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Adds the next game of the schedule, in order: missing or not.
    fn next_game(&mut self, game: u32, missing: bool, in_a_range: &mut bool) {
        if !missing {
            *in_a_range = false;
            return;
        }
        self.count += 1;
        if !*in_a_range {
            if self.ranges.len() < MAX_MISSING_RANGES {
                self.ranges.push([game, game]);
            } else {
                self.ranges_left_off += 1;
            }
        } else if self.ranges_left_off == 0
            && let Some(last) = self.ranges.last_mut()
        {
            last[1] = game;
        }
        *in_a_range = true;
    }

    /// The ranges as text for people: `0-5, 8, 10-11`, and how many more there are.
    #[must_use]
    pub fn text(&self) -> String {
        let mut parts: Vec<String> = self
            .ranges
            .iter()
            .map(|&[a, b]| if a == b { a.to_string() } else { format!("{a}-{b}") })
            .collect();
        if self.ranges_left_off > 0 {
            parts.push(format!("and {} more range(s)", self.ranges_left_off));
        }
        parts.join(", ")
    }
}

/// `results.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// [`RESULTS_VERSION`].
    pub results_version: u32,
    /// Round-robin or gauntlet.
    pub mode: Mode,
    /// The bots' names, in plan order.
    pub bots: Vec<String>,
    /// The shard these results cover, `None` for the whole schedule.
    pub shard: Option<Shard>,
    /// Games this folder plays (its shard of the schedule).
    pub games_planned: u64,
    /// Games played to an end and counted.
    pub games_counted: u64,
    /// Games aborted by Ctrl-C (not counted; played again on resume).
    pub games_aborted: u64,
    /// Whether every planned game is counted.
    pub complete: bool,
    /// Planned games not counted yet: a count and ranges.
    pub missing: MissingGames,
    /// Games counted more than once (only a merge of overlapping folders has any).
    pub duplicates: Vec<u32>,
    /// Counted games whose log did not verify.
    pub unverified: Vec<u32>,
    /// How the counted games ended, by reason.
    pub reasons: BTreeMap<String, u64>,
    /// Every pairing, from its first bot's perspective.
    pub pairings: Vec<PairingResult>,
    /// Every bot against the field, best score first.
    pub standings: Vec<Standing>,
    /// The SPRT (two-bot tournaments with `--sprt`).
    pub sprt: Option<SprtSummary>,
    /// The worst event-loop lag of the referee, in milliseconds: during any journaled game, or
    /// in this run. Moves late by no more than the lag at the time were excused (see docs/tournament.md).
    pub worst_lag_ms: f64,
    /// The game during which it was seen, when it was measured in a game.
    pub worst_lag_game: Option<u32>,
}

/// One pairing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairingResult {
    /// The first bot (the gauntlet's challenger, or the earlier bot of a round-robin).
    pub first: String,
    /// The second bot.
    pub second: String,
    /// The first bot's points.
    pub first_points: f64,
    /// The second bot's points.
    pub second_points: f64,
    /// Every figure, from the first bot's perspective.
    pub stats: PairingSummary,
}

/// One bot against the field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    /// The bot.
    pub name: String,
    /// Its points (a win 1, a draw ½).
    pub score: f64,
    /// Every figure, against the average of its opponents.
    pub stats: PairingSummary,
}

/// The results of `plan` from the running counts of its journal; `worst_lag_this_run` is the
/// lag monitor's figure for the run that just ended, if any.
#[must_use]
pub fn compute(plan: &Plan, tally: &Tally, worst_lag_this_run: Option<Duration>) -> Results {
    let mut planned = 0u64;
    let mut missing = MissingGames::default();
    let mut in_a_range = false;
    for game in plan.games_to_play() {
        planned += 1;
        missing.next_game(game.game, !tally.is_counted(game.game), &mut in_a_range);
    }
    let pairings: Vec<PairingResult> = plan
        .schedule()
        .map(|s| s.pairings().to_vec())
        .unwrap_or_default()
        .into_iter()
        .map(|(a, b)| {
            let counts = tally.between(a, b);
            let stats = PairingSummary::new(counts.wdl, Some(counts.pairs), plan.sprt.as_ref());
            PairingResult {
                first: plan.bot_name(a),
                second: plan.bot_name(b),
                first_points: stats.wdl.points(),
                second_points: stats.wdl.reversed().points(),
                stats,
            }
        })
        .collect();
    let mut standings: Vec<Standing> = (0..plan.bots.len())
        .map(|bot| {
            let counts = tally.of_bot(bot);
            Standing {
                name: plan.bot_name(bot),
                score: counts.wdl.points(),
                stats: PairingSummary::new(counts.wdl, Some(counts.pairs), None),
            }
        })
        .collect();
    standings.sort_by(|x, y| y.score.total_cmp(&x.score).then_with(|| x.name.cmp(&y.name)));
    let worst_game = tally.worst_lag();
    let in_games = worst_game.map_or(Duration::ZERO, |(lag, _)| Duration::from_micros(lag));
    let worst_lag = in_games.max(worst_lag_this_run.unwrap_or_default());
    Results {
        results_version: RESULTS_VERSION,
        mode: plan.mode,
        bots: (0..plan.bots.len()).map(|i| plan.bot_name(i)).collect(),
        shard: plan.shard,
        games_planned: planned,
        games_counted: tally.counted().len(),
        games_aborted: tally.aborted(),
        complete: missing.is_empty(),
        missing,
        duplicates: tally.duplicates().to_vec(),
        unverified: tally.unverified(),
        reasons: tally.reasons().clone(),
        sprt: if plan.bots.len() == 2 { pairings.first().and_then(|p| p.stats.sprt) } else { None },
        pairings,
        standings,
        worst_lag_ms: worst_lag.as_secs_f64() * 1000.0,
        worst_lag_game: worst_game.filter(|_| in_games >= worst_lag).map(|(_, game)| game),
    }
}

/// `+35.2 ± 80.1` (pentanomial figures when there are complete pairs) when both bounds of the
/// 95% interval are finite; otherwise the bounds themselves, as in `+190.8 [+24.1, +inf]`
/// (the same figures as results.json, where an infinite bound is `null`).
pub(crate) fn elo_text(stats: &PairingSummary) -> String {
    let Some(figures) = stats.pentanomial_estimate.or(stats.trinomial) else { return "-".to_owned() };
    // Adding 0.0 turns a negative zero into zero.
    let number = |x: f64| format!("{:+.1}", x + 0.0);
    let estimate = match (figures.elo.estimate, stats.score) {
        (Some(elo), _) => number(elo),
        (None, Some(score)) if score > 0.5 => "+inf".to_owned(),
        (None, _) => "-inf".to_owned(),
    };
    let elo = figures.elo;
    match (elo.lower, elo.upper, elo.error) {
        (Some(_), Some(_), Some(error)) => format!("{estimate} ± {error:.1}"),
        (lower, upper, _) => format!(
            "{estimate} [{}, {}]",
            lower.map_or_else(|| "-inf".to_owned(), number),
            upper.map_or_else(|| "+inf".to_owned(), number)
        ),
    }
}

fn los_text(stats: &PairingSummary) -> String {
    stats
        .pentanomial_estimate
        .or(stats.trinomial)
        .and_then(|f| f.los)
        .map_or_else(|| "-".to_owned(), |l| format!("{:.1}%", l * 100.0))
}

/// Game numbers as ranges: `0-5, 8, 10-11`.
#[must_use]
pub fn list_games(games: &[u32]) -> String {
    let mut sorted = games.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        parts.push(if i == j { sorted[i].to_string() } else { format!("{}-{}", sorted[i], sorted[j]) });
        i = j + 1;
    }
    parts.join(", ")
}

/// The results as text for people.
#[must_use]
pub fn render(results: &Results) -> String {
    let mut out = String::new();
    let shard = results.shard.map(|s| format!(", shard {s}")).unwrap_or_default();
    let sprt_decided = results.sprt.is_some_and(|s| s.decision != bao_stats::SprtDecision::Continue);
    let state = match (results.complete, sprt_decided) {
        (true, _) => "complete".to_owned(),
        (false, true) => format!("stopped by the SPRT, {} not played", results.missing.count),
        (false, false) => format!("{} missing", results.missing.count),
    };
    let _ = writeln!(
        out,
        "{} of {} games ({state}{shard}), {} aborted",
        results.games_counted, results.games_planned, results.games_aborted
    );
    let width = results.bots.iter().map(String::len).max().unwrap_or(4).max(4);
    let _ = writeln!(
        out,
        "\n{:<w$}   {:<w$}  {:>5} {:>5} {:>5}  {:>6}  {:>22}  {:>6}  pairs [0, ½, 1, 1½, 2]",
        "bot",
        "vs",
        "W",
        "L",
        "D",
        "score",
        "Elo (95%)",
        "LOS",
        w = width
    );
    for p in &results.pairings {
        let s = &p.stats;
        let score = s.score.map_or_else(|| "-".to_owned(), |x| format!("{:.1}%", x * 100.0));
        let pairs = s.pentanomial.map_or_else(|| "-".to_owned(), |c| format!("{:?}", c.by_score()));
        let _ = writeln!(
            out,
            "{:<w$} - {:<w$}  {:>5} {:>5} {:>5}  {:>6}  {:>22}  {:>6}  {pairs}",
            p.first,
            p.second,
            s.wdl.wins,
            s.wdl.losses,
            s.wdl.draws,
            score,
            elo_text(s),
            los_text(s),
            w = width
        );
    }
    if results.bots.len() > 2 {
        let _ = writeln!(out, "\nStandings (against the field):");
        for (rank, s) in results.standings.iter().enumerate() {
            let _ = writeln!(
                out,
                "{:>3}. {:<w$}  {:>6} / {:<5}  Elo {:>22}  LOS {}",
                rank + 1,
                s.name,
                s.score,
                s.stats.games,
                elo_text(&s.stats),
                los_text(&s.stats),
                w = width
            );
        }
    }
    if let Some(sprt) = &results.sprt {
        let llr = sprt.llr.map_or_else(|| "?".to_owned(), |l| format!("{l:.2}"));
        let _ = writeln!(
            out,
            "\nSPRT elo0={} elo1={} alpha={} beta={} ({:?}): LLR {llr}, bounds ({:.2}, {:.2}): {:?}",
            sprt.elo0,
            sprt.elo1,
            sprt.alpha,
            sprt.beta,
            sprt.model,
            sprt.lower_bound,
            sprt.upper_bound,
            sprt.decision
        );
    }
    let reasons: Vec<String> = results.reasons.iter().map(|(r, n)| format!("{r} {n}")).collect();
    let _ =
        writeln!(out, "\nEndings: {}", if reasons.is_empty() { "-".to_owned() } else { reasons.join(", ") });
    let lag_game = results.worst_lag_game.map(|g| format!(" (game {g})")).unwrap_or_default();
    let _ = writeln!(out, "Worst referee lag: {:.1} ms{lag_game}", results.worst_lag_ms);
    if !results.unverified.is_empty() {
        let _ = writeln!(out, "LOGS THAT DO NOT VERIFY: games {}", list_games(&results.unverified));
    }
    if !results.duplicates.is_empty() {
        let _ = writeln!(out, "Duplicate games: {}", list_games(&results.duplicates));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_infinite_bound_is_printed_as_a_bound() {
        let lopsided = PairingSummary::new(WdlCounts::new(9, 1, 0), None, None);
        let text = elo_text(&lopsided);
        assert!(text.contains(", +inf]") && text.starts_with('+') && !text.contains('±'), "{text}");
        let all_lost = PairingSummary::new(WdlCounts::new(0, 4, 0), None, None);
        assert!(elo_text(&all_lost).starts_with("-inf [-inf, "), "{}", elo_text(&all_lost));
        let even = PairingSummary::new(WdlCounts::new(5, 5, 2), None, None);
        assert!(elo_text(&even).starts_with("+0.0 ± "), "{}", elo_text(&even));
    }
    use crate::journal::JournalEntry;
    use crate::journal::tests::entry;
    use crate::plan::tests::sample_plan;
    use bao_game::Reason;
    use bao_rules::Side::{North, South};
    use bao_stats::WdlCounts;

    /// Games 0-3 of the sample plan: pairing 0 (bots 0 and 1), two pairs.
    fn four_games() -> Vec<JournalEntry> {
        vec![
            entry(0, 0, 1, Some(South), Reason::FrontRowEmpty), // bot 0 wins
            entry(1, 1, 0, Some(South), Reason::NoLegalMoves),  // bot 1 wins: pair 0 scores 1 for bot 0
            entry(2, 0, 1, None, Reason::MaxPlies),             // draw
            entry(3, 1, 0, Some(North), Reason::Timeout),       // bot 0 wins: pair 1 scores 1.5
        ]
    }

    fn tally(entries: &[JournalEntry]) -> Tally {
        Tally::of(vec!["a".into(), "b".into(), "c".into()], entries)
    }

    #[test]
    fn a_pairing_counts_games_and_pairs_from_the_first_bot() {
        let results = compute(&sample_plan(), &tally(&four_games()), None);
        let stats = &results.pairings[0].stats;
        assert_eq!((results.pairings[0].first.as_str(), results.pairings[0].second.as_str()), ("a", "b"));
        assert_eq!(stats.wdl, WdlCounts::new(2, 1, 1));
        assert_eq!(stats.pentanomial.unwrap().by_score(), [0, 0, 1, 1, 0]);
        assert_eq!(stats.score, Some(0.625));
        let b = results.standings.iter().find(|s| s.name == "b").unwrap();
        assert_eq!(b.stats.wdl, WdlCounts::new(1, 2, 1));
        assert_eq!(b.stats.pentanomial.unwrap().by_score(), [0, 1, 1, 0, 0]);
    }

    #[test]
    fn aborted_and_duplicate_games_do_not_count_twice() {
        let mut entries = four_games();
        entries.push(entry(4, 0, 2, None, Reason::Aborted));
        entries.push(entries[0].clone());
        let mut unverified = entry(5, 2, 0, Some(South), Reason::FrontRowEmpty);
        unverified.verified = false;
        entries.push(unverified);
        let results = compute(&sample_plan(), &tally(&entries), None);
        assert_eq!(results.games_planned, 12);
        assert_eq!(results.games_counted, 5);
        assert_eq!(results.games_aborted, 1);
        assert_eq!(results.duplicates, vec![0]);
        assert_eq!(results.unverified, vec![5]);
        assert_eq!(
            results.missing,
            MissingGames { count: 7, ranges: vec![[4, 4], [6, 11]], ranges_left_off: 0 }
        );
        assert_eq!(results.missing.text(), "4, 6-11");
        assert!(!results.complete);
        assert_eq!(results.reasons["front_row_empty"], 2);
        assert_eq!(results.pairings.len(), 3);
        assert_eq!((results.pairings[0].first_points, results.pairings[0].second_points), (2.5, 1.5));
        assert_eq!(results.pairings[2].stats.games, 0);
        assert_eq!(results.pairings[1].stats.wdl, WdlCounts::new(0, 1, 0));
        assert_eq!(results.standings[0].name, "a");
        assert_eq!(results.standings[0].score, 2.5);
        let total: f64 = results.standings.iter().map(|s| s.score).sum();
        assert_eq!(total, 5.0);
    }

    #[test]
    fn an_incomplete_pair_counts_in_wdl_only() {
        let results = compute(&sample_plan(), &tally(&four_games()[..3]), None);
        let stats = &results.pairings[0].stats;
        assert_eq!(stats.wdl.games(), 3);
        assert_eq!(stats.pentanomial.unwrap().pairs(), 1);
    }

    #[test]
    fn the_worst_lag_names_its_game() {
        let mut entries = four_games();
        entries[2].worst_lag_us = 12_500;
        let results = compute(&sample_plan(), &tally(&entries), Some(Duration::from_millis(3)));
        assert_eq!(results.worst_lag_ms, 12.5);
        assert_eq!(results.worst_lag_game, Some(2));
        let results = compute(&sample_plan(), &tally(&entries), Some(Duration::from_millis(20)));
        assert_eq!(results.worst_lag_ms, 20.0);
        assert_eq!(results.worst_lag_game, None);
    }

    #[test]
    fn missing_games_are_ranges_and_bounded() {
        let mut missing = MissingGames::default();
        let mut in_a_range = false;
        // Every other game missing: one range each, past the cap only counted.
        let games = 2 * (MAX_MISSING_RANGES as u32 + 10);
        for game in 0..games {
            missing.next_game(game, game % 2 == 0, &mut in_a_range);
        }
        assert_eq!(missing.count, u64::from(games / 2));
        assert_eq!(missing.ranges.len(), MAX_MISSING_RANGES);
        assert_eq!(missing.ranges[1], [2, 2]);
        assert_eq!(missing.ranges_left_off, 10);
        assert!(missing.text().ends_with(", and 10 more range(s)"), "{}", missing.text());
        // A run of the schedule's games is one range even where the numbers jump (a shard).
        let mut shard = MissingGames::default();
        let mut in_a_range = false;
        for (game, is_missing) in [(0, true), (1, true), (4, true), (5, false), (8, true), (9, true)] {
            shard.next_game(game, is_missing, &mut in_a_range);
        }
        assert_eq!(shard, MissingGames { count: 5, ranges: vec![[0, 4], [8, 9]], ranges_left_off: 0 });
        let json = serde_json::to_string(&shard).expect("serialises");
        assert_eq!(json, r#"{"count":5,"ranges":[[0,4],[8,9]],"ranges_left_off":0}"#);
        assert!(MissingGames::default().is_empty());
    }

    #[test]
    fn text_and_game_lists() {
        assert_eq!(list_games(&[11, 0, 1, 2, 5, 10, 2]), "0-2, 5, 10-11");
        let results = compute(&sample_plan(), &tally(&four_games()), None);
        let text = render(&results);
        assert!(text.starts_with("4 of 12 games (8 missing), 0 aborted"), "{text}");
        assert!(text.contains("Standings"), "{text}");
    }
}
