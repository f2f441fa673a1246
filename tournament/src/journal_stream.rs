//! The journal read as a stream: one line at a time from a buffered reader, each entry
//! handed to the caller and dropped, so that reading a journal of a million games needs one
//! line of memory rather than every entry. Blank lines are skipped, a last line without a
//! newline is torn and ignored, any other line that is not an entry is damage (named by its
//! line). [`journal::Journal::open`] folds the stream into the running counts
//! ([`crate::tally::Tally`]) when a tournament resumes, and `merge` streams each
//! shard's journal twice; [`journal::read`] collects it (for tests).

use std::io::BufRead;
use std::path::Path;

#[cfg(doc)]
use crate::journal;
use crate::journal::{JournalEntry, JournalError};

/// What a streamed read found, besides the entries it handed over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamedJournal {
    /// Entries read.
    pub entries: u64,
    /// The length in bytes of the complete lines.
    pub valid_len: u64,
    /// Bytes of a torn last line, if any.
    pub torn_bytes: u64,
}

/// Reads entries from `reader` one line at a time, calling `each` with every entry.
///
/// # Errors
/// I/O, or a complete line that is not an entry (`path` names the file in the message).
pub fn stream(
    mut reader: impl BufRead,
    path: &Path,
    mut each: impl FnMut(JournalEntry),
) -> Result<StreamedJournal, JournalError> {
    let mut line = Vec::new();
    let mut found = StreamedJournal { entries: 0, valid_len: 0, torn_bytes: 0 };
    for number in 1.. {
        line.clear();
        let read = reader
            .read_until(b'\n', &mut line)
            .map_err(|source| JournalError::Io { path: path.to_path_buf(), reason: source })?;
        if read == 0 {
            break;
        }
        let Some(body) = line.strip_suffix(b"\n") else {
            found.torn_bytes = line.len() as u64;
            break;
        };
        if !body.iter().all(u8::is_ascii_whitespace) {
            let entry = serde_json::from_slice(body).map_err(|e| JournalError::Damaged {
                path: path.to_path_buf(),
                line: number,
                message: e.to_string(),
            })?;
            each(entry);
            found.entries += 1;
        }
        found.valid_len += line.len() as u64;
    }
    Ok(found)
}

/// Streams the journal file at `path` (a missing file is an empty journal).
///
/// # Errors
/// I/O, or a damaged line.
pub fn stream_file(path: &Path, each: impl FnMut(JournalEntry)) -> Result<StreamedJournal, JournalError> {
    match std::fs::File::open(path) {
        Ok(file) => stream(std::io::BufReader::with_capacity(64 * 1024, file), path, each),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Ok(StreamedJournal { entries: 0, valid_len: 0, torn_bytes: 0 })
        }
        Err(source) => Err(JournalError::Io { path: path.to_path_buf(), reason: source }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(game: u32, winner: &str) -> String {
        let result = if winner == "S" { "S wins (front_row_empty)" } else { "N wins (front_row_empty)" };
        format!(
            r#"{{"game":{game},"pair":{},"round":0,"pairing":0,"south_bot":{},"north_bot":{},"south":"a","north":"b","opening":0,"result":"{result}","winner":"{winner}","reason":"front_row_empty","plies":134,"duration_ms":44,"log":"games/{game:05}.jsonl","verified":true,"worst_lag_us":1020,"finished_at":"2026-12-01T09:58:27Z"}}"#,
            game / 2,
            game % 2,
            1 - game % 2
        )
    }

    /// Streams `text`, collecting the entries' game numbers.
    fn games(text: &str) -> Result<(Vec<u32>, StreamedJournal), JournalError> {
        let mut games = Vec::new();
        let found = stream(text.as_bytes(), Path::new("j.jsonl"), |e| games.push(e.game))?;
        Ok((games, found))
    }

    #[test]
    fn complete_lines_are_read_blank_ones_skipped_and_a_torn_one_ignored() {
        let complete = format!("{}\n{}\n\n{}\n", line(0, "S"), line(1, "N"), line(2, "S"));
        assert_eq!(games("").unwrap(), (vec![], StreamedJournal { entries: 0, valid_len: 0, torn_bytes: 0 }));
        let whole = complete.len() as u64;
        assert_eq!(
            games(&complete).unwrap(),
            (vec![0, 1, 2], StreamedJournal { entries: 3, valid_len: whole, torn_bytes: 0 })
        );
        let torn = format!("{complete}{}", &line(3, "N")[..40]);
        assert_eq!(
            games(&torn).unwrap(),
            (vec![0, 1, 2], StreamedJournal { entries: 3, valid_len: whole, torn_bytes: 40 })
        );
        let spaces = format!("{complete}   \n");
        assert_eq!(games(&spaces).unwrap().1.valid_len, whole + 4);
    }

    #[test]
    fn a_damaged_line_is_named() {
        let text = format!("{}\nnot json\n{}\n", line(0, "S"), line(1, "N"));
        let err = games(&text).expect_err("damaged").to_string();
        assert!(err.starts_with("j.jsonl:2: not a journal entry ("), "{err}");
        let x = format!("{}\n{}\n", line(0, "S"), line(1, "X"));
        let err = games(&x).expect_err("damaged").to_string();
        assert!(err.starts_with("j.jsonl:2: not a journal entry (winner \"X\""), "{err}");
    }

    #[test]
    fn a_file_streams_and_a_missing_one_is_empty() {
        let dir = std::env::temp_dir().join(format!("bao-journal-stream-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        let path = dir.join("journal.jsonl");
        let text: String = (0..40).map(|g| line(g, if g % 3 == 0 { "N" } else { "S" }) + "\n").collect();
        std::fs::write(&path, &text).expect("written");
        let mut norths = 0;
        let found = stream_file(&path, |e| norths += u32::from(e.winner == Some(bao_rules::Side::North)))
            .expect("streams");
        assert_eq!((found.entries, found.valid_len, norths), (40, text.len() as u64, 14));
        let missing = stream_file(&dir.join("none.jsonl"), |_| panic!("no entries")).expect("empty");
        assert_eq!(missing.entries, 0);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
