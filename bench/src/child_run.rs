//! Running a child program and measuring it from outside: wall time, its own CPU time (read
//! from `/proc/PID/stat` while it is a zombie, before it is reaped) and the CPU of everything
//! it reaped (the difference of `getrusage(RUSAGE_CHILDREN)` around the run).

use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::Context;
use nix::sys::resource::{UsageWho, getrusage};
use nix::sys::wait::{Id, WaitPidFlag, waitid};
use nix::unistd::Pid;

/// Clock ticks per second of `/proc/PID/stat` (`USER_HZ`, 100 on Linux's ABI).
pub const USER_HZ: u64 = 100;

/// What a finished child cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChildCost {
    /// From just before the spawn to its exit.
    pub wall: Duration,
    /// Its own user + system CPU time, all its threads (resolution 1 / [`USER_HZ`] s).
    pub own_cpu: Duration,
    /// Its CPU plus that of every descendant reaped (µs resolution).
    pub with_descendants_cpu: Duration,
    /// Its main thread's CPU time (`/proc/PID/schedstat`, ns resolution).
    pub main_thread_cpu: Duration,
    /// How long its main thread was runnable but waiting for a CPU (`/proc/PID/schedstat`).
    pub main_thread_run_delay: Duration,
}

/// Runs `command` to its end; fails unless it exits with status 0.
///
/// # Errors
/// The command cannot be started or waited for, its `/proc` entry cannot be read, or it failed.
pub fn run(command: &mut Command) -> anyhow::Result<ChildCost> {
    let before = children_cpu()?;
    let start = Instant::now();
    let mut child = command.spawn().with_context(|| format!("cannot start {command:?}"))?;
    let pid = i32::try_from(child.id()).context("a pid out of range")?;
    waitid(Id::Pid(Pid::from_raw(pid)), WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT)
        .with_context(|| format!("waiting for {command:?}"))?;
    let wall = start.elapsed();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .with_context(|| format!("cannot read /proc/{pid}/stat of the finished child"))?;
    let own_cpu = own_cpu(&stat).with_context(|| format!("unexpected /proc/{pid}/stat: {stat:?}"))?;
    let schedstat = std::fs::read_to_string(format!("/proc/{pid}/schedstat"))
        .with_context(|| format!("cannot read /proc/{pid}/schedstat of the finished child"))?;
    let (main_thread_cpu, main_thread_run_delay) = schedstat_times(&schedstat)
        .with_context(|| format!("unexpected /proc/{pid}/schedstat: {schedstat:?}"))?;
    let status = child.wait().with_context(|| format!("reaping {command:?}"))?;
    let after = children_cpu()?;
    if !status.success() {
        anyhow::bail!("{command:?} ended with {status}");
    }
    Ok(ChildCost {
        wall,
        own_cpu,
        with_descendants_cpu: after.saturating_sub(before),
        main_thread_cpu,
        main_thread_run_delay,
    })
}

/// User + system CPU of every reaped child of this process so far.
fn children_cpu() -> anyhow::Result<Duration> {
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).context("getrusage(RUSAGE_CHILDREN)")?;
    let micros = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(u64::try_from(t.tv_sec()).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec()).unwrap_or(0))
    };
    Ok(micros(usage.user_time()) + micros(usage.system_time()))
}

/// `utime + stime` (fields 14 and 15) of a `/proc/PID/stat` line; the command name in
/// parentheses may hold spaces and parentheses, so fields are counted after the last `)`.
fn own_cpu(stat: &str) -> Option<Duration> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after_name.split_ascii_whitespace().collect();
    // fields[0] is field 3 (state): utime is field 14, stime field 15.
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 1000 / USER_HZ))
}

/// The first two fields of `/proc/PID/schedstat`: time on a CPU and time waiting for one, ns.
fn schedstat_times(schedstat: &str) -> Option<(Duration, Duration)> {
    let mut fields = schedstat.split_ascii_whitespace().map(str::parse::<u64>);
    let on_cpu = fields.next()?.ok()?;
    let waiting = fields.next()?.ok()?;
    Some((Duration::from_nanos(on_cpu), Duration::from_nanos(waiting)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_utime_and_stime_after_a_strange_command_name() {
        let stat = "4242 (bao (ref) x) Z 1 4242 4242 0 -1 4194380 1 2 3 4 150 25 7 8 20 0 1 0 99 0 0";
        assert_eq!(own_cpu(stat), Some(Duration::from_millis(1750)));
        assert_eq!(own_cpu("4242 (short) Z 1 2"), None);
        assert_eq!(own_cpu("no parenthesis"), None);
        assert_eq!(
            schedstat_times("1500000 250000 42\n"),
            Some((Duration::from_micros(1500), Duration::from_micros(250)))
        );
        assert_eq!(schedstat_times("12"), None);
    }

    #[test]
    fn measures_a_child_that_burns_cpu_and_refuses_a_failure() {
        let cost = run(Command::new("sh").args(["-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"]))
            .expect("sh runs");
        assert!(cost.with_descendants_cpu >= cost.own_cpu, "{cost:?}");
        assert!(cost.wall > Duration::ZERO);
        let error = run(&mut Command::new("false")).expect_err("exit status 1");
        assert!(format!("{error:#}").contains("ended with"), "{error:#}");
    }
}
