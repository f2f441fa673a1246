//! `bao-bench bench spawn`: a bench-only experiment on the fixed cost per game. A C program
//! (`bench/bots/spawn_cost.c`) starts the C instant bot, greets it and ends it in several
//! ways — straight, through the referee's re-exec stub (the big `bao-referee` or the dedicated
//! `bao-exec-stub`), with a cgroup joined by the stub,
//! migrated by the parent, or born in it with `clone3(CLONE_INTO_CGROUP)` — and times the
//! cgroup operations and the two ways of reading `cpu.stat`. It shows what the referee's
//! spawn path could cost; the referee itself is not run. The `ns-floor` ways set up, in C
//! with no stub, exactly the namespaces, mounts and cgroup of the referee's `--isolation pid`
//! (and variants without one piece each): the kernel's own floor for a bot's isolation.
//! Each lifecycle way also reports its CPU time (this process and every process of the
//! lifecycle, teardown included) and its untimed teardown (from `cgroup.kill` until every
//! process is reaped and the cgroup removed).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context;
use serde::Serialize;

use super::instant_bot;
use super::machine::Machine;
use super::report::print_json;

/// The experiment's C source.
pub const SOURCE: &str = include_str!("../bots/spawn_cost.c");

/// The arguments of `bao-bench bench spawn`.
#[derive(Debug, Clone, clap::Args)]
pub struct SpawnArgs {
    /// Lifecycles of each way (medians and p90 over them).
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: u32,
    /// The executable hosting the re-exec stub. Default: `bao-referee` next to this executable.
    #[arg(long, value_name = "PATH")]
    pub stub: Option<PathBuf>,
    /// The dedicated stub executable. Default: `bao-exec-stub` next to this executable; without
    /// one its ways are skipped.
    #[arg(long, value_name = "PATH")]
    pub small_stub: Option<PathBuf>,
    /// A writable cgroup v2 directory for the cgroup ways. Default: this process's own cgroup
    /// (as the referee uses); without one those ways are skipped.
    #[arg(long, value_name = "DIR")]
    pub cgroup_parent: Option<PathBuf>,
    /// The C compiler.
    #[arg(long, default_value = "cc")]
    pub cc: String,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// One way's timings.
#[derive(Debug, Clone, Serialize)]
pub struct Way {
    /// The way (see the C source).
    pub name: String,
    /// Median, µs.
    pub median_us: f64,
    /// 90th percentile, µs.
    pub p90_us: f64,
    /// For a lifecycle: the CPU time per lifecycle and its teardown (absent for the ways timed
    /// alone: the `cgroup-` and `cpu.stat` ones).
    #[serde(flatten)]
    pub lifecycle: Option<LifecycleCost>,
}

/// What a lifecycle way costs besides its timed wall.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LifecycleCost {
    /// CPU time of the experiment's process and of every process of the lifecycle (the stub,
    /// the init, the bot, reaped by it: `getrusage` of itself and its children), from before the
    /// start until everything is reaped and the cgroup removed; median, µs. The kernel's worker
    /// threads (RCU callbacks, deferred frees) are not in it.
    pub cpu_median_us: f64,
    /// The same, 90th percentile, µs.
    pub cpu_p90_us: f64,
    /// The untimed end: from `cgroup.kill` (or the bot's end, without a cgroup) until every
    /// process is reaped and the cgroup removed; median, µs.
    pub teardown_median_us: f64,
    /// The same, 90th percentile, µs.
    pub teardown_p90_us: f64,
}

/// Everything `bench spawn` measured.
#[derive(Debug, Clone, Serialize)]
pub struct SpawnReport {
    /// The machine.
    pub machine: Machine,
    /// Lifecycles per way.
    pub rounds: u32,
    /// The stub's executable.
    pub stub: String,
    /// The dedicated stub executable, if any.
    pub small_stub: Option<String>,
    /// The cgroup parent used, if any.
    pub cgroup_parent: Option<String>,
    /// The ways.
    pub ways: Vec<Way>,
}

/// Runs the experiment and prints the report.
///
/// # Errors
/// No compiler, no stub executable, or the experiment failed.
pub fn run(args: &SpawnArgs) -> anyhow::Result<()> {
    let machine = Machine::current();
    let stub = match &args.stub {
        Some(stub) => stub.clone(),
        None => std::env::current_exe()
            .context("cannot find the bao-bench executable")?
            .with_file_name("bao-referee"),
    };
    if !stub.is_file() {
        anyhow::bail!(
            "no stub executable {} (cargo build --release -p bao-referee, or pass --stub)",
            stub.display()
        );
    }
    let small_stub = match &args.small_stub {
        Some(path) if !path.is_file() => anyhow::bail!("no stub executable {}", path.display()),
        Some(path) => Some(path.clone()),
        None => Some(stub.with_file_name(bao_supervise::STUB_EXECUTABLE)).filter(|p| p.is_file()),
    };
    let cgroup_parent = args.cgroup_parent.clone().or_else(own_cgroup_dir);
    let work = std::env::temp_dir().join(format!("bao-bench-spawn-{}", std::process::id()));
    std::fs::create_dir_all(&work).with_context(|| format!("cannot create {}", work.display()))?;
    let outcome = measure(
        args,
        &work,
        [&stub, small_stub.as_deref().unwrap_or(Path::new("-"))],
        cgroup_parent.as_deref(),
    );
    let _ = std::fs::remove_dir_all(&work);
    let ways = outcome?;
    let report = SpawnReport {
        machine,
        rounds: args.rounds,
        stub: stub.display().to_string(),
        small_stub: small_stub.map(|p| p.display().to_string()),
        cgroup_parent: cgroup_parent.map(|p| p.display().to_string()),
        ways,
    };
    if args.json { print_json(&report) } else { print_text(&report) }
}

fn measure(
    args: &SpawnArgs,
    work: &Path,
    [stub, small_stub]: [&Path; 2],
    cgroup_parent: Option<&Path>,
) -> anyhow::Result<Vec<Way>> {
    let instant = instant_bot::compile(work, &args.cc)?;
    let source = work.join("spawn_cost.c");
    let exe = work.join("spawn_cost");
    std::fs::write(&source, SOURCE).with_context(|| format!("cannot write {}", source.display()))?;
    let compiled = Command::new(&args.cc)
        .args(["-O2", "-o"])
        .arg(&exe)
        .arg(&source)
        .output()
        .with_context(|| format!("cannot run the C compiler {:?}", args.cc))?;
    if !compiled.status.success() {
        anyhow::bail!(
            "{} could not compile {}:\n{}",
            args.cc,
            source.display(),
            String::from_utf8_lossy(&compiled.stderr)
        );
    }
    let output = Command::new(&exe)
        .arg(args.rounds.to_string())
        .arg(&instant)
        .arg(stub)
        .arg(small_stub)
        .arg(cgroup_parent.map_or_else(|| PathBuf::from("-"), Path::to_path_buf))
        .output()
        .with_context(|| format!("cannot run {}", exe.display()))?;
    if !output.status.success() {
        anyhow::bail!(
            "the experiment failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    parse_ways(&String::from_utf8_lossy(&output.stdout))
}

/// The experiment's output: one line per way, `NAME MEDIAN_US P90_US`, followed for a
/// lifecycle by `CPU_MEDIAN_US CPU_P90_US TEARDOWN_MEDIAN_US TEARDOWN_P90_US`.
fn parse_ways(text: &str) -> anyhow::Result<Vec<Way>> {
    text.lines()
        .map(|line| {
            let bad = || format!("unexpected line from the experiment: {line:?}");
            let mut words = line.split_ascii_whitespace();
            let name = words.next().with_context(bad)?.to_owned();
            let numbers: Vec<f64> = words.map(str::parse).collect::<Result<_, _>>().with_context(bad)?;
            let lifecycle = match numbers[..] {
                [_, _] => None,
                [_, _, cpu_median_us, cpu_p90_us, teardown_median_us, teardown_p90_us] => {
                    Some(LifecycleCost { cpu_median_us, cpu_p90_us, teardown_median_us, teardown_p90_us })
                }
                _ => anyhow::bail!(bad()),
            };
            Ok(Way { name, median_us: numbers[0], p90_us: numbers[1], lifecycle })
        })
        .collect()
}

/// This process's cgroup directory in the cgroup2 hierarchy, if it is writable.
fn own_cgroup_dir() -> Option<PathBuf> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let (root, mount_point) = mountinfo.lines().find_map(|line| {
        let (before, after) = line.split_once(" - ")?;
        (after.split_whitespace().next()? == "cgroup2").then_some(())?;
        let mut fields = before.split_whitespace().skip(3);
        Some((fields.next()?.to_owned(), fields.next()?.replace("\\040", " ")))
    })?;
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let own = cgroups.lines().find_map(|l| l.strip_prefix("0::"))?.trim();
    let relative = own.strip_prefix(root.as_str()).unwrap_or(own).trim_start_matches('/');
    let dir = PathBuf::from(mount_point).join(relative);
    let writable = std::fs::metadata(&dir)
        .is_ok_and(|m| !m.permissions().readonly() || nix::unistd::geteuid().is_root());
    (dir.is_dir() && writable).then_some(dir)
}

fn print_text(report: &SpawnReport) -> anyhow::Result<()> {
    println!("bao-bench bench spawn — {}", report.machine.describe());
    println!(
        "  stub: {}; small stub: {}; cgroup parent: {}",
        report.stub,
        report.small_stub.as_deref().unwrap_or("none (its ways skipped)"),
        report.cgroup_parent.as_deref().unwrap_or("none (cgroup ways skipped)")
    );
    println!(
        "  {} rounds; a lifecycle = [mkdir cgroup], start, hello, ready, quit, the end (waitpid, or the \
         init's report), [cpu.stat, cgroup.kill] (then, untimed: the teardown, until all is reaped and \
         the cgroup removed); cpu = all the lifecycle's processes, teardown included",
        report.rounds
    );
    let direct = report.ways.iter().find(|w| w.name == "direct");
    for way in &report.ways {
        let mut line =
            format!("  {:<22} median {:>9.1} µs   p90 {:>9.1} µs", way.name, way.median_us, way.p90_us);
        if let Some(cost) = way.lifecycle {
            line.push_str(&format!(
                "   cpu {:>8.1} µs (p90 {:>8.1})   teardown {:>8.1} µs (p90 {:>8.1})",
                cost.cpu_median_us, cost.cpu_p90_us, cost.teardown_median_us, cost.teardown_p90_us
            ));
            if let Some(direct) = direct.filter(|d| d.name != way.name) {
                let direct_cpu = direct.lifecycle.map_or(f64::NAN, |d| d.cpu_median_us);
                line.push_str(&format!(
                    "   (+{:.1} µs, cpu +{:.1} µs over direct)",
                    way.median_us - direct.median_us,
                    cost.cpu_median_us - direct_cpu
                ));
            }
        }
        println!("{line}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_experiment_output_and_names_a_bad_line() {
        let ways = parse_ways("direct 847.2 1860.2 900.0 950.5 1.0 1.5\ncpu.stat-pread 0.9 1.1\n")
            .expect("two ways");
        assert_eq!(ways.len(), 2);
        assert_eq!((ways[0].name.as_str(), ways[0].median_us, ways[0].p90_us), ("direct", 847.2, 1860.2));
        assert_eq!(
            ways[0].lifecycle,
            Some(LifecycleCost {
                cpu_median_us: 900.0,
                cpu_p90_us: 950.5,
                teardown_median_us: 1.0,
                teardown_p90_us: 1.5
            })
        );
        assert_eq!(
            (ways[1].name.as_str(), ways[1].median_us, ways[1].lifecycle),
            ("cpu.stat-pread", 0.9, None)
        );
        for bad in ["direct 1.0\n", "direct 1.0 2.0 3.0\n", "direct 1.0 x\n"] {
            let error = parse_ways(bad).expect_err(bad);
            assert!(format!("{error:#}").contains("unexpected line"), "{bad}: {error:#}");
        }
    }

    #[test]
    fn a_lifecycle_way_flattens_its_costs_into_the_json() {
        let way = Way {
            name: "ns-floor".to_owned(),
            median_us: 2.0,
            p90_us: 3.0,
            lifecycle: Some(LifecycleCost {
                cpu_median_us: 4.0,
                cpu_p90_us: 5.0,
                teardown_median_us: 6.0,
                teardown_p90_us: 7.0,
            }),
        };
        let json = serde_json::to_value(&way).expect("json");
        assert_eq!(json["cpu_median_us"], 4.0);
        assert_eq!(json["teardown_p90_us"], 7.0);
        let alone = Way { lifecycle: None, ..way };
        assert!(serde_json::to_value(&alone).expect("json").get("cpu_median_us").is_none());
    }
}
