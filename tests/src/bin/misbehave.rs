//! `bao-misbehave --mode MODE`: a bot that misbehaves in one chosen way, for
//! the referee's end-to-end tests (in the spirit of fastchess's mock engine).
//!
//! Until its misbehaviour starts it speaks the protocol correctly, playing the
//! first legal move. Modes (`--after N` delays the misbehaviour by N moves):
//!
//! | mode | what it does |
//! |---|---|
//! | `good` | plays correctly (the first legal move) |
//! | `exit-at-once` | exits with code 3 before the handshake |
//! | `crash` | aborts (SIGABRT) when asked to move |
//! | `never-answer` | reads requests, never answers |
//! | `slow-bytes` | writes its answer one byte every 200 ms |
//! | `huge-line` | writes 100 MB with no newline |
//! | `invalid-utf8` | writes a line of bytes that are not UTF-8 |
//! | `wrong-shape` | writes valid JSON of the wrong shape |
//! | `stale-id` | answers with the previous request's id |
//! | `answer-twice` | answers every request twice |
//! | `illegal-move` | plays a move that is not legal |
//! | `wrong-side` | plays a move that is legal only for the opponent |
//! | `flood-stderr` | writes 50 MB to stderr, then plays correctly |
//! | `nul-stderr` | writes 1 MiB of NUL bytes to stderr, then plays correctly |
//! | `close-stdout` | closes stdout and keeps running |
//! | `fork-child` | starts a child that sleeps and ignores SIGTERM, then never answers |
//! | `fork-setsid` | the same, but the child starts a new session (escaping the process group) |
//! | `sleeper` | sleeps for ever (the child of the fork modes) |
//! | `alloc` | allocates and touches memory without bound |
//! | `spin` | spins the CPU without answering |
//! | `bad-handshake` | answers hello with a move message |
//! | `stop-parent` | SIGSTOPs its parent, thinks for 2 s, SIGCONTs it, then answers |
//! | `stop-all` | SIGSTOPs every process it can see whose environment holds `BAO_E2E_GAME=<tag>` (the referee and the opponent inherit it from the test), then answers at once |
//! | `kill-all` | sends `kill(-1, SIGSTOP)`, then answers at once; refuses (and says so) unless it runs in the referee's PID namespace, so that a test can never freeze the machine |
//! | `many-children` | starts 1,500 idle children (`sleep`, tagged) before its handshake, then plays at once |
//! | `read-environ` | reads `/proc/PID/environ`, `cmdline` and `mem` of every process it can see, reports each on stderr (`seen pid=… cmdline=… environ_bytes=… mem=…`), then plays at once |
//!
//! The attack modes report what they did on stderr, one line per process reached
//! (`stopped pid=… cmdline=…`), so that a test can assert what the bot could reach.
//!
//! A bot that ignores SIGTERM is made by the tests with
//! `sh -c 'trap "" TERM; exec bao-misbehave ...'` (the ignored disposition survives exec).

use std::io::{BufRead, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use bao_protocol::{MoveRequest, RefereeMessage};
use bao_rules::{Position, Setup};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

fn main() {
    let mut mode = String::from("good");
    let mut after = 0u32;
    let mut tag = String::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--mode" => mode = args.next().unwrap_or_default(),
            "--after" => after = args.next().and_then(|a| a.parse().ok()).unwrap_or(0),
            // A word the tests look for in /proc to find every process of the bot.
            "--tag" => tag = args.next().unwrap_or_default(),
            _ => {}
        }
    }
    match mode.as_str() {
        "exit-at-once" => std::process::exit(3),
        "sleeper" => sleep_forever(),
        "many-children" => start_idle_children(&tag, 1500),
        _ => {}
    }
    let mut attacked = false;
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut moves = 0u32;
    let mut previous_id = 0u64;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let Ok(message) = RefereeMessage::parse(&line) else {
            eprintln!("misbehave: cannot parse {line:?}");
            continue;
        };
        match message {
            RefereeMessage::Hello(_) => {
                let reply = if mode == "bad-handshake" {
                    r#"{"type":"move","id":1,"move":"A5<"}"#.to_owned()
                } else {
                    format!(r#"{{"type":"ready","name":"misbehave-{mode}","author":"tests","version":"1"}}"#)
                };
                send(&mut out, reply.as_bytes());
            }
            RefereeMessage::MoveRequest(request) => {
                let misbehave = moves >= after;
                moves += 1;
                if misbehave && ATTACKS.contains(&mode.as_str()) {
                    if !attacked {
                        attacked = true;
                        attack(&mode, &tag);
                    }
                    send(&mut out, move_line(request.id, &request.legal[0]).as_bytes());
                } else if misbehave {
                    misbehave_on(&mode, &tag, &request, previous_id, &mut out);
                } else {
                    send(&mut out, move_line(request.id, &request.legal[0]).as_bytes());
                }
                previous_id = request.id;
            }
            RefereeMessage::GameOver(_) => {}
            RefereeMessage::Quit => return,
        }
    }
}

/// The modes that attack other processes once, on their first move, then play correctly.
const ATTACKS: [&str; 5] = ["stop-parent", "stop-all", "kill-all", "many-children", "read-environ"];

/// The attack of `mode` (see the table at the top).
fn attack(mode: &str, tag: &str) {
    match mode {
        "stop-parent" => {
            let parent = nix::unistd::getppid();
            let result = kill(parent, Signal::SIGSTOP);
            eprintln!(
                "stop-parent: kill({parent}, SIGSTOP) = {result:?}, cmdline={}",
                cmdline(parent.as_raw())
            );
            std::thread::sleep(Duration::from_secs(2));
            let _ = kill(parent, Signal::SIGCONT);
        }
        "stop-all" => {
            let me = std::process::id();
            let marker = format!("BAO_E2E_GAME={tag}");
            for pid in visible_pids().into_iter().filter(|&p| p != me) {
                let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
                if environ.split(|&b| b == 0).any(|e| e == marker.as_bytes()) {
                    let pid = i32::try_from(pid).unwrap_or(i32::MAX);
                    if kill(Pid::from_raw(pid), Signal::SIGSTOP).is_ok() {
                        eprintln!("stopped pid={pid} cmdline={}", cmdline(pid));
                    }
                }
            }
            eprintln!("stop-all: done");
        }
        "kill-all" => {
            // Only where the referee isolated us: pid 1 is its init (a fork of the stub, exec'd
            // or the spawn server) and few processes are visible.
            let init = cmdline(1);
            let isolated =
                (init.contains("__exec-bot") || init.contains("__spawn-server")) && visible_pids().len() < 64;
            if isolated {
                eprintln!("kill-all: kill(-1, SIGSTOP) = {:?}", kill(Pid::from_raw(-1), Signal::SIGSTOP));
            } else {
                eprintln!("kill-all: refusing: not in the referee's PID namespace");
            }
        }
        "read-environ" => {
            let me = std::process::id();
            for pid in visible_pids().into_iter().filter(|&p| p != me) {
                let environ = std::fs::read(format!("/proc/{pid}/environ")).map(|e| e.len());
                let mem = std::fs::File::open(format!("/proc/{pid}/mem")).map(|_| "open");
                let pid = i32::try_from(pid).unwrap_or(i32::MAX);
                eprintln!(
                    "seen pid={pid} cmdline={} environ_bytes={} mem={}",
                    cmdline(pid),
                    environ.map_or_else(|e| format!("({e})"), |n| n.to_string()),
                    mem.map_or_else(|e| format!("({e})"), str::to_owned)
                );
            }
            eprintln!("read-environ: done");
        }
        _ => {}
    }
}

/// The pids listed in this process's `/proc`.
fn visible_pids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .map(|entries| {
            entries.flatten().filter_map(|e| e.file_name().to_str().and_then(|n| n.parse().ok())).collect()
        })
        .unwrap_or_default()
}

/// A process's command line, words joined by spaces.
fn cmdline(pid: i32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " ").trim().to_owned())
        .unwrap_or_default()
}

/// Starts `count` children that sleep and never exit by themselves, named after `tag`.
fn start_idle_children(tag: &str, count: usize) {
    use std::os::unix::process::CommandExt;
    let mut started = 0;
    for _ in 0..count {
        let child = Command::new("sleep")
            .arg0(format!("sleep-{tag}"))
            .arg("3600")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        match child {
            Ok(_) => started += 1,
            Err(e) => {
                eprintln!("many-children: child {started}: {e}");
                break;
            }
        }
    }
    eprintln!("many-children: started {started}");
}

fn send(out: &mut impl Write, bytes: &[u8]) {
    let _ = out.write_all(bytes);
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}

fn move_line(id: u64, mv: &str) -> String {
    format!(r#"{{"type":"move","id":{id},"move":"{mv}"}}"#)
}

fn sleep_forever() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

fn misbehave_on(mode: &str, tag: &str, request: &MoveRequest, previous_id: u64, out: &mut impl Write) {
    let first = request.legal.first().cloned().unwrap_or_default();
    match mode {
        "good" | "flood-stderr" | "nul-stderr" => {
            if mode == "flood-stderr" {
                let chunk = vec![b'e'; 1 << 20];
                let mut err = std::io::stderr().lock();
                for _ in 0..50 {
                    let _ = err.write_all(&chunk);
                }
            }
            if mode == "nul-stderr" {
                let _ = std::io::stderr().lock().write_all(&vec![0u8; 1 << 20]);
            }
            send(out, move_line(request.id, &first).as_bytes());
        }
        "crash" => std::process::abort(),
        "never-answer" => sleep_forever(),
        "slow-bytes" => {
            for byte in move_line(request.id, &first).bytes().chain(std::iter::once(b'\n')) {
                let _ = out.write_all(&[byte]);
                let _ = out.flush();
                std::thread::sleep(Duration::from_millis(200));
            }
        }
        "huge-line" => {
            let chunk = vec![b'x'; 1 << 20];
            for _ in 0..100 {
                if out.write_all(&chunk).is_err() {
                    break;
                }
            }
            let _ = out.flush();
            sleep_forever();
        }
        "invalid-utf8" => send(out, b"{\"type\":\"move\",\"id\":1,\"move\":\"\xff\xfe\"}"),
        "wrong-shape" => send(out, format!(r#"{{"type":"move","id":"{}","move":5}}"#, request.id).as_bytes()),
        "stale-id" => send(out, move_line(previous_id, &first).as_bytes()),
        "answer-twice" => {
            send(out, move_line(request.id, &first).as_bytes());
            send(out, move_line(request.id, &first).as_bytes());
        }
        "illegal-move" => {
            let illegal = ["A1<", "A1>", "B1<", "B8>", "A8<", "A4>"]
                .into_iter()
                .find(|m| !request.legal.iter().any(|l| l == m))
                .unwrap_or("B9>");
            send(out, move_line(request.id, illegal).as_bytes());
        }
        "wrong-side" => {
            let mv = opponents_move(&request.position.notation, &request.legal)
                .unwrap_or_else(|| "B8>".to_owned());
            send(out, move_line(request.id, &mv).as_bytes());
        }
        "close-stdout" => {
            // Replace our stdout with /dev/null: the referee sees end of file.
            close_stdout();
            sleep_forever();
        }
        "fork-child" | "fork-setsid" => {
            // The child re-runs this program as a sleeper that ignores SIGTERM.
            let me = std::env::current_exe().unwrap_or_default();
            let script = r#"trap '' TERM; exec "$0" --mode sleeper --tag "$1""#;
            let mut cmd = Command::new(if mode == "fork-setsid" { "setsid" } else { "sh" });
            if mode == "fork-setsid" {
                cmd.arg("sh");
            }
            cmd.args(["-c", script]).arg(me).arg(tag);
            let _ = cmd.stdin(Stdio::null()).stdout(Stdio::null()).spawn();
            sleep_forever();
        }
        "alloc" => {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                hoard.push(vec![1u8; 16 << 20]);
                std::hint::black_box(&hoard);
            }
        }
        "spin" => {
            let mut x = 0u64;
            loop {
                x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
            }
        }
        other => {
            eprintln!("misbehave: unknown mode {other:?}");
            std::process::exit(2);
        }
    }
}

/// A move that is legal for the opponent in this position but not for us.
fn opponents_move(notation: &str, legal: &[String]) -> Option<String> {
    let mut setup: Setup = notation.parse().ok()?;
    setup.to_move = setup.to_move.opponent();
    setup.takasia = None;
    let flipped = Position::try_from(setup).ok()?;
    flipped.legal_moves().iter().map(ToString::to_string).find(|m| !legal.contains(m))
}

/// Points file descriptor 1 at /dev/null: the referee sees end of file.
fn close_stdout() {
    if let Ok(null) = std::fs::File::open("/dev/null") {
        let _ = nix::unistd::dup2_stdout(&null);
    }
}
