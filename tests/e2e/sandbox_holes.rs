//! The holes an attack on the sandbox found (`docs/supervision.md`, the threat table's last
//! rows), each shown closed by its effect from outside: the secret that must not reach the
//! game log, the link and the mode that must not be on the host, the socket the program's
//! exit status says it could not open, the processes counted in `/proc`, the variable that
//! must not be in the bot's environment as the game log records it.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::hostile::isolation_available;
use crate::sandbox::{open_dir, skipped};
use crate::support::{Scratch, bin};

const PYTHON: &str = "/usr/bin/python3";
const SANDBOX_UID: &str = "1500000779";

/// Whether the sandbox can be tested here: isolation, root and Python; a skip says why (a
/// failure under `BAO_REQUIRE_ALL=1`).
fn ready(test: &str) -> bool {
    if !isolation_available(test) {
        return false;
    }
    let why = if !nix::unistd::geteuid().is_root() {
        "these sandbox tests run as root (a separate uid per bot)".to_owned()
    } else if !Path::new(PYTHON).exists() {
        format!("{PYTHON} is not installed")
    } else {
        return true;
    };
    skipped(test, &why)
}

fn script(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The stub as root (`__exec-bot --isolation full --no-network`, a uid of its own) with
/// `options`, from `dir`, running `program`.
fn stub(dir: &Path, options: &[&str], program: &[&str]) -> Output {
    Command::new(bin("bao-referee"))
        .args([
            "__exec-bot",
            "--isolation",
            "full",
            "--no-network",
            "--uid",
            SANDBOX_UID,
            "--gid",
            SANDBOX_UID,
        ])
        .args(options)
        .arg("--")
        .args(program)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(output: &Output) -> String {
    format!("{}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

/// A match under `--isolation full` with `south` (a command run from `dir`) against the
/// built-in sample bot, `env` added to the referee's environment, `extra` options; its output
/// and its game log (empty when none was written).
fn full_match(dir: &Path, south: &str, env: &[(&str, &str)], extra: &[&str]) -> (Output, String) {
    let log = Scratch::new("sandbox-holes", "game.jsonl");
    let out = Command::new(bin("bao-referee"))
        .args(["match", "--json", "--isolation", "full", "--max-plies", "4", "--startup-time", "5s"])
        .args(["--south", south, "--south-dir"])
        .arg(dir)
        .arg("--log")
        .arg(&*log)
        .args(extra)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (out, std::fs::read_to_string(&*log).unwrap_or_default())
}

/// The bot's stderr as the game log records it.
fn stderr_of(log: &str, side: &str) -> String {
    log.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["type"] == "stderr" && r["side"] == side)
        .map(|r| r["text"].as_str().unwrap_or("").to_owned())
        .collect()
}

/// A bot folder whose `bin/bot` links to a tool in another folder (an arena's, holding a
/// secret): the sandbox must not show that folder. The match is refused, naming the link,
/// and the secret is nowhere in its output or log.
#[test]
fn a_link_out_of_the_program_folder_shows_nothing_more() {
    let test = "a_link_out_of_the_program_folder_shows_nothing_more";
    if !ready(test) {
        return;
    }
    let arena = open_dir("sandbox-arena");
    std::fs::create_dir(arena.join("bin")).unwrap();
    let tool = format!("#!/bin/sh\ncat {} >&2\nsleep 1\n", arena.join("secret").display());
    script(&arena.join("bin/tool"), &tool);
    std::fs::write(arena.join("secret"), "SECRET-arena-7d2b").unwrap();
    std::fs::set_permissions(arena.join("secret"), std::fs::Permissions::from_mode(0o644)).unwrap();
    let bots = open_dir("sandbox-linked-bot");
    std::fs::create_dir(bots.join("bin")).unwrap();
    std::os::unix::fs::symlink(arena.join("bin/tool"), bots.join("bin/bot")).unwrap();
    let (out, log) = full_match(&bots, "bin/bot", &[], &[]);
    let said = format!("{}\n{log}", text(&out));
    assert!(!said.contains("SECRET-arena-7d2b"), "the arena's secret reached the match: {said}");
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("symbolic link") && said.contains("bin/bot"), "the refusal names the link: {said}");
}

/// A build's links that lead out of its folder (`/etc/shadow`, `/`, `../..`) are not copied
/// back to the host (and are named on its stderr); a link within is; folders and files made
/// world-writable, sticky or set-id come back at most `0o755`.
#[test]
fn a_build_s_escaping_links_and_open_modes_stay_in_the_sandbox() {
    let test = "a_build_s_escaping_links_and_open_modes_stay_in_the_sandbox";
    if !ready(test) {
        return;
    }
    let build = open_dir("sandbox-build-links");
    let commands = "ln -s /etc/shadow x && ln -s / root && ln -s ../.. up && touch f && ln -s f ok && \
                    mkdir d e && chmod 777 d && chmod 1777 e && chmod 4777 f";
    let out = stub(&build, &["--rw-mib", "16"], &["/bin/sh", "-c", commands]);
    assert!(out.status.success(), "{}", text(&out));
    for link in ["x", "root", "up"] {
        assert!(
            std::fs::symlink_metadata(build.join(link)).is_err(),
            "{link} was copied back: {}",
            text(&out)
        );
        assert!(text(&out).contains(&format!("left out the symbolic link {}", build.join(link).display())));
    }
    assert_eq!(std::fs::read_link(build.join("ok")).unwrap(), Path::new("f"), "a link within stays");
    for path in ["d", "e", "f"] {
        let mode = std::fs::symlink_metadata(build.join(path)).unwrap().mode() & 0o7777;
        assert_eq!(mode & !0o755, 0, "{path} came back with mode {mode:o}");
    }
}

/// `socket(AF_VSOCK)` (which a network namespace does not cover) fails in the sandbox with
/// `EAFNOSUPPORT`, while local and IP sockets still open: seen in the program's exit status
/// (0 only if the vsock socket opened; 1 refused as expected). Without the sandbox it opens.
#[test]
fn a_vsock_socket_is_refused_in_the_sandbox() {
    let test = "a_vsock_socket_is_refused_in_the_sandbox";
    if !ready(test) {
        return;
    }
    let code = "import errno, socket, sys\n\
                socket.socketpair(); socket.socket(socket.AF_INET6); socket.socket(socket.AF_INET)\n\
                try: socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)\n\
                except OSError as e: sys.exit(1 if e.errno == errno.EAFNOSUPPORT else 2)\n";
    let dir = open_dir("sandbox-vsock");
    let out = stub(&dir, &[], &[PYTHON, "-c", code]);
    assert_eq!(out.status.code(), Some(1), "vsock in the sandbox: {}", text(&out));
    let control = Command::new(bin("bao-referee"))
        .args(["__exec-bot", "--isolation", "pid", "--", PYTHON, "-c", code])
        .current_dir(&*dir)
        .output()
        .unwrap();
    assert_eq!(control.status.code(), Some(0), "vsock without the sandbox: {}", text(&control));
}

/// Host processes whose command line holds `marker`.
fn processes_with(marker: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).replace('\0', " ").contains(marker))
        })
        .count()
}

/// `bao-referee match --isolation full` without `--max-processes` still limits a bot's
/// tasks (to 256): a bot starting 400 processes has at most that many alive, counted in
/// `/proc` from outside.
#[test]
fn a_fork_bomb_meets_the_sandbox_s_default_task_limit() {
    let test = "a_fork_bomb_meets_the_sandbox_s_default_task_limit";
    if !ready(test) {
        return;
    }
    let marker = format!("29.{}5", std::process::id());
    let dir = open_dir("sandbox-forks");
    std::fs::write(
        dir.join("bomb.py"),
        format!(
            "import os, time\nfor i in range(400):\n    try: pid = os.fork()\n    except OSError: break\n    \
             if pid == 0: os.execv('/bin/sleep', ['sleep', '{marker}'])\ntime.sleep(3)\n"
        ),
    )
    .unwrap();
    let mut referee = Command::new(bin("bao-referee"))
        .args(["match", "--isolation", "full", "--startup-time", "10s", "--south"])
        .arg(format!("{PYTHON} bomb.py"))
        .arg("--south-dir")
        .arg(&*dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (mut most, until) = (0, Instant::now() + Duration::from_secs(6));
    while Instant::now() < until {
        most = most.max(processes_with(&format!("sleep {marker}")));
        if most > 0 && processes_with(&format!("sleep {marker}")) == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = referee.kill();
    let _ = referee.wait();
    assert!(most > 100, "the bomb started only {most} processes");
    assert!(most <= 256, "{most} processes alive at once, past the default limit of 256");
}

/// A bot script for [`full_match`]: its environment and a line through `/dev/stderr` on its
/// stderr, then an exit.
const SHOW_ENVIRONMENT: &str = "#!/bin/sh\nenv >&2\necho through-dev-stderr > /dev/stderr\n";

/// Under `--isolation full` the referee's environment does not reach the bot: a marker
/// variable set for the referee is not in the bot's environment as its stderr record in the
/// game log shows it (its `PATH` is).
#[test]
fn the_referee_s_environment_does_not_reach_a_sandboxed_bot() {
    let test = "the_referee_s_environment_does_not_reach_a_sandboxed_bot";
    if !ready(test) {
        return;
    }
    let dir = open_dir("sandbox-env");
    script(&dir.join("bot"), SHOW_ENVIRONMENT);
    let (out, log) =
        full_match(&dir, "./bot", &[("BAO_TEST_REFEREE_SECRET", "token-5e81a0")], &["--forfeit-unstartable"]);
    let stderr = stderr_of(&log, "S");
    assert!(stderr.contains("PATH="), "no environment recorded: {}\n{log}", text(&out));
    assert!(!stderr.contains("token-5e81a0"), "the referee's variable reached the bot: {stderr}");
}

/// As root, a sandboxed bot (another uid) can open `/dev/stderr`: its line reaches its
/// stderr record in the game log.
#[test]
fn a_sandboxed_bot_can_open_dev_stderr() {
    let test = "a_sandboxed_bot_can_open_dev_stderr";
    if !ready(test) {
        return;
    }
    let dir = open_dir("sandbox-dev-stderr");
    script(&dir.join("bot"), SHOW_ENVIRONMENT);
    let (out, log) = full_match(&dir, "./bot", &[], &["--forfeit-unstartable"]);
    let stderr = stderr_of(&log, "S");
    assert!(stderr.contains("through-dev-stderr"), "/dev/stderr: {stderr}\n{}\n{log}", text(&out));
}
