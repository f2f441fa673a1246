//! Stopping the referee in the middle of a game with a bot that forks: SIGTERM, SIGHUP (and
//! SIGINT) end `match` and `tournament` the same way (exit 130, the game recorded as aborted,
//! every bot process ended); after SIGKILL no bot process survives 5 s (under the default
//! isolation the bot's PID namespace dies with its stub), and without isolation what a dead
//! referee left in its bots' cgroups is killed by the next run.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

use crate::hostile::{isolation_available, processes_with};
use crate::support::{Scratch, bin};

/// How long after the signal every bot process must be gone.
const ALL_GONE_WITHIN: Duration = Duration::from_secs(5);

fn tag(what: &str) -> String {
    format!("stopping-{what}-{}", std::process::id())
}

fn forker(tag: &str) -> String {
    format!("{} --mode fork-child --tag {tag}", bin("bao-misbehave").display())
}

fn random_bot() -> String {
    format!("{} sample-bot random --seed 5", bin("bao-referee").display())
}

/// Whether a command line is the forking bot's child once it runs as the sleeper: not the
/// `sh -c 'trap ...; exec "$0" --mode sleeper ...'` that starts it, whose command line holds
/// the same words until its `exec` (and reads as empty for an instant during it).
fn is_the_sleeper(cmdline: &str) -> bool {
    cmdline.contains("--mode sleeper") && !cmdline.contains("trap")
}

/// Waits until the forking bot's child (`--mode sleeper`) runs, so that the game is in the
/// middle of a move with a process tree to end.
fn wait_for_the_fork(tag: &str, referee: &mut Child) {
    let until = Instant::now() + Duration::from_secs(20);
    while !processes_with(tag).iter().any(|(_, cmdline)| is_the_sleeper(cmdline)) {
        assert!(referee.try_wait().unwrap().is_none(), "the referee ended before the bot forked");
        assert!(Instant::now() < until, "the bot never forked: {:?}", processes_with(tag));
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends `signal` to the referee; returns its exit code (`None` when a signal ended it) and
/// checks that no process of the bot is left `ALL_GONE_WITHIN` after the signal.
fn stop(mut referee: Child, signal: Signal, tag: &str) -> Option<i32> {
    let sent = Instant::now();
    kill(Pid::from_raw(i32::try_from(referee.id()).unwrap()), signal).unwrap();
    let status = loop {
        if let Some(status) = referee.try_wait().unwrap() {
            break status;
        }
        assert!(sent.elapsed() < Duration::from_secs(15), "the referee did not stop after {signal}");
        std::thread::sleep(Duration::from_millis(20));
    };
    while !processes_with(tag).is_empty() && sent.elapsed() < ALL_GONE_WITHIN {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = processes_with(tag);
    assert!(left.is_empty(), "after {signal}: bot processes left {ALL_GONE_WITHIN:?} later: {left:?}");
    status.code()
}

fn start_match(tag: &str, log: &Path, extra: &[&str]) -> Child {
    let mut referee = Command::new(bin("bao-referee"))
        .args(["match", "--json", "--south", &forker(tag), "--north", &random_bot(), "--tc", "60+0", "--log"])
        .arg(log)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_the_fork(tag, &mut referee);
    referee
}

fn last_record(log: &Path) -> Value {
    let text = std::fs::read_to_string(log).unwrap();
    serde_json::from_str(text.lines().last().expect("a log line")).unwrap()
}

/// SIGTERM, SIGHUP and SIGINT: exit 130, the game's log ends with an `aborted` result, and
/// the bot's tree (the bot and the child that ignores SIGTERM) is gone.
fn a_signal_aborts_the_match(signal: Signal) {
    if !isolation_available("a_signal_aborts_the_match") {
        return;
    }
    let tag = tag(&format!("match-{}", signal.as_str()));
    let log = Scratch::new("stopping", "game.jsonl");
    let referee = start_match(&tag, &log, &[]);
    assert_eq!(stop(referee, signal, &tag), Some(130), "exit code after {signal}");
    let last = last_record(&log);
    assert_eq!((&last["type"], &last["reason"]), (&"result".into(), &"aborted".into()), "{last}");
    let verify = Command::new(bin("bao-referee")).arg("verify").arg(&*log).output().unwrap();
    assert!(verify.status.success(), "the log is complete: {}", String::from_utf8_lossy(&verify.stdout));
}

#[test]
fn sigterm_aborts_the_match_and_ends_every_bot_process() {
    a_signal_aborts_the_match(Signal::SIGTERM);
}

#[test]
fn sighup_aborts_the_match_and_ends_every_bot_process() {
    a_signal_aborts_the_match(Signal::SIGHUP);
}

#[test]
fn sigint_aborts_the_match_and_ends_every_bot_process() {
    a_signal_aborts_the_match(Signal::SIGINT);
}

#[test]
fn after_sigkill_of_the_match_no_bot_process_survives() {
    if !isolation_available("after_sigkill_of_the_match_no_bot_process_survives") {
        return;
    }
    let tag = tag("match-kill");
    let log = Scratch::new("stopping", "game.jsonl");
    let referee = start_match(&tag, &log, &[]);
    assert_eq!(stop(referee, Signal::SIGKILL, &tag), None);
}

fn start_tournament(tag: &str, out: &Path) -> Child {
    let mut referee = Command::new(bin("bao-referee"))
        .arg("tournament")
        .args(["--bot", "name=forker", &format!("cmd={}", forker(tag))])
        .args(["--bot", "name=random", &format!("cmd={}", random_bot())])
        .args(["--games", "2", "--tc", "60+0", "--concurrency", "1", "--out"])
        .arg(out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_the_fork(tag, &mut referee);
    referee
}

fn a_signal_stops_the_tournament(signal: Signal) {
    if !isolation_available("a_signal_stops_the_tournament") {
        return;
    }
    let tag = tag(&format!("tournament-{}", signal.as_str()));
    let out = Scratch::dir("stopping");
    let referee = start_tournament(&tag, &out.join("t"));
    assert_eq!(stop(referee, signal, &tag), Some(130), "exit code after {signal}");
}

#[test]
fn sigterm_stops_the_tournament_and_ends_every_bot_process() {
    a_signal_stops_the_tournament(Signal::SIGTERM);
}

#[test]
fn sighup_stops_the_tournament_and_ends_every_bot_process() {
    a_signal_stops_the_tournament(Signal::SIGHUP);
}

#[test]
fn after_sigkill_of_the_tournament_no_bot_process_survives() {
    if !isolation_available("after_sigkill_of_the_tournament_no_bot_process_survives") {
        return;
    }
    let tag = tag("tournament-kill");
    let out = Scratch::dir("stopping");
    let referee = start_tournament(&tag, &out.join("t"));
    assert_eq!(stop(referee, Signal::SIGKILL, &tag), None);
}

/// The cgroup v2 directory (relative to the hierarchy) a process is in: `/proc/PID/cgroup`'s
/// `0::` line.
fn cgroup_of(pid: u32) -> Option<String> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).ok()?;
    text.lines().find_map(|l| l.strip_prefix("0::")).map(str::to_owned)
}

/// Without isolation a SIGKILLed referee leaves the bot's child (which ignores SIGTERM and
/// is not the stub's child) running, in the bot's cgroup; the next referee to start a bot
/// kills it. (When tests run in parallel, another test's referee may be that next one.)
#[test]
fn a_dead_referee_s_leftovers_are_killed_by_the_next_run_with_a_cgroup() {
    let tag = tag("leftover");
    let log = Scratch::new("stopping", "game.jsonl");
    let mut referee = start_match(&tag, &log, &["--isolation", "none"]);
    let referee_pid = referee.id();
    let running = processes_with(&tag);
    let (child, _) = running.iter().find(|(_, cmdline)| is_the_sleeper(cmdline)).expect("the sleeper runs");
    let cgroup = cgroup_of(*child).unwrap_or_default();
    if !cgroup.contains(&format!("/bao-bot-{referee_pid}-")) {
        let why = format!("skipped: no cgroup v2 for the bots here (the bot's child is in {cgroup:?})");
        let _ = stop(referee, Signal::SIGTERM, &tag);
        assert!(std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"), "{why} (BAO_REQUIRE_ALL=1)");
        eprintln!("a_dead_referee_s_leftovers_are_killed_by_the_next_run_with_a_cgroup: {why}");
        return;
    }
    kill(Pid::from_raw(i32::try_from(referee_pid).unwrap()), Signal::SIGKILL).unwrap();
    referee.wait().unwrap();
    let next_log = Scratch::new("stopping", "next.jsonl");
    let next = Command::new(bin("bao-referee"))
        .args(["match", "--json", "--max-plies", "2", "--log"])
        .arg(&*next_log)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(next.status.success(), "{}", String::from_utf8_lossy(&next.stderr));
    let left = processes_with(&tag);
    assert!(left.is_empty(), "the next run left the dead referee's bot processes running: {left:?}");
}

fn a_signal_stops_check(signal: Signal) {
    if !isolation_available("a_signal_stops_check") {
        return;
    }
    let tag = tag(&format!("check-{}", signal.as_str()));
    let mut referee = Command::new(bin("bao-referee"))
        .args(["check", "--move-time", "30s", &forker(&tag)])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_the_fork(&tag, &mut referee);
    assert_eq!(stop(referee, signal, &tag), Some(130), "exit code after {signal}");
}

#[test]
fn sigterm_stops_check_and_ends_every_bot_process() {
    a_signal_stops_check(Signal::SIGTERM);
}

#[test]
fn sighup_stops_check_and_ends_every_bot_process() {
    a_signal_stops_check(Signal::SIGHUP);
}

/// Ctrl-C while the tournament first starts its bots (the preflight, before any game): exit
/// 130 with a message, no folder, and the bot that was starting is ended, also without
/// isolation.
#[test]
fn sigint_while_the_tournament_starts_its_bots_ends_them_and_exits_130() {
    let tag = tag("tournament-preflight");
    let out = Scratch::new("stopping", "t");
    let slow = format!("cmd=sh -c 'sleep 30; echo {tag}'");
    let referee = Command::new(bin("bao-referee"))
        .args(["tournament", "--plain", "--isolation", "none", "--startup-time", "20s"])
        .args(["--bot", "name=slow", &slow, "--bot", "name=r"])
        .arg(random_bot_cmd())
        .arg("--out")
        .arg(&*out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The referee's own command line holds the tag too: look for another process.
    let bot_running = || processes_with(&tag).iter().any(|(_, cmdline)| !cmdline.contains("--bot"));
    let until = Instant::now() + Duration::from_secs(20);
    while !bot_running() {
        assert!(Instant::now() < until, "the slow bot never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    kill(Pid::from_raw(i32::try_from(referee.id()).unwrap()), Signal::SIGINT).unwrap();
    let output = referee.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted by SIGINT while the bots were being started"), "{err}");
    assert!(!out.exists(), "no game was played and no folder was made");
    let sent = Instant::now();
    while !processes_with(&tag).is_empty() && sent.elapsed() < ALL_GONE_WITHIN {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(processes_with(&tag).is_empty(), "the slow bot was left: {:?}", processes_with(&tag));
}

fn random_bot_cmd() -> String {
    format!("cmd={}", random_bot())
}

/// The same in the sandbox (`--isolation full`): the forked child dies with the sandbox's PID
/// namespace when the referee is SIGKILLed.
#[test]
fn after_sigkill_of_a_sandboxed_match_no_bot_process_survives() {
    if !isolation_available("after_sigkill_of_a_sandboxed_match_no_bot_process_survives") {
        return;
    }
    let tag = tag("match-kill-full");
    let log = Scratch::new("stopping", "game.jsonl");
    let referee = start_match(&tag, &log, &["--isolation", "full"]);
    assert_eq!(stop(referee, Signal::SIGKILL, &tag), None);
}
