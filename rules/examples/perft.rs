//! Prints perft figures from both start positions, one CSV line per depth (and
//! the time each took on stderr):
//! `cargo run --release -p bao-rules --example perft -- [MAX_DEPTH]`.
//!
//! This is how `tests/data/perft.csv` was produced (the figures come from this
//! engine; there is no independent source). Rows of at most [`TEST_LIMIT`]
//! leaves are marked `test` (checked by `cargo test`), deeper ones `release`
//! (checked only by the ignored test, in a release build).

use std::time::Instant;

use bao_rules::{Position, Variant, perft};

/// The largest count checked in ordinary test runs (about a second each).
const TEST_LIMIT: u64 = 20_000_000;

fn main() {
    let max_depth: u32 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(6);
    println!("variant,position,depth,count,run");
    for variant in [Variant::Kiswahili, Variant::Kujifunza] {
        let start = Position::start(variant);
        for depth in 1..=max_depth {
            let started = Instant::now();
            let count = perft(&start, depth);
            let run = if count <= TEST_LIMIT { "test" } else { "release" };
            println!("{variant},{start},{depth},{count},{run}");
            eprintln!("{variant} depth {depth}: {count} in {:.3} s", started.elapsed().as_secs_f64());
        }
    }
}
