//! `bao-bench bench spawn`: a bench-only experiment on the fixed cost per game. A C program
//! (`bench/bots/spawn_cost.c`) starts the C instant bot, greets it and ends it in several
//! ways — straight, through the referee's re-exec stub (the big `bao-referee` or the dedicated
//! `bao-exec-stub`), with a cgroup joined by the stub,
//! migrated by the parent, or born in it with `clone3(CLONE_INTO_CGROUP)` — and times the
//! cgroup operations and the two ways of reading `cpu.stat`. It shows what the referee's
//! spawn path could cost; the referee itself is not run.

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

/// The experiment's output: one `NAME MEDIAN_US P90_US` line per way.
fn parse_ways(text: &str) -> anyhow::Result<Vec<Way>> {
    text.lines()
        .map(|line| {
            let bad = || format!("unexpected line from the experiment: {line:?}");
            let mut words = line.split_ascii_whitespace();
            let name = words.next().with_context(bad)?.to_owned();
            let median_us = words.next().with_context(bad)?.parse().with_context(bad)?;
            let p90_us = words.next().with_context(bad)?.parse().with_context(bad)?;
            Ok(Way { name, median_us, p90_us })
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
        "  {} rounds; a lifecycle = [mkdir cgroup], start, hello, ready, quit, waitpid, [cpu.stat, cgroup.kill] \
         (then, untimed: wait until the cgroup is empty, rmdir)",
        report.rounds
    );
    let direct = report.ways.iter().find(|w| w.name == "direct").map(|w| w.median_us);
    for way in &report.ways {
        let beyond = match direct {
            Some(d)
                if way.name != "direct"
                    && !way.name.starts_with("cgroup-")
                    && !way.name.starts_with("cpu.stat") =>
            {
                format!("  (+{:.1} µs over direct)", way.median_us - d)
            }
            _ => String::new(),
        };
        println!("  {:<22} median {:>9.1} µs   p90 {:>9.1} µs{beyond}", way.name, way.median_us, way.p90_us);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_experiment_output_and_names_a_bad_line() {
        let ways = parse_ways("direct 847.2 1860.2\nstub 2687.6 3834.5\n").expect("two ways");
        assert_eq!(ways.len(), 2);
        assert_eq!((ways[1].name.as_str(), ways[1].median_us, ways[1].p90_us), ("stub", 2687.6, 3834.5));
        let error = parse_ways("direct 1.0\n").expect_err("no p90");
        assert!(format!("{error:#}").contains("unexpected line"), "{error:#}");
    }
}
