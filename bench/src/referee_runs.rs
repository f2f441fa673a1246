//! `bao-bench bench referee`: the real `bao-referee tournament` binary as users run it, with
//! two C instant bots (`bench/bots/instant.c`), measured from outside (issue 10's table):
//! the raw 300-byte pipe round trip (the floor), the ply cycle (half the time between two
//! requests to the same bot, timed by the bot), the referee's own CPU per ply (the slope
//! over runs of games of different lengths) and per game (the intercept), games per second,
//! the fixed wall-clock cost per game (the intercept of wall time per game), and that cost
//! beyond two plain lives of the bot (the exec floor, [`super::exec_floor`]).
//!
//! Pin it with `taskset` (every process inherits the CPU set); the report says which CPUs.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::Context;
use serde::Serialize;

use super::child_run::{self, ChildCost};
use super::exec_floor::ExecFloor;
use super::fit::{Line, least_squares};
use super::floor::{self, Floor};
use super::instant_bot::{self, BotTimes};
use super::machine::Machine;
use super::report::{print_json, summary_row};
use super::stats::{Summary, micros};

/// The arguments of `bao-bench bench referee`.
#[derive(Debug, Clone, clap::Args)]
pub struct RefereeArgs {
    /// The `bao-referee` binary. Default: the one next to this executable (`cargo build
    /// --release -p bao-referee -p bao-bench` builds both).
    #[arg(long, value_name = "PATH")]
    pub referee: Option<PathBuf>,
    /// The C compiler for the instant bot.
    #[arg(long, default_value = "cc")]
    pub cc: String,
    /// Game lengths, as `--max-plies` values (0: no limit, the instant bots' game ends by
    /// the rules after 134 plies).
    #[arg(long, value_delimiter = ',', default_value = "2,34,68,0")]
    pub lengths: Vec<u32>,
    /// Games in each `tournament` run (even: openings are played with colours swapped).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(2..))]
    pub games: u32,
    /// Runs of each length; figures are medians over them.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeats: u32,
    /// `--concurrency` of the tournaments.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub concurrency: u32,
    /// Timed floor round trips in all (spread over the runs, between them).
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub round_trips: u64,
    /// Timed plain lives of the instant bot in all (the exec floor: spawn, hello, ready,
    /// quit, wait, with no stub; spread over the runs, between them).
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u64).range(1..))]
    pub lives: u64,
    /// One more argument for every `bao-referee tournament` (repeat it), e.g.
    /// `--referee-arg=--pid-namespace`.
    #[arg(long = "referee-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub referee_args: Vec<String>,
    /// Also measure, in the same run and alternated with the plain runs, the referee with
    /// this argument added (repeat it), e.g. `--side-by-side=--no-ponder`: both tables are
    /// printed, with the difference of their ply cycles.
    #[arg(long = "side-by-side", value_name = "ARG", allow_hyphen_values = true)]
    pub side_by_side: Vec<String>,
    /// Where the tournaments' folders go (removed at the end). Default: the temporary directory.
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// One `bao-referee tournament` run.
#[derive(Debug, Clone, Serialize)]
pub struct Run {
    /// `--max-plies` (0: none).
    pub max_plies: u32,
    /// Which repeat.
    pub repeat: u32,
    /// Games played.
    pub games: u32,
    /// Plies played in all (move requests the bots answered).
    pub plies: u64,
    /// Wall time of the whole command, ms.
    pub wall_ms: f64,
    /// The referee process's own CPU (all threads), ms (10 ms ticks).
    pub referee_cpu_ms: f64,
    /// The bots' own CPU as they report it at exit (the re-exec stub's work before `exec`
    /// included), ms.
    pub bots_cpu_ms: f64,
    /// The referee's main thread (where the games run): CPU time, ms (ns resolution).
    pub main_thread_cpu_ms: f64,
    /// The referee's main thread: time runnable but waiting for the CPU, ms.
    pub main_thread_run_delay_ms: f64,
    /// The CPU of everything reaped, minus the referee's and the bots' reports, ms: extra
    /// stub processes (PID namespace init), the bots' exits after their report, tick rounding.
    pub other_cpu_ms: f64,
}

impl Run {
    fn plies_per_game(&self) -> f64 {
        self.plies as f64 / f64::from(self.games)
    }

    fn per_game_us(&self, ms: f64) -> f64 {
        ms * 1000.0 / f64::from(self.games)
    }
}

/// The medians of the runs of one length.
#[derive(Debug, Clone, Serialize)]
pub struct Length {
    /// `--max-plies` (0: none).
    pub max_plies: u32,
    /// Plies per game.
    pub plies_per_game: f64,
    /// Wall time per game, µs.
    pub wall_per_game_us: f64,
    /// Games per second (the whole command's wall time).
    pub games_per_second: f64,
    /// The referee's own CPU per game, µs.
    pub referee_cpu_per_game_us: f64,
    /// The bots' CPU per game (both), µs.
    pub bots_cpu_per_game_us: f64,
    /// Other CPU per game, µs.
    pub other_cpu_per_game_us: f64,
    /// The referee's main thread's CPU per game, µs (ns resolution).
    pub main_thread_cpu_per_game_us: f64,
    /// The referee's main thread's wait for a CPU per game, µs: time lost to other load.
    pub main_thread_run_delay_per_game_us: f64,
}

/// The table.
#[derive(Debug, Clone, Serialize)]
pub struct Table {
    /// Median raw 300-byte pipe round trip, µs.
    pub floor_us: f64,
    /// Median ply cycle (half of each interval between two requests to one bot), µs.
    pub ply_cycle_us: f64,
    /// `ply_cycle_us / floor_us`.
    pub ply_cycle_floors: f64,
    /// The referee's own CPU per ply, marginal (slope over the lengths), µs.
    pub referee_cpu_per_ply_us: f64,
    /// The referee's own CPU per game at zero plies (intercept), µs.
    pub referee_cpu_per_game_us: f64,
    /// The referee's main thread's CPU per ply (slope; ns-resolution source), µs.
    pub main_thread_cpu_per_ply_us: f64,
    /// The referee's main thread's CPU per game at zero plies (intercept), µs.
    pub main_thread_cpu_per_game_us: f64,
    /// Wall time per ply (slope of wall time per game over the lengths), µs.
    pub wall_per_ply_us: f64,
    /// The fixed cost per game: wall time per game at zero plies (intercept), µs.
    pub fixed_cost_per_game_us: f64,
    /// `fixed_cost_per_game_us / floor_us`.
    pub fixed_cost_floors: f64,
    /// Median plain life of the instant bot (the exec floor), µs.
    pub bot_life_us: f64,
    /// `fixed_cost_per_game_us` minus two plain lives: the fixed cost beyond the two execs, µs.
    pub fixed_cost_beyond_execs_us: f64,
    /// Games per second at the longest length.
    pub games_per_second: f64,
    /// Plies per game at the longest length.
    pub games_per_second_plies: f64,
}

/// Everything `bench referee` measured.
#[derive(Debug, Clone, Serialize)]
pub struct RefereeReport {
    /// The machine.
    pub machine: Machine,
    /// The CPUs this process (and so every child) may run on.
    pub cpus_allowed: Vec<usize>,
    /// The referee binary.
    pub referee: String,
    /// The extra referee arguments.
    pub referee_args: Vec<String>,
    /// How the referee supervised the bots (its `bot started` diagnostic), or why unknown.
    pub supervision: String,
    /// `--concurrency`.
    pub concurrency: u32,
    /// Games per run.
    pub games: u32,
    /// Runs per length.
    pub repeats: u32,
    /// The floor round trips.
    pub floor: Summary,
    /// The plain lives of the instant bot (the exec floor).
    pub bot_life: Summary,
    /// The ply cycles (halves of the bots' request intervals), pooled over every run.
    pub ply_cycle: Summary,
    /// Medians per length.
    pub lengths: Vec<Length>,
    /// Wall time per game against plies per game.
    pub wall_fit: Line,
    /// The referee's CPU per game against plies per game.
    pub referee_cpu_fit: Line,
    /// The table.
    pub table: Table,
    /// Every run.
    pub runs: Vec<Run>,
    /// The same measured with `--side-by-side`'s arguments added, if given.
    pub side_by_side: Option<Box<Variant>>,
}

/// The figures of one set of referee arguments (`--side-by-side`).
#[derive(Debug, Clone, Serialize)]
pub struct Variant {
    /// The arguments added to `referee_args`.
    pub added_args: Vec<String>,
    /// The ply cycles, pooled over every run.
    pub ply_cycle: Summary,
    /// Medians per length.
    pub lengths: Vec<Length>,
    /// The table.
    pub table: Table,
    /// Every run.
    pub runs: Vec<Run>,
}

/// What the runs of one variant give.
struct Analysis {
    ply_cycle: Summary,
    lengths: Vec<Length>,
    wall_fit: Line,
    referee_cpu_fit: Line,
    table: Table,
}

/// Runs the benchmark and prints the report.
///
/// # Errors
/// The referee or the compiler is missing, a run fails, or nothing could be fitted.
pub fn run(args: &RefereeArgs) -> anyhow::Result<()> {
    let machine = Machine::current();
    let referee = match &args.referee {
        Some(path) => path.clone(),
        None => default_referee()?,
    };
    if args.lengths.len() < 2 {
        anyhow::bail!("--lengths needs at least two game lengths to fit a line (got {:?})", args.lengths);
    }
    if !args.games.is_multiple_of(2) {
        anyhow::bail!(
            "--games must be even (each opening is played with colours swapped), got {}",
            args.games
        );
    }
    let work = args
        .work_dir
        .clone()
        .unwrap_or_else(std::env::temp_dir)
        .join(format!("bao-bench-referee-{}", std::process::id()));
    std::fs::create_dir_all(&work).with_context(|| format!("cannot create {}", work.display()))?;
    let outcome = measure(args, &referee, &work, machine);
    let _ = std::fs::remove_dir_all(&work);
    let report = outcome?;
    if args.json { print_json(&report) } else { print_text(&report) }
}

/// `bao-referee` next to this executable.
fn default_referee() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot find the bao-bench executable")?;
    let referee = exe.with_file_name("bao-referee");
    if !referee.is_file() {
        anyhow::bail!(
            "no {} (build it: cargo build --release -p bao-referee -p bao-bench; or pass --referee)",
            referee.display()
        );
    }
    Ok(referee)
}

fn measure(
    args: &RefereeArgs,
    referee: &Path,
    work: &Path,
    machine: Machine,
) -> anyhow::Result<RefereeReport> {
    let instant = instant_bot::compile(work, &args.cc)?;
    let cpus_allowed = cpus_allowed()?;
    // A warm-up run, not counted, that also tells how the bots are supervised.
    let supervision = warm_up(args, referee, &instant, work)?;
    let runs_total = u64::from(args.repeats) * args.lengths.len() as u64;
    let per_chunk =
        usize::try_from(args.round_trips.div_ceil(runs_total)).context("--round-trips is too large")?;
    let lives_per_chunk = usize::try_from(args.lives.div_ceil(runs_total)).context("--lives is too large")?;
    let mut floor = Floor::start(&instant, 200)?;
    let mut exec_floor = ExecFloor::default();
    exec_floor.lives(&instant, 5)?;
    exec_floor.samples.clear();
    // The plain runs, and those with `--side-by-side`'s arguments, alternated.
    let mut variants: Vec<Vec<String>> = vec![args.referee_args.clone()];
    if !args.side_by_side.is_empty() {
        variants.push(args.referee_args.iter().chain(&args.side_by_side).cloned().collect());
    }
    let mut runs = vec![Vec::new(); variants.len()];
    let mut half_intervals = vec![Vec::new(); variants.len()];
    for repeat in 0..args.repeats {
        // Rotate the order of the lengths from repeat to repeat, so that a slow spell of the
        // machine does not always hit the same length.
        let rotation = usize::try_from(repeat).unwrap_or(0) % args.lengths.len();
        for &max_plies in args.lengths.iter().cycle().skip(rotation).take(args.lengths.len()) {
            for (v, referee_args) in variants.iter().enumerate() {
                let variant_args = RefereeArgs { referee_args: referee_args.clone(), ..args.clone() };
                let (run, bots) =
                    one_run(&variant_args, referee, &instant, work, (max_plies, repeat, v), None)?;
                for bot in &bots {
                    half_intervals[v].extend(bot.intervals_ns.iter().map(|&ns| Duration::from_nanos(ns / 2)));
                }
                runs[v].push(run);
            }
            floor.round_trips(per_chunk)?;
            exec_floor.lives(&instant, lives_per_chunk)?;
        }
    }
    let floor = Summary::of(&floor.finish()?).context("no floor round trips")?;
    let bot_life = Summary::of(&exec_floor.samples).context("no plain lives of the bot")?;
    let side_by_side = match (runs.get(1), half_intervals.get(1)) {
        (Some(variant_runs), Some(intervals)) => {
            let a = analyse(args, variant_runs, intervals, &floor, &bot_life)?;
            Some(Box::new(Variant {
                added_args: args.side_by_side.clone(),
                ply_cycle: a.ply_cycle,
                lengths: a.lengths,
                table: a.table,
                runs: variant_runs.clone(),
            }))
        }
        _ => None,
    };
    let runs = runs.swap_remove(0);
    let Analysis { ply_cycle, lengths, wall_fit, referee_cpu_fit, table } =
        analyse(args, &runs, &half_intervals[0], &floor, &bot_life)?;
    Ok(RefereeReport {
        machine,
        cpus_allowed,
        referee: referee.display().to_string(),
        referee_args: args.referee_args.clone(),
        supervision,
        concurrency: args.concurrency,
        games: args.games,
        repeats: args.repeats,
        floor,
        bot_life,
        ply_cycle,
        lengths,
        wall_fit,
        referee_cpu_fit,
        table,
        runs,
        side_by_side,
    })
}

/// The ply cycle, the medians per length, the fitted lines and the table of one variant's runs.
fn analyse(
    args: &RefereeArgs,
    runs: &[Run],
    half_intervals: &[Duration],
    floor: &Summary,
    bot_life: &Summary,
) -> anyhow::Result<Analysis> {
    let ply_cycle =
        Summary::of(half_intervals).context("no bot received two move requests: lengths too short")?;
    let lengths = medians_per_length(&args.lengths, runs)?;
    let wall_fit =
        least_squares(&lengths.iter().map(|l| (l.plies_per_game, l.wall_per_game_us)).collect::<Vec<_>>())
            .context("the lengths gave games of fewer than two different lengths")?;
    let referee_cpu_fit = least_squares(
        &lengths.iter().map(|l| (l.plies_per_game, l.referee_cpu_per_game_us)).collect::<Vec<_>>(),
    )
    .context("the lengths gave games of fewer than two different lengths")?;
    let main_thread_fit = least_squares(
        &lengths.iter().map(|l| (l.plies_per_game, l.main_thread_cpu_per_game_us)).collect::<Vec<_>>(),
    )
    .context("the lengths gave games of fewer than two different lengths")?;
    let longest =
        lengths.iter().max_by(|a, b| a.plies_per_game.total_cmp(&b.plies_per_game)).context("no lengths")?;
    let table = Table {
        floor_us: floor.median_us,
        ply_cycle_us: ply_cycle.median_us,
        ply_cycle_floors: round(ply_cycle.median_us / floor.median_us),
        referee_cpu_per_ply_us: round(referee_cpu_fit.slope),
        referee_cpu_per_game_us: round(referee_cpu_fit.intercept),
        main_thread_cpu_per_ply_us: round(main_thread_fit.slope),
        main_thread_cpu_per_game_us: round(main_thread_fit.intercept),
        wall_per_ply_us: round(wall_fit.slope),
        fixed_cost_per_game_us: round(wall_fit.intercept),
        fixed_cost_floors: round(wall_fit.intercept / floor.median_us),
        bot_life_us: bot_life.median_us,
        fixed_cost_beyond_execs_us: round(wall_fit.intercept - 2.0 * bot_life.median_us),
        games_per_second: round(longest.games_per_second),
        games_per_second_plies: longest.plies_per_game,
    };
    Ok(Analysis { ply_cycle, lengths, wall_fit, referee_cpu_fit, table })
}

/// The CPUs this process may run on.
fn cpus_allowed() -> anyhow::Result<Vec<usize>> {
    let set = nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0)).context("sched_getaffinity")?;
    Ok((0..nix::sched::CpuSet::count()).filter(|&cpu| set.is_set(cpu).unwrap_or(false)).collect())
}

/// Two games with the referee's debug diagnostics; returns what it says of the supervision.
fn warm_up(args: &RefereeArgs, referee: &Path, instant: &Path, work: &Path) -> anyhow::Result<String> {
    let warm = RefereeArgs { games: 2, ..args.clone() };
    let (_, _) = one_run(&warm, referee, instant, work, (0, 0, 0), Some("bao_game=debug"))?;
    let stderr = std::fs::read_to_string(work.join("warm-up.stderr")).unwrap_or_default();
    Ok(supervision_of(&stderr))
}

/// The `supervision=` field of the referee's first `bot started` diagnostic.
fn supervision_of(stderr: &str) -> String {
    stderr
        .lines()
        .filter(|line| line.contains("bot started"))
        .find_map(|line| line.split_once("supervision=").map(|(_, rest)| rest.trim().to_owned()))
        .unwrap_or_else(|| "unknown (no `bot started` diagnostic from the referee)".to_owned())
}

/// One tournament of `args.games` games at `max_plies`, for repeat `repeat` of variant
/// `variant` (0: plain, 1: `--side-by-side`).
fn one_run(
    args: &RefereeArgs,
    referee: &Path,
    instant: &Path,
    work: &Path,
    (max_plies, repeat, variant): (u32, u32, usize),
    debug_log: Option<&str>,
) -> anyhow::Result<(Run, Vec<BotTimes>)> {
    let name = if debug_log.is_some() {
        "warm-up".to_owned()
    } else {
        format!("run-{repeat}-{max_plies}-{variant}")
    };
    let out = work.join(&name);
    let times = work.join(format!("{name}.times"));
    let stderr_path = work.join(format!("{name}.stderr"));
    let stderr = std::fs::File::create(&stderr_path)
        .with_context(|| format!("cannot create {}", stderr_path.display()))?;
    let bot_cmd =
        shell_words::join([instant.display().to_string(), "--times".to_owned(), times.display().to_string()]);
    let mut command = Command::new(referee);
    command
        .arg("tournament")
        .args(["--bot", "name=south"])
        .arg(format!("cmd={bot_cmd}"))
        .args(["--bot", "name=north"])
        .arg(format!("cmd={bot_cmd}"))
        .args(["--games", &args.games.to_string(), "--concurrency", &args.concurrency.to_string()])
        .args(["--tc", "3600s+1s", "--max-plies", &max_plies.to_string(), "--plain", "--out"])
        .arg(&out)
        .args(&args.referee_args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr);
    match debug_log {
        Some(filter) => command.env("RUST_LOG", filter),
        None => command.env_remove("RUST_LOG"),
    };
    let cost = child_run::run(&mut command).with_context(|| {
        let text = std::fs::read_to_string(&stderr_path).unwrap_or_default();
        format!("the referee run {name} failed; its stderr:\n{}", tail(&text, 2000))
    })?;
    let bots = instant_bot::parse_times(
        &std::fs::read_to_string(&times).with_context(|| format!("the bots wrote no {}", times.display()))?,
    )?;
    let expected = 2 * usize::try_from(args.games).unwrap_or(usize::MAX);
    let bots = without_preflights(bots, expected)
        .with_context(|| format!("{name}: the bots' reports do not match {} games", args.games))?;
    // The run's folder stays until the bench ends (the whole work folder goes then): on ext4,
    // creating a file skips the inodes freed in the last seconds by reading each one, so a
    // folder removed here would make every later run pay for this one's deletions.
    Ok((run_of(max_plies, repeat, args.games, &cost, &bots), bots))
}

/// The reports of the game bots: `bao-referee tournament` first starts each distinct bot once
/// (its preflight: `hello`, `ready`, `quit`, no move request), and those runs are dropped.
/// An error if the rest is not one report per bot of each game.
fn without_preflights(bots: Vec<BotTimes>, expected: usize) -> anyhow::Result<Vec<BotTimes>> {
    let extra = bots.len().checked_sub(expected).ok_or_else(|| {
        anyhow::anyhow!("{} bots reported their times, expected {expected} or more", bots.len())
    })?;
    let preflights = bots.iter().filter(|b| b.requests == 0).count();
    if preflights < extra {
        anyhow::bail!(
            "{} bots reported their times, expected {expected} and at most {preflights} preflights",
            bots.len()
        );
    }
    let mut dropped = 0;
    Ok(bots
        .into_iter()
        .filter(|b| {
            let drop = dropped < extra && b.requests == 0;
            dropped += usize::from(drop);
            !drop
        })
        .collect())
}

fn run_of(max_plies: u32, repeat: u32, games: u32, cost: &ChildCost, bots: &[BotTimes]) -> Run {
    let ms = |d: Duration| micros(d) / 1000.0;
    let bots_cpu_ms = bots.iter().map(|b| b.cpu_us).sum::<u64>() as f64 / 1000.0;
    let referee_cpu_ms = ms(cost.own_cpu);
    Run {
        max_plies,
        repeat,
        games,
        plies: bots.iter().map(|b| b.requests).sum(),
        wall_ms: ms(cost.wall),
        referee_cpu_ms,
        bots_cpu_ms,
        main_thread_cpu_ms: ms(cost.main_thread_cpu),
        main_thread_run_delay_ms: ms(cost.main_thread_run_delay),
        other_cpu_ms: round(ms(cost.with_descendants_cpu) - referee_cpu_ms - bots_cpu_ms),
    }
}

/// The medians of the runs of each length, in the order given.
fn medians_per_length(max_plies: &[u32], runs: &[Run]) -> anyhow::Result<Vec<Length>> {
    max_plies
        .iter()
        .map(|&limit| {
            let of: Vec<&Run> = runs.iter().filter(|r| r.max_plies == limit).collect();
            let median = |f: &dyn Fn(&Run) -> f64| {
                let mut values: Vec<f64> = of.iter().map(|r| f(r)).collect();
                values.sort_by(f64::total_cmp);
                let n = values.len();
                if n % 2 == 1 { values[n / 2] } else { f64::midpoint(values[n / 2 - 1], values[n / 2]) }
            };
            if of.is_empty() {
                anyhow::bail!("no runs of --max-plies {limit}");
            }
            Ok(Length {
                max_plies: limit,
                plies_per_game: median(&Run::plies_per_game),
                wall_per_game_us: round(median(&|r| r.per_game_us(r.wall_ms))),
                games_per_second: round(median(&|r| f64::from(r.games) * 1000.0 / r.wall_ms)),
                referee_cpu_per_game_us: round(median(&|r| r.per_game_us(r.referee_cpu_ms))),
                bots_cpu_per_game_us: round(median(&|r| r.per_game_us(r.bots_cpu_ms))),
                other_cpu_per_game_us: round(median(&|r| r.per_game_us(r.other_cpu_ms))),
                main_thread_cpu_per_game_us: round(median(&|r| r.per_game_us(r.main_thread_cpu_ms))),
                main_thread_run_delay_per_game_us: round(median(&|r| {
                    r.per_game_us(r.main_thread_run_delay_ms)
                })),
            })
        })
        .collect()
}

/// The last `max` bytes of `text` (at a character boundary).
fn tail(text: &str, max: usize) -> &str {
    let mut start = text.len().saturating_sub(max);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// To 0.1.
fn round(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

fn print_text(report: &RefereeReport) -> anyhow::Result<()> {
    let t = &report.table;
    println!("bao-bench bench referee — {}", report.machine.describe());
    println!("  CPUs allowed (taskset): {:?}", report.cpus_allowed);
    println!("  referee: {} tournament {}", report.referee, report.referee_args.join(" "));
    println!("  supervision: {}", report.supervision);
    println!(
        "  {} runs of {} games per length × {} lengths, --concurrency {}, two C instant bots (first legal move)",
        report.repeats,
        report.games,
        report.lengths.len(),
        report.concurrency
    );
    println!();
    println!(
        "{}",
        summary_row(&format!("raw {}-byte pipe round trip (floor)", floor::LINE_BYTES), &report.floor)
    );
    println!("{}", summary_row("ply cycle (½ interval between requests)", &report.ply_cycle));
    println!("{}", summary_row("plain bot life (spawn … wait, no stub)", &report.bot_life));
    println!();
    println!("  per length (medians; per game, µs):");
    println!(
        "    {:<17} {:>6} {:>9} {:>8} {:>12} {:>12} {:>12} {:>9} {:>9}",
        "", "plies", "wall", "games/s", "referee CPU", "main thread", "CPU wait", "bots CPU", "other"
    );
    for l in &report.lengths {
        println!(
            "    --max-plies {:<5} {:>6.1} {:>9.1} {:>8.1} {:>12.1} {:>12.1} {:>12.1} {:>9.1} {:>9.1}",
            l.max_plies,
            l.plies_per_game,
            l.wall_per_game_us,
            l.games_per_second,
            l.referee_cpu_per_game_us,
            l.main_thread_cpu_per_game_us,
            l.main_thread_run_delay_per_game_us,
            l.bots_cpu_per_game_us,
            l.other_cpu_per_game_us
        );
    }
    println!();
    println!("  The table (issue 10):");
    println!("    raw 300-byte pipe round trip (the floor)      {:>10.1} µs", t.floor_us);
    println!(
        "    ply cycle                                     {:>10.1} µs = {:.1}× the floor",
        t.ply_cycle_us, t.ply_cycle_floors
    );
    println!("    referee CPU per ply, marginal (slope)         {:>10.1} µs", t.referee_cpu_per_ply_us);
    println!("    referee CPU per game, fixed (intercept)       {:>10.1} µs", t.referee_cpu_per_game_us);
    println!(
        "    referee main thread CPU per ply / per game    {:>10.1} µs / {:.1} µs",
        t.main_thread_cpu_per_ply_us, t.main_thread_cpu_per_game_us
    );
    println!("    wall time per ply (slope)                     {:>10.1} µs", t.wall_per_ply_us);
    println!(
        "    games per second, concurrency {}              {:>10.1}   ({:.0}-ply games)",
        report.concurrency, t.games_per_second, t.games_per_second_plies
    );
    println!(
        "    fixed cost per game (wall intercept)          {:>10.1} µs = {:.0}× the floor",
        t.fixed_cost_per_game_us, t.fixed_cost_floors
    );
    println!(
        "    fixed cost per game beyond two plain lives    {:>10.1} µs   (a plain life: {:.1} µs)",
        t.fixed_cost_beyond_execs_us, t.bot_life_us
    );
    if let Some(v) = &report.side_by_side {
        let w = &v.table;
        println!();
        println!("  Side by side, alternated run by run: plain | with {}", v.added_args.join(" "));
        println!("{}", summary_row("ply cycle, plain", &report.ply_cycle));
        println!("{}", summary_row(&format!("ply cycle, {}", v.added_args.join(" ")), &v.ply_cycle));
        println!(
            "    ply cycle (median)                            {:>10.1} | {:.1} µs: {:+.1} µs a ply",
            t.ply_cycle_us,
            w.ply_cycle_us,
            w.ply_cycle_us - t.ply_cycle_us
        );
        println!(
            "    referee CPU per ply, marginal (slope)         {:>10.1} | {:.1} µs: {:+.1} µs a ply",
            t.referee_cpu_per_ply_us,
            w.referee_cpu_per_ply_us,
            w.referee_cpu_per_ply_us - t.referee_cpu_per_ply_us
        );
        println!(
            "    referee main thread CPU per ply (slope)       {:>10.1} | {:.1} µs",
            t.main_thread_cpu_per_ply_us, w.main_thread_cpu_per_ply_us
        );
        println!(
            "    games per second ({:.0}-ply games)             {:>10.1} | {:.1}",
            t.games_per_second_plies, t.games_per_second, w.games_per_second
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(max_plies: u32, repeat: u32, plies: u64, wall_ms: f64) -> Run {
        Run {
            max_plies,
            repeat,
            games: 10,
            plies,
            wall_ms,
            referee_cpu_ms: wall_ms / 2.0,
            bots_cpu_ms: 1.0,
            main_thread_cpu_ms: wall_ms / 4.0,
            main_thread_run_delay_ms: 0.0,
            other_cpu_ms: 0.0,
        }
    }

    #[test]
    fn medians_per_length_and_the_fitted_line() {
        let runs = [run(2, 0, 20, 100.0), run(2, 1, 20, 300.0), run(2, 2, 20, 110.0), run(0, 0, 1340, 240.0)];
        let lengths = medians_per_length(&[2, 0], &runs).expect("both lengths ran");
        assert_eq!(lengths[0].plies_per_game, 2.0);
        assert_eq!(lengths[0].wall_per_game_us, 11_000.0);
        assert_eq!(lengths[0].games_per_second, 90.9);
        assert_eq!(lengths[1].plies_per_game, 134.0);
        assert_eq!(lengths[1].referee_cpu_per_game_us, 12_000.0);
        let error = medians_per_length(&[2, 7], &runs).expect_err("no run of 7");
        assert!(error.to_string().contains("--max-plies 7"), "{error}");
    }

    #[test]
    fn the_preflight_runs_are_dropped_and_a_missing_report_is_an_error() {
        let bot = |pid, requests| BotTimes { pid, requests, cpu_us: 1, intervals_ns: Vec::new() };
        let kept = without_preflights(vec![bot(1, 0), bot(2, 1), bot(3, 1)], 2).expect("one preflight");
        assert_eq!(kept.iter().map(|b| b.pid).collect::<Vec<_>>(), [2, 3]);
        let kept = without_preflights(vec![bot(2, 1), bot(3, 1)], 2).expect("none");
        assert_eq!(kept.len(), 2);
        assert!(without_preflights(vec![bot(2, 1)], 2).is_err());
        assert!(without_preflights(vec![bot(1, 1), bot(2, 1), bot(3, 1)], 2).is_err());
    }

    #[test]
    fn reads_the_supervision_from_the_diagnostics() {
        let stderr = "2026 INFO bot ready\n2026 DEBUG bot started side=S pid=4 supervision=process group and /proc tree; re-exec stub\n";
        assert_eq!(supervision_of(stderr), "process group and /proc tree; re-exec stub");
        assert!(supervision_of("nothing").starts_with("unknown"));
        assert_eq!(tail("abcdef", 2), "ef");
        assert_eq!(tail("ab", 10), "ab");
    }
}
