//! The exec floor of the outside benchmark: one plain life of the C instant bot, started by
//! this process with std's `Command` (no stub, no cgroup, no namespace), greeted with a
//! `hello`, answered `ready`, told `quit`, waited for. Issue 10 asks for the referee's fixed
//! cost per game "≤ 1 ms beyond the two `exec`s themselves": two of these lives are those
//! two execs, measured in the same run as the referee's games so that they see the same load.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::Context;

/// The `hello` the bot is sent (the instant bot only looks at its `type`).
const HELLO: &[u8] = b"{\"type\":\"hello\",\"protocol\":1}\n";
/// What the bot's answer must hold.
const READY: &[u8] = b"\"type\":\"ready\"";
/// The `quit` that ends it.
const QUIT: &[u8] = b"{\"type\":\"quit\"}\n";

/// The lives timed so far.
#[derive(Debug, Default)]
pub struct ExecFloor {
    /// One duration a life: from before the spawn to after the wait.
    pub samples: Vec<Duration>,
}

impl ExecFloor {
    /// Times `count` lives of `instant`.
    ///
    /// # Errors
    /// The bot cannot be started, does not answer `ready`, or does not exit with success.
    pub fn lives(&mut self, instant: &Path, count: usize) -> anyhow::Result<()> {
        for _ in 0..count {
            self.samples.push(one_life(instant)?);
        }
        Ok(())
    }
}

/// One life of `instant`: spawn, `hello`, `ready`, `quit`, wait.
fn one_life(instant: &Path) -> anyhow::Result<Duration> {
    let start = Instant::now();
    let mut child = std::process::Command::new(instant)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start {}", instant.display()))?;
    let mut stdin = child.stdin.take().context("the bot's stdin is missing")?;
    let mut stdout = BufReader::new(child.stdout.take().context("the bot's stdout is missing")?);
    stdin.write_all(HELLO).context("writing hello to the bot")?;
    let mut reply = Vec::new();
    stdout.read_until(b'\n', &mut reply).context("reading the bot's ready")?;
    if !reply.windows(READY.len()).any(|w| w == READY) {
        anyhow::bail!("the bot answered hello with {:?}, not ready", String::from_utf8_lossy(&reply));
    }
    stdin.write_all(QUIT).context("writing quit to the bot")?;
    drop(stdin);
    let status = child.wait().context("waiting for the bot")?;
    let elapsed = start.elapsed();
    if !status.success() {
        anyhow::bail!("the bot ended with {status}");
    }
    Ok(elapsed)
}
