//! `bao-bench bench sandbox --stages FILE`: where a bot's start goes inside the stub. A build
//! with the `stage-times` feature makes the stub, the namespace's init and the program's
//! process append `PID STEP NANOSECONDS` lines to FILE (`bao_supervise`'s `stage_times.rs`);
//! the benchmark writes `bench WAY` before each timed lifecycle. The report: for each way and
//! step, in the order reached, the median time from the stub's start (`stub`) and from the
//! step before.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use anyhow::Context;

use super::stats::Summary;

/// Marks the start of one lifecycle of `way` in `file`.
///
/// # Errors
/// The file cannot be written.
pub fn begin(file: &Path, way: &str) -> anyhow::Result<()> {
    let mut out = std::fs::OpenOptions::new()
        .append(true)
        .open(file)
        .with_context(|| format!("cannot open {}", file.display()))?;
    writeln!(out, "bench {way}").with_context(|| format!("cannot write {}", file.display()))
}

/// One way's steps: for each step, the times from the start and from the step before (µs),
/// and where it comes in the order.
#[derive(Default)]
struct Steps {
    order: Vec<String>,
    since_start: BTreeMap<String, Vec<std::time::Duration>>,
    since_previous: BTreeMap<String, Vec<std::time::Duration>>,
}

/// Prints the report from `file`.
///
/// # Errors
/// The file cannot be read, or holds no step (a build without the feature).
pub fn report(file: &Path) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let mut ways: Vec<(String, Steps)> = Vec::new();
    let mut lifecycle: Vec<(String, u64)> = Vec::new();
    let mut way: Option<String> = None;
    let mut flush = |way: &Option<String>, lifecycle: &mut Vec<(String, u64)>| {
        let (Some(way), Some(&(_, start))) = (way, lifecycle.first()) else { return };
        // Steps of other stubs (the isolation probes) among them: left out.
        if lifecycle.iter().filter(|(step, _)| step == "stub").count() != 1 {
            lifecycle.clear();
            return;
        }
        let index = match ways.iter().position(|(name, _)| name == way) {
            Some(index) => index,
            None => {
                ways.push((way.clone(), Steps::default()));
                ways.len() - 1
            }
        };
        let steps = &mut ways[index].1;
        let mut previous = start;
        let mut seen = std::collections::HashMap::<String, u32>::new();
        for (step, at) in lifecycle.drain(..) {
            // A step reached twice (`exec` by the init and the program) gets a number.
            let count = seen.entry(step.clone()).or_insert(0);
            *count += 1;
            let step = if *count > 1 { format!("{step}#{count}") } else { step };
            if !steps.order.contains(&step) {
                steps.order.push(step.clone());
            }
            let nanos = |n: u64| std::time::Duration::from_nanos(n);
            steps.since_start.entry(step.clone()).or_default().push(nanos(at.saturating_sub(start)));
            steps.since_previous.entry(step).or_default().push(nanos(at.saturating_sub(previous)));
            previous = at;
        }
    };
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        match fields.as_slice() {
            ["bench", name] => {
                flush(&way, &mut lifecycle);
                way = Some((*name).to_owned());
            }
            [_pid, step, nanos] => {
                if let Ok(nanos) = nanos.parse() {
                    lifecycle.push(((*step).to_owned(), nanos));
                }
            }
            _ => {}
        }
    }
    flush(&way, &mut lifecycle);
    anyhow::ensure!(
        !ways.is_empty(),
        "no step in {} (a build without --features stage-times?)",
        file.display()
    );
    for (way, steps) in &ways {
        println!("\n{way}: median µs from the stub's start / from the step before");
        for step in &steps.order {
            let median =
                |samples: &Vec<std::time::Duration>| Summary::of(samples).map_or(0.0, |s| s.median_us);
            println!(
                "  {step:<14} {:>9.0} {:>9.0}",
                median(&steps.since_start[step]),
                median(&steps.since_previous[step])
            );
        }
    }
    Ok(())
}
