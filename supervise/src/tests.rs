//! Tests of [`BotProcess`] with `sh` and `python3` scripts as bots, started directly (no
//! re-exec stub: the stub needs the `bao-referee` binary, see `referee/tests/supervision.rs`).
//! Tree tests run twice: with a cgroup (when this machine allows one) and with the `/proc`
//! fallback.

use std::collections::HashSet;
use std::time::Duration;

use tokio::time::Instant;

use super::*;

fn sh(script: &str) -> BotSpec {
    BotSpec { name: None, program: "sh".into(), args: vec!["-c".into(), script.into()], dir: None }
}

fn python(code: &str) -> BotSpec {
    BotSpec { name: None, program: "python3".into(), args: vec!["-c".into(), code.into()], dir: None }
}

fn options(cgroup: bool) -> SpawnOptions {
    SpawnOptions { stderr_cap: 1 << 20, stub: StubChoice::Never, cgroup, ..SpawnOptions::default() }
}

fn after(ms: u64) -> Instant {
    Instant::now() + Duration::from_millis(ms)
}

async fn start(spec: &BotSpec) -> BotProcess {
    start_with(spec, &ResourceLimits::default(), &options(true)).await
}

async fn start_with(spec: &BotSpec, limits: &ResourceLimits, options: &SpawnOptions) -> BotProcess {
    BotProcess::spawn_with(spec, limits, options).await.expect("the bot starts")
}

/// Whether a process with this pid exists at all (zombies included).
fn exists(pid: i32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

#[tokio::test]
async fn lines_round_trip_and_a_clean_exit_when_stdin_closes() {
    let mut bot = start(&sh("while read -r line; do echo \"got $line\"; done; exit 0")).await;
    for word in ["hello", "wörld", "{\"json\": 1}"] {
        bot.send_line(word, after(2000)).await.unwrap();
        assert_eq!(bot.recv_line(after(2000)).await.unwrap(), format!("got {word}"));
    }
    let report = bot.shutdown(Duration::from_secs(2)).await;
    assert_eq!(report.code, Some(0));
    assert_eq!(report.ended_by, EndedBy::Itself);
    assert_eq!(report.to_string(), "exit code 0");
}

#[tokio::test]
async fn a_silent_bot_times_out_at_the_deadline() {
    let mut bot = start(&sh("exec sleep 30")).await;
    let begin = Instant::now();
    assert_eq!(bot.recv_line(after(200)).await, Err(BotFault::Timeout));
    let waited = begin.elapsed();
    assert!(waited >= Duration::from_millis(200) && waited < Duration::from_millis(800), "{waited:?}");
    // A timeout is not final: the bot may still answer later.
    assert_eq!(bot.recv_line(after(50)).await, Err(BotFault::Timeout));
    let report = bot.shutdown(Duration::from_millis(100)).await;
    assert_eq!(report.signal, Some(15), "{report}");
    assert_eq!(report.ended_by, EndedBy::Terminate);
    assert_eq!(report.to_string(), "killed by signal 15 (SIGTERM)");
}

#[tokio::test]
async fn a_100_mb_line_is_too_long_after_reading_only_about_64_kib() {
    let mut bot = start(&sh("head -c 100000000 /dev/zero | tr '\\0' x; sleep 30")).await;
    let fault = bot.recv_line(after(5000)).await.unwrap_err();
    assert_eq!(fault, BotFault::LineTooLong { limit: crate::DEFAULT_MAX_LINE_BYTES });
    assert_eq!(fault.to_string(), "the bot wrote a line longer than 65536 bytes");
    // Final: asked again, same answer.
    assert_eq!(bot.recv_line(after(100)).await.unwrap_err(), fault);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let read = bot.output_bytes();
    assert!(read > 65_536 && read < 256 * 1024, "read {read} bytes");
    bot.shutdown(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn a_bot_that_writes_on_after_its_verdict_is_not_killed_by_sigpipe() {
    // After the verdict the reader thread reads no more but keeps the pipe open: the bot's
    // later writes go into the pipe's buffer, and it exits as it chooses.
    let mut bot =
        start(&sh("head -c 70000 /dev/zero | tr '\\0' x; echo; sleep 0.2; echo more; exit 7")).await;
    let fault = bot.recv_line(after(5000)).await.unwrap_err();
    assert_eq!(fault, BotFault::LineTooLong { limit: crate::DEFAULT_MAX_LINE_BYTES });
    let until = std::time::Instant::now() + Duration::from_secs(5);
    while bot.exit_report().is_none() && std::time::Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let report = bot.exit_report().expect("the bot exited by itself");
    assert_eq!((report.code, report.signal), (Some(7), None), "{report}");
    bot.shutdown(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn invalid_utf8_is_a_fault_after_the_good_lines() {
    let mut bot = start(&sh("printf 'ok\\n\\377\\376\\n'; sleep 30")).await;
    assert_eq!(bot.recv_line(after(2000)).await.unwrap(), "ok");
    assert_eq!(bot.recv_line(after(2000)).await, Err(BotFault::InvalidUtf8));
    assert_eq!(bot.recv_line(after(2000)).await, Err(BotFault::InvalidUtf8));
    bot.shutdown(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn the_exit_code_comes_after_every_line_written_before_it() {
    let mut bot = start(&sh("i=0; while [ $i -lt 100 ]; do echo $i; i=$((i+1)); done; exit 3")).await;
    for i in 0..100 {
        assert_eq!(bot.recv_line(after(2000)).await.unwrap(), i.to_string());
    }
    let fault = bot.recv_line(after(2000)).await.unwrap_err();
    let BotFault::Exited(report) = &fault else { panic!("{fault:?}") };
    assert_eq!((report.code, report.signal), (Some(3), None));
    assert_eq!(fault.to_string(), "the bot ended: exit code 3");
    assert_eq!(bot.exit_report().unwrap().code, Some(3));
    let report = bot.shutdown(Duration::from_millis(100)).await;
    assert_eq!(report.code, Some(3));
    assert_eq!(report.ended_by, EndedBy::Itself);
}

#[tokio::test]
async fn a_bot_killed_by_a_signal_reports_it() {
    let mut bot = start(&sh("kill -9 $$")).await;
    let fault = bot.recv_line(after(2000)).await.unwrap_err();
    let BotFault::Exited(report) = &fault else { panic!("{fault:?}") };
    assert_eq!((report.code, report.signal), (None, Some(9)));
    assert_eq!(fault.to_string(), "the bot ended: killed by signal 9 (SIGKILL)");
    bot.shutdown(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn closed_stdout_while_running_then_exited_once_it_ends() {
    let mut bot = start(&sh("exec 1>&-; read -r line; exit 4")).await;
    assert_eq!(bot.recv_line(after(2000)).await, Err(BotFault::StdoutClosed));
    assert_eq!(bot.recv_line(after(2000)).await, Err(BotFault::StdoutClosed));
    bot.send_line("bye", after(1000)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let fault = bot.recv_line(after(100)).await.unwrap_err();
    assert!(matches!(&fault, BotFault::Exited(r) if r.code == Some(4)), "{fault:?}");
    bot.shutdown(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn a_50_mb_stderr_flood_does_not_stall_and_is_capped() {
    let spec = sh("head -c 50000000 /dev/zero >&2; echo done; exec sleep 30");
    let mut bot =
        start_with(&spec, &ResourceLimits::default(), &SpawnOptions { stderr_cap: 1 << 20, ..options(true) })
            .await;
    assert_eq!(bot.recv_line(after(10_000)).await.unwrap(), "done");
    // "done" comes through the stdout reader, which can be ahead of the pump's reading of
    // stderr by up to a pipe's worth of bytes: the count is complete once the bot has ended.
    let (_, stderr) = bot.shutdown_with_stderr(Duration::from_millis(100)).await;
    assert_eq!(stderr.total_bytes, 50_000_000);
    assert_eq!(stderr.kept.len(), 1 << 20);
    assert!(stderr.truncated);
}

#[tokio::test]
async fn an_unread_stdout_flood_is_held_back_by_back_pressure() {
    let mut bot = start(&sh("exec yes")).await;
    assert_eq!(bot.recv_line(after(2000)).await.unwrap(), "y");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let first = bot.output_bytes();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let second = bot.output_bytes();
    // The pump stopped reading: a few channel slots and one read buffer, not megabytes.
    assert!(second < 256 * 1024, "read {second} bytes");
    assert_eq!(first, second);
    // Reading again resumes the flow.
    for _ in 0..1000 {
        assert_eq!(bot.recv_line(after(2000)).await.unwrap(), "y");
    }
    bot.shutdown(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn recv_line_is_cancel_safe() {
    let mut bot = start(&python(
        "import time\nfor i in range(20):\n    print(i, flush=True)\n    time.sleep(0.003)\nimport sys; sys.stdin.read()",
    ))
    .await;
    let mut got = Vec::new();
    let end = after(5000);
    while got.len() < 20 && Instant::now() < end {
        tokio::select! {
            line = bot.recv_line(end) => got.push(line.unwrap()),
            () = tokio::time::sleep(Duration::from_micros(500)) => {}
        }
    }
    let want: Vec<String> = (0..20).map(|i| i.to_string()).collect();
    assert_eq!(got, want);
    let report = bot.shutdown(Duration::from_secs(2)).await;
    assert_eq!(report.code, Some(0));
}

#[tokio::test]
async fn a_bot_that_never_reads_stdin_cannot_block_send_line() {
    let mut bot = start(&sh("exec sleep 30")).await;
    let big = "x".repeat(1 << 20);
    let begin = Instant::now();
    assert_eq!(bot.send_line(&big, after(300)).await, Err(BotFault::Timeout));
    assert!(begin.elapsed() < Duration::from_millis(800));
    bot.shutdown(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn sending_to_an_exited_bot_reports_the_exit() {
    let mut bot = start(&sh("exit 5")).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let fault = bot.send_line("hello", after(1000)).await.unwrap_err();
    assert!(matches!(&fault, BotFault::Exited(r) if r.code == Some(5)), "{fault:?}");
    bot.shutdown(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn spawn_errors_name_what_was_wrong() {
    let missing = BotSpec { name: None, program: "no-such-bot-program-xyz".into(), args: vec![], dir: None };
    let err = BotProcess::spawn(&missing, &ResourceLimits::default(), 1024).await.unwrap_err();
    assert!(matches!(err, SpawnError::NotFound { .. }), "{err:?}");
    assert!(err.to_string().starts_with("bot program `no-such-bot-program-xyz` not found"), "{err}");

    let plain = std::env::temp_dir().join(format!("bao-not-executable-{}", std::process::id()));
    std::fs::write(&plain, "data").unwrap();
    let not_exec = BotSpec { program: plain.to_string_lossy().into_owned(), ..missing.clone() };
    let err = BotProcess::spawn(&not_exec, &ResourceLimits::default(), 1024).await.unwrap_err();
    assert!(matches!(err, SpawnError::NotExecutable { .. }), "{err:?}");
    std::fs::remove_file(&plain).unwrap();

    let bad_dir = BotSpec { dir: Some("/no/such/dir".into()), ..sh("true") };
    let err = BotProcess::spawn(&bad_dir, &ResourceLimits::default(), 1024).await.unwrap_err();
    assert_eq!(err.to_string(), "bot working directory `/no/such/dir` is not a directory");
}

#[tokio::test]
async fn a_relative_program_runs_from_the_bot_directory() {
    let dir = std::env::temp_dir().join(format!("bao-bot-dir-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("bot.sh");
    crate::test_executable::write(&script, "#!/bin/sh\npwd\n");
    let spec = BotSpec { name: None, program: "./bot.sh".into(), args: vec![], dir: Some(dir.clone()) };
    let mut bot = start(&spec).await;
    assert_eq!(bot.recv_line(after(2000)).await.unwrap(), dir.canonicalize().unwrap().to_string_lossy());
    bot.shutdown(Duration::from_millis(100)).await;
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A bot that ignores SIGTERM and leaves behind, each ignoring SIGTERM: a child, a child that
/// called `setsid`, and a double-forked `setsid` daemon whose parent exited (an orphan).
/// It prints every pid, then "ready".
const TREE_BOT: &str = r#"
import os, signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
# The shells print nothing: with PYTHONUNBUFFERED set (it may be inherited), print() writes
# a line and its newline separately, and a shell's line could land between the two.
stubborn = "trap '' TERM; while :; do sleep 1; done"
a = subprocess.Popen(["sh", "-c", stubborn])
b = subprocess.Popen(["setsid", "sh", "-c", stubborn])
r, w = os.pipe()
middle = os.fork()
if middle == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        os.write(w, b"%d\n" % os.getpid())
        time.sleep(60)
        os._exit(0)
    os._exit(0)
os.waitpid(middle, 0)
print(os.getpid(), flush=True)
print(a.pid, flush=True)
print(b.pid, flush=True)
print(os.read(r, 100).decode().strip(), flush=True)
time.sleep(0.2)
print("ready", flush=True)
sys.stdin.read()
time.sleep(60)
"#;

async fn whole_tree_is_gone_after_shutdown(cgroup: bool) {
    let mut bot = start_with(&python(TREE_BOT), &ResourceLimits::default(), &options(cgroup)).await;
    if !cgroup {
        assert_eq!(bot.supervision().cgroup, None);
    }
    let mut pids: HashSet<i32> = HashSet::new();
    loop {
        let line = bot.recv_line(after(5000)).await.unwrap();
        if line == "ready" {
            break;
        }
        pids.insert(line.parse().unwrap());
    }
    assert_eq!(pids.len(), 4, "{pids:?}"); // python, a, b, the daemon
    let begin = Instant::now();
    let report = bot.shutdown(Duration::from_millis(200)).await;
    assert!(begin.elapsed() < Duration::from_secs(3), "{:?}", begin.elapsed());
    assert_eq!(report.ended_by, EndedBy::Kill, "{report}");
    assert_eq!(report.signal, Some(9));
    let left: Vec<i32> = pids.iter().copied().filter(|&p| exists(p)).collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[tokio::test]
async fn shutdown_ends_the_whole_tree_with_a_cgroup() {
    whole_tree_is_gone_after_shutdown(true).await;
}

#[tokio::test]
async fn shutdown_ends_the_whole_tree_without_a_cgroup() {
    whole_tree_is_gone_after_shutdown(false).await;
}

async fn cpu_time_counts_the_whole_tree(cgroup: bool) {
    // A child burns ~0.4 s of CPU while the main process waits for it.
    let code = "import subprocess, sys\nsys.stdin.readline()\n\
                subprocess.run([sys.executable, '-c', 'import time\\nt=time.process_time()\\nwhile time.process_time()-t<0.4: pass'])\n\
                print('done', flush=True)\nsys.stdin.readline()";
    let mut bot = start_with(&python(code), &ResourceLimits::default(), &options(cgroup)).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let before = bot.cpu_time().expect("measurable");
    bot.send_line("go", after(1000)).await.unwrap();
    assert_eq!(bot.recv_line(after(10_000)).await.unwrap(), "done");
    let after_move = bot.cpu_time().expect("measurable");
    let used = after_move - before;
    assert!(used >= Duration::from_millis(380) && used < Duration::from_millis(900), "{used:?}");
    bot.send_line("bye", after(1000)).await.unwrap();
    let report = bot.shutdown(Duration::from_secs(2)).await;
    assert!(report.cpu_time.unwrap() >= after_move);
}

#[tokio::test]
async fn cpu_time_counts_the_whole_tree_with_a_cgroup() {
    cpu_time_counts_the_whole_tree(true).await;
}

#[tokio::test]
async fn cpu_time_counts_the_whole_tree_without_a_cgroup() {
    cpu_time_counts_the_whole_tree(false).await;
}

#[tokio::test]
async fn too_much_output_kills_the_bot() {
    let limits = ResourceLimits { max_output_bytes: Some(100_000), ..ResourceLimits::default() };
    let mut bot = start_with(&sh("exec yes"), &limits, &options(true)).await;
    let fault = loop {
        match bot.recv_line(after(5000)).await {
            Ok(line) => assert_eq!(line, "y"),
            Err(fault) => break fault,
        }
    };
    assert_eq!(fault, BotFault::OutputLimit { limit: 100_000 });
    let report = bot.shutdown(Duration::from_millis(100)).await;
    assert_eq!((report.signal, report.ended_by), (Some(9), EndedBy::Kill));
}

#[tokio::test]
async fn too_much_stderr_counts_towards_the_output_limit() {
    let limits = ResourceLimits { max_output_bytes: Some(1_000_000), ..ResourceLimits::default() };
    let mut bot =
        start_with(&sh("head -c 2000000 /dev/zero >&2; exec sleep 30"), &limits, &options(true)).await;
    assert_eq!(bot.recv_line(after(5000)).await, Err(BotFault::OutputLimit { limit: 1_000_000 }));
    bot.shutdown(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn too_many_processes_kill_the_bot() {
    for cgroup in [true, false] {
        let limits = ResourceLimits { max_processes: Some(3), ..ResourceLimits::default() };
        let spec = sh("for i in 1 2 3 4 5 6; do sleep 30 & done; wait");
        let mut bot = start_with(&spec, &limits, &options(cgroup)).await;
        assert_eq!(bot.recv_line(after(3000)).await, Err(BotFault::ProcessLimit));
        bot.shutdown(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_few_processes_within_the_limit_are_fine() {
    let limits = ResourceLimits { max_processes: Some(3), ..ResourceLimits::default() };
    let mut bot = start_with(&sh("sleep 30 & sleep 30 & echo ok; wait"), &limits, &options(true)).await;
    assert_eq!(bot.recv_line(after(2000)).await.unwrap(), "ok");
    assert_eq!(bot.recv_line(after(300)).await, Err(BotFault::Timeout));
    bot.shutdown(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn growing_memory_is_caught_by_sampling() {
    let limits = ResourceLimits { max_memory_bytes: Some(60_000_000), ..ResourceLimits::default() };
    let code =
        "import time\nheld = []\nwhile True:\n    held.append(bytearray(5_000_000))\n    time.sleep(0.01)";
    // No cgroup: no kernel memory limit either, so the sampler is what catches it.
    let mut bot = start_with(&python(code), &limits, &options(false)).await;
    assert!(!bot.supervision().kernel_memory_limit, "{}", bot.supervision());
    let begin = Instant::now();
    assert_eq!(bot.recv_line(after(5000)).await, Err(BotFault::MemoryLimit));
    assert!(begin.elapsed() < Duration::from_secs(2));
    let report = bot.shutdown(Duration::from_millis(100)).await;
    assert_eq!(report.signal, Some(9));
}

#[tokio::test]
async fn cpu_time_beyond_the_limit_kills_the_bot() {
    let limits = ResourceLimits { max_cpu_secs: Some(1), ..ResourceLimits::default() };
    let mut bot = start_with(&python("while True: pass"), &limits, &options(true)).await;
    assert_eq!(bot.recv_line(after(10_000)).await, Err(BotFault::CpuLimit));
    let used = bot.cpu_time().unwrap();
    assert!(used >= Duration::from_secs(1) && used < Duration::from_millis(1300), "{used:?}");
    bot.shutdown(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn dropping_a_bot_kills_its_tree() {
    let mut bot = start(&sh("sleep 30 & echo $!; trap '' TERM; wait")).await;
    let child: i32 = bot.recv_line(after(2000)).await.unwrap().parse().unwrap();
    let leader = i32::try_from(bot.pid()).unwrap();
    drop(bot);
    let end = after(3000);
    while (exists(child) || exists(leader)) && Instant::now() < end {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let state = |p: i32| std::fs::read_to_string(format!("/proc/{p}/stat")).unwrap_or_default();
    assert!(!exists(child) && !exists(leader), "child: {} leader: {}", state(child), state(leader));
}

#[tokio::test]
async fn stderr_written_while_the_bot_exits_is_kept() {
    // The bot writes its last words only once its stdin is closed by shutdown.
    let bot = start(&sh("read -r line; echo 'last words' >&2; exit 0")).await;
    let before = bot.stderr();
    assert_eq!(before.total_bytes, 0);
    let (report, stderr) = bot.shutdown_with_stderr(Duration::from_secs(2)).await;
    assert_eq!(report.code, Some(0));
    assert_eq!(stderr.text(), "last words\n");
}
