//! The default isolation of bots (docs/supervision.md): the usual bots keep working (the
//! sample bots, a Python bot, a Node bot), an isolated bot sees only its own processes, has a
//! private `TMPDIR` and no marker variable; `--isolation full` runs bots as separate users
//! when the referee is root, and a bot that such a user cannot run is a clear error.

use std::process::{Command, Stdio};

use serde_json::Value;

use crate::hostile::isolation_available;
use crate::support::{Scratch, bin};

const PYTHON_BOT: &str = r#"
import json, os, sys, tempfile
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
        tmp = os.environ.get("TMPDIR", "")
        with tempfile.NamedTemporaryFile() as f:
            made_in = os.path.dirname(f.name)
        # Descriptors beyond stdio (the listing's own is closed by the time it is read).
        extra = []
        for fd in os.listdir("/proc/self/fd"):
            try:
                if int(fd) > 2:
                    extra.append(os.readlink("/proc/self/fd/" + fd))
            except OSError:
                pass
        # The namespace's init's descriptors (its status pipe says how the bot ended).
        try:
            names = os.listdir("/proc/1/fd")
        except OSError:
            names = []
        reached = 0
        for fd in names:
            try:
                os.readlink("/proc/1/fd/" + fd)
                reached += 1
            except OSError:
                pass
        init_fds = "%d/%d" % (reached, len(names))
        print("report pids=%s me=%d tmpdir=%s mode=%o made_in=%s marker=%s uid=%d extra_fds=%s init_fds=%s" % (
            pids, os.getpid(), tmp, os.stat(tmp).st_mode & 0o777, made_in,
            "BAO_REFEREE_BOT" in os.environ, os.getuid(), ",".join(extra) or "none", init_fds),
            file=sys.stderr, flush=True)
        print(json.dumps({"type": "ready", "name": "py", "author": "tests", "version": "1"}), flush=True)
    elif m["type"] == "move_request":
        print(json.dumps({"type": "move", "id": m["id"], "move": m["legal"][0]}), flush=True)
    elif m["type"] == "quit":
        break
"#;

const NODE_BOT: &str = r#"
const rl = require('readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.type === 'hello') console.log(JSON.stringify({type: 'ready', name: 'js', author: 'tests', version: '1'}));
  else if (m.type === 'move_request') console.log(JSON.stringify({type: 'move', id: m.id, move: m.legal[0]}));
  else if (m.type === 'quit') process.exit(0);
});
"#;

/// Whether `program` runs here; a missing one is a skip, and a failure under BAO_REQUIRE_ALL=1.
fn have(program: &str, test: &str) -> bool {
    let found = Command::new(program).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status();
    if found.is_ok_and(|s| s.success()) {
        return true;
    }
    let why = format!("{test}: skipped: `{program}` is not installed");
    assert!(std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"), "{why} (BAO_REQUIRE_ALL=1)");
    eprintln!("{why}");
    false
}

/// Runs a match; returns its JSON result line and the log.
fn play(south: &str, north: &str, extra: &[&str]) -> (Value, Scratch) {
    let log = Scratch::new("isolation", "game.jsonl");
    let out = Command::new(bin("bao-referee"))
        .args(["match", "--json", "--max-plies", "30", "--south", south, "--north", north, "--log"])
        .arg(&*log)
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "exit {:?}: {stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let verify = Command::new(bin("bao-referee")).arg("verify").arg(&*log).output().unwrap();
    assert!(verify.status.success(), "the log does not verify: {}", String::from_utf8_lossy(&verify.stderr));
    (serde_json::from_str(stdout.trim()).unwrap(), log)
}

fn stderr_of(log: &std::path::Path, side: &str) -> String {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["type"] == "stderr" && r["side"] == side)
        .map(|r| r["text"].as_str().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn a_python_bot_and_a_node_bot_play_under_the_default_isolation() {
    let test = "a_python_bot_and_a_node_bot_play_under_the_default_isolation";
    if !isolation_available(test) || !have("python3", test) || !have("node", test) {
        return;
    }
    let dir = Scratch::dir("isolation-bots");
    std::fs::write(dir.join("bot.py"), PYTHON_BOT).unwrap();
    std::fs::write(dir.join("bot.js"), NODE_BOT).unwrap();
    let python = format!("python3 {}", dir.join("bot.py").display());
    let node = format!("node {}", dir.join("bot.js").display());
    let (result, log) = play(&python, &node, &[]);
    assert_eq!((&result["south"], &result["north"]), (&"py".into(), &"js".into()), "{result}");
    assert_ne!(result["reason"], "handshake_failed", "{result}");

    // What the Python bot saw of the machine.
    let report = stderr_of(&log, "S");
    let report = report.lines().find(|l| l.starts_with("report ")).unwrap_or_else(|| panic!("{report}"));
    let me = field(report, "me");
    assert!(report.contains(&format!("pids=[1, {me}]")), "only the namespace's init and the bot: {report}");
    assert!(report.contains("mode=700"), "a private TMPDIR: {report}");
    assert!(report.contains("marker=False"), "no marker variable: {report}");
    // No descriptor but stdio reaches the bot (not the init's mount namespace, not a pipe).
    assert_eq!(field(report, "extra_fds"), "none", "{report}");
    // The namespace's init's descriptors are not the bot's to follow or open (its status
    // pipe says how the bot ended).
    assert!(field(report, "init_fds").starts_with("0/"), "{report}");
    let tmpdir = report.split(" tmpdir=").nth(1).and_then(|r| r.split(' ').next()).unwrap();
    assert!(report.contains(&format!("made_in={tmpdir}")), "Python's tempfile uses TMPDIR: {report}");
    assert!(!std::path::Path::new(tmpdir).exists(), "{tmpdir} is removed after the game");
}

/// The value of `NAME=VALUE` in a report line.
fn field<'a>(report: &'a str, name: &str) -> &'a str {
    let at = format!(" {name}=");
    report
        .split(&at)
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .unwrap_or_else(|| panic!("no {name}: {report}"))
}

/// Two bots running at once do not share a pid inside their namespaces (both were pid 2):
/// programs that name shared files after their pid, as the JVM does in /tmp/hsperfdata_USER,
/// could not run against each other.
#[test]
fn two_isolated_bots_running_at_once_have_different_pids() {
    let test = "two_isolated_bots_running_at_once_have_different_pids";
    if !isolation_available(test) || !have("python3", test) {
        return;
    }
    let dir = Scratch::dir("isolation-pids");
    std::fs::write(dir.join("bot.py"), PYTHON_BOT).unwrap();
    let python = format!("python3 {}", dir.join("bot.py").display());
    let (result, log) = play(&python, &python, &[]);
    assert_ne!(result["reason"], "handshake_failed", "{result}");
    let pid = |side: &str| {
        let text = stderr_of(&log, side);
        let report =
            text.lines().find(|l| l.starts_with("report ")).unwrap_or_else(|| panic!("{side}: {text}"));
        field(report, "me").to_owned()
    };
    let (south, north) = (pid("S"), pid("N"));
    assert_ne!(south, north, "both bots got pid {south}");
    assert!(south != "2" && north != "2", "the pids were not moved: S {south}, N {north}");
}

#[test]
fn the_sample_bots_play_under_full_isolation() {
    if !isolation_available("the_sample_bots_play_under_full_isolation") {
        return;
    }
    let referee = bin("bao-referee").display().to_string();
    let (result, _) = play(
        &format!("{referee} sample-bot greedy"),
        &format!("{referee} sample-bot random --seed 3"),
        &["--isolation", "full"],
    );
    assert_eq!(result["reason"], "max_plies", "{result}");
}

#[test]
fn under_full_isolation_a_root_referee_runs_each_bot_as_its_own_user() {
    let test = "under_full_isolation_a_root_referee_runs_each_bot_as_its_own_user";
    if !isolation_available(test) || !have("/usr/bin/python3", test) {
        return;
    }
    if !nix::unistd::geteuid().is_root() {
        let why = format!("{test}: skipped: separate users need a referee running as root");
        assert!(std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"), "{why} (BAO_REQUIRE_ALL=1)");
        eprintln!("{why}");
        return;
    }
    let dir = Scratch::dir("isolation-full");
    std::fs::set_permissions(&*dir, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    std::fs::write(dir.join("bot.py"), PYTHON_BOT).unwrap();
    let python = format!("/usr/bin/python3 {}", dir.join("bot.py").display());
    let (_, log) = play(&python, &python, &["--isolation", "full"]);
    let uid = |side: &str| -> u64 {
        let report = stderr_of(&log, side);
        let line = report.lines().find(|l| l.starts_with("report ")).unwrap_or_else(|| panic!("{report}"));
        field(line, "uid").parse().unwrap()
    };
    let (south, north) = (uid("S"), uid("N"));
    assert!(south >= 1_500_000_000 && north >= 1_500_000_000, "unprivileged uids: {south}, {north}");
    assert_ne!(south, north, "each bot its own user");
}

/// A program folder only root may enter cannot be the folder of a separate user's sandbox:
/// the match ends before it starts, with exit 2 and a message naming the folder (not a
/// forfeit).
#[test]
fn a_bot_its_separate_user_cannot_run_is_a_clear_error() {
    let test = "a_bot_its_separate_user_cannot_run_is_a_clear_error";
    if !isolation_available(test) || !nix::unistd::geteuid().is_root() {
        if isolation_available(test) {
            let why = format!("{test}: skipped: separate users need a referee running as root");
            assert!(std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"), "{why} (BAO_REQUIRE_ALL=1)");
            eprintln!("{why}");
        }
        return;
    }
    let dir = Scratch::dir("isolation-private");
    std::fs::set_permissions(&*dir, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let program = dir.join("bot");
    std::fs::copy(bin("bao-misbehave"), &program).unwrap();
    let out = Command::new(bin("bao-referee"))
        .args(["match", "--isolation", "full", "--south"])
        .arg(&program)
        .arg("--south-dir")
        .arg(&*dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot be isolated")
            && stderr.contains("may not be read and searched by other users"),
        "{stderr}"
    );
}

/// A referee that does not run as root (here: root's tests drop to `nobody` with `setpriv`)
/// isolates its bots too, through user namespaces: no warning, the bot sees only its own
/// processes and keeps the referee's uid.
#[test]
fn an_unprivileged_referee_isolates_its_bots() {
    let test = "an_unprivileged_referee_isolates_its_bots";
    if !isolation_available(test) || !have("/usr/bin/python3", test) || !have("setpriv", test) {
        return;
    }
    if !nix::unistd::geteuid().is_root() {
        let why = format!("{test}: skipped: dropping to another user needs root");
        assert!(std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"), "{why} (BAO_REQUIRE_ALL=1)");
        eprintln!("{why}");
        return;
    }
    let dir = Scratch::dir("isolation-nobody");
    std::fs::set_permissions(&*dir, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    std::fs::write(dir.join("bot.py"), PYTHON_BOT).unwrap();
    let python = format!("/usr/bin/python3 {}", dir.join("bot.py").display());
    let log = dir.join("game.jsonl");
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(bin("bao-referee"))
        .args(["match", "--json", "--max-plies", "20", "--south", &python, "--log"])
        .arg(&log)
        .current_dir(&*dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("cannot be isolated"), "{stderr}");
    let report = stderr_of(&log, "S");
    let report = report.lines().find(|l| l.starts_with("report ")).unwrap_or_else(|| panic!("{report}"));
    let me = field(report, "me");
    assert!(report.contains(&format!("pids=[1, {me}]")) && report.contains("uid=65534"), "{report}");
}

/// The honest starter kits — Python (the `python3` on PATH, a pyenv shim here: its install is
/// shown read-only), Node, Java (`java Bot.java`, compiled at start) and C++ (a compiled
/// binary) — play under the sandbox, as root (each bot its own uid); the Rust sample bots do
/// in `the_sample_bots_play_under_full_isolation`.
#[test]
fn the_starter_kits_play_in_the_sandbox() {
    let test = "the_starter_kits_play_in_the_sandbox";
    if !isolation_available(test) || !["python3", "node", "java", "g++"].iter().all(|p| have(p, test)) {
        return;
    }
    let build = Scratch::dir("isolation-kits");
    std::fs::set_permissions(&*build, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let cpp = build.join("bot-cpp");
    let compiled = Command::new("g++")
        .args(["-O2", "-std=c++17", "-o"])
        .arg(&cpp)
        .arg(crate::support::workspace_root().join("sample-bots/cpp/bot.cpp"))
        .output()
        .unwrap();
    assert!(compiled.status.success(), "{}", String::from_utf8_lossy(&compiled.stderr));
    // Fixed seeds: random bots unseeded can end a game inside 12 plies (South's front row
    // starts with three seeded pits), and this test wants every bot to play all its moves.
    let cpp = format!("{} --seed 1", cpp.display());
    for (south, north) in [
        ("python3 -B sample-bots/python/random_bot.py --seed 1", "node sample-bots/js/bot.js --seed 1"),
        ("java sample-bots/java/Bot.java --seed 1", cpp.as_str()),
    ] {
        let log = Scratch::new("isolation-kits", "game.jsonl");
        let out = Command::new(bin("bao-referee"))
            .args([
                "match",
                "--json",
                "--isolation",
                "full",
                "--max-plies",
                "12",
                "--startup-time",
                "30s",
                "--tc",
                "120+5",
            ])
            .args(["--south", south, "--north", north, "--log"])
            .arg(&*log)
            .current_dir(crate::support::workspace_root())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{south} vs {north}: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let result: Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(result["reason"], "max_plies", "{south} vs {north}: {result}");
    }
}
