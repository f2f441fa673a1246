//! The process exit codes of `bao-referee`, shared by all subcommands.
//!
//! | code | meaning |
//! |------|---------|
//! | 0 | success (for `match`: the game was played, whatever its result) |
//! | 1 | rejected: an illegal move (`rules`), a log that does not verify (`verify`, `tournament`), a failed check (`check`), missing or duplicate games (`merge`) |
//! | 2 | the operator's error: a bad argument, position, move or file; a bot that cannot start (`match`, `tournament`, `check`) or never answers ready (`match`, `tournament`); an `--out` folder that is taken |
//! | 3 | the referee itself failed (an I/O error writing a log or a folder, no runtime) |
//! | 130 | interrupted (SIGINT, SIGTERM or SIGHUP, see [`crate::signals`]) before finishing |

/// Success.
pub const SUCCESS: u8 = 0;
/// A rules violation: an illegal move, a log that does not verify, a failed check.
pub const REJECTED: u8 = 1;
/// Malformed input: a bad argument, position, move, or file.
pub const MALFORMED: u8 = 2;
/// The referee itself failed.
pub const INTERNAL: u8 = 3;
/// Interrupted before finishing.
pub const INTERRUPTED: u8 = 130;

/// An error and its causes on one line, each cause once: a cause whose text the message
/// already holds (a `thiserror` message that quotes its source) is not repeated.
#[must_use]
pub fn describe(error: &anyhow::Error) -> String {
    join_causes(error.chain())
}

/// [`describe`] for a library's typed error and its sources.
#[must_use]
pub fn describe_error(error: &(dyn std::error::Error + 'static)) -> String {
    join_causes(std::iter::successors(Some(error), |e| e.source()))
}

fn join_causes<'a>(causes: impl Iterator<Item = &'a (dyn std::error::Error + 'static)>) -> String {
    let mut text = String::new();
    for cause in causes {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quoted_cause_is_printed_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("cannot read plan.json: {source}")]
        struct Quoting {
            source: std::io::Error,
        }
        let os = std::io::Error::other("Not a directory (os error 20)");
        let error = anyhow::Error::new(Quoting { source: os }).context("--out x");
        assert_eq!(describe(&error), "--out x: cannot read plan.json: Not a directory (os error 20)");
        let plain = anyhow::anyhow!("inner").context("outer");
        assert_eq!(describe(&plain), "outer: inner");
    }
}
