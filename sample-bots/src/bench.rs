//! `--bench`: search speed on fixed positions (nodes per second, time to depth).

use std::time::Instant;

use bao_rules::{Position, Variant};

use crate::alphabeta::bot::TABLE_BITS;
use crate::alphabeta::search::{Limits, Searcher};

/// A Kiswahili mtaji middle game, 32 seeds each (game 3, ply 52 of rules/tests/data/random-kiswahili.jsonl).
pub const MTAJI_MIDDLE_GAME: &str =
    "kiswahili S 0,1,2,8,1,0,1,0/1,2,0,2,1,4,5,4/1,1,0,2,2,2,2,4/2,0,1,3,1,5,1,5 0,0 -- -";

/// One row of the benchmark: a position searched to a depth from empty tables.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchRow {
    /// Which position.
    pub name: &'static str,
    /// The depth.
    pub depth: u32,
    /// Nodes searched (all iterations up to `depth`).
    pub nodes: u64,
    /// Seconds taken (wall clock, median of the runs).
    pub seconds: f64,
    /// CPU seconds of this thread (median of the runs): what a shared, loaded machine
    /// cannot take away.
    pub cpu_seconds: f64,
    /// The best move found, and its score.
    pub best: Option<(bao_rules::Move, i32)>,
}

impl BenchRow {
    /// Nodes per second of wall-clock time.
    #[must_use]
    pub fn nodes_per_second(&self) -> f64 {
        self.nodes as f64 / self.seconds.max(1e-9)
    }

    /// Nodes per second of CPU time.
    #[must_use]
    pub fn nodes_per_cpu_second(&self) -> f64 {
        self.nodes as f64 / self.cpu_seconds.max(1e-9)
    }
}

/// The benchmark positions: the Kiswahili start and [`MTAJI_MIDDLE_GAME`].
#[must_use]
pub fn positions() -> Vec<(&'static str, Position)> {
    let middle = MTAJI_MIDDLE_GAME.parse().unwrap_or_else(|_| Position::start(Variant::Kujifunza));
    vec![("kiswahili start", Position::start(Variant::Kiswahili)), ("mtaji middle game", middle)]
}

/// How many times each search is run; the median time is reported.
pub const REPEATS: usize = 5;

/// Searches each position to each depth up to `max_depth` with fresh tables (time to
/// depth), [`REPEATS`] times each; the rows hold the median time (the node counts and
/// moves are the same every time: the search is deterministic).
#[must_use]
pub fn run(max_depth: u32) -> Vec<BenchRow> {
    let mut rows = Vec::new();
    let mut searcher = Searcher::new(TABLE_BITS, crate::weights::TUNED);
    for (name, position) in positions() {
        for depth in 1..=max_depth {
            let mut times = Vec::with_capacity(REPEATS);
            let mut cpu_times = Vec::with_capacity(REPEATS);
            let mut last = None;
            for _ in 0..REPEATS {
                searcher.clear();
                let start = Instant::now();
                let cpu_start = thread_cpu_seconds();
                let result = searcher.search(&position, Limits::depth(depth), |_| {}, |_| true);
                cpu_times.push(thread_cpu_seconds() - cpu_start);
                times.push(start.elapsed().as_secs_f64());
                last = Some((searcher.nodes(), result.map(|i| (i.best, i.score))));
            }
            times.sort_by(f64::total_cmp);
            cpu_times.sort_by(f64::total_cmp);
            let (nodes, best) = last.unwrap_or((0, None));
            let (seconds, cpu_seconds) = (times[REPEATS / 2], cpu_times[REPEATS / 2]);
            rows.push(BenchRow { name, depth, nodes, seconds, cpu_seconds, best });
        }
    }
    rows
}

/// This thread's CPU time in seconds (0 if the clock cannot be read).
fn thread_cpu_seconds() -> f64 {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .map_or(0.0, |t| t.tv_sec() as f64 + t.tv_nsec() as f64 * 1e-9)
}

/// The rows as a table.
#[must_use]
pub fn table(rows: &[BenchRow]) -> String {
    let mut out =
        String::from("position            depth        nodes     time_ms     nodes/s  best   score\n");
    for r in rows {
        out.push_str(&format!(
            "{:<19} {:>5} {:>12} {:>11.1} {:>11.0} {:>11.1} {:>12.0}  {:<5} {:>7}\n",
            r.name,
            r.depth,
            r.nodes,
            r.seconds * 1000.0,
            r.nodes_per_second(),
            r.cpu_seconds * 1000.0,
            r.nodes_per_cpu_second(),
            r.best.map_or("-".to_owned(), |b| b.0.to_string()),
            r.best.map_or(0, |b| b.1)
        ));
    }
    out
}
