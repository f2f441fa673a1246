//! Progress of a tournament on stderr: a bar on a terminal (games done, rate,
//! ETA, current score), one plain line per game otherwise.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::tournament::journal::JournalEntry;

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

    /// A game finished; `score` is the current score line.
    pub fn game_finished(&mut self, entry: &JournalEntry, score: &str) {
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
                eprintln!(
                    "[{}/{}] game {}: {} (S) vs {} (N): {}, {} plies{verified} | {rate:.2} games/s, ETA {eta} | {score}",
                    self.done, self.total, entry.game, entry.south, entry.north, entry.result, entry.plies
                );
            }
        }
    }

    /// A message that does not disturb the bar.
    pub fn note(&self, message: &str) {
        match &self.bar {
            Some(bar) => bar.println(message),
            None => eprintln!("{message}"),
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
