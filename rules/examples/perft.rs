//! Prints perft figures from both start positions, one CSV line per depth,
//! with the time each took: `cargo run --release -p bao-rules --example perft -- [MAX_DEPTH]`.
//!
//! This is how `tests/data/perft.csv` was produced (the figures come from this
//! engine; there is no independent source).

use std::time::Instant;

use bao_rules::{Position, Variant, perft};

fn main() {
    let max_depth: u32 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(6);
    println!("variant,position,depth,count");
    for variant in [Variant::Kiswahili, Variant::Kujifunza] {
        let start = Position::start(variant);
        for depth in 1..=max_depth {
            let started = Instant::now();
            let count = perft(&start, depth);
            println!("{variant},{start},{depth},{count}");
            eprintln!("{variant} depth {depth}: {count} in {:.3} s", started.elapsed().as_secs_f64());
        }
    }
}
