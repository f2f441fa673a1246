//! The games the benchmarks play: two instant sample bots, Bao la Kiswahili, clocks so
//! generous that no move can be late.

use std::time::Duration;

use anyhow::Context;
use bao_rules::Variant;

use bao_game::{GameConfig, GameResult, Reason, TimeControl};
use bao_supervise::BotSpec;

/// Draw adjudication after this many plies.
pub const MAX_PLIES: u32 = 1000;

/// Clocks no instant bot can run out of.
#[must_use]
pub fn generous_clocks() -> TimeControl {
    TimeControl {
        base: Some(Duration::from_secs(3600)),
        increment: Duration::from_secs(1),
        move_time: None,
        startup: Duration::from_secs(30),
        margin: Duration::from_secs(1),
    }
}

/// This executable (`bao-bench`): the sample bots, the echo and the re-exec stub are its
/// hidden subcommands.
///
/// # Errors
/// When its path is unknown.
pub fn referee_executable() -> anyhow::Result<std::path::PathBuf> {
    std::env::current_exe().context("cannot find the bao-bench executable")
}

/// The sample bot `kind` with `seed`, run as this executable's hidden `sample-bot` subcommand.
///
/// # Errors
/// When the path of this executable is unknown.
pub fn sample_bot(kind: &str, seed: u64) -> anyhow::Result<BotSpec> {
    let exe = referee_executable()?;
    let args = vec!["sample-bot".to_owned(), kind.to_owned(), "--seed".to_owned(), seed.to_string()];
    Ok(BotSpec { name: Some(format!("sample-{kind}")), program: exe.display().to_string(), args, dir: None })
}

/// Game `index` of a run seeded with `seed`: two random sample bots with seeds derived from
/// both, so that the same `(seed, index)` always gives the same game.
///
/// # Errors
/// When the path of this executable is unknown.
pub fn bench_game(seed: u64, index: u64) -> anyhow::Result<GameConfig> {
    let base = seed.wrapping_add(index.wrapping_mul(2));
    let south = sample_bot("random", base)?;
    let north = sample_bot("random", base.wrapping_add(1))?;
    let mut config = GameConfig::new(south, north, Variant::Kiswahili);
    config.time = generous_clocks();
    config.max_plies = Some(MAX_PLIES);
    config.seed = seed;
    Ok(config)
}

/// Fails unless the game ended by the rules or by adjudication: a verdict against a sample
/// bot, or an interruption, would make the figures meaningless.
///
/// # Errors
/// Names the game and how it ended.
pub fn check_normal_end(index: u64, result: &GameResult) -> anyhow::Result<()> {
    match result.reason {
        Reason::FrontRowEmpty | Reason::NoLegalMoves | Reason::MaxPlies => Ok(()),
        other => anyhow::bail!("game {index} ended abnormally ({}): {}", other.name(), result.detail),
    }
}
