//! Bot supervision through the re-exec stub (`bao-referee __exec-bot`, and the dedicated
//! `bao-exec-stub`): rlimits, the cgroup, limit verdicts, namespaces, exit reporting, and the
//! parent-death signal.

use std::time::Duration;

use bao_supervise::{
    BotFault, BotProcess, BotSpec, EndedBy, Isolation, IsolationLevel, ResourceLimits, SpawnOptions,
    StubChoice,
};
use tokio::time::Instant;

const REFEREE: &str = env!("CARGO_BIN_EXE_bao-referee");
/// The dedicated stub executable.
const STUB: &str = env!("CARGO_BIN_EXE_bao-exec-stub");

fn sh(script: &str) -> BotSpec {
    BotSpec { name: None, program: "sh".into(), args: vec!["-c".into(), script.into()], dir: None }
}

fn python(code: &str) -> BotSpec {
    BotSpec { name: None, program: "python3".into(), args: vec!["-c".into(), code.into()], dir: None }
}

/// Writes an executable script from a `sh` child: a file this process opened for writing could
/// be inherited by a child another test forks at that moment, and running the script would
/// then fail with "Text file busy".
fn write_executable(path: &std::path::Path, text: &str) {
    use std::io::Write;
    let mut child = std::process::Command::new("sh")
        .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
        .arg(path)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("sh starts");
    child.stdin.take().expect("a piped stdin").write_all(text.as_bytes()).expect("the script is written");
    assert!(child.wait().expect("sh ends").success(), "cannot write {}", path.display());
}

fn with_stub() -> SpawnOptions {
    SpawnOptions { stub: StubChoice::Path(REFEREE.into()), ..SpawnOptions::default() }
}

/// Whether this machine lets the stub create the bot's namespaces; otherwise says that the
/// test is skipped and why (a failure under `BAO_REQUIRE_ALL=1`).
fn namespaces_available(test: &str) -> bool {
    let probe = std::process::Command::new(REFEREE)
        .args(["__exec-bot", "--isolation", "pid", "--probe"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    if probe.status.success() {
        return true;
    }
    let why = format!(
        "{test}: skipped: no user, PID and mount namespaces here: {}",
        String::from_utf8_lossy(&probe.stderr).trim()
    );
    assert!(std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"), "{why} (BAO_REQUIRE_ALL=1)");
    eprintln!("{why}");
    false
}

fn after(ms: u64) -> Instant {
    Instant::now() + Duration::from_millis(ms)
}

async fn start(spec: &BotSpec, limits: &ResourceLimits, options: &SpawnOptions) -> BotProcess {
    BotProcess::spawn_with(spec, limits, options).await.expect("the bot starts")
}

#[tokio::test]
async fn the_stub_sets_the_rlimits_then_runs_the_bot() {
    let limits = ResourceLimits {
        max_memory_bytes: Some(100_000_000),
        max_cpu_secs: Some(5),
        ..ResourceLimits::default()
    };
    let code =
        "import resource as r\nfor x in (r.RLIMIT_DATA, r.RLIMIT_CPU, r.RLIMIT_CORE): print(*r.getrlimit(x))";
    let mut bot = start(&python(code), &limits, &with_stub()).await;
    assert!(bot.supervision().stub);
    let data = bot.recv_line(after(5000)).await.unwrap();
    if bot.supervision().kernel_memory_limit {
        assert_eq!(data, "-1 -1", "no RLIMIT_DATA when memory.max enforces the limit");
    } else {
        assert_eq!(data, "200000000 200000000", "RLIMIT_DATA backstop at twice the limit");
    }
    assert_eq!(bot.recv_line(after(5000)).await.unwrap(), "6 7", "RLIMIT_CPU a second after the limit");
    assert_eq!(bot.recv_line(after(5000)).await.unwrap(), "0 0");
    let report = bot.shutdown(Duration::from_secs(2)).await;
    assert_eq!(report.code, Some(0));
}

#[tokio::test]
async fn the_bot_runs_in_its_own_cgroup_which_is_removed_afterwards() {
    let mut bot =
        start(&sh("cat /proc/self/cgroup; exec cat"), &ResourceLimits::default(), &with_stub()).await;
    let Some(cgroup) = bot.supervision().cgroup.clone() else {
        eprintln!("no cgroup v2 available here: {}", bot.supervision());
        bot.shutdown(Duration::from_millis(100)).await;
        return;
    };
    let own = loop {
        let line = bot.recv_line(after(5000)).await.unwrap();
        if let Some(path) = line.strip_prefix("0::") {
            break path.to_owned();
        }
    };
    let name = cgroup.file_name().unwrap().to_str().unwrap();
    assert!(own.ends_with(&format!("/{name}")), "bot in {own}, expected {}", cgroup.display());
    assert!(cgroup.is_dir());
    let report = bot.shutdown(Duration::from_secs(2)).await;
    assert_eq!(report.code, Some(0)); // `cat` ends when stdin closes
    // Removed in the background, once the tree (the namespace's init included) is gone.
    assert!(bao_supervise::wait_for_cleanups(Duration::from_secs(5)), "the cleanups finish");
    assert!(!cgroup.exists(), "{} left behind", cgroup.display());
}

/// The bit set of a `/proc/PID/status` line such as `SigIgn:\t0000000000001000`.
fn signal_set(line: &str, name: &str) -> u64 {
    let value =
        line.strip_prefix(name).and_then(|v| v.strip_prefix(":\t")).unwrap_or_else(|| panic!("{line}"));
    u64::from_str_radix(value, 16).unwrap()
}

/// A bot starts with default signal dispositions and no blocked signals, stub or not (Rust
/// programs, like the stub, start with SIGPIPE ignored, and `exec` keeps ignored signals).
#[tokio::test]
async fn the_bot_starts_with_a_clean_signal_state() {
    if !namespaces_available("the_bot_starts_with_a_clean_signal_state") {
        return;
    }
    let limits = ResourceLimits { max_cpu_secs: Some(10), ..ResourceLimits::default() };
    for options in [with_stub(), SpawnOptions { stub: StubChoice::Never, ..SpawnOptions::default() }] {
        let pid_namespace = SpawnOptions {
            isolation: Isolation { level: IsolationLevel::Pid, no_network: false },
            ..options.clone()
        };
        for options in [options, pid_namespace] {
            let mut bot =
                start(&sh("exec grep -E '^Sig(Ign|Blk)' /proc/self/status"), &limits, &options).await;
            assert_eq!(signal_set(&bot.recv_line(after(5000)).await.unwrap(), "SigBlk"), 0, "{options:?}");
            // Standard signals only: glibc's internal real-time signals (32, 33) may be ignored
            // by whoever started the tests, and neither std nor the stub can reset those.
            let ignored = signal_set(&bot.recv_line(after(5000)).await.unwrap(), "SigIgn");
            assert_eq!(ignored & 0x7fff_ffff, 0, "{options:?}");
            bot.shutdown(Duration::from_millis(100)).await;
        }
    }
}

#[tokio::test]
async fn exit_codes_and_signals_pass_through_the_stub() {
    let limits = ResourceLimits { max_cpu_secs: Some(10), ..ResourceLimits::default() };
    let mut bot = start(&sh("echo hi; exit 3"), &limits, &with_stub()).await;
    assert_eq!(bot.recv_line(after(5000)).await.unwrap(), "hi");
    let fault = bot.recv_line(after(5000)).await.unwrap_err();
    assert_eq!(fault.to_string(), "the bot ended: exit code 3");
    bot.shutdown(Duration::from_millis(100)).await;

    let mut bot = start(&sh("kill -9 $$"), &limits, &with_stub()).await;
    let fault = bot.recv_line(after(5000)).await.unwrap_err();
    assert_eq!(fault.to_string(), "the bot ended: killed by signal 9 (SIGKILL)");
    bot.shutdown(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn an_argument_with_a_nul_byte_is_a_spawn_error() {
    let spec =
        BotSpec { name: None, program: "sh".into(), args: vec!["-c".into(), "echo a\0b".into()], dir: None };
    let error = BotProcess::spawn_with(&spec, &ResourceLimits::default(), &with_stub())
        .await
        .expect_err("a NUL byte cannot reach the bot");
    assert!(error.to_string().contains("nul byte"), "{error}");
}

#[tokio::test]
async fn an_unrunnable_program_is_reported_by_the_stub() {
    let path = std::env::temp_dir().join(format!("bao-bad-exe-{}", std::process::id()));
    write_executable(&path, "#!/no/such/interpreter\n");
    let spec = BotSpec { name: None, program: path.to_string_lossy().into_owned(), args: vec![], dir: None };
    let limits = ResourceLimits { max_cpu_secs: Some(10), ..ResourceLimits::default() };
    let mut bot = start(&spec, &limits, &with_stub()).await;
    let fault = bot.recv_line(after(5000)).await.unwrap_err();
    assert!(matches!(&fault, BotFault::Exited(r) if r.code == Some(127)), "{fault:?}");
    let stderr = bot.stderr().text();
    assert!(stderr.contains("cannot execute"), "{stderr}");
    let report = bot.shutdown(Duration::from_millis(100)).await;
    assert_eq!(report.code, Some(127));
    std::fs::remove_file(&path).unwrap();
}

#[tokio::test]
async fn cpu_time_beyond_the_limit_is_a_cpu_limit_verdict() {
    let limits = ResourceLimits { max_cpu_secs: Some(1), ..ResourceLimits::default() };
    let mut bot = start(&python("while True: pass"), &limits, &with_stub()).await;
    assert_eq!(bot.recv_line(after(10_000)).await, Err(BotFault::CpuLimit));
    let used = bot.cpu_time().unwrap();
    assert!(used >= Duration::from_secs(1) && used < Duration::from_millis(1300), "{used:?}");
    let report = bot.shutdown(Duration::from_millis(100)).await;
    assert_eq!((report.signal, report.ended_by), (Some(9), EndedBy::Kill), "{report}");
}

#[tokio::test]
async fn growing_memory_beyond_the_limit_is_a_memory_limit_verdict() {
    let limits = ResourceLimits { max_memory_bytes: Some(60_000_000), ..ResourceLimits::default() };
    let code =
        "import time\nheld = []\nwhile True:\n    held.append(bytearray(5_000_000))\n    time.sleep(0.01)";
    let mut bot = start(&python(code), &limits, &with_stub()).await;
    assert_eq!(bot.recv_line(after(5000)).await, Err(BotFault::MemoryLimit));
    let report = bot.shutdown(Duration::from_millis(100)).await;
    assert_eq!(report.signal, Some(9));
}

#[tokio::test]
async fn one_huge_allocation_fails_inside_the_bot_under_the_rlimit_backstop() {
    let limits = ResourceLimits { max_memory_bytes: Some(50_000_000), ..ResourceLimits::default() };
    let mut bot =
        start(&python("x = bytearray(1_000_000_000)\nprint('allocated')"), &limits, &with_stub()).await;
    if bot.supervision().kernel_memory_limit {
        // memory.max: the kernel's OOM killer ends it.
        assert_eq!(bot.recv_line(after(5000)).await, Err(BotFault::MemoryLimit));
    } else {
        // RLIMIT_DATA (twice the limit): the allocation fails, Python exits with MemoryError.
        let fault = bot.recv_line(after(5000)).await.unwrap_err();
        assert!(matches!(&fault, BotFault::Exited(r) if r.code == Some(1)), "{fault:?}");
        assert!(bot.stderr().text().contains("MemoryError"), "{}", bot.stderr().text());
    }
    bot.shutdown(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn no_network_leaves_only_a_loopback_interface() {
    if !namespaces_available("no_network_leaves_only_a_loopback_interface") {
        return;
    }
    let options =
        SpawnOptions { isolation: Isolation { level: IsolationLevel::Pid, no_network: true }, ..with_stub() };
    let code = "print(' '.join(sorted(l.split(':')[0].strip() for l in open('/proc/self/net/dev').readlines()[2:])))";
    let mut bot = start(&python(code), &ResourceLimits::default(), &options).await;
    assert_eq!(bot.recv_line(after(5000)).await.unwrap(), "lo", "stderr: {}", bot.stderr().text());
    bot.shutdown(Duration::from_millis(100)).await;
}

/// Processes whose command line contains `tag` (seen from the host's `/proc`).
fn processes_with(tag: &str) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()))
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(tag))
        })
        .collect()
}

/// In a PID namespace: the bot is the only process there beside the stub's init, sees only its own
/// processes in its `/proc`, and a `setsid` daemon it leaves behind dies with it.
#[tokio::test]
async fn a_pid_namespace_takes_every_process_down_with_the_bot() {
    if !namespaces_available("a_pid_namespace_takes_every_process_down_with_the_bot") {
        return;
    }
    for stub in [REFEREE, STUB] {
        let options = SpawnOptions {
            isolation: Isolation { level: IsolationLevel::Pid, no_network: false },
            stub: StubChoice::Path(stub.into()),
            ..SpawnOptions::default()
        };
        a_pid_namespace_takes_every_process_down_with_the_bot_through(&options).await;
    }
}

async fn a_pid_namespace_takes_every_process_down_with_the_bot_through(options: &SpawnOptions) {
    let tag = format!("pidns-daemon-{}", std::process::id());
    let code = r#"
import os, signal, subprocess, sys, time
print(os.getpid(), flush=True)
print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()), flush=True)
subprocess.Popen(['setsid', 'sh', '-c', 'trap "" TERM; exec sleep 60 # ' + sys.argv[1]])
time.sleep(0.3)
print('daemon started', flush=True)
sys.stdin.read()
time.sleep(60)
"#;
    let spec = BotSpec {
        name: None,
        program: "python3".into(),
        args: vec!["-c".into(), code.into(), tag.clone()],
        dir: None,
    };
    let mut bot = start(&spec, &ResourceLimits::default(), options).await;
    let pid = bot.recv_line(after(5000)).await.unwrap();
    assert!(pid.parse::<u32>().is_ok_and(|p| p > 1), "the bot's pid: {pid}; stderr: {}", bot.stderr().text());
    assert_eq!(
        bot.recv_line(after(5000)).await.unwrap(),
        format!("[1, {pid}]"),
        "only the init and the bot are visible"
    );
    assert_eq!(bot.recv_line(after(5000)).await.unwrap(), "daemon started");
    assert!(!processes_with(&tag).is_empty(), "the daemon runs");
    let report = bot.shutdown(Duration::from_millis(200)).await;
    // The bot sleeps on after its stdin closed; SIGTERM ends it.
    assert_eq!((report.signal, report.ended_by), (Some(15), EndedBy::Terminate), "{report}");
    assert!(bao_supervise::wait_for_cleanups(Duration::from_secs(5)), "the cleanups finish");
    let left = processes_with(&tag);
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// The dedicated stub, under the default isolation, reports how the bot ended as the big
/// executable does: its exit code, or the signal that killed it; and it answers the
/// protocol question the referee asks before using it.
#[tokio::test]
async fn the_dedicated_stub_reports_exit_codes_and_signals() {
    if !namespaces_available("the_dedicated_stub_reports_exit_codes_and_signals") {
        return;
    }
    let answer = std::process::Command::new(STUB).args(["__exec-bot", "--stub-protocol"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&answer.stdout).trim(), bao_supervise::exec_stub::STUB_PROTOCOL);
    let options = SpawnOptions { stub: StubChoice::Path(STUB.into()), ..SpawnOptions::default() };
    for (script, code, signal) in
        [("read x; exit 3", Some(3), None), ("read x; kill -SEGV $$", None, Some(11))]
    {
        let mut bot = start(&sh(script), &ResourceLimits::default(), &options).await;
        assert_eq!(bot.supervision().isolation.level, IsolationLevel::Pid, "{}", bot.supervision());
        bot.send_line("go", after(5000)).await.unwrap();
        let report = bot.shutdown(Duration::from_secs(5)).await;
        assert_eq!(
            (report.code, report.signal, report.ended_by),
            (code, signal, EndedBy::Itself),
            "{report}"
        );
    }
    let bad = std::process::Command::new(STUB).args(["__exec-bot", "--isolation", "most"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(126));
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(stderr.contains("expected none, pid or full"), "{stderr}");
}

/// In a PID namespace the bot is not pid 1 (the stub's init is): SIGTERM reaches its handler.
#[tokio::test]
async fn in_a_pid_namespace_sigterm_reaches_the_bot_s_handler() {
    if !namespaces_available("in_a_pid_namespace_sigterm_reaches_the_bot_s_handler") {
        return;
    }
    let options = SpawnOptions {
        isolation: Isolation { level: IsolationLevel::Pid, no_network: false },
        ..with_stub()
    };
    let code = "import signal, sys, time\n\
                signal.signal(signal.SIGTERM, lambda *a: sys.exit(7))\n\
                print('ready', flush=True)\n\
                time.sleep(60)";
    let mut bot = start(&python(code), &ResourceLimits::default(), &options).await;
    assert_eq!(bot.recv_line(after(5000)).await.unwrap(), "ready");
    let (report, stderr) = bot.shutdown_with_stderr(Duration::from_millis(1000)).await;
    assert_eq!((report.code, report.ended_by), (Some(7), EndedBy::Terminate), "{report}: {}", stderr.text());
}

/// The stub asks for SIGKILL when its parent dies: a bot whose referee is killed goes too.
#[tokio::test]
async fn a_bot_dies_with_its_referee() {
    // The orphaned bot must become this process's child, to be reaped below (not init's).
    nix::sys::prctl::set_child_subreaper(true).unwrap();
    let code = format!(
        "import os, subprocess\n\
         p = subprocess.Popen([{REFEREE:?}, '__exec-bot', '--parent-pid', str(os.getpid()), '--', 'sleep', '30'])\n\
         print(p.pid, flush=True)\n\
         import time; time.sleep(0.3)\n\
         os._exit(0)"
    );
    let output = std::process::Command::new("python3").arg("-c").arg(code).output().unwrap();
    let pid: i32 = String::from_utf8(output.stdout).unwrap().trim().parse().unwrap();
    let end = std::time::Instant::now() + Duration::from_secs(3);
    let running = |pid: i32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|s| s.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z')))
    };
    while running(pid) && std::time::Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!running(pid), "the bot outlived its parent");
    let _ =
        nix::sys::wait::waitpid(nix::unistd::Pid::from_raw(pid), Some(nix::sys::wait::WaitPidFlag::WNOHANG));
}

#[tokio::test]
async fn a_missing_program_is_a_spawn_error_even_with_the_stub() {
    let spec = BotSpec { name: None, program: "no-such-bot-xyz".into(), args: vec![], dir: None };
    let limits = ResourceLimits { max_cpu_secs: Some(1), ..ResourceLimits::default() };
    let err = BotProcess::spawn_with(&spec, &limits, &with_stub()).await.unwrap_err();
    assert!(err.to_string().starts_with("bot program `no-such-bot-xyz` not found"), "{err}");
}

/// Under the default isolation the stub and the namespace's init are not the bot's processes:
/// `--max-processes 3` allows the bot and two children, and not a third.
#[tokio::test]
async fn the_process_limit_counts_only_the_bot_s_processes_in_a_pid_namespace() {
    if !namespaces_available("the_process_limit_counts_only_the_bot_s_processes_in_a_pid_namespace") {
        return;
    }
    let options = SpawnOptions { isolation: Isolation::default(), ..with_stub() };
    let limits = ResourceLimits { max_processes: Some(3), ..ResourceLimits::default() };
    let mut bot =
        start(&sh("sleep 30 & sleep 30 & echo two; read x; sleep 30 & wait"), &limits, &options).await;
    assert_eq!(bot.supervision().isolation.level, IsolationLevel::Pid, "{}", bot.supervision());
    assert_eq!(bot.recv_line(after(5000)).await.unwrap(), "two");
    // Several watchdog ticks with three processes: no verdict.
    assert_eq!(bot.recv_line(after(400)).await, Err(BotFault::Timeout));
    bot.send_line("go", after(1000)).await.unwrap();
    assert_eq!(bot.recv_line(after(5000)).await, Err(BotFault::ProcessLimit));
    bot.shutdown(Duration::from_millis(100)).await;
}

/// A bot that dies on an allocation before it says anything (issue 14): where the kernel
/// enforces the limit (cgroup v2 `memory.max`, or the v1 memory controller on a hybrid
/// hierarchy) its OOM kill is read back and the fault is `MemoryLimit`, not an exit.
#[tokio::test]
async fn an_allocation_at_startup_beyond_the_limit_is_a_memory_limit_with_a_cgroup() {
    let limits = ResourceLimits { max_memory_bytes: Some(20 << 20), ..ResourceLimits::default() };
    let code = "x = bytearray(50_000_000)\nfor i in range(0, len(x), 4096): x[i] = 1\nprint('allocated')";
    let mut bot = start(&python(code), &limits, &with_stub()).await;
    if !bot.supervision().kernel_memory_limit {
        let why = format!(
            "an_allocation_at_startup_beyond_the_limit_is_a_memory_limit_with_a_cgroup: skipped: no cgroup \
             memory controller here ({})",
            bot.supervision()
        );
        bot.shutdown(Duration::from_millis(100)).await;
        assert!(std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"), "{why} (BAO_REQUIRE_ALL=1)");
        eprintln!("{why}");
        return;
    }
    assert!(bot.supervision().cgroup.is_some(), "{}", bot.supervision());
    assert_eq!(bot.recv_line(after(10_000)).await, Err(BotFault::MemoryLimit));
    bot.shutdown(Duration::from_millis(100)).await;
}

/// `--isolation none --no-network`: only the network namespace, the bot keeps its pid.
#[tokio::test]
async fn no_network_without_isolation_only_removes_the_network() {
    if !namespaces_available("no_network_without_isolation_only_removes_the_network") {
        return;
    }
    let options = SpawnOptions {
        isolation: Isolation { level: IsolationLevel::None, no_network: true },
        ..with_stub()
    };
    let mut bot = start(&sh("echo $$; exec ip -o link"), &ResourceLimits::default(), &options).await;
    assert_eq!(bot.recv_line(after(5000)).await.unwrap(), bot.pid().to_string(), "{}", bot.stderr().text());
    let link = bot.recv_line(after(5000)).await.unwrap();
    assert!(link.contains("lo:"), "{link}");
    assert_eq!(bot.recv_line(after(2000)).await.map_err(|_| ()), Err(()), "only the loopback interface");
    bot.shutdown(Duration::from_millis(100)).await;
}
