//! The lines exchanged with a bot during one check, bounded for the report.
//!
//! A transcript keeps the first [`HEAD_LINES`] entries and the last [`TAIL_LINES`] (a long game
//! exchanges hundreds of lines; the start and the end are what explain a failure), and cuts
//! every line to [`MAX_LINE_BYTES`].

use std::collections::VecDeque;

use serde::Serialize;

/// Entries kept from the start of the exchange.
pub const HEAD_LINES: usize = 4;
/// Entries kept from the end of the exchange.
pub const TAIL_LINES: usize = 8;
/// The longest line kept, in bytes; longer lines are cut at a character boundary.
pub const MAX_LINE_BYTES: usize = 600;

/// Who wrote a line of the exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// The checker wrote it to the bot's stdin.
    Sent,
    /// The bot wrote it to its stdout.
    Received,
    /// The checker's own remark (not a protocol line), e.g. how a game ended.
    Note,
}

impl Direction {
    /// The prefix of the line in the report for people.
    #[must_use]
    pub const fn arrow(self) -> &'static str {
        match self {
            Direction::Sent => "->",
            Direction::Received => "<-",
            Direction::Note => "--",
        }
    }
}

/// One line of the exchange.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// Who wrote it.
    pub dir: Direction,
    /// The line (without its newline), cut to [`MAX_LINE_BYTES`].
    pub line: String,
}

/// The exchange of one check: its head, the number of entries left out, and its tail.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Transcript {
    head: Vec<Entry>,
    tail: VecDeque<Entry>,
    omitted: usize,
}

/// A transcript as shown: the kept entries in order, with the number left out between them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TranscriptView {
    /// The first entries.
    pub head: Vec<Entry>,
    /// How many entries between `head` and `tail` were left out.
    pub omitted: usize,
    /// The last entries.
    pub tail: Vec<Entry>,
}

impl Transcript {
    /// Records a line.
    pub fn push(&mut self, dir: Direction, line: &str) {
        let entry = Entry { dir, line: cut(line) };
        if self.head.len() < HEAD_LINES {
            self.head.push(entry);
            return;
        }
        self.tail.push_back(entry);
        if self.tail.len() > TAIL_LINES {
            self.tail.pop_front();
            self.omitted += 1;
        }
    }

    /// The kept entries.
    #[must_use]
    pub fn view(&self) -> TranscriptView {
        TranscriptView {
            head: self.head.clone(),
            omitted: self.omitted,
            tail: self.tail.iter().cloned().collect(),
        }
    }
}

/// `line` cut to [`MAX_LINE_BYTES`] at a character boundary, saying how long it was.
fn cut(line: &str) -> String {
    let kept = bao_protocol::truncate_utf8(line, MAX_LINE_BYTES);
    if kept.len() == line.len() { line.to_owned() } else { format!("{kept}… ({} bytes)", line.len()) }
}

impl bao_game::judge::LineSink for Transcript {
    fn line(&mut self, direction: bao_game::judge::LineDirection, line: &str) {
        let dir = match direction {
            bao_game::judge::LineDirection::Sent => Direction::Sent,
            bao_game::judge::LineDirection::Received => Direction::Received,
        };
        self.push(dir, line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_head_and_the_tail_and_counts_the_rest() {
        let mut transcript = Transcript::default();
        for i in 0..20 {
            transcript
                .push(if i % 2 == 0 { Direction::Sent } else { Direction::Received }, &format!("line {i}"));
        }
        let view = transcript.view();
        let lines = |entries: &[Entry]| entries.iter().map(|e| e.line.clone()).collect::<Vec<_>>();
        assert_eq!(lines(&view.head), ["line 0", "line 1", "line 2", "line 3"]);
        assert_eq!(view.omitted, 20 - HEAD_LINES - TAIL_LINES);
        assert_eq!(view.tail.len(), TAIL_LINES);
        assert_eq!(view.tail.last().map(|e| e.line.as_str()), Some("line 19"));
        assert_eq!(view.head[1].dir, Direction::Received);
    }

    #[test]
    fn cuts_long_lines_at_a_character_boundary() {
        let mut transcript = Transcript::default();
        let long = "é".repeat(MAX_LINE_BYTES);
        transcript.push(Direction::Received, &long);
        let shown = &transcript.view().head[0].line;
        assert!(shown.len() < MAX_LINE_BYTES + 20, "{} bytes", shown.len());
        assert!(shown.ends_with(&format!("… ({} bytes)", long.len())), "{shown}");
        transcript.push(Direction::Note, "short");
        assert_eq!(transcript.view().head[1].line, "short");
    }
}
