//! The floor of the outside benchmark: a raw 300-byte round trip over blocking pipes between
//! this process and the C instant bot in `--echo` mode, driven in chunks so that it can be
//! interleaved with the referee runs and see the same background load.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;

/// The size of the line sent, newline included (the issue's "300-byte round trip").
pub const LINE_BYTES: usize = 300;

/// The line sent: a JSON object padded to [`LINE_BYTES`] with its newline.
#[must_use]
pub fn request_line() -> Vec<u8> {
    let head = br#"{"type":"move_request","pad":""#;
    let tail = b"\"}\n";
    let mut line = head.to_vec();
    line.resize(LINE_BYTES - tail.len(), b'x');
    line.extend_from_slice(tail);
    line
}

/// The echo and the round trips timed so far.
#[derive(Debug)]
pub struct Floor {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: Vec<u8>,
    reply: Vec<u8>,
    /// The timed round trips.
    pub samples: Vec<Duration>,
}

impl Floor {
    /// Starts `instant --echo` and runs `warmup` untimed round trips.
    ///
    /// # Errors
    /// The echo cannot be started or does not answer.
    pub fn start(instant: &Path, warmup: usize) -> anyhow::Result<Floor> {
        let mut child = std::process::Command::new(instant)
            .arg("--echo")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot start {} --echo", instant.display()))?;
        let stdin = child.stdin.take().context("the echo's stdin is missing")?;
        let stdout = BufReader::new(child.stdout.take().context("the echo's stdout is missing")?);
        let mut floor =
            Floor { child, stdin, stdout, line: request_line(), reply: Vec::new(), samples: Vec::new() };
        floor.round_trips(warmup)?;
        floor.samples.clear();
        Ok(floor)
    }

    /// `count` timed round trips.
    ///
    /// # Errors
    /// The echo failed or closed its stdout.
    pub fn round_trips(&mut self, count: usize) -> anyhow::Result<()> {
        for _ in 0..count {
            self.reply.clear();
            let start = Instant::now();
            self.stdin.write_all(&self.line).context("writing to the echo")?;
            self.stdout.read_until(b'\n', &mut self.reply).context("reading from the echo")?;
            let elapsed = start.elapsed();
            if self.reply.last() != Some(&b'\n') {
                anyhow::bail!("the echo closed its stdout");
            }
            self.samples.push(elapsed);
        }
        Ok(())
    }

    /// Ends the echo; returns the samples.
    ///
    /// # Errors
    /// The echo could not be waited for or failed.
    pub fn finish(self) -> anyhow::Result<Vec<Duration>> {
        let Floor { mut child, stdin, samples, .. } = self;
        drop(stdin);
        let status = child.wait().context("waiting for the echo")?;
        if !status.success() {
            anyhow::bail!("the echo ended with {status}");
        }
        Ok(samples)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_is_300_bytes_of_json_and_a_newline() {
        let line = request_line();
        assert_eq!(line.len(), LINE_BYTES);
        assert_eq!(line.last(), Some(&b'\n'));
        let text = std::str::from_utf8(&line[..LINE_BYTES - 1]).expect("ascii");
        let value: serde_json::Value = serde_json::from_str(text).expect("JSON");
        assert_eq!(value["type"], "move_request");
    }
}
