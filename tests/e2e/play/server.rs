//! Starting `bao-referee play` and reading its address; a WebSocket client of its game.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// The `bao-referee` command line under test.
pub fn referee() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_bao-referee-e2e"))
}

/// A running `bao-referee play`, killed when dropped.
pub struct Play {
    pub child: Child,
    /// `http://127.0.0.1:PORT/game/TOKEN`.
    pub url: String,
    pub log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Play {
    /// Starts `bao-referee play --port 0 --log DIR/game.jsonl EXTRA...` and reads its address.
    pub fn start(extra: &[&str]) -> Play {
        let dir = tempfile::Builder::new().prefix("bao-e2e-play-").tempdir().expect("a temp dir");
        let log = dir.path().join("game.jsonl");
        let mut child = Command::new(referee())
            .args(["play", "--no-open", "--port", "0", "--log"])
            .arg(&log)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start bao-referee play");
        let stdout = child.stdout.take().expect("piped");
        let mut first = String::new();
        BufReader::new(stdout).read_line(&mut first).expect("read the address");
        let url = first
            .trim()
            .strip_prefix("Play at ")
            .unwrap_or_else(|| panic!("no address: {first:?}"))
            .to_owned();
        assert!(url.starts_with("http://127.0.0.1:"), "{url}");
        Play { child, url, log, _dir: dir }
    }

    /// The game's WebSocket address.
    pub fn socket_url(&self) -> String {
        format!("{}/ws", self.url.replacen("http://", "ws://", 1))
    }

    /// Waits (at most `limit`) for the process to exit; its exit code.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<i32> {
        let start = std::time::Instant::now();
        while start.elapsed() < limit {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for Play {
    /// SIGTERM first, so that the referee ends its bot itself; SIGKILL after 10 s.
    fn drop(&mut self) {
        if let Ok(pid) = i32::try_from(self.child.id()) {
            let _ =
                nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGTERM);
        }
        if self.wait_exit(Duration::from_secs(10)).is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `bao-referee verify LOG` succeeds; its output.
pub fn verify(log: &Path) -> String {
    let out = Command::new(referee()).arg("verify").arg(log).output().expect("run verify");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "the log does not verify:\n{text}\n{}",
        std::fs::read_to_string(log).unwrap_or_default()
    );
    text
}

/// One WebSocket to the game.
pub struct Client {
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

/// How long a test waits for any one frame.
const FRAME_WAIT: Duration = Duration::from_secs(20);

impl Client {
    /// Connects (no hello yet).
    pub async fn connect(url: &str) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(url).await.expect("connect the socket");
        Client { ws }
    }

    /// Connects and says hello with `since`.
    pub async fn hello(url: &str, since: u64) -> Client {
        let mut client = Client::connect(url).await;
        client.send(&json!({"type": "hello", "since": since})).await;
        client
    }

    pub async fn send(&mut self, frame: &Value) {
        self.ws.send(Message::text(frame.to_string())).await.expect("send a frame");
    }

    /// The next text frame, parsed; `None` when the socket closed.
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            let message = tokio::time::timeout(FRAME_WAIT, self.ws.next()).await.expect("a frame in time");
            match message {
                Some(Ok(Message::Text(text))) => {
                    return Some(serde_json::from_str(&text).expect("JSON frames"));
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return None,
                Some(Ok(_)) => {}
            }
        }
    }

    /// Frames until one satisfies `want` (returned with all frames read before it).
    pub async fn until(&mut self, want: impl Fn(&Value) -> bool) -> (Value, Vec<Value>) {
        let mut seen = Vec::new();
        loop {
            let frame = self.next().await.unwrap_or_else(|| panic!("the socket closed; frames: {seen:?}"));
            if want(&frame) {
                return (frame, seen);
            }
            seen.push(frame);
        }
    }

    /// Whether the server closes this socket within a few seconds (frames before are skipped).
    pub async fn closed_by_server(&mut self) -> bool {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        loop {
            match tokio::time::timeout_at(deadline, self.ws.next()).await {
                Err(_) => return false,
                Ok(None | Some(Err(_)) | Some(Ok(Message::Close(_)))) => return true,
                Ok(Some(Ok(_))) => {}
            }
        }
    }
}

/// The event of an `event` frame, if it is one of `kind`.
pub fn event<'a>(frame: &'a Value, kind: &str) -> Option<&'a Value> {
    (frame["frame"] == "event" && frame["event"]["type"] == kind).then_some(&frame["event"])
}

/// Whether the frame is the person's turn.
pub fn is_turn(frame: &Value) -> bool {
    event(frame, "your_turn").is_some()
}

/// Whether the frame is the result.
pub fn is_result(frame: &Value) -> bool {
    event(frame, "result").is_some()
}
