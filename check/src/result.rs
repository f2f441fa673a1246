//! The result of one check, as reported.

use std::time::Duration;

use serde::Serialize;

use super::catalog::CheckKind;
use super::failure::Failure;
use super::session::Finished;
use super::transcript::TranscriptView;

/// The end of the bot's stderr shown for a failed check, in bytes.
const STDERR_TAIL_BYTES: usize = 1000;

/// Whether a check passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The bot did everything right.
    Pass,
    /// The bot did something wrong (`why` says what).
    Fail,
    /// Not run: the handshake failed, so nothing else could be checked.
    Skip,
}

impl Status {
    /// `PASS`, `FAIL` or `SKIP`.
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Skip => "SKIP",
        }
    }
}

/// One check's result: its status, why it failed, what a correct bot does, and the exchange.
#[derive(Debug, Clone, Serialize)]
pub struct CheckResult {
    /// The check.
    pub name: CheckKind,
    /// Passed, failed or skipped.
    pub status: Status,
    /// Why it failed or was skipped; `null` when it passed.
    pub why: Option<String>,
    /// For a check that passed: what it did not need to check (`two-games` for a bot that plays
    /// one game per process); `null` otherwise.
    pub note: Option<String>,
    /// What a correct bot does here.
    pub expected: &'static str,
    /// Wall time of the check, bot start and end included.
    pub duration_ms: u64,
    /// The lines exchanged (the start and the end of long exchanges).
    pub exchange: TranscriptView,
    /// The end of what the bot wrote to stderr, for a failed check that wrote any.
    pub stderr_tail: Option<String>,
}

impl CheckResult {
    /// The result of a check that ran.
    #[must_use]
    pub fn ran(
        kind: CheckKind,
        outcome: Result<(), Failure>,
        finished: &Finished,
        duration: Duration,
    ) -> CheckResult {
        let (status, why) = match outcome {
            Ok(()) => (Status::Pass, None),
            Err(failure) => (Status::Fail, Some(failure.why)),
        };
        let stderr_tail = (status == Status::Fail).then(|| tail(&finished.stderr.text())).flatten();
        let note = if status == Status::Pass { finished.note.clone() } else { None };
        CheckResult {
            name: kind,
            status,
            why,
            note,
            expected: kind.expectation(),
            duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
            exchange: finished.transcript.view(),
            stderr_tail,
        }
    }

    /// A check that did not run, and why.
    #[must_use]
    pub fn skipped(kind: CheckKind, why: &str) -> CheckResult {
        CheckResult {
            name: kind,
            status: Status::Skip,
            why: Some(why.to_owned()),
            note: None,
            expected: kind.expectation(),
            duration_ms: 0,
            exchange: super::transcript::Transcript::default().view(),
            stderr_tail: None,
        }
    }
}

/// The last [`STDERR_TAIL_BYTES`] of `text` from a line start (or a character boundary),
/// trimmed; `None` if there is nothing to show.
fn tail(text: &str) -> Option<String> {
    let text = text.trim_end();
    if text.trim().is_empty() {
        return None;
    }
    let mut start = text.len().saturating_sub(STDERR_TAIL_BYTES);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    if start > 0
        && let Some(newline) = text[start..].find('\n')
    {
        start += newline + 1;
    }
    Some(text[start..].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stderr_tail_starts_at_a_line() {
        assert_eq!(tail("  \n"), None);
        assert_eq!(tail("Traceback\n  boom\n").as_deref(), Some("Traceback\n  boom"));
        let long = format!("{}\nlast line\n", "x".repeat(5000));
        assert_eq!(tail(&long).as_deref(), Some("last line"));
        let multibyte = "é".repeat(3000);
        let shown = tail(&multibyte).unwrap();
        assert!(shown.len() <= STDERR_TAIL_BYTES && shown.chars().all(|c| c == 'é'));
    }

    #[test]
    fn results_serialise_with_kebab_names_and_lowercase_status() {
        let result = CheckResult::skipped(CheckKind::LongGame, "the handshake failed");
        let json = serde_json::to_value(&result).unwrap();
        assert_eq!(json["name"], "long-game");
        assert_eq!(json["status"], "skip");
        assert_eq!(json["exchange"]["omitted"], 0);
        assert!(json["expected"].as_str().unwrap().starts_with("A correct bot"));
    }
}
