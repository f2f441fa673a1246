//! Running a build command: through `sh -c` in the version's own directory,
//! in its own process group, with no network (a new network namespace through
//! `unshare --net` when the server runs as root), address-space and CPU limits
//! (`prlimit`), a wall-clock timeout that kills the whole group, and a bounded
//! capture of its output.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;

/// Limits of one build.
#[derive(Debug, Clone, Copy)]
pub struct BuildLimits {
    /// Wall-clock time.
    pub timeout: Duration,
    /// Address space, in bytes.
    pub memory_bytes: u64,
    /// CPU time, in seconds.
    pub cpu_secs: u64,
    /// Bytes of output kept.
    pub output_bytes: usize,
}

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
}

/// Whether builds get their own network namespace (only root may create one
/// without a user namespace here).
#[must_use]
pub fn network_isolated() -> bool {
    nix::unistd::geteuid().is_root() && Path::new("/usr/bin/unshare").exists()
}

/// Runs `command` through `sh -c` in `dir` under `limits`.
pub async fn run_build(command: &str, dir: &Path, limits: BuildLimits) -> BuildOutcome {
    let start = Instant::now();
    let mut argv: Vec<String> = Vec::new();
    let isolated = network_isolated();
    if isolated {
        argv.extend(["unshare".into(), "--net".into(), "--".into()]);
    }
    argv.extend([
        "prlimit".into(),
        format!("--as={}", limits.memory_bytes),
        format!("--cpu={}", limits.cpu_secs),
        "--core=0".into(),
        "--".into(),
        "sh".into(),
        "-c".into(),
        command.into(),
    ]);
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", dir)
        .env("LANG", "C.UTF-8")
        .process_group(0)
        .kill_on_drop(true);
    let mut header = format!("$ {command}\n");
    if !isolated {
        header.push_str("(note: not running as root, so the build shares the server's network)\n");
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return BuildOutcome {
                success: false,
                log: format!("{header}cannot start the build: {e}\n"),
                elapsed: start.elapsed(),
            };
        }
    };
    let pgid = child.id().and_then(|p| i32::try_from(p).ok());
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Vec<u8>>(64);
    let readers = [
        child.stdout.take().map(|s| tokio::spawn(pump(s, tx.clone()))),
        child.stderr.take().map(|s| tokio::spawn(pump(s, tx.clone()))),
    ];
    drop(tx);
    let mut out = Bounded::new(limits.output_bytes);
    let collect = async {
        while let Some(chunk) = rx.recv().await {
            out.push(&chunk);
        }
    };
    let waited = tokio::time::timeout(limits.timeout, async {
        collect.await;
        child.wait().await
    })
    .await;
    let ending = match waited {
        Ok(Ok(status)) if status.success() => None,
        Ok(Ok(status)) => Some(format!("the build failed: {status}")),
        Ok(Err(e)) => Some(format!("cannot wait for the build: {e}")),
        Err(_) => Some(format!("the build took longer than {} s and was killed", limits.timeout.as_secs())),
    };
    if let Some(pgid) = pgid {
        // The whole group, in case the build left processes behind.
        let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pgid), nix::sys::signal::Signal::SIGKILL);
    }
    let _ = child.wait().await;
    for r in readers.into_iter().flatten() {
        r.abort();
    }
    let mut log = header;
    log.push_str(&out.into_string());
    let success = ending.is_none();
    log.push_str(&ending.unwrap_or_else(|| "the build succeeded".into()));
    log.push('\n');
    BuildOutcome { success, log, elapsed: start.elapsed() }
}

async fn pump(mut r: impl AsyncRead + Unpin, tx: tokio::sync::mpsc::Sender<Vec<u8>>) {
    let mut buf = vec![0u8; 8192];
    loop {
        match r.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if tx.send(buf[..n].to_vec()).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// Output kept up to a bound; the rest is counted and dropped.
pub struct Bounded {
    kept: Vec<u8>,
    cap: usize,
    dropped: usize,
}

impl Bounded {
    /// Keeps at most `cap` bytes.
    #[must_use]
    pub fn new(cap: usize) -> Bounded {
        Bounded { kept: Vec::new(), cap, dropped: 0 }
    }

    /// Adds bytes.
    pub fn push(&mut self, bytes: &[u8]) {
        let room = self.cap.saturating_sub(self.kept.len());
        let take = room.min(bytes.len());
        self.kept.extend_from_slice(&bytes[..take]);
        self.dropped += bytes.len() - take;
    }

    /// The text kept (invalid UTF-8 replaced), with a note of what was dropped.
    #[must_use]
    pub fn into_string(self) -> String {
        let mut s = String::from_utf8_lossy(&self.kept).into_owned();
        if !s.is_empty() && !s.ends_with('\n') {
            s.push('\n');
        }
        if self.dropped > 0 {
            s.push_str(&format!("[... {} more bytes of output not kept]\n", self.dropped));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: BuildLimits = BuildLimits {
        timeout: Duration::from_secs(20),
        memory_bytes: 1 << 30,
        cpu_secs: 20,
        output_bytes: 1000,
    };

    #[tokio::test]
    async fn success_and_failure_with_output() {
        let d = tempfile::tempdir().expect("tempdir");
        let ok = run_build("echo hello; echo oops >&2; touch made", d.path(), LIMITS).await;
        assert!(ok.success, "{}", ok.log);
        assert!(ok.log.contains("hello") && ok.log.contains("oops"), "{}", ok.log);
        assert!(d.path().join("made").exists(), "runs in its own directory");
        let bad = run_build("echo broken; exit 3", d.path(), LIMITS).await;
        assert!(!bad.success);
        assert!(bad.log.contains("broken") && bad.log.contains("exit status: 3"), "{}", bad.log);
    }

    #[tokio::test]
    async fn timeout_kills_the_build() {
        let d = tempfile::tempdir().expect("tempdir");
        let limits = BuildLimits { timeout: Duration::from_millis(300), ..LIMITS };
        let r = run_build("sleep 30 & sleep 30", d.path(), limits).await;
        assert!(!r.success);
        assert!(r.log.contains("longer than"), "{}", r.log);
    }

    #[tokio::test]
    async fn output_is_bounded() {
        let d = tempfile::tempdir().expect("tempdir");
        let r = run_build("head -c 100000 /dev/zero | tr '\\0' x", d.path(), LIMITS).await;
        assert!(r.success, "{}", r.log);
        assert!(r.log.len() < 1300, "{}", r.log.len());
        assert!(r.log.contains("more bytes of output not kept"), "{}", r.log);
    }

    #[tokio::test]
    async fn no_network_when_root() {
        if !network_isolated() {
            assert!(
                std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"),
                "BAO_REQUIRE_ALL=1: builds need root (for unshare --net) to be tested without network"
            );
            eprintln!("skipped: not root, builds cannot get their own network namespace here");
            return;
        }
        let d = tempfile::tempdir().expect("tempdir");
        let r = run_build("cat /proc/net/dev | grep -c ':'", d.path(), LIMITS).await;
        assert!(r.success, "{}", r.log);
        assert!(r.log.lines().any(|l| l.trim() == "1"), "only the loopback interface: {}", r.log);
    }
}
