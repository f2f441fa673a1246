//! The journal read as a stream (issue 10, a prototype not yet wired in): one line at a time
//! from a buffered reader, each entry handed to the caller and dropped, so that reading a
//! journal of a million games needs one line of memory rather than every entry (today's
//! [`journal::read`] holds the file's bytes and a `Vec` of all entries: 2 KB per game when
//! resuming). Same rules as [`journal::parse`]: blank lines are skipped, a last line without
//! a newline is torn and ignored, any other line that is not an entry is damage.
//!
//! Wiring (for `execute.rs`, `results.rs`, `mod.rs`): fold the stream into a [`Tally`] and
//! the results' sums instead of keeping `previous: Vec<JournalEntry>`; keep per game only
//! what resume needs (which games are counted), e.g. [`Tally`]'s set of counted games.

use std::io::BufRead;
use std::path::Path;

use crate::tournament::journal::{self, JournalEntry, JournalError};
use crate::tournament::tally::Tally;

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

/// The tally of a journal file, read as a stream.
///
/// # Errors
/// I/O, or a damaged line.
pub fn tally_file(path: &Path, names: Vec<String>) -> Result<(Tally, StreamedJournal), JournalError> {
    let mut tally = Tally::new(names);
    let found = stream_file(path, |entry| tally.add(&entry))?;
    Ok((tally, found))
}

/// [`journal::parse`]'s answer for the same bytes, through the stream (for comparison).
///
/// # Errors
/// As [`stream`].
pub fn parse_by_streaming(text: &[u8], path: &Path) -> Result<journal::ParsedJournal, JournalError> {
    let mut entries = Vec::new();
    let found = stream(text, path, |entry| entries.push(entry))?;
    Ok(journal::ParsedJournal { entries, valid_len: found.valid_len, torn_bytes: found.torn_bytes })
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

    #[test]
    fn the_stream_reads_what_parse_reads() {
        let path = Path::new("journal.jsonl");
        let complete = format!("{}\n{}\n\n{}\n", line(0, "S"), line(1, "N"), line(2, "S"));
        for text in [
            String::new(),
            complete.clone(),
            format!("{complete}{}", &line(3, "N")[..40]),
            format!("{complete}   \n"),
        ] {
            let streamed = parse_by_streaming(text.as_bytes(), path).expect("streams");
            let parsed = journal::parse(text.as_bytes(), path).expect("parses");
            assert_eq!(streamed, parsed, "{text:?}");
        }
        let torn = format!("{complete}{}", &line(3, "N")[..40]);
        assert_eq!(parse_by_streaming(torn.as_bytes(), path).expect("streams").torn_bytes, 40);
    }

    #[test]
    fn a_damaged_line_is_named_as_parse_names_it() {
        let path = Path::new("j.jsonl");
        let text = format!("{}\nnot json\n{}\n", line(0, "S"), line(1, "N"));
        let streamed = parse_by_streaming(text.as_bytes(), path).expect_err("damaged");
        let parsed = journal::parse(text.as_bytes(), path).expect_err("damaged");
        assert_eq!(streamed.to_string(), parsed.to_string());
        assert!(streamed.to_string().contains("j.jsonl:2"), "{streamed}");
    }

    #[test]
    fn a_streamed_tally_equals_the_tally_of_all_entries() {
        let dir = std::env::temp_dir().join(format!("bao-journal-stream-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        let path = dir.join("journal.jsonl");
        let text: String = (0..40).map(|g| line(g, if g % 3 == 0 { "N" } else { "S" }) + "\n").collect();
        std::fs::write(&path, &text).expect("written");
        let names = vec!["a".to_owned(), "b".to_owned()];
        let (streamed, found) = tally_file(&path, names.clone()).expect("streams");
        let all = journal::read(&path).expect("reads");
        let whole = Tally::of(names, &all.entries);
        assert_eq!(found.entries, 40);
        assert_eq!(format!("{:?}", streamed.first_pairing(None)), format!("{:?}", whole.first_pairing(None)));
        let missing = stream_file(&dir.join("none.jsonl"), |_| panic!("no entries")).expect("empty");
        assert_eq!(missing.entries, 0);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
