//! Benchmarks of the rules engine: uniformly random play and perft.
//!
//! Run with `cargo bench -p bao-rules --bench rules`. Figures and what limits
//! them are recorded in `docs/benchmarks/rules.md` (summary in BENCHMARKS.md).

use std::hint::black_box;

use bao_rules::{Position, Variant, perft};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Number of whole random games per benchmark iteration.
const GAMES_PER_ITERATION: u64 = 100;

/// Plays `games` uniformly random games from the start of `variant` with a
/// seeded RNG and returns the number of plies played. Each ply lists the legal
/// moves, picks one uniformly and plays it with the checked `play` (which also
/// computes the outcome), as a referee would.
fn random_games(variant: Variant, seed: u64, games: u64) -> u64 {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut plies = 0;
    for _ in 0..games {
        let mut position = Position::start(variant);
        loop {
            let moves = position.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.random_range(0..moves.len())];
            let (next, outcome) = position.play(m).expect("a listed move is legal");
            plies += 1;
            position = next;
            if outcome.is_over() {
                break;
            }
        }
    }
    plies
}

fn random_play(c: &mut Criterion) {
    let mut group = c.benchmark_group("random_play");
    for variant in [Variant::Kiswahili, Variant::Kujifunza] {
        // The plies per iteration are the same in every iteration (same seed),
        // so criterion's throughput is plies per second.
        let plies = random_games(variant, 1, GAMES_PER_ITERATION);
        group.throughput(Throughput::Elements(plies));
        group.bench_function(format!("{variant}_{GAMES_PER_ITERATION}_games_{plies}_plies"), |b| {
            b.iter(|| random_games(black_box(variant), 1, GAMES_PER_ITERATION));
        });
    }
    group.finish();
}

fn perft_fixed_depth(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for (variant, depth) in [(Variant::Kiswahili, 9), (Variant::Kujifunza, 7)] {
        let start = Position::start(variant);
        let nodes = perft(&start, depth);
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(format!("{variant}_depth_{depth}_{nodes}_leaves"), |b| {
            b.iter(|| perft(black_box(&start), depth));
        });
    }
    group.finish();
}

/// Perft at depth 10 from both starts: the figures quoted in BENCHMARKS.md. A
/// separate group so that `-- perft` stays quick. The leaf counts (those of
/// `tests/data/perft.csv`) are checked at every iteration rather than computed
/// beforehand, so that running other groups does not pay for them.
fn deep_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("deep_perft");
    group.sample_size(10);
    for (variant, leaves) in [(Variant::Kiswahili, 495_103), (Variant::Kujifunza, 4_708_780)] {
        let start = Position::start(variant);
        group.throughput(Throughput::Elements(leaves));
        group.bench_function(format!("{variant}_depth_10_{leaves}_leaves"), |b| {
            b.iter(|| assert_eq!(perft(black_box(&start), 10), leaves, "{variant} depth 10"));
        });
    }
    group.finish();
}

/// Listing the legal moves of the position of RULES.md section 9, whose move
/// `A5<` is infinite: the cost of running a move to the 10,000-lap limit.
fn infinite_move(c: &mut Criterion) {
    let position: Position =
        "kujifunza N 1,0,0,0,0,0,0,1/2,1,0,3,0,0,1,1/2,3,10,5,2,1,4,1/7,0,1,2,3,4,3,6 0,0 -- -"
            .parse()
            .expect("valid");
    c.bench_function("legal_moves_with_an_infinite_move", |b| b.iter(|| black_box(&position).legal_moves()));
}

/// The benchmark group, in a private module: `criterion_group!` generates an
/// undocumented `pub fn`, which `missing_docs` accepts only when unreachable.
mod group {
    super::criterion_group!(
        benches,
        super::random_play,
        super::perft_fixed_depth,
        super::deep_perft,
        super::infinite_move
    );
}

criterion_main!(group::benches);
