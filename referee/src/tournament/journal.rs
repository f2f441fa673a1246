//! The journal: `journal.jsonl`, one line per finished game, appended with
//! one `write` of the complete line and fsynced before the next game is
//! counted. It is the tournament's record: statistics, `--resume` and
//! `merge` are all computed from it.
//!
//! A referee killed while writing leaves at most one torn last line (no
//! newline). Reading ignores it, and opening the journal for appending cuts
//! it off, so the game is simply played again. A game interrupted by Ctrl-C
//! is journaled with the reason `aborted`: it does not count and is played
//! again on resume.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use bao_game::Reason;

/// One finished (or aborted) game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// The game's number in the schedule.
    pub game: u32,
    /// Its game pair.
    pub pair: u32,
    /// Its round.
    pub round: u32,
    /// Its pairing.
    pub pairing: u32,
    /// The South bot (index into the plan's bots).
    pub south_bot: usize,
    /// The North bot.
    pub north_bot: usize,
    /// The South bot's name.
    pub south: String,
    /// The North bot's name.
    pub north: String,
    /// The opening (index into the plan's openings).
    pub opening: u32,
    /// `S wins (front_row_empty)`, `draw (max_plies)`, `aborted`.
    pub result: String,
    /// `S`, `N`, or null for a draw or an abort.
    pub winner: Option<String>,
    /// Why the game ended.
    pub reason: Reason,
    /// Plies played.
    pub plies: u32,
    /// Wall time of the game, in milliseconds.
    pub duration_ms: u64,
    /// The game's log, relative to the output folder.
    pub log: String,
    /// Whether the log verified (`bao-referee verify`).
    pub verified: bool,
    /// Why it did not verify.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify_error: Option<String>,
    /// The worst event-loop lag of the referee during the game, in microseconds.
    pub worst_lag_us: u64,
    /// When the game finished, RFC 3339 UTC.
    pub finished_at: String,
}

impl JournalEntry {
    /// Whether the game counts (it was not aborted).
    #[must_use]
    pub fn counts(&self) -> bool {
        self.reason != Reason::Aborted
    }

    /// South's score: 1 for a win, 0.5 for a draw, 0 for a loss; `None` when aborted.
    #[must_use]
    pub fn south_score(&self) -> Option<f64> {
        if !self.counts() {
            return None;
        }
        Some(match self.winner.as_deref() {
            Some("S") => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        })
    }

    /// The score of bot `bot` in this game, if it played and the game counts.
    #[must_use]
    pub fn score_of(&self, bot: usize) -> Option<f64> {
        let south = self.south_score()?;
        if bot == self.south_bot {
            Some(south)
        } else if bot == self.north_bot {
            Some(1.0 - south)
        } else {
            None
        }
    }
}

/// A journal's text, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedJournal {
    /// The complete lines, in order.
    pub entries: Vec<JournalEntry>,
    /// The length in bytes of the complete lines.
    pub valid_len: u64,
    /// Bytes of a torn last line (written when the referee was killed), if any.
    pub torn_bytes: u64,
}

/// Why a journal cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// I/O.
    #[error("{path}: {source}")]
    Io {
        /// The journal.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A complete line that is not an entry: the journal was damaged.
    #[error("{path}:{line}: not a journal entry ({message}); the journal is damaged")]
    Damaged {
        /// The journal.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        /// The parser's message.
        message: String,
    },
}

/// Parses a journal; a last line without a newline is torn and ignored.
///
/// # Errors
/// A complete line that is not an entry (`path` names the file in the message).
pub fn parse(text: &[u8], path: &Path) -> Result<ParsedJournal, JournalError> {
    let mut entries = Vec::new();
    let mut valid_len = 0u64;
    for (i, line) in text.split_inclusive(|&b| b == b'\n').enumerate() {
        let Some(body) = line.strip_suffix(b"\n") else {
            return Ok(ParsedJournal { entries, valid_len, torn_bytes: line.len() as u64 });
        };
        if !body.iter().all(u8::is_ascii_whitespace) {
            let entry = serde_json::from_slice(body).map_err(|e| JournalError::Damaged {
                path: path.to_path_buf(),
                line: i + 1,
                message: e.to_string(),
            })?;
            entries.push(entry);
        }
        valid_len += line.len() as u64;
    }
    Ok(ParsedJournal { entries, valid_len, torn_bytes: 0 })
}

/// Reads a journal file (a missing file is an empty journal).
///
/// # Errors
/// I/O, or a damaged line.
pub fn read(path: &Path) -> Result<ParsedJournal, JournalError> {
    match std::fs::read(path) {
        Ok(bytes) => parse(&bytes, path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Ok(ParsedJournal { entries: Vec::new(), valid_len: 0, torn_bytes: 0 })
        }
        Err(source) => Err(JournalError::Io { path: path.to_path_buf(), source }),
    }
}

/// The journal, open for appending.
#[derive(Debug)]
pub struct Journal {
    file: File,
    path: PathBuf,
}

impl Journal {
    /// Reads the journal at `path`, cuts off a torn last line, and opens it for appending.
    ///
    /// # Errors
    /// I/O, or a damaged line.
    pub fn open(path: &Path) -> Result<(Journal, ParsedJournal), JournalError> {
        let io = |source| JournalError::Io { path: path.to_path_buf(), source };
        let parsed = read(path)?;
        let file = OpenOptions::new().create(true).append(true).open(path).map_err(io)?;
        if parsed.torn_bytes > 0 {
            file.set_len(parsed.valid_len).map_err(io)?;
            file.sync_all().map_err(io)?;
        }
        crate::tournament::folder::sync_dir(path.parent().unwrap_or(Path::new("."))).map_err(io)?;
        Ok((Journal { file, path: path.to_path_buf() }, parsed))
    }

    /// Appends one entry as one complete line and fsyncs it.
    ///
    /// # Errors
    /// I/O.
    pub fn append(&mut self, entry: &JournalEntry) -> Result<(), JournalError> {
        let io = |source| JournalError::Io { path: self.path.clone(), source };
        let mut line = serde_json::to_vec(entry).map_err(|e| io(std::io::Error::other(e)))?;
        line.push(b'\n');
        self.file.write_all(&line).map_err(io)?;
        self.file.sync_data().map_err(io)
    }
}

/// The counted entries by game number, with the games counted more than once.
#[must_use]
pub fn counted_by_game(
    entries: &[JournalEntry],
) -> (std::collections::BTreeMap<u32, &JournalEntry>, Vec<u32>) {
    let mut by_game = std::collections::BTreeMap::new();
    let mut duplicates = Vec::new();
    for entry in entries.iter().filter(|e| e.counts()) {
        if by_game.insert(entry.game, entry).is_some() {
            duplicates.push(entry.game);
        }
    }
    (by_game, duplicates)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A journal entry for tests.
    pub(crate) fn entry(
        game: u32,
        south_bot: usize,
        north_bot: usize,
        winner: Option<&str>,
        reason: Reason,
    ) -> JournalEntry {
        JournalEntry {
            game,
            pair: game / 2,
            round: 0,
            pairing: 0,
            south_bot,
            north_bot,
            south: format!("bot{south_bot}"),
            north: format!("bot{north_bot}"),
            opening: 0,
            result: String::new(),
            winner: winner.map(str::to_owned),
            reason,
            plies: 10,
            duration_ms: 5,
            log: crate::tournament::folder::OutDir::relative_log(game),
            verified: true,
            verify_error: None,
            worst_lag_us: 0,
            finished_at: "2025-01-01T00:00:00Z".into(),
        }
    }

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("bao-journal-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("journal.jsonl")
    }

    #[test]
    fn scores() {
        assert_eq!(entry(0, 0, 1, Some("S"), Reason::FrontRowEmpty).score_of(0), Some(1.0));
        assert_eq!(entry(0, 0, 1, Some("S"), Reason::FrontRowEmpty).score_of(1), Some(0.0));
        assert_eq!(entry(0, 0, 1, None, Reason::MaxPlies).score_of(1), Some(0.5));
        assert_eq!(entry(0, 0, 1, None, Reason::Aborted).score_of(0), None);
        assert_eq!(entry(0, 0, 1, Some("N"), Reason::Timeout).score_of(2), None);
    }

    #[test]
    fn appended_entries_read_back() {
        let path = temp("append");
        let _ = std::fs::remove_file(&path);
        let (mut journal, parsed) = Journal::open(&path).unwrap();
        assert!(parsed.entries.is_empty());
        let a = entry(0, 0, 1, Some("S"), Reason::FrontRowEmpty);
        let b = entry(1, 1, 0, None, Reason::MaxPlies);
        journal.append(&a).unwrap();
        journal.append(&b).unwrap();
        drop(journal);
        assert_eq!(read(&path).unwrap().entries, vec![a, b]);
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn a_torn_last_line_is_ignored_and_cut_off() {
        let path = temp("torn");
        let a = entry(0, 0, 1, Some("S"), Reason::FrontRowEmpty);
        let mut text = serde_json::to_string(&a).unwrap();
        text.push('\n');
        let whole = text.len() as u64;
        let b = serde_json::to_string(&entry(1, 1, 0, None, Reason::MaxPlies)).unwrap();
        text.push_str(&b[..b.len() / 2]);
        std::fs::write(&path, &text).unwrap();

        let parsed = read(&path).unwrap();
        assert_eq!(parsed.entries, vec![a.clone()]);
        assert_eq!(parsed.valid_len, whole);
        assert!(parsed.torn_bytes > 0);

        let (mut journal, _) = Journal::open(&path).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), whole, "the torn line is cut off");
        let c = entry(1, 1, 0, Some("N"), Reason::NoLegalMoves);
        journal.append(&c).unwrap();
        assert_eq!(read(&path).unwrap().entries, vec![a, c]);
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn a_damaged_complete_line_is_an_error_naming_it() {
        let a = serde_json::to_string(&entry(0, 0, 1, Some("S"), Reason::FrontRowEmpty)).unwrap();
        let text = format!("{a}\n{{\"game\": oops}}\n{a}\n");
        let err = parse(text.as_bytes(), Path::new("j.jsonl")).unwrap_err().to_string();
        assert!(err.starts_with("j.jsonl:2: not a journal entry"), "{err}");
        // Blank lines are tolerated; a missing file is an empty journal.
        assert_eq!(parse(format!("{a}\n\n").as_bytes(), Path::new("j")).unwrap().entries.len(), 1);
        assert!(read(Path::new("/nonexistent/journal.jsonl")).unwrap().entries.is_empty());
    }

    #[test]
    fn counting_skips_aborts_and_finds_duplicates() {
        let entries = vec![
            entry(0, 0, 1, None, Reason::Aborted),
            entry(0, 0, 1, Some("S"), Reason::FrontRowEmpty),
            entry(1, 1, 0, Some("S"), Reason::FrontRowEmpty),
            entry(1, 1, 0, Some("N"), Reason::FrontRowEmpty),
        ];
        let (by_game, duplicates) = counted_by_game(&entries);
        assert_eq!(by_game.keys().copied().collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(duplicates, vec![1]);
    }
}
