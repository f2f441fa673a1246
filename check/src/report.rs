//! The report: lines for people as the checks finish, or one JSON object at the end.

use std::fmt::Write as _;

use serde_json::json;

use super::result::{CheckResult, Status};
use super::settings::Settings;
use super::transcript::Entry;

/// The indentation of the details under a failed check.
const INDENT: &str = "    ";

/// The first line for people: what is checked, and how.
#[must_use]
pub fn header(settings: &Settings, checks: usize) -> String {
    let command = shell_words::join(settings.spec.command_line());
    let dir = settings.spec.dir.as_ref().map(|d| format!(" in {}", d.display())).unwrap_or_default();
    format!(
        "Checking `{command}`{dir}: {checks} checks ({}, margin {} ms, startup {} ms)",
        settings.time_control_text(),
        settings.time.margin.as_millis(),
        settings.time.startup.as_millis()
    )
}

/// One check for people: `PASS name`, or `FAIL name: why` followed by what a correct bot
/// does, the exchange and the end of the bot's stderr, indented.
#[must_use]
pub fn human(result: &CheckResult) -> String {
    let mut out = String::new();
    let _ = write!(out, "{} {}", result.status.label(), result.name);
    if let Some(why) = &result.why {
        let _ = write!(out, ": {why}");
    }
    if let Some(note) = &result.note {
        let _ = write!(out, " ({note})");
    }
    if result.status != Status::Fail {
        return out;
    }
    let _ = write!(out, "\n{INDENT}expected: {}", result.expected);
    let view = &result.exchange;
    if !view.head.is_empty() {
        let _ =
            write!(out, "\n{INDENT}exchange (-> sent to the bot, <- received from it, -- checker's note):");
        let line = |out: &mut String, entry: &Entry| {
            let _ = write!(out, "\n{INDENT}  {} {}", entry.dir.arrow(), entry.line);
        };
        view.head.iter().for_each(|entry| line(&mut out, entry));
        if view.omitted > 0 {
            let _ = write!(out, "\n{INDENT}  ... {} lines not shown ...", view.omitted);
        }
        view.tail.iter().for_each(|entry| line(&mut out, entry));
    }
    if let Some(stderr) = &result.stderr_tail {
        let _ = write!(out, "\n{INDENT}the end of the bot's stderr:");
        for line in stderr.lines() {
            let _ = write!(out, "\n{INDENT}  | {line}");
        }
    }
    out
}

/// The last line for people: how many passed, and which did not.
#[must_use]
pub fn summary(results: &[CheckResult]) -> String {
    let count = |status: Status| results.iter().filter(|r| r.status == status).count();
    let names = |status: Status| {
        results.iter().filter(|r| r.status == status).map(|r| r.name.name()).collect::<Vec<_>>().join(", ")
    };
    let (failed, skipped) = (count(Status::Fail), count(Status::Skip));
    if failed == 0 && skipped == 0 {
        return format!("All {} checks passed.", results.len());
    }
    let mut out = format!("{} of {} checks passed", count(Status::Pass), results.len());
    if failed > 0 {
        let _ = write!(out, "; failed: {}", names(Status::Fail));
    }
    if skipped > 0 {
        let _ = write!(out, "; skipped: {}", names(Status::Skip));
    }
    out.push('.');
    out
}

/// Everything as one JSON object.
#[must_use]
pub fn json(settings: &Settings, results: &[CheckResult]) -> serde_json::Value {
    let count = |status: Status| results.iter().filter(|r| r.status == status).count();
    let millis = |d: std::time::Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    json!({
        "command": settings.spec.command_line(),
        "dir": settings.spec.dir.as_ref().map(|d| d.display().to_string()),
        "move_time_ms": settings.time.move_time.map(millis),
        "base_ms": settings.time.base.map(millis),
        "increment_ms": millis(settings.time.increment),
        "margin_ms": millis(settings.time.margin),
        "startup_ms": millis(settings.time.startup),
        "all_passed": results.iter().all(|r| r.status == Status::Pass),
        "passed": count(Status::Pass),
        "failed": count(Status::Fail),
        "skipped": count(Status::Skip),
        "checks": results,
    })
}

#[cfg(test)]
mod tests {
    use super::super::catalog::CheckKind;
    use super::super::failure::Failure;
    use super::super::session::Finished;
    use super::super::transcript::Direction;
    use super::*;

    fn failed() -> CheckResult {
        let mut finished = Finished::default();
        finished.transcript.push(Direction::Sent, r#"{"type":"hello"}"#);
        finished.transcript.push(Direction::Received, r#"{"type":"move","id":1,"move":"A1<"}"#);
        finished.stderr.kept = b"some log\nTraceback: boom\n".to_vec();
        CheckResult::ran(
            CheckKind::Takasia,
            Err(Failure::new("the move \"A1<\" is illegal")),
            &finished,
            std::time::Duration::from_millis(5),
        )
    }

    #[test]
    fn a_failure_shows_why_what_is_expected_the_exchange_and_stderr() {
        let text = human(&failed());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "FAIL takasia: the move \"A1<\" is illegal");
        assert!(lines[1].starts_with("    expected: A correct bot never starts a move"), "{text}");
        assert!(text.contains(
            "\n      -> {\"type\":\"hello\"}\n      <- {\"type\":\"move\",\"id\":1,\"move\":\"A1<\"}"
        ));
        assert!(text.ends_with("      | some log\n      | Traceback: boom"), "{text}");
    }

    #[test]
    fn a_pass_is_one_line_and_the_summary_names_the_failures() {
        let pass = CheckResult::ran(CheckKind::Handshake, Ok(()), &Finished::default(), Default::default());
        assert_eq!(human(&pass), "PASS handshake");
        let finished = Finished { note: Some("one game per process".to_owned()), ..Finished::default() };
        let noted = CheckResult::ran(CheckKind::TwoGames, Ok(()), &finished, Default::default());
        assert_eq!(human(&noted), "PASS two-games (one game per process)");
        let failed_noted =
            CheckResult::ran(CheckKind::TwoGames, Err(Failure::new("no")), &finished, Default::default());
        assert_eq!(failed_noted.note, None, "a note is for a pass only");
        let skip = CheckResult::skipped(CheckKind::LongGame, "not run");
        assert_eq!(human(&skip), "SKIP long-game: not run");
        assert_eq!(summary(std::slice::from_ref(&pass)), "All 1 checks passed.");
        assert_eq!(
            summary(&[pass, failed(), skip]),
            "1 of 3 checks passed; failed: takasia; skipped: long-game."
        );
    }
}
