//! The sandbox through the library's API (`SpawnOptions::sandbox`, `SandboxSupport`), as the
//! server uses it: a build's profile (writable folder copied back, the kernel's task limit),
//! a game's extra read-only paths, and the probe of what this machine gives. The attacks
//! themselves are in `tests/e2e/sandbox.rs`.

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use bao_supervise::{
    BotProcess, BotSpec, Isolation, IsolationLevel, ResourceLimits, SandboxFeature, SandboxProfile,
    SandboxSupport, SpawnOptions, StubChoice,
};
use tokio::time::Instant;

/// The dedicated stub executable.
const STUB: &str = env!("CARGO_BIN_EXE_bao-exec-stub");

/// Whether the sandbox can be set up here (a skip says why; a failure under
/// `BAO_REQUIRE_ALL=1`).
fn sandbox_available(test: &str) -> bool {
    let probe = std::process::Command::new(STUB)
        .args(["__exec-bot", "--isolation", "full", "--no-network", "--probe"])
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    if probe.status.success() {
        return true;
    }
    let why = format!("{test}: skipped: no sandbox here: {}", String::from_utf8_lossy(&probe.stderr).trim());
    assert!(std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"), "{why} (BAO_REQUIRE_ALL=1)");
    eprintln!("{why}");
    false
}

fn options(sandbox: SandboxProfile) -> SpawnOptions {
    SpawnOptions {
        stub: StubChoice::Path(STUB.into()),
        isolation: Isolation { level: IsolationLevel::Full, no_network: true },
        sandbox,
        ..SpawnOptions::default()
    }
}

fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

fn sh(script: &str, dir: &std::path::Path) -> BotSpec {
    BotSpec {
        name: None,
        program: "/bin/sh".into(),
        args: vec!["-c".into(), script.into()],
        dir: Some(dir.to_path_buf()),
    }
}

/// Runs `spec` to its end; its stdout lines.
async fn lines_of(spec: &BotSpec, profile: SandboxProfile) -> Vec<String> {
    let mut bot = BotProcess::spawn_with(spec, &ResourceLimits::default(), &options(profile)).await.unwrap();
    let mut lines = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while let Ok(line) = bot.recv_line(deadline).await {
        lines.push(line);
    }
    let report = bot.shutdown(Duration::from_secs(1)).await;
    assert!(bao_supervise::wait_for_cleanups(Duration::from_secs(5)));
    assert_eq!(report.code, Some(0), "{lines:?} {report:?}");
    lines
}

/// A build's profile: the folder is written (and copied back), the task limit is the
/// kernel's: of 100 background processes at most `max_tasks` start.
#[tokio::test]
async fn a_build_profile_writes_its_folder_within_its_task_limit() {
    if !sandbox_available("a_build_profile_writes_its_folder_within_its_task_limit") {
        return;
    }
    let dir = folder();
    let code = "import os, signal\nopen('out', 'w').write('built\\n')\nn = 0\nfor i in range(100):\n    \
                try: pid = os.fork()\n    except OSError: break\n    \
                if pid == 0: os.execv('/bin/sleep', ['sleep', '5'])\n    n += 1\n\
                print('started', len([p for p in os.listdir('/proc') if p.isdigit() and p != '1']), flush=True)\n\
                os.kill(-1, signal.SIGKILL)\n";
    let spec = BotSpec {
        name: None,
        program: "/usr/bin/python3".into(),
        args: vec!["-c".into(), code.into()],
        dir: Some(dir.path().to_path_buf()),
    };
    let lines = lines_of(&spec, SandboxProfile::build(16, 30)).await;
    assert_eq!(std::fs::read_to_string(dir.path().join("out")).unwrap(), "built\n", "copied back");
    let started: usize = lines
        .iter()
        .find_map(|l| l.strip_prefix("started "))
        .unwrap_or_else(|| panic!("{lines:?}"))
        .trim()
        .parse()
        .unwrap();
    // The sandbox's init (pid 1) is not the program's and is not counted.
    assert!(started <= 30 && started > 5, "{started} processes in the sandbox under a limit of 30 tasks");
}

/// A game's profile shows the extra read-only paths it lists, and no other host folder.
#[tokio::test]
async fn a_game_profile_shows_its_read_only_paths_and_nothing_else() {
    if !sandbox_available("a_game_profile_shows_its_read_only_paths_and_nothing_else") {
        return;
    }
    let (dir, shown, hidden) = (folder(), folder(), folder());
    std::fs::write(shown.path().join("data"), "SHOWN").unwrap();
    std::fs::write(hidden.path().join("data"), "HIDDEN").unwrap();
    for file in [shown.path().join("data"), hidden.path().join("data")] {
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let script = format!(
        "cat {}/data; echo; cat {}/data 2>/dev/null || echo missing; touch {}/x 2>/dev/null || echo read-only",
        shown.path().display(),
        hidden.path().display(),
        shown.path().display()
    );
    let profile =
        SandboxProfile { read_only_paths: vec![shown.path().to_path_buf()], ..SandboxProfile::default() };
    let lines = lines_of(&sh(&script, dir.path()), profile).await;
    assert_eq!(lines, ["SHOWN", "missing", "read-only"]);
    assert!(!shown.path().join("x").exists());
}

/// The probe names every feature, says what this machine lacks, and agrees with its list.
#[test]
fn the_probe_says_what_this_machine_gives() {
    if !sandbox_available("the_probe_says_what_this_machine_gives") {
        return;
    }
    let support = SandboxSupport::probe_with(&StubChoice::Path(STUB.into()));
    let names: Vec<SandboxFeature> = support.features.iter().map(|f| f.feature).collect();
    assert_eq!(names, SandboxFeature::ALL);
    let shown = support.to_string();
    for feature in SandboxFeature::ALL {
        assert!(shown.contains(&format!("{feature}: ")), "{shown}");
    }
    assert!(support.features[0].available, "the sandbox was set up: {shown}");
    assert!(!support.missing().contains(&SandboxFeature::Seccomp), "{shown}");
    assert_eq!(support.is_complete(), support.missing().is_empty());
    let abi = support.landlock_abi;
    assert_eq!(support.missing().contains(&SandboxFeature::Landlock), abi.is_none(), "{shown}");
    // Without a stub nothing is set up, and it says so.
    let none = SandboxSupport::probe_with(&StubChoice::Never);
    assert!(none.missing().contains(&SandboxFeature::Namespaces), "{none}");
    assert!(none.to_string().contains("namespaces: MISSING (no re-exec stub"), "{none}");
}

/// The sandbox is never replaced by less: without the stub that sets it up, a start is an
/// error naming why, not a bot run beside the caller.
#[tokio::test]
async fn without_a_stub_the_sandbox_is_an_error_not_less() {
    let dir = folder();
    let options = SpawnOptions { stub: StubChoice::Never, ..options(SandboxProfile::default()) };
    let started = BotProcess::spawn_with(&sh("true", dir.path()), &ResourceLimits::default(), &options).await;
    let error = started.expect_err("no sandbox, no start");
    assert!(
        error.to_string().contains("cannot be isolated") && error.to_string().contains("re-exec stub"),
        "{error}"
    );
}
