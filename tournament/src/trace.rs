//! `--debug` and `--trace` of `match` and `tournament`: every protocol line exchanged with
//! each bot, timestamped, as cutechess's `-debug` prints them.
//!
//! One line per protocol line: the seconds since the match started (microsecond precision),
//! `>` for a line the referee wrote to the bot or `<` for one the bot wrote, the bot's name and
//! side, and the line itself:
//!
//! ```text
//!    0.000412 >greedy(S): {"type":"hello","protocol":1,...}
//!    0.031207 <greedy(S): {"type":"ready","name":"greedy"}
//! ```
//!
//! In a tournament, `--debug` prints the lines of every game on stderr, interleaved as they
//! happen, each with its game number after the time (`   0.031207 game 3 <greedy(S): ...`,
//! seconds since the tournament started); `--trace DIR` writes one file per game,
//! `DIR/NNNNN.trace` (the number of its log `games/NNNNN.jsonl`), timed from the game's start.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use bao_game::judge::LineDirection;
use bao_game::log::LogRecord;
use bao_game::runner::GameObserver;
use bao_rules::Side;

/// Writes the trace of one match.
pub struct TraceWriter {
    out: Box<dyn Write + Send>,
    started: Instant,
    names: [String; 2],
    /// Written between the time and the line (`game 3 `), empty in a match.
    label: String,
    error: Option<std::io::Error>,
}

impl std::fmt::Debug for TraceWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceWriter").field("names", &self.names).finish_non_exhaustive()
    }
}

impl TraceWriter {
    /// A trace into `out`, with times counted from `started`; `names` are South's and North's.
    #[must_use]
    pub fn new(out: Box<dyn Write + Send>, started: Instant, names: [String; 2]) -> TraceWriter {
        TraceWriter { out, started, names, label: String::new(), error: None }
    }

    /// The same trace with `game N` before each line's direction (for a tournament's `--debug`).
    #[must_use]
    pub fn for_game(mut self, game: u32) -> TraceWriter {
        self.label = format!("game {game} ");
        self
    }

    /// Writes one protocol line (errors are kept for [`TraceWriter::finish`]; the game goes on).
    pub fn line(&mut self, side: Side, direction: LineDirection, line: &str, at: Instant) {
        if self.error.is_some() {
            return;
        }
        let seconds = at.saturating_duration_since(self.started).as_secs_f64();
        let arrow = match direction {
            LineDirection::Sent => '>',
            LineDirection::Received => '<',
        };
        let name = &self.names[side.index()];
        let label = &self.label;
        let written = writeln!(self.out, "{seconds:>11.6} {label}{arrow}{name}({side}): {line}");
        if let Err(e) = written.and_then(|()| self.out.flush()) {
            self.error = Some(e);
        }
    }

    /// The first write error, if there was one.
    ///
    /// # Errors
    /// The I/O error of the first line that could not be written.
    pub fn finish(mut self) -> std::io::Result<()> {
        match self.error.take() {
            Some(e) => Err(e),
            None => self.out.flush(),
        }
    }
}

/// Where a tournament's traces go (`--debug`, `--trace DIR`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum TraceTarget {
    /// No trace.
    #[default]
    Off,
    /// Every game's lines on stderr, each with its game number, timed from `started`.
    Stderr {
        /// When the tournament started.
        started: Instant,
    },
    /// One file per game in this folder, `NNNNN.trace`.
    Dir(PathBuf),
}

impl TraceTarget {
    /// The trace of game `game` between `names` (South's, North's), or `None` when off.
    ///
    /// # Errors
    /// When the game's trace file cannot be created (it names the file).
    pub fn open(&self, game: u32, names: [String; 2]) -> Result<Option<TraceWriter>, String> {
        match self {
            TraceTarget::Off => Ok(None),
            TraceTarget::Stderr { started } => {
                Ok(Some(TraceWriter::new(Box::new(std::io::stderr()), *started, names).for_game(game)))
            }
            TraceTarget::Dir(dir) => {
                let path = dir.join(format!("{game:05}.trace"));
                let file = std::fs::File::create(&path)
                    .map_err(|e| format!("cannot create the trace {}: {e}", path.display()))?;
                Ok(Some(TraceWriter::new(Box::new(std::io::BufWriter::new(file)), Instant::now(), names)))
            }
        }
    }
}

/// A game observer that only traces the protocol lines (a tournament's games show nothing else).
#[derive(Debug, Default)]
pub struct TraceObserver(pub Option<TraceWriter>);

impl TraceObserver {
    /// Flushes the trace.
    ///
    /// # Errors
    /// The first write error of the trace.
    pub fn finish(self) -> std::io::Result<()> {
        self.0.map_or(Ok(()), TraceWriter::finish)
    }
}

impl GameObserver for TraceObserver {
    fn on_record(&mut self, _record: &LogRecord) {}

    fn on_line(&mut self, side: Side, direction: LineDirection, line: &str, at: Instant) {
        if let Some(trace) = &mut self.0 {
            trace.line(side, direction, line, at);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use super::*;

    /// A `Write` whose bytes the test can read afterwards.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("not poisoned").extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn every_line_is_timestamped_with_its_direction_and_bot() {
        let shared = Shared::default();
        let started = Instant::now();
        let mut trace =
            TraceWriter::new(Box::new(shared.clone()), started, ["greedy".to_owned(), "random".to_owned()]);
        trace.line(Side::South, LineDirection::Sent, r#"{"type":"hello"}"#, started);
        let later = started + Duration::from_millis(1500);
        trace.line(Side::North, LineDirection::Received, r#"{"type":"ready","name":"r"}"#, later);
        trace.finish().unwrap();
        let text = String::from_utf8(shared.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                r#"   0.000000 >greedy(S): {"type":"hello"}"#,
                r#"   1.500000 <random(N): {"type":"ready","name":"r"}"#,
            ]
        );
    }

    #[test]
    fn a_tournament_s_stderr_trace_names_the_game() {
        let shared = Shared::default();
        let started = Instant::now();
        let mut trace =
            TraceWriter::new(Box::new(shared.clone()), started, ["a".to_owned(), "b".to_owned()]).for_game(7);
        trace.line(Side::North, LineDirection::Sent, "{}", started);
        trace.finish().unwrap();
        let text = String::from_utf8(shared.0.lock().unwrap().clone()).unwrap();
        assert_eq!(text, "   0.000000 game 7 >b(N): {}\n");
    }

    #[test]
    fn a_write_error_is_reported_at_the_end() {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("Linux has /dev/full");
        let started = Instant::now();
        let mut trace = TraceWriter::new(Box::new(full), started, ["a".to_owned(), "b".to_owned()]);
        trace.line(Side::South, LineDirection::Sent, "x", started);
        assert!(trace.finish().is_err());
    }
}
