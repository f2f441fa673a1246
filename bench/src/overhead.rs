//! `bao-referee bench overhead`: the referee's overhead per ply with two bots that answer at
//! once, against a raw pipe round trip measured the same way, split into the referee's CPU
//! work (rules, JSON) and process/pipe latency.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::RuntimeKind;
use super::cpu_work::{self, CpuWork};
use super::machine::Machine;
use super::pipe::{BotProcessEchoes, PipeResult, StdEchoes, TokioEcho};
use super::ply_timer::PlyTimer;
use super::report::{print_json, summary_row};
use super::setup::{self, MAX_PLIES};
use super::stats::Summary;
use bao_game::log::GameLog;
use bao_game::play_game;

/// The arguments of `bao-referee bench overhead`.
#[derive(Debug, clap::Args)]
pub struct OverheadArgs {
    /// Games to play with each kind of log (discarded, then a real file), each pair followed
    /// by a share of the pipe baselines' round trips.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..))]
    pub games: u64,
    /// Seeds the random sample bots (game i uses seed + 2i and seed + 2i + 1).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Timed round trips for each pipe baseline (at least; spread evenly over the games).
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub round_trips: u64,
    /// Untimed round trips of each pipe baseline before the timed ones.
    #[arg(long, default_value_t = 200)]
    pub warmup: u64,
    /// Times each replayed position is timed in the in-process CPU loop.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub cpu_repetitions: u32,
    /// Where to write the game logs of the logged games (one file, rewritten per game,
    /// removed at the end). Default: the temporary directory.
    #[arg(long)]
    pub log_dir: Option<PathBuf>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// Medians (and p99s) put side by side: what a ply cycle is made of.
#[derive(Debug, Clone, Serialize)]
pub struct Split {
    /// Median ply cycle, log discarded.
    pub ply_cycle_us: f64,
    /// Median raw pipe round trip (blocking std pipes).
    pub raw_pipe_us: f64,
    /// `ply_cycle_us - raw_pipe_us`: what the referee (and the bot's own work) adds.
    pub referee_overhead_us: f64,
    /// Of which: the referee's in-process work per ply (rules, JSON), median.
    pub referee_cpu_us: f64,
    /// Of which: the sample bot's in-process work (parsing the request, answering), median.
    pub bot_cpu_us: f64,
    /// Of which: talking to two processes in turn rather than one (`std ×2` minus `std`).
    pub turn_taking_us: f64,
    /// Of which: the referee's I/O layer (`bot-process ×2` minus `std ×2`), median.
    pub io_layer_us: f64,
    /// Of which: the two reads of the bot's CPU time per ply (`BotProcess::cpu_time`).
    pub cpu_time_reads_us: f64,
    /// What is left: the sample bot's own I/O and everything not measured apart.
    pub rest_us: f64,
    /// p99 ply cycle minus p99 raw pipe round trip (a difference of percentiles).
    pub referee_overhead_p99_us: f64,
    /// Median ply cycle with a log file minus without.
    pub logging_us: f64,
}

/// Everything `bench overhead` measured.
#[derive(Debug, Clone, Serialize)]
pub struct OverheadReport {
    /// The machine.
    pub machine: Machine,
    /// The Tokio runtime the games ran on.
    pub runtime: RuntimeKind,
    /// Games played with each kind of log.
    pub games: u64,
    /// The seed.
    pub seed: u64,
    /// Draw adjudication.
    pub max_plies: u32,
    /// Plies played with each kind of log (the same games both times).
    pub plies: usize,
    /// Ply cycles with `GameLog::discard()`.
    pub ply_cycle_discard: Summary,
    /// Ply cycles with a real log file.
    pub ply_cycle_logged: Summary,
    /// The log file used.
    pub log_file: String,
    /// Mean size of the games' move request lines, bytes (without the newline).
    pub request_bytes_mean: f64,
    /// The largest move request line, bytes.
    pub request_bytes_max: usize,
    /// The echo's reply, bytes (without the newline).
    pub reply_bytes: usize,
    /// The pipe baselines, sending the games' real request lines in turn.
    pub pipes: Vec<PipeResult>,
    /// The referee's in-process work per ply over the games' positions.
    pub cpu: CpuWork,
    /// The medians side by side.
    pub split: Split,
}

/// Runs the benchmark and prints the report.
///
/// # Errors
/// A game that ends abnormally, a log that cannot be written, an echo that fails.
pub fn run(args: &OverheadArgs, kind: RuntimeKind, runtime: &tokio::runtime::Runtime) -> anyhow::Result<()> {
    let machine = Machine::current();
    let exe = setup::referee_executable()?;
    let log_dir = args.log_dir.clone().unwrap_or_else(std::env::temp_dir);
    let log_file = log_dir.join(format!("bao-referee-bench-{}.jsonl", std::process::id()));
    let measured = interleaved(args, runtime, &exe, &log_file);
    let _ = std::fs::remove_file(&log_file);
    let Measured { discard, logged, pipes } = measured?;
    if discard.plies() != logged.plies() {
        anyhow::bail!(
            "the same games gave {} plies with a discarded log and {} with a file: the bots are not deterministic",
            discard.plies(),
            logged.plies()
        );
    }

    let cases = cpu_work::replay(&discard.games)?;
    let tc = setup::generous_clocks();
    let sizes: Vec<usize> = cases.iter().map(|case| cpu_work::request_line(case, &tc).len()).collect();
    let request_bytes_max = sizes.iter().copied().max().unwrap_or(0);
    let request_bytes_mean = sizes.iter().sum::<usize>() as f64 / sizes.len().max(1) as f64;
    let cpu = cpu_work::measure(&cases, args.cpu_repetitions, &tc)?;

    let ply_cycle_discard = Summary::of(&discard.cycles).context("no plies were played")?;
    let ply_cycle_logged = Summary::of(&logged.cycles).context("no plies were played")?;
    let [std_one, std_two, _, _, bot_process_two] = &pipes;
    let raw = std_one.round_trip;
    let referee_overhead = ply_cycle_discard.median_us - raw.median_us;
    let turn_taking = std_two.round_trip.median_us - raw.median_us;
    let io_layer = bot_process_two.round_trip.median_us - std_two.round_trip.median_us;
    let cpu_time_reads = 2.0 * bot_process_two.cpu_time_read.map_or(0.0, |s| s.median_us);
    let split = Split {
        ply_cycle_us: ply_cycle_discard.median_us,
        raw_pipe_us: raw.median_us,
        referee_overhead_us: round(referee_overhead),
        referee_cpu_us: cpu.referee_per_ply.median_us,
        bot_cpu_us: cpu.bot_per_ply.median_us,
        turn_taking_us: round(turn_taking),
        io_layer_us: round(io_layer),
        cpu_time_reads_us: round(cpu_time_reads),
        rest_us: round(
            referee_overhead
                - cpu.referee_per_ply.median_us
                - cpu.bot_per_ply.median_us
                - turn_taking
                - io_layer
                - cpu_time_reads,
        ),
        referee_overhead_p99_us: round(ply_cycle_discard.p99_us - raw.p99_us),
        logging_us: round(ply_cycle_logged.median_us - ply_cycle_discard.median_us),
    };
    let report = OverheadReport {
        machine,
        runtime: kind,
        games: args.games,
        seed: args.seed,
        max_plies: MAX_PLIES,
        plies: discard.plies(),
        ply_cycle_discard,
        ply_cycle_logged,
        log_file: log_file.display().to_string(),
        request_bytes_mean: round(request_bytes_mean),
        request_bytes_max,
        reply_bytes: super::echo::ECHO_REPLY.len(),
        pipes: pipes.to_vec(),
        cpu,
        split,
    };
    if args.json { print_json(&report) } else { print_text(&report) }
}

/// The ply cycles of both kinds of game and the pipe baselines.
struct Measured {
    discard: PlyTimer,
    logged: PlyTimer,
    /// `std`, `std ×2`, `tokio`, `bot-process`, `bot-process ×2`.
    pipes: [PipeResult; 5],
}

/// Rounds of: game i with a discarded log, the same game with a log file, then a chunk of
/// round trips of every pipe baseline with that game's request lines. The echoes live for
/// the whole run.
fn interleaved(
    args: &OverheadArgs,
    runtime: &tokio::runtime::Runtime,
    exe: &Path,
    log_file: &Path,
) -> anyhow::Result<Measured> {
    let warmup = usize::try_from(args.warmup).context("--warmup is too large")?;
    let per_game =
        usize::try_from(args.round_trips.div_ceil(args.games)).context("--round-trips is too large")?;
    let mut std_one = StdEchoes::spawn(exe, 1, warmup)?;
    let mut std_two = StdEchoes::spawn(exe, 2, warmup)?;
    let (mut tokio_one, mut bot_process_one, mut bot_process_two) = runtime.block_on(async {
        anyhow::Ok((
            TokioEcho::spawn(exe, warmup)?,
            BotProcessEchoes::spawn(exe, 1, warmup).await?,
            BotProcessEchoes::spawn(exe, 2, warmup).await?,
        ))
    })?;
    let mut discard = PlyTimer::default();
    let mut logged = PlyTimer::default();
    let cancel = CancellationToken::new();
    let tc = setup::generous_clocks();
    for index in 0..args.games {
        let config = setup::bench_game(args.seed, index)?;
        runtime.block_on(async {
            let result = play_game(&config, &mut GameLog::discard(), &mut discard, &cancel).await?;
            setup::check_normal_end(index, &result)?;
            let mut log = GameLog::create(log_file)
                .with_context(|| format!("cannot create the log {}", log_file.display()))?;
            let result = play_game(&config, &mut log, &mut logged, &cancel).await?;
            setup::check_normal_end(index, &result)
        })?;
        let game = discard.games.last().context("the game was not recorded")?;
        let cases = cpu_work::replay(std::slice::from_ref(game))?;
        let lines: Vec<String> = cases.iter().map(|case| cpu_work::request_line(case, &tc)).collect();
        let count = if index == 0 { per_game + warmup } else { per_game };
        std_one.round_trips(&lines, count)?;
        std_two.round_trips(&lines, count)?;
        runtime.block_on(async {
            tokio_one.round_trips(&lines, count).await?;
            bot_process_one.round_trips(&lines, count).await?;
            bot_process_two.round_trips(&lines, count).await
        })?;
    }
    let pipes = [
        std_one.finish()?,
        std_two.finish()?,
        runtime.block_on(tokio_one.finish())?,
        runtime.block_on(bot_process_one.finish())?,
        runtime.block_on(bot_process_two.finish())?,
    ];
    Ok(Measured { discard, logged, pipes })
}

/// To 0.1.
fn round(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

fn print_text(report: &OverheadReport) -> anyhow::Result<()> {
    let cpu = &report.cpu;
    let split = &report.split;
    println!("bao-referee bench overhead — {}; {} runtime", report.machine.describe(), report.runtime.name());
    println!(
        "{} games × 2 (seed {}, kiswahili, random sample bots, max {} plies): {} plies each way",
        report.games, report.seed, report.max_plies, report.plies
    );
    println!();
    println!("Ply cycle (previous log record to this ply's record):");
    println!("{}", summary_row("log discarded", &report.ply_cycle_discard));
    println!("{}", summary_row(&format!("log file ({})", report.log_file), &report.ply_cycle_logged));
    println!();
    println!(
        "Pipe round trip, in chunks between the games (their request lines: mean {:.0} B, max {} B; reply {} B):",
        report.request_bytes_mean, report.request_bytes_max, report.reply_bytes
    );
    for pipe in &report.pipes {
        println!("{}", summary_row(&pipe.transport, &pipe.round_trip));
        println!("      {}; mean line sent {:.1} B", pipe.description, pipe.request_bytes_mean);
        if let Some(read) = &pipe.cpu_time_read {
            println!("{}", summary_row("    one BotProcess::cpu_time() read", read));
        }
    }
    println!();
    println!("In-process work per ply ({} positions × {} repetitions):", cpu.cases, cpu.repetitions);
    for (label, summary) in [
        ("rules: endings, legal moves + results", &cpu.legal_moves),
        ("move request line (moves as text, JSON)", &cpu.request_json),
        ("judge the reply (parse, find the move)", &cpu.judge_reply),
        ("build the ply record", &cpu.record_build),
        ("serialise the ply record (file log only)", &cpu.record_json),
        ("referee total, log discarded", &cpu.referee_per_ply),
        ("referee total, with the log line", &cpu.referee_per_ply_logged),
        ("sample bot (parse request, answer)", &cpu.bot_per_ply),
    ] {
        println!("{}", summary_row(label, summary));
    }
    println!();
    println!("Split of the median ply cycle (µs):");
    println!("  ply cycle                      {:>8.1}", split.ply_cycle_us);
    println!("  − raw pipe round trip (std)    {:>8.1}", split.raw_pipe_us);
    println!(
        "  = referee overhead             {:>8.1}   (p99 − p99: {:.1})",
        split.referee_overhead_us, split.referee_overhead_p99_us
    );
    println!("      referee CPU (rules, JSON)  {:>8.1}", split.referee_cpu_us);
    println!("      sample bot CPU (JSON)      {:>8.1}", split.bot_cpu_us);
    println!("      two processes in turn      {:>8.1}", split.turn_taking_us);
    println!("      I/O layer (BotProcess)     {:>8.1}", split.io_layer_us);
    println!("      2 CPU-time reads           {:>8.1}", split.cpu_time_reads_us);
    println!("      rest                       {:>8.1}", split.rest_us);
    println!("  logging to a file adds         {:>8.1}", split.logging_us);
    Ok(())
}
