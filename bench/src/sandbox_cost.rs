//! `bao-bench bench sandbox`: what the sandbox (`--isolation full`) costs a bot against
//! `--isolation pid` (with and without `--no-network`), through the library as a game starts and ends a bot: `spawn_with`, one
//! line sent and its echo received (the bot is `/bin/cat`), `shutdown`. The ways alternate
//! within each round (drift and load hit them alike); medians and p90 of each way's start
//! (spawn until the echo arrived) and life (spawn until `shutdown` returned). The background
//! cleanup (cgroup removal, reaping) is waited for between lifecycles, untimed.

use std::time::{Duration, Instant};

use anyhow::Context;
use bao_supervise::{
    BotProcess, BotSpec, Isolation, IsolationLevel, ResourceLimits, SandboxProfile, SpawnOptions,
    SubordinateIds,
};
use serde::Serialize;

use super::report::print_json;
use super::stats::Summary;

/// The arguments of `bao-bench bench sandbox`.
#[derive(Debug, Clone, clap::Args)]
pub struct SandboxArgs {
    /// Lifecycles of each way.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: u32,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also time the stub's steps (a build with the `stage-times` feature, run with
    /// `BAO_STAGE_TIMES=FILE` in its environment, FILE the same): print, for each way, the
    /// median time from the stub's start to each step it reached, and from the step before.
    #[arg(long, value_name = "FILE")]
    pub stages: Option<std::path::PathBuf>,
}

/// One way's timings.
#[derive(Debug, Clone, Serialize)]
pub struct Way {
    /// `pid`, `pid+no-network`, `full` or `full+own-uid`.
    pub isolation: &'static str,
    /// Spawn until the echo of the first line arrived.
    pub start: Summary,
    /// Spawn until `shutdown` returned.
    pub life: Summary,
}

/// `pid`, `pid` with `--no-network` (the network namespace is part of the sandbox's cost),
/// `full`; and, not as root, `full+own-uid`: the sandbox with `subordinate_ids = off`, so
/// that `full` (the caller's subordinate ids, where it has them) against it is what the
/// subordinate ids cost.
fn ways() -> Vec<(IsolationLevel, bool, SubordinateIds)> {
    let mut ways = vec![
        (IsolationLevel::Pid, false, SubordinateIds::Auto),
        (IsolationLevel::Pid, true, SubordinateIds::Auto),
        (IsolationLevel::Full, true, SubordinateIds::Auto),
    ];
    if !nix::unistd::geteuid().is_root() {
        ways.push((IsolationLevel::Full, true, SubordinateIds::Off));
    }
    ways
}

/// Runs the benchmark.
///
/// # Errors
/// A bot that cannot be started or does not echo.
pub fn run(args: &SandboxArgs, runtime: &tokio::runtime::Runtime) -> anyhow::Result<()> {
    let folder = std::env::temp_dir().join(format!("bao-bench-sandbox-{}", std::process::id()));
    std::fs::create_dir_all(&folder).with_context(|| format!("cannot create {}", folder.display()))?;
    let spec =
        BotSpec { name: None, program: "/bin/cat".into(), args: Vec::new(), dir: Some(folder.clone()) };
    if let Some(stages) = &args.stages {
        anyhow::ensure!(
            std::env::var_os("BAO_STAGE_TIMES").is_some_and(|file| file == stages.as_os_str()),
            "--stages {} needs BAO_STAGE_TIMES={0} in the environment (and a build with --features stage-times)",
            stages.display()
        );
        std::fs::write(stages, b"").with_context(|| format!("cannot empty {}", stages.display()))?;
    }
    let outcome = measure(args, runtime, &spec);
    let _ = std::fs::remove_dir(&folder);
    outcome?;
    if let Some(stages) = &args.stages {
        super::sandbox_stages::report(stages)?;
    }
    Ok(())
}

fn measure(args: &SandboxArgs, runtime: &tokio::runtime::Runtime, spec: &BotSpec) -> anyhow::Result<()> {
    let ways = ways();
    let mut samples: Vec<(Vec<Duration>, Vec<Duration>)> = vec![(Vec::new(), Vec::new()); ways.len()];
    // One warm-up lifecycle of each way (the isolation probe, the spawn server's start).
    for round in 0..=args.rounds {
        for (way, &(level, no_network, subordinate_ids)) in ways.iter().enumerate() {
            let options = SpawnOptions {
                isolation: Isolation { level, no_network },
                sandbox: SandboxProfile { subordinate_ids, ..SandboxProfile::default() },
                ..SpawnOptions::default()
            };
            if let Some(stages) = args.stages.as_deref().filter(|_| round > 0) {
                super::sandbox_stages::begin(stages, way_name(level, no_network, subordinate_ids))?;
            }
            let (start, life) = runtime.block_on(lifecycle(spec, &options))?;
            bao_supervise::wait_for_cleanups(Duration::from_secs(5));
            if round > 0 {
                samples[way].0.push(start);
                samples[way].1.push(life);
            }
        }
    }
    let ways: Vec<Way> = ways
        .iter()
        .zip(&samples)
        .map(|((level, no_network, subordinate_ids), (start, life))| Way {
            isolation: way_name(*level, *no_network, *subordinate_ids),
            start: Summary::of(start).expect("rounds ≥ 1"),
            life: Summary::of(life).expect("rounds ≥ 1"),
        })
        .collect();
    if args.json {
        return print_json(&ways);
    }
    println!(
        "{:<6} {:>14} {:>14} {:>14} {:>14}",
        "way", "start median", "start p90", "life median", "life p90"
    );
    for way in &ways {
        println!(
            "{:<15} {:>11.0} µs {:>11.0} µs {:>11.0} µs {:>11.0} µs",
            way.isolation, way.start.median_us, way.start.p90_us, way.life.median_us, way.life.p90_us
        );
    }
    Ok(())
}

fn way_name(level: IsolationLevel, no_network: bool, subordinate_ids: SubordinateIds) -> &'static str {
    match (level, no_network, subordinate_ids) {
        (IsolationLevel::Pid, true, _) => "pid+no-network",
        (IsolationLevel::Full, _, SubordinateIds::Off) => "full+own-uid",
        _ => level.name(),
    }
}

/// One bot's life: its start until its echo, and until `shutdown` returned.
async fn lifecycle(spec: &BotSpec, options: &SpawnOptions) -> anyhow::Result<(Duration, Duration)> {
    let began = Instant::now();
    let mut bot =
        BotProcess::spawn_with(spec, &ResourceLimits::default(), options).await.with_context(|| {
            format!("cannot start /bin/cat under --isolation {}", options.isolation.level.name())
        })?;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    bot.send_line("hello", deadline).await.map_err(|e| anyhow::anyhow!("cannot write to the bot: {e}"))?;
    let line = bot.recv_line(deadline).await.map_err(|e| anyhow::anyhow!("no echo: {e}"))?;
    anyhow::ensure!(line == "hello", "the bot echoed {line:?}");
    let start = began.elapsed();
    bot.shutdown(Duration::from_secs(1)).await;
    Ok((start, began.elapsed()))
}
