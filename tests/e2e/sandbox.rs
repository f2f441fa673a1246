//! The sandbox (`--isolation full`, docs/supervision.md "The sandbox" and its threat table),
//! attacked by programs run through the stub (`bao-referee __exec-bot --isolation full`),
//! with the referee as root and again as `nobody` (`setpriv`): each attack's effect is
//! checked from outside — the secret that must not reach the output, the file that must not
//! exist, the connection that must not arrive, the processes that must not be in `/proc`,
//! the bytes that must not be on disk. The seccomp rules are checked by the error the call
//! gets (and, for the calls that succeed without the sandbox, against a run without it).

use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::hostile::isolation_available;
use crate::support::{Scratch, bin};

const PYTHON: &str = "/usr/bin/python3";

/// Who runs the stub: the test's root, or `nobody`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Caller {
    Root,
    Nobody,
}

const CALLERS: [Caller; 2] = [Caller::Root, Caller::Nobody];

/// Whether the sandbox can be tested here: isolation, root (to also drop to `nobody`),
/// `setpriv` and Python; a skip says why (a failure under `BAO_REQUIRE_ALL=1`).
fn ready(test: &str) -> bool {
    if !isolation_available(test) {
        return false;
    }
    let missing = if !nix::unistd::geteuid().is_root() {
        Some("the sandbox's attack tests run as root (and drop to nobody)".to_owned())
    } else {
        ["setpriv", PYTHON, "setsid"]
            .into_iter()
            .find(|p| Command::new(p).arg("--version").output().is_err())
            .map(|p| format!("`{p}` is not installed"))
    };
    let Some(why) = missing else { return true };
    skipped(test, &why)
}

/// Says why `test` is skipped and returns false, or fails it under `BAO_REQUIRE_ALL=1`.
pub(crate) fn skipped(test: &str, why: &str) -> bool {
    let why = format!("{test}: skipped: {why}");
    assert!(std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"), "{why} (BAO_REQUIRE_ALL=1)");
    eprintln!("{why}");
    false
}

/// A folder every user may enter (the program's folder, or a host folder to attack).
pub(crate) fn open_dir(label: &str) -> Scratch {
    let dir = Scratch::dir(label);
    std::fs::set_permissions(&*dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// A program folder of `caller`'s (an unprivileged caller's builds write their own folders).
fn own_dir(label: &str, caller: Caller) -> Scratch {
    let dir = open_dir(label);
    if caller == Caller::Nobody {
        let nobody = Some(nix::unistd::Uid::from_raw(65534));
        nix::unistd::chown(&*dir, nobody, Some(nix::unistd::Gid::from_raw(65534))).unwrap();
    }
    dir
}

/// The stub's command: `__exec-bot --isolation full --no-network` with `options`, as `caller`
/// (a root caller runs the program as a uid of its own, as the supervisor does), from `dir`,
/// running `program`.
fn stub(caller: Caller, dir: &Path, options: &[&str], program: &[&str]) -> Command {
    let mut command = match caller {
        Caller::Root => Command::new(bin("bao-referee")),
        Caller::Nobody => {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(bin("bao-referee"));
            c
        }
    };
    command.args(["__exec-bot", "--isolation", "full", "--no-network"]);
    if caller == Caller::Root {
        command.args(["--uid", "1500000777", "--gid", "1500000777"]);
    }
    command.args(options).arg("--").args(program).current_dir(dir).stdin(Stdio::null());
    command
}

fn run(caller: Caller, dir: &Path, options: &[&str], program: &[&str]) -> Output {
    stub(caller, dir, options, program).output().unwrap()
}

fn python(caller: Caller, dir: &Path, options: &[&str], code: &str) -> Output {
    run(caller, dir, options, &[PYTHON, "-c", code])
}

fn text(output: &Output) -> String {
    format!("{}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

/// Host processes whose command line holds `marker`.
fn processes_with(marker: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).replace('\0', " ").contains(marker))
        })
        .collect()
}

/// Waits (at most 3 s) until no host process holds `marker`; the ones left.
fn gone(marker: &str) -> Vec<u32> {
    let until = Instant::now() + Duration::from_secs(3);
    loop {
        let left = processes_with(marker);
        if left.is_empty() || Instant::now() > until {
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Reads the child's stdout until a line starts with `word`; that line.
fn wait_for_line(child: &mut Child, word: &str) -> String {
    let stdout = child.stdout.as_mut().unwrap();
    let mut reader = BufReader::new(stdout);
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap() == 0 {
            let mut rest = String::new();
            let _ = child.stderr.as_mut().unwrap().read_to_string(&mut rest);
            panic!("no line {word:?} before the end: {rest}");
        }
        if line.starts_with(word) {
            return line;
        }
    }
}

/// What the sandbox must hide: `/etc/shadow`, a host file outside it (world-readable), the
/// caller's home; what it must not write: a world-writable host folder.
#[test]
fn the_sandbox_hides_the_host_s_files_and_writes_nothing_outside() {
    let test = "the_sandbox_hides_the_host_s_files_and_writes_nothing_outside";
    if !ready(test) {
        return;
    }
    let shadow_line = std::fs::read_to_string("/etc/shadow").unwrap().lines().next().unwrap().to_owned();
    let outside = open_dir("sandbox-outside");
    std::fs::set_permissions(&*outside, std::fs::Permissions::from_mode(0o777)).unwrap();
    let secret = outside.join("secret");
    std::fs::write(&secret, "SECRET-4f1c9e").unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o644)).unwrap();
    let planted = outside.join("planted");
    let home_file = "/root/.bashrc";
    let code = format!(
        r#"
import errno
for path in ["/etc/shadow", "{secret}", "{home_file}", "/root"]:
    try:
        with open(path) as f: print(path, "READ", f.read())
    except OSError as e: print(path, errno.errorcode[e.errno])
try:
    open("{planted}", "w").write("x"); print("planted")
except OSError as e: print("plant", errno.errorcode[e.errno])
"#,
        secret = secret.display(),
        planted = planted.display()
    );
    for caller in CALLERS {
        let dir = open_dir("sandbox-hide");
        let out = python(caller, &dir, &[], &code);
        let said = text(&out);
        assert!(out.status.success(), "{caller:?}: {said}");
        assert!(!said.contains(&shadow_line), "{caller:?}: /etc/shadow read: {said}");
        assert!(!said.contains("SECRET-4f1c9e"), "{caller:?}: the host's file read: {said}");
        assert!(!said.contains(" READ "), "{caller:?}: something was read: {said}");
        assert!(said.contains("/etc/shadow EACCES"), "{caller:?}: {said}");
        assert!(said.contains(&format!("{} ENOENT", secret.display())), "{caller:?}: {said}");
        assert!(said.contains(&format!("{home_file} ENOENT")), "{caller:?}: {said}");
        assert!(!planted.exists(), "{caller:?}: a file written into a host folder: {said}");
    }
}

/// The seccomp filter: each refused call gets `EPERM` (`clone3` `ENOSYS`); `ptrace`,
/// `unshare(CLONE_NEWUSER)` and `keyctl` succeed without the sandbox (`--isolation pid`).
#[test]
fn the_seccomp_filter_refuses_each_dangerous_call() {
    let test = "the_seccomp_filter_refuses_each_dangerous_call";
    if !ready(test) {
        return;
    }
    use nix::libc;
    let calls: [(&str, i64, &str); 8] = [
        ("ptrace", libc::SYS_ptrace, "0, 0, 0, 0"), // PTRACE_TRACEME
        ("mount", libc::SYS_mount, "b'none', b'/tmp', b'tmpfs', 0, 0"),
        ("unshare", libc::SYS_unshare, "0x10000000"), // CLONE_NEWUSER
        ("bpf", libc::SYS_bpf, "5, 0, 0"),            // BPF_PROG_LOAD
        ("keyctl", libc::SYS_keyctl, "0, -3, 0"),     // KEYCTL_GET_KEYRING_ID, session
        ("perf_event_open", libc::SYS_perf_event_open, "0, 0, -1, -1, 0"),
        ("setns", libc::SYS_setns, "0, 0"),
        ("clone3", libc::SYS_clone3, "0, 0"),
    ];
    let mut code = String::from(
        "import ctypes, errno\nlibc = ctypes.CDLL(None, use_errno=True)\n\
         def call(name, n, *args):\n    r = libc.syscall(n, *args)\n    \
         print(name, 'OK' if r >= 0 else errno.errorcode[ctypes.get_errno()], flush=True)\n",
    );
    for (name, number, args) in calls {
        code.push_str(&format!("call('{name}', {number}, {args})\n"));
    }
    for caller in CALLERS {
        let dir = open_dir("sandbox-seccomp");
        let out = python(caller, &dir, &[], &code);
        let said = text(&out);
        for (name, _, _) in calls {
            let expected = if name == "clone3" { "ENOSYS" } else { "EPERM" };
            assert!(said.contains(&format!("{name} {expected}\n")), "{caller:?}: {name}: {said}");
        }
    }
    // Without the sandbox the same calls succeed: the filter is what refuses them.
    let dir = open_dir("sandbox-seccomp-control");
    let out = Command::new(bin("bao-referee"))
        .args(["__exec-bot", "--isolation", "pid", "--", PYTHON, "-c", &code])
        .current_dir(&*dir)
        .output()
        .unwrap();
    let said = text(&out);
    for name in ["ptrace", "unshare", "keyctl"] {
        assert!(said.contains(&format!("{name} OK\n")), "without the sandbox: {name}: {said}");
    }
}

/// The program's folder is read-only for a game, writable for a build (`--rw-mib`), and a
/// build's writes reach the host's folder when it ends.
#[test]
fn the_program_folder_is_read_only_for_games_and_writable_for_builds() {
    let test = "the_program_folder_is_read_only_for_games_and_writable_for_builds";
    if !ready(test) {
        return;
    }
    let script = "echo built > ./output && mkdir -p sub && echo x > sub/y";
    for caller in CALLERS {
        let game = open_dir("sandbox-game");
        std::fs::write(game.join("main.py"), "print(1)").unwrap();
        let out = run(caller, &game, &[], &["/bin/sh", "-c", script]);
        assert!(!out.status.success(), "{caller:?}: {}", text(&out));
        assert!(text(&out).contains("Read-only file system"), "{caller:?}: {}", text(&out));
        assert!(!game.join("output").exists(), "{caller:?}: a game wrote its folder");

        let build = own_dir("sandbox-build", caller);
        std::fs::write(build.join("main.py"), "print(1)").unwrap();
        let out = run(caller, &build, &["--rw-mib", "16"], &["/bin/sh", "-c", script]);
        assert!(out.status.success(), "{caller:?}: {}", text(&out));
        assert_eq!(std::fs::read_to_string(build.join("output")).unwrap(), "built\n", "{caller:?}");
        assert_eq!(std::fs::read_to_string(build.join("sub/y")).unwrap(), "x\n", "{caller:?}");
        assert_eq!(std::fs::read_to_string(build.join("main.py")).unwrap(), "print(1)", "{caller:?}");
    }
}

/// No network: a connection to a listener the test opens on 127.0.0.1 never arrives
/// (checked at the listener); without `--no-network` and the sandbox it does.
#[test]
fn a_connection_from_the_sandbox_never_arrives() {
    let test = "a_connection_from_the_sandbox_never_arrives";
    if !ready(test) {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let code = format!(
        "import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(b'leak')\n    \
         print('connected')\nexcept OSError as e: print('refused', e)\n"
    );
    for caller in CALLERS {
        let dir = open_dir("sandbox-net");
        let out = python(caller, &dir, &[], &code);
        assert!(out.status.success(), "{caller:?}: {}", text(&out));
        match listener.accept() {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            other => panic!("{caller:?}: a connection arrived from the sandbox: {other:?}: {}", text(&out)),
        }
    }
    let dir = open_dir("sandbox-net-control");
    let out = Command::new(bin("bao-referee"))
        .args(["__exec-bot", "--isolation", "pid", "--", PYTHON, "-c", &code])
        .current_dir(&*dir)
        .output()
        .unwrap();
    assert!(text(&out).contains("connected"), "without the sandbox: {}", text(&out));
    assert!(listener.accept().is_ok(), "the control connection arrives");
}

/// The task limit holds: a program that starts 400 processes under a limit of 60 runs at
/// most 60 tasks (counted in `/proc` from outside while they live), and none is left after.
#[test]
fn four_hundred_processes_are_refused_by_the_task_limit() {
    let test = "four_hundred_processes_are_refused_by_the_task_limit";
    if !ready(test) {
        return;
    }
    for caller in CALLERS {
        let marker = format!("31.{}{}", std::process::id(), caller as u8);
        let code = format!(
            "import os, sys, time\nn = 0\nfor i in range(400):\n    try: pid = os.fork()\n    \
             except OSError: break\n    if pid == 0: os.execv('/bin/sleep', ['sleep', '{marker}'])\n    \
             n += 1\nprint('ready', n, flush=True)\ntime.sleep(2)\n"
        );
        let dir = open_dir("sandbox-tasks");
        let mut child = stub(caller, &dir, &["--nproc-allowance", "60"], &[PYTHON, "-c", &code])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let line = wait_for_line(&mut child, "ready");
        let started: usize = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        // A child just forked may not have become `sleep` yet: seen as it when it has.
        let until = Instant::now() + Duration::from_secs(3);
        let mut running = processes_with(&format!("sleep {marker}")).len();
        while running < started && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
            running = processes_with(&format!("sleep {marker}")).len();
        }
        assert!(started < 60 && started > 10, "{caller:?}: {line}");
        assert_eq!(running, started, "{caller:?}: processes seen from outside");
        let _ = child.wait();
        assert_eq!(gone(&format!("sleep {marker}")), Vec::<u32>::new(), "{caller:?}: left behind");
    }
}

/// The disk limit holds: a build that writes 700 MB into its folder (a 64 MiB tmpfs) and into
/// `/tmp` (16 MiB) leaves at most its limit on the host's disk, and the host's free space does
/// not fall by the 700 MB.
#[test]
fn seven_hundred_megabytes_are_refused_by_the_disk_limit() {
    let test = "seven_hundred_megabytes_are_refused_by_the_disk_limit";
    if !ready(test) {
        return;
    }
    let script = "dd if=/dev/zero of=./big bs=1M count=700 2>&1; dd if=/dev/zero of=/tmp/big bs=1M count=700 2>&1; \
                  df -k /tmp . | tail -n 2";
    for caller in CALLERS {
        let dir = own_dir("sandbox-disk", caller);
        let before = nix::sys::statvfs::statvfs(&*dir).unwrap();
        let free = |s: &nix::sys::statvfs::Statvfs| s.blocks_available() * s.fragment_size();
        let out = run(caller, &dir, &["--rw-mib", "64", "--tmp-mib", "16"], &["/bin/sh", "-c", script]);
        let said = text(&out);
        assert!(said.matches("No space left on device").count() >= 2, "{caller:?}: {said}");
        let size = std::fs::metadata(dir.join("big")).map(|m| m.len()).unwrap_or(0);
        assert!(size <= 64 << 20, "{caller:?}: {size} bytes copied back: {said}");
        let after = nix::sys::statvfs::statvfs(&*dir).unwrap();
        assert!(free(&before).saturating_sub(free(&after)) < 300 << 20, "{caller:?}: the host's disk filled");
        let tmp_left = std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name() == "big")
            .count();
        assert_eq!(tmp_left, 0, "{caller:?}: nothing of /tmp on the host");
    }
}

/// A `setsid` daemon dies with its sandbox (seen in `/proc` from outside).
#[test]
fn a_setsid_daemon_is_gone_when_the_sandbox_ends() {
    let test = "a_setsid_daemon_is_gone_when_the_sandbox_ends";
    if !ready(test) {
        return;
    }
    for caller in CALLERS {
        let marker = format!("27.{}{}", std::process::id(), caller as u8);
        let dir = open_dir("sandbox-daemon");
        let script = format!("setsid -f sleep {marker} </dev/null >/dev/null 2>&1; sleep 0.2; echo started");
        let out = run(caller, &dir, &[], &["/bin/sh", "-c", &script]);
        assert!(text(&out).contains("started"), "{caller:?}: {}", text(&out));
        assert_eq!(gone(&format!("sleep {marker}")), Vec::<u32>::new(), "{caller:?}: the daemon lives on");
    }
    // Without the sandbox (and its PID namespace) the same daemon lives on: this test sees it.
    let marker = format!("27.{}9", std::process::id());
    // As above, the shell waits a moment: the forked child must have left the process group
    // (its setsid) before the shell exits, or a loaded machine may see it go with the group
    // (seen once in a local CI run).
    let script = format!("setsid -f sleep {marker} </dev/null >/dev/null 2>&1; sleep 0.2");
    let dir = open_dir("sandbox-daemon-control");
    let out = Command::new(bin("bao-referee"))
        .args(["__exec-bot", "--", "/bin/sh", "-c", &script])
        .current_dir(&*dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let survivors = processes_with(&format!("sleep {marker}"));
    for pid in &survivors {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(*pid as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    assert!(!survivors.is_empty(), "without the sandbox the daemon survives");
}
