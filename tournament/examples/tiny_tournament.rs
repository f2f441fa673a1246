//! A tiny tournament run as a library, without the command line: two bots (this program
//! itself, re-run as the random and the greedy sample bot) play two games, colours swapped, in
//! a folder of their own; the results are printed as `bao-referee tournament` prints them.
//!
//! `cargo run -p bao-tournament --example tiny_tournament [-- OUT_DIR]` (default: a new
//! folder under the system's temporary directory, removed at the end). `cargo test -p
//! bao-tournament` builds and runs it too (`tests/tiny_tournament.rs`), and fails unless both
//! games were played, counted and verified.

use std::path::PathBuf;
use std::process::ExitCode;

use bao_sample_bots::{GameSeed, GreedyBot, RandomBot, cli};
use bao_supervise::BotSpec;
use bao_tournament::folder::OutDir;
use bao_tournament::plan::Plan;
use bao_tournament::schedule::Mode;
use bao_tournament::{RunOptions, Tournament};

/// Runs the tournament, or one of its bots (`--bot random|greedy`).
pub fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    match args.next() {
        // Run by the tournament as one of its bots.
        Some(flag) if flag == "--bot" => match args.next().as_deref() {
            Some("greedy") => cli::serve("greedy", GreedyBot::default()),
            _ => cli::serve("random", RandomBot::new(GameSeed::new(Some(7)))),
        },
        out => play_in(out.filter(|a| !a.starts_with('-')).map(PathBuf::from)),
    }
}

/// Plays the tournament in `out` (or a new temporary folder, removed after) and says how it
/// went.
pub fn play_in(out: Option<PathBuf>) -> ExitCode {
    match run(out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tiny_tournament: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Plays the tournament in `out` (or a new temporary folder) and checks its results.
fn run(out: Option<PathBuf>) -> Result<(), Box<dyn std::error::Error>> {
    let exe = std::env::current_exe()?.display().to_string();
    let bot = |kind: &str| BotSpec {
        name: Some(kind.to_owned()),
        program: exe.clone(),
        args: vec!["--bot".to_owned(), kind.to_owned()],
        dir: None,
    };
    // One round of two games: each bot plays South once.
    let mut plan = Plan::new(vec![bot("random"), bot("greedy")], Mode::RoundRobin, 1, 2)?;
    plan.max_plies = Some(200);
    let temporary = out.is_none();
    let out = out
        .unwrap_or_else(|| std::env::temp_dir().join(format!("bao-tiny-tournament-{}", std::process::id())));
    let finished = Tournament::open(OutDir::new(&out), Some(plan))
        .and_then(|tournament| tournament.play(RunOptions { concurrency: Some(1), ..RunOptions::default() }));
    if temporary {
        let _ = std::fs::remove_dir_all(&out);
    }
    let finished = finished?;
    print!("{}", bao_tournament::results::render(&finished.results));
    if !temporary {
        println!("Folder: {}", out.display());
    }
    if let Some(error) = finished.report.error {
        return Err(error.into());
    }
    let results = &finished.results;
    if !results.complete || results.games_counted != 2 || !results.unverified.is_empty() {
        return Err(format!(
            "expected 2 games counted and verified: {} counted, complete {}, unverified {:?}",
            results.games_counted, results.complete, results.unverified
        )
        .into());
    }
    Ok(())
}
