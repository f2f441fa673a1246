//! `bao-cpu-bot MODE [--ms N] [--procs N] [--report PATH]`: bots for the tests of CPU
//! confinement (`tests/e2e/cpu_hog.rs`). Every mode plays the first legal move, so that a game
//! between these bots is the same game every time, unless a clock ends it.
//!
//! | mode | what it does |
//! |---|---|
//! | `think` | uses `--ms` milliseconds of its own CPU time on each move (default 20), then answers |
//! | `sleep` | sleeps `--ms` milliseconds on each move (default 30), then answers |
//! | `hog` | answers at once, and keeps `--procs` busy processes (default 40) spinning only in its opponent's time: from its move until its next request |
//! | `ponder-count` | answers at once, then spins until its next request arrives, counting the CPU time it gets in its opponent's time; after each request it writes `turns=N cpu_us=U` to `--report` |
//! | `spinner` | spins for ever (the hog's children) |

use std::io::{BufRead, Write};
use std::time::Duration;

use bao_protocol::RefereeMessage;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_default();
    let (mut ms, mut procs, mut report) = (None, 40u32, None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--ms" => ms = args.next().and_then(|a| a.parse::<u64>().ok()),
            "--procs" => procs = args.next().and_then(|a| a.parse().ok()).unwrap_or(procs),
            "--report" => report = args.next(),
            other => fail(&format!("unknown argument {other:?}")),
        }
    }
    match mode.as_str() {
        "spinner" => {
            // Stopped until the hog's first move: its start is not slowed by its own spinners.
            let _ = nix::sys::signal::raise(Signal::SIGSTOP);
            spin_for_ever()
        }
        "think" | "sleep" | "hog" | "ponder-count" => {}
        other => fail(&format!("unknown mode {other:?}")),
    }
    let default_ms = if mode == "sleep" { 30 } else { 20 };
    let ms = Duration::from_millis(ms.unwrap_or(default_ms));
    let spinners = if mode == "hog" { start_spinners(procs) } else { Vec::new() };
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout().lock();
    let (mut turns, mut pondered) = (0u64, Duration::ZERO);
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        match RefereeMessage::parse(line.trim_end()) {
            Ok(RefereeMessage::Hello(_)) => {
                send(
                    &mut out,
                    &format!(r#"{{"type":"ready","name":"cpu-{mode}","author":"tests","version":"1"}}"#),
                );
            }
            Ok(RefereeMessage::MoveRequest(request)) => {
                signal_all(&spinners, Signal::SIGSTOP);
                match mode.as_str() {
                    "think" => use_cpu(ms),
                    "sleep" => std::thread::sleep(ms),
                    _ => {}
                }
                let first = request.legal.first().cloned().unwrap_or_default();
                send(&mut out, &format!(r#"{{"type":"move","id":{},"move":"{first}"}}"#, request.id));
                signal_all(&spinners, Signal::SIGCONT);
                if mode == "ponder-count" {
                    // The referee waits for this move before it writes again: nothing is buffered.
                    pondered += ponder_until_input();
                    turns += 1;
                    if let Some(path) = &report {
                        let text = format!("turns={turns} cpu_us={}\n", pondered.as_micros());
                        let _ = std::fs::write(path, text);
                    }
                }
            }
            Ok(RefereeMessage::GameOver(_)) => {}
            Ok(RefereeMessage::Quit) | Err(_) => break,
        }
    }
    signal_all(&spinners, Signal::SIGKILL);
}

fn fail(message: &str) -> ! {
    eprintln!("bao-cpu-bot: {message}");
    std::process::exit(2);
}

fn send(out: &mut impl Write, line: &str) {
    let _ = out.write_all(line.as_bytes());
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}

/// This process's CPU time so far.
fn own_cpu() -> Duration {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_PROCESS_CPUTIME_ID)
        .map_or(Duration::ZERO, Duration::from)
}

/// Spins until this process has used `amount` more CPU time.
fn use_cpu(amount: Duration) {
    let until = own_cpu() + amount;
    let mut x = 1u64;
    while own_cpu() < until {
        for _ in 0..1000 {
            x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
        }
    }
}

/// Spins until stdin has something to read, and returns the CPU time this process used
/// meanwhile.
fn ponder_until_input() -> Duration {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use std::os::fd::AsFd;
    let start = own_cpu();
    let stdin = std::io::stdin();
    let mut x = 1u64;
    loop {
        let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::POLLIN)];
        if poll(&mut fds, PollTimeout::ZERO).unwrap_or(1) > 0 {
            break;
        }
        for _ in 0..10_000 {
            x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
        }
    }
    own_cpu().saturating_sub(start)
}

/// `count` copies of this program spinning, stopped (each stops itself, and is stopped
/// again here) until the first move is played.
fn start_spinners(count: u32) -> Vec<Pid> {
    let exe = std::env::current_exe().unwrap_or_else(|e| fail(&format!("cannot find myself: {e}")));
    let pids: Vec<Pid> = (0..count)
        .filter_map(|_| {
            std::process::Command::new(&exe)
                .arg("spinner")
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .spawn()
                .ok()
        })
        .filter_map(|child| i32::try_from(child.id()).ok().map(Pid::from_raw))
        .collect();
    signal_all(&pids, Signal::SIGSTOP);
    pids
}

fn signal_all(pids: &[Pid], signal: Signal) {
    for pid in pids {
        let _ = kill(*pid, signal);
    }
}

fn spin_for_ever() -> ! {
    let mut x = 1u64;
    loop {
        x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
    }
}
