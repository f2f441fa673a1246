//! Progress of a tournament on stderr: a bar on a terminal (games done, rate,
//! ETA, current score), one plain line per game otherwise.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use bao_tournament::journal::JournalEntry;

/// Where progress goes.
#[derive(Debug)]
pub struct Progress {
    bar: Option<ProgressBar>,
    total: u64,
    done: u64,
    played_now: u64,
    started: Instant,
}

impl Progress {
    /// Progress over `total` games of which `done` are already played; a bar
    /// when stderr is a terminal (unless `plain`).
    #[must_use]
    pub fn new(total: u64, done: u64, plain: bool) -> Progress {
        let bar = (!plain && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "{bar:30.cyan/blue} {pos}/{len} games  {rate}  ETA {eta}  {wide_msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .with_key("rate", |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.1} games/s", state.per_sec());
            });
            bar.set_style(style);
            bar.set_position(done);
            bar.reset_eta();
            bar.enable_steady_tick(Duration::from_millis(500));
            bar
        });
        Progress { bar, total, done, played_now: 0, started: Instant::now() }
    }
}

impl bao_tournament::execute::Progress for Progress {
    /// A game finished; `score` is the current score line.
    fn game_finished(&mut self, entry: &JournalEntry, score: &str) {
        if entry.counts() {
            self.done += 1;
            self.played_now += 1;
        }
        match &self.bar {
            Some(bar) => {
                bar.set_position(self.done);
                bar.set_message(score.to_owned());
            }
            None => {
                let elapsed = self.started.elapsed().as_secs_f64();
                let rate = if elapsed > 0.0 { self.played_now as f64 / elapsed } else { 0.0 };
                let left = self.total.saturating_sub(self.done);
                let eta = if rate > 0.0 { format!("{:.0}s", left as f64 / rate) } else { "?".to_owned() };
                let verified = if entry.verified { "" } else { " [LOG DOES NOT VERIFY]" };
                line_to_stderr(&format!(
                    "[{}/{}] game {}: {} (S) vs {} (N): {}, {} plies{verified} | {rate:.2} games/s, ETA {eta} | {score}",
                    self.done, self.total, entry.game, entry.south, entry.north, entry.result, entry.plies
                ));
            }
        }
    }

    /// A message that does not disturb the bar.
    fn note(&self, message: &str) {
        match &self.bar {
            Some(bar) => bar.println(message),
            None => line_to_stderr(message),
        }
    }

    /// Removes the bar.
    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Writes `line` and a newline to stderr with one `write` (stderr is unbuffered: `eprintln!`
/// writes every piece of its format on its own, two dozen system calls for a game's line).
fn line_to_stderr(line: &str) {
    use std::io::Write as _;
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    // As `eprintln!` would, but a closed or full stderr does not stop the tournament.
    let _ = std::io::stderr().lock().write_all(&bytes);
}
