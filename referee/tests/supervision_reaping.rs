//! What is left of a bot once its cleanup has finished, through the re-exec stub: nothing,
//! not even a zombie. Under a PID namespace the referee no longer walks `/proc` for the tree
//! (`bao_supervise::tree`'s `Containment::Namespace`): the namespace's init, the one process
//! it can adopt, must still be reaped.

use std::time::Duration;

use bao_supervise::{
    BotProcess, BotSpec, Isolation, IsolationLevel, ResourceLimits, SpawnOptions, StubChoice,
};
use tokio::time::Instant;

/// The dedicated stub executable.
const STUB: &str = env!("CARGO_BIN_EXE_bao-exec-stub");

/// Whether this machine lets the stub create the bot's namespaces; otherwise says that the
/// test is skipped and why (a failure under `BAO_REQUIRE_ALL=1`).
fn namespaces_available(test: &str) -> bool {
    let probe = std::process::Command::new(STUB)
        .args(["__exec-bot", "--isolation", "pid", "--probe"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("the stub runs");
    if probe.status.success() {
        return true;
    }
    skip(
        test,
        &format!("no user, PID and mount namespaces here: {}", String::from_utf8_lossy(&probe.stderr).trim()),
    );
    false
}

fn skip(test: &str, why: &str) {
    let why = format!("{test}: skipped: {why}");
    assert!(std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"), "{why} (BAO_REQUIRE_ALL=1)");
    eprintln!("{why}");
}

fn after(ms: u64) -> Instant {
    Instant::now() + Duration::from_millis(ms)
}

/// `(pid, state)` of every process whose process group is `group`, zombies included.
fn in_group(group: u32) -> Vec<(i32, char)> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()))
        .filter_map(|pid| {
            let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let fields: Vec<&str> = text.get(text.rfind(')')? + 1..)?.split_whitespace().collect();
            let state = fields.first()?.chars().next()?;
            (fields.get(2)?.parse::<u32>().ok()? == group).then_some((pid, state))
        })
        .collect()
}

/// Under `--isolation pid` with a cgroup: a bot that leaves a `setsid` daemon and a child
/// behind, ended by `shutdown`; once the cleanups have finished nothing of its process group
/// is left — the outer stub reaped by tokio, the namespace's init (re-parented to this
/// process when the outer stub exited) reaped by the cleanup — and its cgroup is gone.
#[tokio::test]
async fn under_a_pid_namespace_the_init_is_reaped_and_nothing_is_left() {
    let test = "under_a_pid_namespace_the_init_is_reaped_and_nothing_is_left";
    if !namespaces_available(test) {
        return;
    }
    let options = SpawnOptions {
        isolation: Isolation { level: IsolationLevel::Pid, no_network: false },
        stub: StubChoice::Path(STUB.into()),
        ..SpawnOptions::default()
    };
    let script = "setsid sh -c 'trap \"\" TERM; exec sleep 60' & sleep 60 & echo started; exec cat";
    let spec =
        BotSpec { name: None, program: "sh".into(), args: vec!["-c".into(), script.into()], dir: None };
    for round in 0..3 {
        let mut bot =
            BotProcess::spawn_with(&spec, &ResourceLimits::default(), &options).await.expect("starts");
        let Some(cgroup) = bot.supervision().cgroup.clone() else {
            skip(test, "no cgroup v2 can be made here");
            let _ = bot.shutdown(Duration::from_millis(100)).await;
            return;
        };
        assert!(
            bot.supervision().stub && bot.supervision().isolation.pid_namespace(),
            "{}",
            bot.supervision()
        );
        assert_eq!(bot.recv_line(after(5000)).await.expect("a line"), "started");
        let group = bot.pid();
        assert!(in_group(group).len() >= 2, "the outer stub and the init: {:?}", in_group(group));
        let _ = bot.shutdown(Duration::from_millis(100)).await;
        assert!(
            bao_supervise::wait_for_cleanups(Duration::from_secs(5)),
            "round {round}: the cleanups finish"
        );
        assert_eq!(in_group(group), Vec::new(), "round {round}: left of process group {group}");
        assert!(!cgroup.exists(), "round {round}: {} is removed", cgroup.display());
    }
}
