//! Running a build command in the sandbox ([`crate::sandbox`]): `sh -c` in the
//! version's own folder under the build profile of `arena.toml` (memory, CPU
//! time, processes, disk, no network, nothing of the arena), with a clean
//! environment (which names the CPU architecture the build is for, `BAO_BUILD_ARCH`), a
//! wall-clock timeout, and a bounded capture of its output
//! (stdout and stderr together, the head and the tail kept). Every process of
//! the build is gone when it ends, `setsid` daemons included: they live in the
//! sandbox's PID namespace (and cgroup, where there is one), which ends with it.

use std::path::Path;
use std::time::{Duration, Instant};

use bao_supervise::{BotFault, BotProcess, BotSpec};

use crate::sandbox::Profile;

/// How long a build's processes get to end after it finished or was stopped.
const END_GRACE: Duration = Duration::from_millis(200);
/// How often the runner looks whether the build has ended.
const POLL: Duration = Duration::from_millis(20);

/// How a build ended.
#[derive(Debug, Clone)]
pub struct BuildOutcome {
    /// Whether the command exited with status 0 in time.
    pub success: bool,
    /// Its output (stdout and stderr, interleaved as they came, bounded), with a
    /// last line saying how it ended.
    pub log: String,
    /// How long it took.
    pub elapsed: Duration,
    /// Whether the build could not be started at all: a failure of the server's
    /// making (no descriptors, no stub), not of the submission.
    pub not_started: bool,
}

/// The environment variable that names the CPU architecture a build is for (`x86_64`,
/// `aarch64`...: the server's machine, or the worker's architecture): a build may read it.
pub const BUILD_ARCH_ENV: &str = "BAO_BUILD_ARCH";

/// The shell script that runs `command`: its stdout joins its stderr (one
/// capture, in order), and it runs with an environment of its own, not the
/// server's (`$0` of the outer shell is the command, so no quoting is needed).
fn wrapper(path: &str, arch: &str) -> String {
    format!(
        "exec 1>&2; exec /usr/bin/env -i PATH='{}' HOME=\"$PWD\" LANG=C.UTF-8 TMPDIR=\"$TMPDIR\" \
         {BUILD_ARCH_ENV}='{}' /bin/sh -c \"$0\"",
        path.replace('\'', ""),
        arch.replace('\'', "")
    )
}

/// Runs `command` through `sh -c` in `dir` under `profile` (its `PATH` too), for the CPU
/// architecture `arch` (in its environment as [`BUILD_ARCH_ENV`]), stopping it after
/// `timeout`.
pub async fn run_build(
    command: &str,
    dir: &Path,
    profile: &Profile,
    arch: &str,
    timeout: Duration,
) -> BuildOutcome {
    let start = Instant::now();
    let header = format!("$ {command}\n");
    let spec = BotSpec {
        name: Some("build".into()),
        program: "/bin/sh".into(),
        args: vec!["-c".into(), wrapper(&profile.path, arch), command.into()],
        dir: Some(dir.to_path_buf()),
    };
    let mut process = match BotProcess::spawn_with(&spec, &profile.limits, &profile.options).await {
        Ok(p) => p,
        Err(e) => {
            return BuildOutcome {
                success: false,
                log: format!("{header}the server could not start the build: {e}\n"),
                elapsed: start.elapsed(),
                not_started: true,
            };
        }
    };
    let deadline = tokio::time::Instant::now() + timeout;
    let ending = loop {
        // Nothing reaches stdout (the wrapper sends it to stderr): its end comes
        // at once, and the build's exit (or broken limit) after it.
        let fault = match process.recv_line(deadline).await {
            Ok(_) | Err(BotFault::StdoutClosed) if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(POLL).await;
                continue;
            }
            Ok(_) | Err(BotFault::StdoutClosed) => BotFault::Timeout,
            Err(fault) => fault,
        };
        match fault {
            BotFault::Timeout => {
                break Some(format!("the build took longer than {} s and was stopped", timeout.as_secs()));
            }
            BotFault::Exited(report) if report.success() => break None,
            BotFault::Exited(report) => break Some(format!("the build failed: {report}")),
            BotFault::MemoryLimit => {
                break Some(format!(
                    "the build used more than {} MiB of memory and was stopped",
                    profile.limits.max_memory_bytes.unwrap_or(0) >> 20
                ));
            }
            BotFault::CpuLimit => {
                break Some(format!(
                    "the build used more than {} s of CPU time and was stopped",
                    profile.limits.max_cpu_secs.unwrap_or(0)
                ));
            }
            BotFault::ProcessLimit => {
                break Some(format!(
                    "the build ran more than {} processes at once and was stopped",
                    profile.limits.max_processes.unwrap_or(0)
                ));
            }
            other => break Some(format!("the build was stopped: {other}")),
        }
    };
    let (_, output) = process.shutdown_with_stderr(END_GRACE).await;
    let mut log = header;
    log.push_str(&output.text());
    if !log.ends_with('\n') {
        log.push('\n');
    }
    let success = ending.is_none();
    log.push_str(&ending.unwrap_or_else(|| "the build succeeded".into()));
    log.push('\n');
    BuildOutcome { success, log, elapsed: start.elapsed(), not_started: false }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The build profile without the sandbox (which needs the re-exec stub that a
    /// test harness does not host; the e2e tests run builds in it): the runner's own
    /// logic, its output, timeout and environment.
    fn profile() -> Profile {
        let mut config = crate::config::ArenaConfig::default_config();
        config.limits.build_log_bytes = 1000;
        let mut profile = Profile::build(&config);
        profile.options.isolation = bao_supervise::Isolation::NONE;
        profile.options.stub = bao_supervise::StubChoice::Never;
        profile
    }

    #[tokio::test]
    async fn a_build_the_sandbox_cannot_start_is_the_servers_failure() {
        let d = tempfile::tempdir().expect("tempdir");
        let mut sandboxed = Profile::build(&crate::config::ArenaConfig::default_config());
        sandboxed.options.stub = bao_supervise::StubChoice::Never;
        let r = run_build("touch made", d.path(), &sandboxed, "x86_64", Duration::from_secs(20)).await;
        assert!(r.not_started && !r.success, "{}", r.log);
        assert!(r.log.contains("could not start the build"), "{}", r.log);
        assert!(!d.path().join("made").exists(), "nothing ran outside the sandbox");
    }

    #[tokio::test]
    async fn success_and_failure_with_output() {
        let d = tempfile::tempdir().expect("tempdir");
        let ok = run_build(
            "echo hello; echo oops >&2; touch made",
            d.path(),
            &profile(),
            "x86_64",
            Duration::from_secs(20),
        )
        .await;
        assert!(ok.success, "{}", ok.log);
        assert!(ok.log.contains("hello") && ok.log.contains("oops"), "{}", ok.log);
        assert!(d.path().join("made").exists(), "runs in its own directory");
        let bad =
            run_build("echo broken; exit 3", d.path(), &profile(), "x86_64", Duration::from_secs(20)).await;
        assert!(!bad.success);
        assert!(bad.log.contains("broken") && bad.log.contains("exit code 3"), "{}", bad.log);
    }

    #[tokio::test]
    async fn the_environment_is_the_builds_own() {
        let d = tempfile::tempdir().expect("tempdir");
        let r =
            run_build("env | sort > env.txt", d.path(), &profile(), "x86_64", Duration::from_secs(20)).await;
        assert!(r.success, "{}", r.log);
        let env = std::fs::read_to_string(d.path().join("env.txt")).expect("env.txt");
        let names: Vec<&str> = env.lines().filter_map(|l| l.split('=').next()).collect();
        for name in &names {
            assert!(
                ["BAO_BUILD_ARCH", "HOME", "LANG", "PATH", "PWD", "SHLVL", "TMPDIR", "_"].contains(name),
                "{name} in\n{env}"
            );
        }
        assert!(names.contains(&"TMPDIR") && names.contains(&"PATH"), "{env}");
        assert!(env.lines().any(|l| l == "BAO_BUILD_ARCH=x86_64"), "the architecture it builds for: {env}");
    }

    #[tokio::test]
    async fn timeout_stops_the_build() {
        let d = tempfile::tempdir().expect("tempdir");
        let started = Instant::now();
        let r = run_build("sleep 30 & sleep 30", d.path(), &profile(), "x86_64", Duration::from_millis(300))
            .await;
        assert!(!r.success);
        assert!(r.log.contains("longer than"), "{}", r.log);
        assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    }

    #[tokio::test]
    async fn output_is_bounded() {
        let d = tempfile::tempdir().expect("tempdir");
        let r = run_build(
            "head -c 100000 /dev/zero | tr '\\0' x",
            d.path(),
            &profile(),
            "x86_64",
            Duration::from_secs(20),
        )
        .await;
        assert!(r.success, "{}", r.log);
        assert!(r.log.len() < 1300, "{}", r.log.len());
        assert!(r.log.contains("bytes of stderr not kept"), "{}", r.log);
    }
}
