//! The raw pipe baseline: round trips of a move request line and a short reply between this
//! process and children that answer at once (`bao-referee bench-echo`), timed like the ply
//! cycles (monotonic clock, from before the write until the reply line is read).
//!
//! Three ways, from bare to the referee's own path:
//! - `std`: blocking `std::process` pipes, one `write` and a buffered line read;
//! - `tokio`: `tokio::process` pipes on the referee's runtime, same framing;
//! - `bot-process`: the referee's [`BotProcess`] (the supervising pump task, the bounded line
//!   codec, the line channel), exactly what the game loop uses.
//!
//! `std` and `bot-process` can also talk to two echoes in turn, as a game does with its bots.
//! The echoes live for the whole benchmark and are driven in chunks ([`round_trips`] calls),
//! so that the benchmark can interleave them with its games: on a shared, noisy machine both
//! then see the same background load.
//!
//! [`round_trips`]: StdEchoes::round_trips

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::Serialize;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

use super::stats::Summary;
use bao_supervise::{BotProcess, BotSpec, ResourceLimits};

/// The hidden subcommand that runs the echo.
pub const ECHO_SUBCOMMAND: &str = "bench-echo";
/// How long one round trip may take before the benchmark gives up.
const ROUND_TRIP_TIMEOUT: Duration = Duration::from_secs(10);

/// The round trips of one transport.
#[derive(Debug, Clone, Serialize)]
pub struct PipeResult {
    /// `std`, `tokio` or `bot-process`, with `×2 in turn` for two echoes taking turns.
    pub transport: String,
    /// How the children were run and read.
    pub description: String,
    /// Mean size of the lines sent in the timed round trips, bytes (without the newline).
    pub request_bytes_mean: f64,
    /// The timed round trips, in µs.
    pub round_trip: Summary,
    /// `bot-process` only: one read of the echo's CPU time ([`BotProcess::cpu_time`]), in µs.
    pub cpu_time_read: Option<Summary>,
}

/// The samples of one transport, gathered chunk by chunk; the first `warmup` round trips
/// are not kept.
#[derive(Debug)]
struct Samples {
    warmup: usize,
    done: usize,
    round_trips: Vec<Duration>,
    cpu_reads: Vec<Duration>,
    bytes: u64,
}

impl Samples {
    fn new(warmup: usize) -> Samples {
        Samples { warmup, done: 0, round_trips: Vec::new(), cpu_reads: Vec::new(), bytes: 0 }
    }

    /// Records round trip number `self.done` (unless it is a warm-up one).
    fn record(&mut self, round_trip: Duration, cpu_read: Option<Duration>, line: &str) {
        if self.done >= self.warmup {
            self.round_trips.push(round_trip);
            self.cpu_reads.extend(cpu_read);
            self.bytes += line.len() as u64;
        }
        self.done += 1;
    }

    fn result(&self, transport: String, description: String) -> anyhow::Result<PipeResult> {
        let round_trip = Summary::of(&self.round_trips)
            .with_context(|| format!("{transport}: no timed round trips (all {} were warm-up)", self.done))?;
        Ok(PipeResult {
            request_bytes_mean: (self.bytes as f64 / round_trip.count as f64 * 10.0).round() / 10.0,
            transport,
            description,
            round_trip,
            cpu_time_read: Summary::of(&self.cpu_reads),
        })
    }
}

/// `name`, or `name ×N in turn` for N processes taking turns.
fn transport_name(name: &str, children: usize) -> String {
    if children > 1 { format!("{name} ×{children} in turn") } else { name.to_owned() }
}

/// Fails on an empty chunk.
fn check_lines(lines: &[String]) -> anyhow::Result<()> {
    if lines.is_empty() {
        anyhow::bail!("the pipe benchmark needs at least one line to send");
    }
    Ok(())
}

/// One echo child over blocking `std::process` pipes.
#[derive(Debug)]
struct StdEcho {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
}

impl StdEcho {
    fn spawn(exe: &Path) -> anyhow::Result<StdEcho> {
        let mut child = std::process::Command::new(exe)
            .arg(ECHO_SUBCOMMAND)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("cannot start {} {ECHO_SUBCOMMAND}", exe.display()))?;
        let stdin = child.stdin.take().context("the echo's stdin is missing")?;
        let stdout = BufReader::new(child.stdout.take().context("the echo's stdout is missing")?);
        Ok(StdEcho { child, stdin, stdout })
    }
}

/// Echo children over blocking `std::process` pipes, taking turns.
#[derive(Debug)]
pub struct StdEchoes {
    echoes: Vec<StdEcho>,
    samples: Samples,
    message: Vec<u8>,
    reply: Vec<u8>,
}

impl StdEchoes {
    /// Starts `children` echoes (at least one).
    ///
    /// # Errors
    /// An echo could not be started.
    pub fn spawn(exe: &Path, children: usize, warmup: usize) -> anyhow::Result<StdEchoes> {
        let echoes = (0..children.max(1)).map(|_| StdEcho::spawn(exe)).collect::<anyhow::Result<Vec<_>>>()?;
        Ok(StdEchoes { echoes, samples: Samples::new(warmup), message: Vec::new(), reply: Vec::new() })
    }

    /// `count` round trips, sending `lines` in turn.
    ///
    /// # Errors
    /// No lines, or an echo failed or closed its stdout.
    pub fn round_trips(&mut self, lines: &[String], count: usize) -> anyhow::Result<()> {
        check_lines(lines)?;
        for i in 0..count {
            let line = &lines[i % lines.len()];
            self.message.clear();
            self.message.extend_from_slice(line.as_bytes());
            self.message.push(b'\n');
            self.reply.clear();
            let turn = self.samples.done % self.echoes.len();
            let echo = &mut self.echoes[turn];
            let start = Instant::now();
            echo.stdin.write_all(&self.message).context("writing to the echo")?;
            echo.stdin.flush().context("writing to the echo")?;
            echo.stdout.read_until(b'\n', &mut self.reply).context("reading from the echo")?;
            let elapsed = start.elapsed();
            if self.reply.last() != Some(&b'\n') {
                anyhow::bail!("the echo closed its stdout");
            }
            self.samples.record(elapsed, None, line);
        }
        Ok(())
    }

    /// Ends the echoes and summarises.
    ///
    /// # Errors
    /// An echo could not be waited for, or no timed round trips.
    pub fn finish(self) -> anyhow::Result<PipeResult> {
        let count = self.echoes.len();
        for echo in self.echoes {
            drop(echo.stdin);
            let mut child = echo.child;
            child.wait().context("waiting for the echo")?;
        }
        let description = "std::process pipes, blocking write + BufReader::read_until".to_owned();
        self.samples.result(transport_name("std", count), description)
    }
}

/// One echo child over `tokio::process` pipes.
#[derive(Debug)]
pub struct TokioEcho {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    stdout: tokio::io::BufReader<tokio::process::ChildStdout>,
    samples: Samples,
    message: Vec<u8>,
    reply: Vec<u8>,
}

impl TokioEcho {
    /// Starts the echo (within a Tokio runtime).
    ///
    /// # Errors
    /// The echo could not be started.
    pub fn spawn(exe: &Path, warmup: usize) -> anyhow::Result<TokioEcho> {
        let mut child = tokio::process::Command::new(exe)
            .arg(ECHO_SUBCOMMAND)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("cannot start {} {ECHO_SUBCOMMAND}", exe.display()))?;
        let stdin = child.stdin.take().context("the echo's stdin is missing")?;
        let stdout = tokio::io::BufReader::new(child.stdout.take().context("the echo's stdout is missing")?);
        Ok(TokioEcho {
            child,
            stdin,
            stdout,
            samples: Samples::new(warmup),
            message: Vec::new(),
            reply: Vec::new(),
        })
    }

    /// `count` round trips, sending `lines` in turn.
    ///
    /// # Errors
    /// No lines, or the echo failed, closed its stdout or did not answer.
    pub async fn round_trips(&mut self, lines: &[String], count: usize) -> anyhow::Result<()> {
        check_lines(lines)?;
        for i in 0..count {
            let line = &lines[i % lines.len()];
            self.message.clear();
            self.message.extend_from_slice(line.as_bytes());
            self.message.push(b'\n');
            self.reply.clear();
            let start = Instant::now();
            let round_trip = async {
                self.stdin.write_all(&self.message).await?;
                self.stdin.flush().await?;
                self.stdout.read_until(b'\n', &mut self.reply).await
            };
            tokio::time::timeout(ROUND_TRIP_TIMEOUT, round_trip)
                .await
                .context("the echo did not answer")?
                .context("talking to the echo")?;
            let elapsed = start.elapsed();
            if self.reply.last() != Some(&b'\n') {
                anyhow::bail!("the echo closed its stdout");
            }
            self.samples.record(elapsed, None, line);
        }
        Ok(())
    }

    /// Ends the echo and summarises.
    ///
    /// # Errors
    /// The echo could not be waited for, or no timed round trips.
    pub async fn finish(self) -> anyhow::Result<PipeResult> {
        drop(self.stdin);
        let mut child = self.child;
        child.wait().await.context("waiting for the echo")?;
        let description = "tokio::process pipes, write_all + BufReader::read_until".to_owned();
        self.samples.result("tokio".to_owned(), description)
    }
}

/// Echoes run through the referee's [`BotProcess`], spawned as the game loop spawns bots,
/// taking turns; each round trip is followed by an (untimed) [`BotProcess::cpu_time`] read,
/// timed on its own, as the game loop reads it twice per ply.
#[derive(Debug)]
pub struct BotProcessEchoes {
    processes: Vec<BotProcess>,
    supervision: String,
    samples: Samples,
}

impl BotProcessEchoes {
    /// Starts `children` echoes (at least one).
    ///
    /// # Errors
    /// An echo could not be started.
    pub async fn spawn(exe: &Path, children: usize, warmup: usize) -> anyhow::Result<BotProcessEchoes> {
        let spec = BotSpec {
            name: Some(ECHO_SUBCOMMAND.to_owned()),
            program: exe.display().to_string(),
            args: vec![ECHO_SUBCOMMAND.to_owned()],
            dir: None,
        };
        let mut processes = Vec::new();
        for _ in 0..children.max(1) {
            let process =
                BotProcess::spawn(&spec, &ResourceLimits::default(), bao_game::defaults::STDERR_CAP_BYTES)
                    .await
                    .with_context(|| format!("cannot start {} {ECHO_SUBCOMMAND}", exe.display()))?;
            processes.push(process);
        }
        let supervision = processes.first().map(|p| p.supervision().to_string()).unwrap_or_default();
        Ok(BotProcessEchoes { processes, supervision, samples: Samples::new(warmup) })
    }

    /// `count` round trips, sending `lines` in turn.
    ///
    /// # Errors
    /// No lines, or an echo failed, closed its stdout or did not answer.
    pub async fn round_trips(&mut self, lines: &[String], count: usize) -> anyhow::Result<()> {
        check_lines(lines)?;
        for i in 0..count {
            let line = &lines[i % lines.len()];
            let turn = self.samples.done % self.processes.len();
            let process = &mut self.processes[turn];
            let start = Instant::now();
            let deadline = tokio::time::Instant::from_std(start + ROUND_TRIP_TIMEOUT);
            process
                .send_line(line, deadline)
                .await
                .map_err(|f| anyhow::anyhow!("writing to the echo: {f}"))?;
            process.recv_line(deadline).await.map_err(|f| anyhow::anyhow!("reading from the echo: {f}"))?;
            let elapsed = start.elapsed();
            let read_start = Instant::now();
            std::hint::black_box(process.cpu_time());
            let read = read_start.elapsed();
            self.samples.record(elapsed, Some(read), line);
        }
        Ok(())
    }

    /// Ends the echoes (their whole trees) and summarises.
    ///
    /// # Errors
    /// No timed round trips.
    pub async fn finish(self) -> anyhow::Result<PipeResult> {
        let count = self.processes.len();
        for process in self.processes {
            process.shutdown(Duration::from_secs(1)).await;
        }
        let description = format!("the referee's BotProcess: send_line + recv_line ({})", self.supervision);
        self.samples.result(transport_name("bot-process", count), description)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_skip_the_warmup_and_average_the_bytes_sent() {
        let mut samples = Samples::new(2);
        for (us, line) in [(900, "warm"), (800, "up"), (10, "abcd"), (30, "ab"), (20, "abc")] {
            samples.record(Duration::from_micros(us), Some(Duration::from_micros(1)), line);
        }
        let result = samples.result("std".to_owned(), "test".to_owned()).expect("three timed");
        assert_eq!(result.round_trip.count, 3);
        assert_eq!(result.round_trip.median_us, 20.0);
        assert_eq!(result.round_trip.max_us, 30.0);
        assert_eq!(result.request_bytes_mean, 3.0);
        assert_eq!(result.cpu_time_read.map(|s| s.count), Some(3));

        let mut all_warmup = Samples::new(5);
        all_warmup.record(Duration::from_micros(1), None, "x");
        let error = all_warmup.result("std".to_owned(), String::new()).expect_err("nothing timed");
        assert!(error.to_string().contains("no timed round trips"), "{error}");
    }

    #[test]
    fn transport_names_and_empty_chunks() {
        assert_eq!(transport_name("std", 1), "std");
        assert_eq!(transport_name("std", 2), "std ×2 in turn");
        assert!(check_lines(&[]).is_err());
        assert!(check_lines(&["x".to_owned()]).is_ok());
    }

    #[test]
    fn a_missing_executable_is_an_error_not_a_panic() {
        let error =
            StdEchoes::spawn(Path::new("/nonexistent/bao-referee"), 1, 0).expect_err("no such program");
        assert!(format!("{error:#}").contains("cannot start"), "{error:#}");
    }
}
