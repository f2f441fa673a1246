//! The harness of the `bao-referee serve` tests: an arena made with `serve user add`, the
//! server started as `bao-referee serve --data DIR --listen 127.0.0.1:0`, and a small HTTP
//! client for its API.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{Scratch, bin};

/// An arena directory with one user (an administrator) and its token.
pub struct TestArena {
    dir: Scratch,
    /// The user's API token.
    pub token: String,
}

impl TestArena {
    /// Creates the arena with `bao-referee serve --data DIR user add NAME --admin`, then
    /// applies `edits` (text replacements) to the arena.toml written on first use.
    pub fn new(label: &str, user: &str, edits: &[(&str, &str)]) -> TestArena {
        let dir = Scratch::dir(label);
        let out = Command::new(bin("bao-referee"))
            .args(["serve", "--data"])
            .arg(dir.join("arena"))
            .args(["user", "add", user, "--admin"])
            .output()
            .expect("bao-referee serve user add runs");
        assert!(out.status.success(), "serve user add failed: {}", String::from_utf8_lossy(&out.stderr));
        let token = String::from_utf8(out.stdout).expect("utf8").trim().to_owned();
        assert_eq!(token.len(), 64, "serve user add prints a 64-character token: {token:?}");
        let arena = TestArena { dir, token };
        let toml = arena.data().join("arena.toml");
        let mut text = std::fs::read_to_string(&toml).expect("arena.toml is written on first use");
        // The sandbox of submissions sees the test binaries (read-only), and the arena
        // accepts the protections this machine is known to lack (docs/server.md).
        let binaries = bin("bao-referee").parent().expect("a folder").display().to_string();
        let shown = format!("read_only_paths = [{binaries:?}]");
        let mut gaps = String::from("process-limit");
        if !nix::unistd::geteuid().is_root() {
            gaps.push_str(",cgroup-v2,memory-limit");
        }
        let accepted = format!("unsafe_sandbox = {gaps:?}");
        let sandbox =
            [("read_only_paths = []", shown.as_str()), ("unsafe_sandbox = \"\"", accepted.as_str())];
        for (from, to) in sandbox.iter().chain(edits) {
            assert!(text.contains(from), "arena.toml has no {from:?}");
            text = text.replace(from, to);
        }
        std::fs::write(&toml, text).expect("write arena.toml");
        arena
    }

    /// The arena directory.
    pub fn data(&self) -> PathBuf {
        self.dir.join("arena")
    }

    /// A path beside the arena.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

/// Quick games and a quick gate, for tests.
pub const QUICK: &[(&str, &str)] = &[
    ("base_ms = 10000", "base_ms = 3000"),
    ("max_plies = 600", "max_plies = 200"),
    ("recompute_secs = 5", "recompute_secs = 1"),
];

/// `bao-referee serve` running on a free port.
pub struct Served {
    child: Option<Child>,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    log: PathBuf,
}

impl Served {
    /// Starts `bao-referee serve --data DIR --listen 127.0.0.1:0` and reads where it listens
    /// from its first line of output (its log goes to `serve.log` beside the arena).
    pub fn start(arena: &TestArena) -> Served {
        let log = arena.path("serve.log");
        let log_file = std::fs::File::create(&log).expect("server log");
        let mut child = Command::new(bin("bao-referee"))
            .args(["serve", "--data"])
            .arg(arena.data())
            .args(["--listen", "127.0.0.1:0"])
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log_file)
            .spawn()
            .expect("bao-referee serve starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let _ = tx.send(line);
            // Keep reading so that the server never blocks on a full pipe.
            let _ = std::io::copy(&mut reader, &mut std::io::sink());
        });
        let line = rx.recv_timeout(Duration::from_secs(60)).unwrap_or_default();
        let Some(url) = line.trim().strip_prefix("listening on ").map(str::to_owned) else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("serve did not say where it listens (got {line:?}); its log:\n{}", read(&log));
        };
        Served { child: Some(child), url, log }
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        read(&self.log)
    }

    /// Sends SIGTERM and waits (at most 60 s) for the exit status.
    pub fn terminate(mut self) -> ExitStatus {
        let mut child = self.child.take().expect("running");
        let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("pid"));
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("SIGTERM");
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = child.try_wait().expect("wait") {
                return status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("serve did not stop within 60 s of SIGTERM; its log:\n{}", read(&self.log));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `GET path` (with the token if given); the status and the body parsed as JSON.
    pub fn get_json(&self, path: &str, token: Option<&str>) -> (u16, Value) {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        let mut request = agent.get(format!("{}{path}", self.url));
        if let Some(t) = token {
            request = request.header("Authorization", &format!("Bearer {t}"));
        }
        let mut answer = request.call().unwrap_or_else(|e| panic!("GET {path}: {e}"));
        let status = answer.status().as_u16();
        let body = answer.body_mut().with_config().limit(64 << 20).read_to_string().expect("a body");
        let json =
            serde_json::from_str(&body).unwrap_or_else(|e| panic!("GET {path}: not JSON ({e}): {body}"));
        (status, json)
    }

    /// Submits `file` with `bao-referee submit`; the new version's JSON.
    pub fn submit(&self, token: &str, bot: &str, file: &Path, language: &str) -> Value {
        let out = Command::new(bin("bao-referee"))
            .args(["submit", "--server", &self.url, "--token", token, "--bot", bot, "--language", language])
            .arg(file)
            .output()
            .expect("bao-referee submit runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "submit {bot} failed ({:?}): {stdout}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_str(stdout.trim())
            .unwrap_or_else(|e| panic!("submit printed no JSON ({e}): {stdout}"))
    }

    /// Waits until version `id` has left queued, building and checking; its detail as its
    /// owner sees it (with the build log and the gate's report).
    pub fn settled(&self, id: i64, token: &str, secs: u64) -> Value {
        wait_for(secs, &format!("version {id} to pass or fail the gate"), || {
            let (status, v) = self.get_json(&format!("/api/versions/{id}"), Some(token));
            assert_eq!(status, 200, "{v}");
            let state = v["state"].as_str().unwrap_or("?").to_owned();
            (!matches!(state.as_str(), "queued" | "building" | "checking")).then_some(v)
        })
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Polls `f` every 200 ms until it returns `Some`, failing after `secs` with `what`.
pub fn wait_for<T>(secs: u64, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out after {secs} s waiting for {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Writes a shell script (submitted as `executable`) at `path` that runs `command`.
pub fn script(path: PathBuf, command: &str) -> PathBuf {
    std::fs::write(&path, format!("#!/bin/sh\nexec {command}\n")).expect("write the script");
    path
}
