//! `bao-referee bench games`: complete games per second, one after another, between two
//! instant sample bots, process start-up and shutdown included.

use std::time::{Duration, Instant};

use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::RuntimeKind;
use super::machine::Machine;
use super::ply_timer::PlyTimer;
use super::report::{print_json, summary_row};
use super::setup::{self, MAX_PLIES};
use super::stats::Summary;
use bao_game::log::GameLog;
use bao_game::play_game;

/// The arguments of `bao-referee bench games`.
#[derive(Debug, clap::Args)]
pub struct GamesArgs {
    /// Games to play, one after another.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..))]
    pub games: u64,
    /// Seeds the random sample bots (game i uses seed + 2i and seed + 2i + 1).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print one JSON object instead of the text.
    #[arg(long)]
    pub json: bool,
}

/// Everything `bench games` measured.
#[derive(Debug, Clone, Serialize)]
pub struct GamesReport {
    /// The machine.
    pub machine: Machine,
    /// The Tokio runtime the games ran on.
    pub runtime: RuntimeKind,
    /// Games played.
    pub games: u64,
    /// The seed.
    pub seed: u64,
    /// Draw adjudication.
    pub max_plies: u32,
    /// Wall time of all games, seconds.
    pub wall_seconds: f64,
    /// Games per second of wall time.
    pub games_per_second: f64,
    /// Plies played in all.
    pub plies: u64,
    /// Plies per second of wall time (start-up and shutdown included).
    pub plies_per_second: f64,
    /// Games won by South, by North, drawn.
    pub south_wins: u64,
    /// Games won by North.
    pub north_wins: u64,
    /// Games drawn (adjudicated at the ply limit).
    pub draws: u64,
    /// Wall time of each game (spawning, handshake, play, game over, shutdown), µs.
    pub game_time: Summary,
    /// The part of each game's time outside its ply cycles: starting both bots, the
    /// handshake, game over and quit, shutdown, µs.
    pub outside_plies: Summary,
    /// Starting both bots and the handshake: from the call to the header record, µs.
    pub startup: Summary,
    /// From the last ply record to the result record: game over, quit, both exits, µs.
    pub ending: Summary,
    /// The ply cycles of all games, µs.
    pub ply_cycle: Summary,
}

/// Runs the benchmark and prints the report.
///
/// # Errors
/// A game that ends abnormally.
pub fn run(args: &GamesArgs, kind: RuntimeKind, runtime: &tokio::runtime::Runtime) -> anyhow::Result<()> {
    let machine = Machine::current();
    setup::referee_executable()?;
    let cancel = CancellationToken::new();
    let mut times = Vec::new();
    let mut outside_plies = Vec::new();
    let mut startups = Vec::new();
    let mut timer = PlyTimer::default();
    let (mut plies, mut south_wins, mut north_wins, mut draws) = (0u64, 0u64, 0u64, 0u64);
    let started = Instant::now();
    runtime.block_on(async {
        for index in 0..args.games {
            let config = setup::bench_game(args.seed, index)?;
            let cycles_before = timer.cycles.len();
            let game_started = Instant::now();
            let result = play_game(&config, &mut GameLog::discard(), &mut timer, &cancel).await?;
            let game_time = game_started.elapsed();
            times.push(game_time);
            outside_plies.push(game_time.saturating_sub(timer.cycles[cycles_before..].iter().sum()));
            if let Some(header) = timer.headers.last() {
                startups.push(header.saturating_duration_since(game_started));
            }
            setup::check_normal_end(index, &result)?;
            plies += u64::from(result.plies);
            match result.winner {
                Some(bao_rules::Side::South) => south_wins += 1,
                Some(bao_rules::Side::North) => north_wins += 1,
                None => draws += 1,
            }
        }
        anyhow::Ok(())
    })?;
    let wall = started.elapsed();
    let report = GamesReport {
        machine,
        runtime: kind,
        games: args.games,
        seed: args.seed,
        max_plies: MAX_PLIES,
        wall_seconds: round3(wall.as_secs_f64()),
        games_per_second: round3(per_second(args.games, wall)),
        plies,
        plies_per_second: round3(per_second(plies, wall)),
        south_wins,
        north_wins,
        draws,
        game_time: Summary::of(&times).ok_or_else(|| anyhow::anyhow!("no games were played"))?,
        outside_plies: Summary::of(&outside_plies).ok_or_else(|| anyhow::anyhow!("no games were played"))?,
        startup: Summary::of(&startups).ok_or_else(|| anyhow::anyhow!("no game started"))?,
        ending: Summary::of(&timer.endings).ok_or_else(|| anyhow::anyhow!("no game ended"))?,
        ply_cycle: Summary::of(&timer.cycles).ok_or_else(|| anyhow::anyhow!("no plies were played"))?,
    };
    if args.json { print_json(&report) } else { print_text(&report) }
}

/// Events per second of wall time (0 for no time).
fn per_second(events: u64, wall: Duration) -> f64 {
    let seconds = wall.as_secs_f64();
    if seconds > 0.0 { events as f64 / seconds } else { 0.0 }
}

/// To 0.001.
fn round3(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

fn print_text(report: &GamesReport) -> anyhow::Result<()> {
    println!("bao-referee bench games — {}; {} runtime", report.machine.describe(), report.runtime.name());
    println!(
        "{} games one after another (seed {}, kiswahili, random sample bots, max {} plies): \
         {} S wins, {} N wins, {} draws",
        report.games, report.seed, report.max_plies, report.south_wins, report.north_wins, report.draws
    );
    println!(
        "  {:.2} games/s, {:.0} plies/s ({} plies in {:.3} s)",
        report.games_per_second, report.plies_per_second, report.plies, report.wall_seconds
    );
    println!("{}", summary_row("time per game (spawn to shutdown)", &report.game_time));
    println!("{}", summary_row("  of which outside the ply cycles", &report.outside_plies));
    println!("{}", summary_row("    start-up (spawn both, handshake)", &report.startup));
    println!("{}", summary_row("    ending (game over, quit, exits)", &report.ending));
    println!("{}", summary_row("ply cycle", &report.ply_cycle));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_per_second_of_wall_time() {
        assert_eq!(per_second(30, Duration::from_secs(2)), 15.0);
        assert_eq!(per_second(5, Duration::ZERO), 0.0);
        assert_eq!(round3(2.0 / 3.0), 0.667);
    }
}
