//! The hostile-bot battery: for each way a bot can misbehave, the referee
//! gives the right verdict and reason, the opponent wins, the referee's
//! memory stays bounded, the log verifies, and no process is left behind.

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{Scratch, bin};

/// A unique word to find a test's processes in /proc.
fn unique_tag(mode: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    format!("hostile-{mode}-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed))
}

/// Processes whose command line contains `tag`.
pub fn processes_with(tag: &str) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else { return found };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if text.contains(tag) {
                found.push((pid, text));
            }
        }
    }
    found
}

/// What a hostile match produced.
struct Outcome {
    result: Value,
    log: Scratch,
    peak_rss_kib: u64,
    tag: String,
}

fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `bao-referee match` with the misbehaving bot (built by `south`) as
/// South and the random sample bot as North.
fn hostile_match(mode: &str, south: impl FnOnce(&str, &str) -> String, extra: &[&str]) -> Outcome {
    let tag = unique_tag(mode);
    let misbehave = bin("bao-misbehave").display().to_string();
    let south_cmd = south(&misbehave, &tag);
    let log = Scratch::new("hostile", &format!("{tag}.jsonl"));
    let referee = bin("bao-referee");
    let north = format!("{} sample-bot random --seed 7", referee.display());
    let mut child = Command::new(&referee)
        // Inherited by both bots: what the `stop-all` attacker looks for in /proc.
        .env("BAO_E2E_GAME", &tag)
        .args(["match", "--json", "--south", &south_cmd, "--north", &north, "--log"])
        .arg(&log)
        .args(if extra.contains(&"--tc") || extra.contains(&"--move-time") {
            &[][..]
        } else {
            &["--tc", "0.5+0"][..]
        })
        .args(if extra.contains(&"--startup-time") { &[][..] } else { &["--startup-time", "2s"][..] })
        // Bots that fail the handshake are played anyway, for their verdict.
        .arg("--forfeit-unstartable")
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let started = Instant::now();
    let mut peak = 0;
    while child.try_wait().unwrap().is_none() {
        peak = peak.max(peak_rss_kib(pid).unwrap_or(0));
        assert!(started.elapsed() < Duration::from_secs(60), "the referee hung on {mode}");
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{mode}: referee exit {:?}\nstdout: {stdout}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{mode}: stdout is not one JSON line ({e}): {stdout}"));
    Outcome { result, log, peak_rss_kib: peak, tag }
}

fn plain(mode: &'static str) -> impl FnOnce(&str, &str) -> String {
    move |bin, tag| format!("{bin} --mode {mode} --tag {tag}")
}

fn after(mode: &'static str, n: u32) -> impl FnOnce(&str, &str) -> String {
    move |bin, tag| format!("{bin} --mode {mode} --after {n} --tag {tag}")
}

fn ignoring_sigterm(mode: &'static str) -> impl FnOnce(&str, &str) -> String {
    move |bin, tag| format!(r#"sh -c 'trap "" TERM; exec {bin} --mode {mode} --tag {tag}'"#)
}

/// The checks every hostile game must pass.
fn assert_verdict(mode: &str, o: &Outcome, reason: &str) {
    assert_eq!(o.result["reason"], reason, "{mode}: {}", o.result);
    assert_eq!(o.result["winner"], "N", "{mode}: the opponent must win: {}", o.result);
    assert_common(mode, o);
}

fn assert_common(mode: &str, o: &Outcome) {
    let verify = Command::new(bin("bao-referee")).arg("verify").arg(&o.log).output().unwrap();
    assert!(
        verify.status.success(),
        "{mode}: the log does not verify: {}",
        String::from_utf8_lossy(&verify.stderr)
    );
    // The referee waited for every process of the bot before it exited.
    let left = processes_with(&o.tag);
    assert!(left.is_empty(), "{mode}: processes left behind: {left:?}");
    assert!(o.peak_rss_kib < 96 * 1024, "{mode}: the referee's peak RSS was {} KiB", o.peak_rss_kib);
}

#[test]
fn exits_at_once() {
    let o = hostile_match("exit-at-once", plain("exit-at-once"), &[]);
    assert_verdict("exit-at-once", &o, "handshake_failed");
    assert!(o.result["detail"].as_str().unwrap().contains("exit code 3"), "{}", o.result);
}

#[test]
fn answers_hello_with_a_move() {
    let o = hostile_match("bad-handshake", plain("bad-handshake"), &[]);
    assert_verdict("bad-handshake", &o, "handshake_failed");
}

#[test]
fn crashes_mid_game() {
    let o = hostile_match("crash", after("crash", 2), &[]);
    assert_verdict("crash", &o, "bot_exited");
    assert!(o.result["detail"].as_str().unwrap().contains("signal"), "{}", o.result);
    assert!(o.result["plies"].as_u64().unwrap() >= 4, "{}", o.result);
}

#[test]
fn never_answers() {
    let o = hostile_match("never-answer", plain("never-answer"), &[]);
    assert_verdict("never-answer", &o, "timeout");
}

#[test]
fn answers_one_byte_at_a_time_slower_than_the_clock() {
    let o = hostile_match("slow-bytes", plain("slow-bytes"), &[]);
    assert_verdict("slow-bytes", &o, "timeout");
}

#[test]
fn writes_a_100_mb_line_without_newline() {
    let o = hostile_match("huge-line", plain("huge-line"), &[]);
    assert_verdict("huge-line", &o, "line_too_long");
}

#[test]
fn writes_invalid_utf8() {
    let o = hostile_match("invalid-utf8", plain("invalid-utf8"), &[]);
    assert_verdict("invalid-utf8", &o, "malformed_line");
}

#[test]
fn writes_json_of_the_wrong_shape() {
    let o = hostile_match("wrong-shape", plain("wrong-shape"), &[]);
    assert_verdict("wrong-shape", &o, "malformed_line");
    assert!(o.result["detail"].as_str().unwrap().contains("id"), "{}", o.result);
}

#[test]
fn answers_with_a_stale_id() {
    let o = hostile_match("stale-id", after("stale-id", 1), &[]);
    assert_verdict("stale-id", &o, "wrong_id");
}

#[test]
fn answers_twice() {
    let o = hostile_match("answer-twice", plain("answer-twice"), &[]);
    assert_verdict("answer-twice", &o, "wrong_id");
}

#[test]
fn plays_an_illegal_move() {
    let o = hostile_match("illegal-move", after("illegal-move", 1), &[]);
    assert_verdict("illegal-move", &o, "illegal_move");
}

#[test]
fn plays_a_move_legal_only_for_the_opponent() {
    let o = hostile_match("wrong-side", after("wrong-side", 3), &[]);
    assert_verdict("wrong-side", &o, "illegal_move");
}

#[test]
fn floods_stderr_without_stalling_the_game() {
    let o = hostile_match("flood-stderr", after("flood-stderr", 0), &["--max-plies", "6", "--tc", "20+0"]);
    // Not a fault: the game goes on to the ply limit.
    assert_eq!(o.result["reason"], "max_plies", "{}", o.result);
    assert_common("flood-stderr", &o);
    let log = std::fs::read_to_string(&o.log).unwrap();
    let stderr: Value = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["type"] == "stderr" && r["side"] == "S")
        .expect("a stderr record for South");
    assert!(stderr["bytes_total"].as_u64().unwrap() >= 150 << 20, "{stderr:.200}");
    assert_eq!(stderr["truncated"], true);
    let text = stderr["text"].as_str().unwrap();
    assert!(text.len() <= (1 << 20) + 100, "{} bytes kept", text.len());
    assert!(text.contains("bytes of stderr not kept"));
}

#[test]
fn a_stderr_of_nul_bytes_is_bounded_in_the_log_s_bytes() {
    let o = hostile_match("nul-stderr", after("nul-stderr", 0), &["--max-plies", "4"]);
    assert_eq!(o.result["reason"], "max_plies", "{}", o.result);
    assert_common("nul-stderr", &o);
    let log = std::fs::read_to_string(&o.log).unwrap();
    let line = log.lines().find(|l| l.contains(r#""type":"stderr""#) && l.contains(r#""side":"S""#));
    let line = line.expect("a stderr record for South");
    // Each NUL is six bytes of the log (`\u0000`): 1 MiB of them would be 6 MiB; the record
    // holds at most the stderr cap (1 MiB) of log bytes and its few fields.
    assert!(line.len() <= (1 << 20) + 200, "the stderr record is {} bytes", line.len());
    assert!(log.len() <= (1 << 20) + 64 * 1024, "the log is {} bytes", log.len());
    let stderr: Value = serde_json::from_str(line).unwrap();
    // 1 MiB on each of its moves.
    let total = stderr["bytes_total"].as_u64().unwrap();
    assert!(total >= 1 << 20 && total.is_multiple_of(1 << 20), "{total} bytes of stderr");
    assert_eq!(stderr["truncated"], true);
    let text = stderr["text"].as_str().unwrap();
    let kept = text.chars().filter(|&c| c == '\0').count();
    assert!(kept >= 100_000, "{kept} NUL bytes kept");
    let marker = format!("\n[... {} bytes of stderr not kept ...]\n", total - kept as u64);
    assert!(text.contains(&marker), "no {marker:?}");
}

#[test]
fn floods_stderr_past_the_output_limit() {
    let o = hostile_match("flood-limit", plain("flood-stderr"), &["--max-output", "10M", "--tc", "20+0"]);
    assert_verdict("flood-limit", &o, "output_limit");
}

#[test]
fn closes_stdout_and_keeps_running() {
    let o = hostile_match("close-stdout", plain("close-stdout"), &[]);
    assert_verdict("close-stdout", &o, "stdout_closed");
}

#[test]
fn forks_a_child_that_ignores_sigterm() {
    let o = hostile_match("fork-child", plain("fork-child"), &[]);
    assert_verdict("fork-child", &o, "timeout");
}

#[test]
fn forks_a_child_that_leaves_the_process_group() {
    let o = hostile_match("fork-setsid", plain("fork-setsid"), &[]);
    assert_verdict("fork-setsid", &o, "timeout");
}

#[test]
fn ignores_sigterm() {
    let o = hostile_match("ignore-term", ignoring_sigterm("never-answer"), &[]);
    assert_verdict("ignore-term", &o, "timeout");
}

#[test]
fn allocates_memory_without_bound() {
    let o = hostile_match("alloc", plain("alloc"), &["--max-memory", "256M", "--tc", "20+0"]);
    assert_verdict("alloc", &o, "memory_limit");
}

#[test]
fn spins_the_cpu_past_its_cpu_limit() {
    let o = hostile_match("spin", plain("spin"), &["--max-cpu", "1", "--tc", "20+0"]);
    assert_verdict("spin", &o, "cpu_limit");
}

#[test]
fn spins_the_cpu_past_its_clock() {
    let o = hostile_match("spin-clock", plain("spin"), &[]);
    assert_verdict("spin-clock", &o, "timeout");
}

#[test]
fn a_tournament_where_half_the_bots_are_hostile_accounts_for_every_game() {
    let tag = unique_tag("tournament");
    let referee = bin("bao-referee").display().to_string();
    let misbehave = bin("bao-misbehave").display().to_string();
    let out_dir = Scratch::dir(&tag);
    let bots = [
        ["name=greedy".to_owned(), format!("cmd={referee} sample-bot greedy")],
        ["name=random".to_owned(), format!("cmd={referee} sample-bot random --seed 3")],
        ["name=crasher".to_owned(), format!("cmd={misbehave} --mode crash --after 2 --tag {tag}")],
        ["name=forker".to_owned(), format!("cmd={misbehave} --mode fork-setsid --after 1 --tag {tag}")],
    ];
    let mut cmd = Command::new(&referee);
    cmd.arg("tournament");
    for bot in &bots {
        cmd.arg("--bot").args(bot);
    }
    let out = cmd
        .args(["--games", "2", "--max-plies", "60", "--tc", "0.5+0", "--concurrency", "2", "--out"])
        .arg(&out_dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let journal = std::fs::read_to_string(out_dir.join("journal.jsonl")).unwrap();
    let games: Vec<Value> = journal.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // 4 bots round-robin: 6 pairings × 2 games, each exactly once.
    assert_eq!(games.len(), 12, "{journal}");
    let mut indices: Vec<u64> = games.iter().map(|g| g["game"].as_u64().unwrap()).collect();
    indices.sort_unstable();
    assert_eq!(indices, (0..12).collect::<Vec<u64>>());
    for g in &games {
        assert_eq!(g["verified"], true, "{g}");
        let hostile = |name: &Value| name == "crasher" || name == "forker";
        match (hostile(&g["south"]), hostile(&g["north"])) {
            // A hostile bot against a good one: the good one wins by a verdict.
            (true, false) => assert_eq!(g["winner"], "N", "{g}"),
            (false, true) => assert_eq!(g["winner"], "S", "{g}"),
            _ => {}
        }
        if g["south"] == "crasher" || g["north"] == "crasher" {
            let crasher_lost = (g["south"] == "crasher" && g["winner"] == "N")
                || (g["north"] == "crasher" && g["winner"] == "S");
            if g["reason"] == "bot_exited" {
                assert!(crasher_lost, "{g}");
            }
        }
    }
    let left = processes_with(&tag);
    assert!(left.is_empty(), "processes left behind: {left:?}");
}

/// The charged times (`time_us`) of `side`'s moves in a log.
fn charged_us(log: &std::path::Path, side: &str) -> Vec<u64> {
    let text = std::fs::read_to_string(log).unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["type"] == "ply" && r["side"] == side)
        .map(|r| r["time_us"].as_u64().unwrap())
        .collect()
}

fn median(mut values: Vec<u64>) -> u64 {
    assert!(!values.is_empty(), "no moves");
    values.sort_unstable();
    values[values.len() / 2]
}

/// The stderr a side wrote during the game, as the log kept it.
fn logged_stderr(log: &std::path::Path, side: &str) -> String {
    let text = std::fs::read_to_string(log).unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["type"] == "stderr" && r["side"] == side)
        .map(|r| r["text"].as_str().unwrap_or("").to_owned())
        .collect()
}

/// Whether this machine lets the referee isolate bots (user, PID and mount namespaces). When
/// it does not, the test says it is skipped and why; with `BAO_REQUIRE_ALL=1` that is a failure.
pub fn isolation_available(test: &str) -> bool {
    let probe = Command::new(bin("bao-referee"))
        .args(["__exec-bot", "--isolation", "pid", "--probe"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    if probe.status.success() {
        return true;
    }
    let why = format!(
        "{test}: skipped: this machine does not allow the bot isolation (user, PID and mount namespaces): {}",
        String::from_utf8_lossy(&probe.stderr).trim()
    );
    assert!(std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"), "{why} (BAO_REQUIRE_ALL=1)");
    eprintln!("{why}");
    false
}

/// How much slower the opponent of an attacker may be charged, at the median, than the same
/// opponent in the same game against a well-behaved bot: 20 ms (the baseline is well under
/// 1 ms; the margin absorbs a loaded two-core machine).
const SLOWDOWN_BOUND_US: u64 = 20_000;

/// The opponent's (North's) median charged time against a bot that plays at once.
fn baseline_median_us() -> u64 {
    static BASELINE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *BASELINE.get_or_init(|| {
        let o = hostile_match("baseline", plain("good"), &["--max-plies", "40", "--tc", "20+0"]);
        assert_eq!(o.result["reason"], "max_plies", "{}", o.result);
        median(charged_us(&o.log, "N"))
    })
}

/// An attacker that plays at once after its attack: the game runs to the ply limit, the
/// opponent is charged what it is without the attacker, and the log verifies.
fn assert_opponent_unharmed(mode: &str, o: &Outcome) {
    assert_eq!(o.result["reason"], "max_plies", "{mode}: the opponent must not lose: {}", o.result);
    assert_common(mode, o);
    let baseline = baseline_median_us();
    let with_attacker = median(charged_us(&o.log, "N"));
    eprintln!("{mode}: the opponent's median time_us is {with_attacker} (without the attacker: {baseline})");
    assert!(
        with_attacker <= baseline + SLOWDOWN_BOUND_US,
        "{mode}: the opponent was slowed: median {with_attacker} µs against {baseline} µs without the attacker"
    );
}

/// Lines of the attacker's report that name a process outside its own namespace: the
/// referee (`match`) or the opponent (`sample-bot`), which both run the e2e referee binary.
fn outsiders(report: &str) -> Vec<&str> {
    report
        .lines()
        .filter(|l| l.starts_with("stopped ") || l.starts_with("seen ") || l.starts_with("stop-parent:"))
        .filter(|l| l.contains(" match ") || l.contains("sample-bot"))
        .collect()
}

const ATTACK_OPTIONS: [&str; 4] = ["--max-plies", "40", "--tc", "20+0"];

/// It stops its parent for 2 s at 0.2 s a move: the parent is not the referee (which would
/// excuse the stall as lag), so the 2 s are the attacker's own and it loses on time.
#[test]
fn sigstops_its_parent() {
    if !isolation_available("sigstops_its_parent") {
        return;
    }
    let o = hostile_match("stop-parent", plain("stop-parent"), &["--move-time", "0.2"]);
    assert_verdict("stop-parent", &o, "timeout");
    let report = logged_stderr(&o.log, "S");
    assert!(report.contains("stop-parent: kill("), "the attack ran: {report}");
    assert!(outsiders(&report).is_empty(), "it reached the referee: {report}");
    let excused: u64 = std::fs::read_to_string(&o.log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter_map(|r| r["lag_excused_us"].as_u64())
        .sum();
    assert!(excused < 100_000, "the attacker was excused {excused} µs of lag");
}

#[test]
fn sigstops_every_process_it_can_find() {
    if !isolation_available("sigstops_every_process_it_can_find") {
        return;
    }
    let o = hostile_match("stop-all", plain("stop-all"), &ATTACK_OPTIONS);
    let report = logged_stderr(&o.log, "S");
    assert!(report.contains("stop-all: done"), "the attack ran: {report}");
    assert!(outsiders(&report).is_empty(), "it stopped the referee or the opponent: {report}");
    assert_opponent_unharmed("stop-all", &o);
}

#[test]
fn sigstops_everything_with_kill_minus_one() {
    if !isolation_available("sigstops_everything_with_kill_minus_one") {
        return;
    }
    let o = hostile_match("kill-all", plain("kill-all"), &ATTACK_OPTIONS);
    let report = logged_stderr(&o.log, "S");
    assert!(report.contains("kill-all: kill(-1, SIGSTOP) = "), "the attack ran: {report}");
    assert_opponent_unharmed("kill-all", &o);
}

#[test]
fn starts_1500_idle_children() {
    if !isolation_available("starts_1500_idle_children") {
        return;
    }
    let o = hostile_match(
        "many-children",
        plain("many-children"),
        &["--max-plies", "40", "--tc", "20+0", "--startup-time", "60s"],
    );
    let report = logged_stderr(&o.log, "S");
    assert!(report.contains("many-children: started 1500"), "{report}");
    assert_opponent_unharmed("many-children", &o);
}

#[test]
fn reads_other_processes_environ_and_memory() {
    if !isolation_available("reads_other_processes_environ_and_memory") {
        return;
    }
    let o = hostile_match("read-environ", plain("read-environ"), &ATTACK_OPTIONS);
    let report = logged_stderr(&o.log, "S");
    assert!(report.contains("read-environ: done"), "the attack ran: {report}");
    assert!(outsiders(&report).is_empty(), "it saw the referee or the opponent: {report}");
    assert!(!report.contains("BAO_REFEREE_BOT"), "{report}");
    assert_opponent_unharmed("read-environ", &o);
}

/// The same reader without isolation sees the referee: the test above can fail.
#[test]
fn without_isolation_the_reader_sees_the_referee() {
    let o = hostile_match(
        "read-environ-none",
        plain("read-environ"),
        &[&ATTACK_OPTIONS[..], &["--isolation", "none"]].concat(),
    );
    let report = logged_stderr(&o.log, "S");
    assert!(!outsiders(&report).is_empty(), "under --isolation none the referee is visible: {report}");
}

/// The same attacker without isolation stops the referee itself for 2 s (so the test above
/// can fail); what the referee makes of the stall is the lag rules' business, not asserted.
#[test]
fn without_isolation_the_parent_it_stops_is_the_referee() {
    let o = hostile_match(
        "stop-parent-none",
        plain("stop-parent"),
        &["--move-time", "0.2", "--isolation", "none"],
    );
    let report = logged_stderr(&o.log, "S");
    assert!(!outsiders(&report).is_empty(), "under --isolation none its parent is the referee: {report}");
}
