//! The journal: `journal.jsonl`, one line per finished game, appended with
//! one `write` of the complete line and fsynced before the next game is
//! counted. It is the tournament's record: statistics, `--resume` and
//! `merge` are all computed from it.
//!
//! A referee killed while writing leaves at most one torn last line (no
//! newline). Reading ignores it, and opening the journal for appending cuts
//! it off, so the game is simply played again. An append that fails (a full
//! disk) is cut back to the last complete line at once, and every later append
//! first makes sure of that: no line is ever glued onto a fragment. A game interrupted by Ctrl-C
//! is journaled with the reason `aborted`: it does not count and is played
//! again on resume.
//!
//! The journal is read as a stream ([`crate::journal_stream`]): one line at a
//! time, each entry folded into the running counts and dropped, so that resuming a million
//! games needs one line of memory, not every entry.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::journal_stream::{self, StreamedJournal};

use bao_game::Reason;
use bao_rules::Side;

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
    /// `S`, `N`, or null for a draw or an abort (on disk exactly `"S"`, `"N"` or `null`;
    /// anything else is a damaged line).
    #[serde(with = "winner_letter")]
    pub winner: Option<Side>,
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
        Some(match self.winner {
            Some(Side::South) => 1.0,
            Some(Side::North) => 0.0,
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

/// The winner on disk: exactly `"S"`, `"N"` or `null` (not the other spellings [`Side`]'s
/// `FromStr` accepts), so that the journal has one form.
mod winner_letter {
    use bao_rules::Side;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[expect(clippy::ref_option, reason = "the signature serde's `with` calls")]
    pub(super) fn serialize<S: Serializer>(winner: &Option<Side>, serializer: S) -> Result<S::Ok, S::Error> {
        winner.serialize(serializer)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Side>, D::Error> {
        let Some(text) = Option::<std::borrow::Cow<'de, str>>::deserialize(deserializer)? else {
            return Ok(None);
        };
        Side::from_letter_text(&text).map(Some).ok_or_else(|| {
            serde::de::Error::custom(format!("winner {text:?}: expected \"S\", \"N\" or null"))
        })
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

pub use crate::error::JournalError;

/// Parses a journal; a last line without a newline is torn and ignored. (This holds every
/// entry: the tests use it; a tournament and `merge` stream their journals: [`Journal::open`],
/// [`journal_stream::stream_file`].)
///
/// # Errors
/// A complete line that is not an entry (`path` names the file in the message).
pub fn parse(text: &[u8], path: &Path) -> Result<ParsedJournal, JournalError> {
    let mut entries = Vec::new();
    let found = journal_stream::stream(text, path, |entry| entries.push(entry))?;
    Ok(ParsedJournal { entries, valid_len: found.valid_len, torn_bytes: found.torn_bytes })
}

/// Reads a journal file, holding every entry (a missing file is an empty journal).
///
/// # Errors
/// I/O, or a damaged line.
pub fn read(path: &Path) -> Result<ParsedJournal, JournalError> {
    let mut entries = Vec::new();
    let found = journal_stream::stream_file(path, |entry| entries.push(entry))?;
    Ok(ParsedJournal { entries, valid_len: found.valid_len, torn_bytes: found.torn_bytes })
}

/// The journal, open for appending.
#[derive(Debug)]
pub struct Journal {
    file: File,
    path: PathBuf,
    /// The length of the complete lines: the file's length unless an append failed.
    len: u64,
    /// An append failed and the file may hold a fragment past `len`.
    dirty: bool,
}

impl Journal {
    /// Reads the journal at `path` as a stream, handing every entry to `each` in order, cuts
    /// off a torn last line, and opens it for appending.
    ///
    /// # Errors
    /// I/O, or a damaged line.
    pub fn open(
        path: &Path,
        each: impl FnMut(JournalEntry),
    ) -> Result<(Journal, StreamedJournal), JournalError> {
        let io = |reason| JournalError::Io { path: path.to_path_buf(), reason };
        let found = journal_stream::stream_file(path, each)?;
        let file = OpenOptions::new().create(true).append(true).open(path).map_err(io)?;
        if found.torn_bytes > 0 {
            file.set_len(found.valid_len).map_err(io)?;
            file.sync_all().map_err(io)?;
        }
        crate::folder::sync_dir(path.parent().unwrap_or(Path::new("."))).map_err(io)?;
        let len = found.valid_len;
        Ok((Journal { file, path: path.to_path_buf(), len, dirty: false }, found))
    }

    /// Appends one entry as one complete line and fsyncs it. When the write or the fsync fails,
    /// the file is cut back to its complete lines before the error is returned (and again
    /// before the next append, if that failed too).
    ///
    /// # Errors
    /// I/O.
    pub fn append(&mut self, entry: &JournalEntry) -> Result<(), JournalError> {
        let mut line = serde_json::to_vec(entry).map_err(|e| self.io(std::io::Error::other(e)))?;
        line.push(b'\n');
        self.repair()?;
        let written = self.file.write_all(&line).and_then(|()| self.file.sync_data());
        if let Err(e) = written {
            self.dirty = true;
            // Best effort now; `repair` runs again before the next append.
            let _ = self.repair();
            return Err(self.io(e));
        }
        self.len += line.len() as u64;
        Ok(())
    }

    /// Cuts a fragment left by a failed append.
    fn repair(&mut self) -> Result<(), JournalError> {
        if !self.dirty {
            return Ok(());
        }
        self.file.set_len(self.len).and_then(|()| self.file.sync_all()).map_err(|e| self.io(e))?;
        self.dirty = false;
        Ok(())
    }

    fn io(&self, reason: std::io::Error) -> JournalError {
        JournalError::Io { path: self.path.clone(), reason }
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
        winner: Option<Side>,
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
            winner,
            reason,
            plies: 10,
            duration_ms: 5,
            log: crate::folder::OutDir::relative_log(game),
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
        assert_eq!(entry(0, 0, 1, Some(Side::South), Reason::FrontRowEmpty).score_of(0), Some(1.0));
        assert_eq!(entry(0, 0, 1, Some(Side::South), Reason::FrontRowEmpty).score_of(1), Some(0.0));
        assert_eq!(entry(0, 0, 1, None, Reason::MaxPlies).score_of(1), Some(0.5));
        assert_eq!(entry(0, 0, 1, None, Reason::Aborted).score_of(0), None);
        assert_eq!(entry(0, 0, 1, Some(Side::North), Reason::Timeout).score_of(2), None);
    }

    #[test]
    fn appended_entries_read_back() {
        let path = temp("append");
        let _ = std::fs::remove_file(&path);
        let (mut journal, found) = Journal::open(&path, |_| panic!("no entries")).unwrap();
        assert_eq!(found.entries, 0);
        let a = entry(0, 0, 1, Some(Side::South), Reason::FrontRowEmpty);
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
        let a = entry(0, 0, 1, Some(Side::South), Reason::FrontRowEmpty);
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

        let mut seen = Vec::new();
        let (mut journal, found) = Journal::open(&path, |e| seen.push(e)).unwrap();
        assert_eq!((seen, found.valid_len, found.torn_bytes), (vec![a.clone()], whole, parsed.torn_bytes));
        assert_eq!(std::fs::metadata(&path).unwrap().len(), whole, "the torn line is cut off");
        let c = entry(1, 1, 0, Some(Side::North), Reason::NoLegalMoves);
        journal.append(&c).unwrap();
        assert_eq!(read(&path).unwrap().entries, vec![a, c]);
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn a_damaged_complete_line_is_an_error_naming_it() {
        let a = serde_json::to_string(&entry(0, 0, 1, Some(Side::South), Reason::FrontRowEmpty)).unwrap();
        let text = format!("{a}\n{{\"game\": oops}}\n{a}\n");
        let err = parse(text.as_bytes(), Path::new("j.jsonl")).unwrap_err().to_string();
        assert!(err.starts_with("j.jsonl:2: not a journal entry"), "{err}");
        // Blank lines are tolerated; a missing file is an empty journal.
        assert_eq!(parse(format!("{a}\n\n").as_bytes(), Path::new("j")).unwrap().entries.len(), 1);
        assert!(read(Path::new("/nonexistent/journal.jsonl")).unwrap().entries.is_empty());
    }

    #[test]
    fn the_winner_is_s_n_or_null_and_nothing_else() {
        let line = serde_json::to_string(&entry(0, 0, 1, Some(Side::North), Reason::FrontRowEmpty)).unwrap();
        assert!(line.contains(r#""winner":"N""#), "{line}");
        let draw = serde_json::to_string(&entry(1, 1, 0, None, Reason::MaxPlies)).unwrap();
        assert!(draw.contains(r#""winner":null"#), "{draw}");
        for bad in [r#""X""#, r#""south""#, r#""s""#, "1"] {
            let text =
                format!("{draw}\n{}\n", line.replace(r#""winner":"N""#, &format!(r#""winner":{bad}"#)));
            let err = parse(text.as_bytes(), Path::new("j.jsonl")).unwrap_err().to_string();
            assert!(
                err.starts_with("j.jsonl:2: not a journal entry (winner")
                    || err.starts_with("j.jsonl:2: not a journal entry (invalid type"),
                "{err}"
            );
        }
        let err = parse(
            format!("{}\n", line.replace(r#""winner":"N""#, r#""winner":"X""#)).as_bytes(),
            Path::new("j.jsonl"),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains(r#"winner "X": expected "S", "N" or null"#), "{err}");
    }

    #[test]
    fn counting_skips_aborts_and_finds_duplicates() {
        let entries = vec![
            entry(0, 0, 1, None, Reason::Aborted),
            entry(0, 0, 1, Some(Side::South), Reason::FrontRowEmpty),
            entry(1, 1, 0, Some(Side::South), Reason::FrontRowEmpty),
            entry(1, 1, 0, Some(Side::North), Reason::FrontRowEmpty),
        ];
        let (by_game, duplicates) = counted_by_game(&entries);
        assert_eq!(by_game.keys().copied().collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(duplicates, vec![1]);
    }

    /// A small tmpfs mounted at a fresh folder (unmounted when dropped), or why there is none.
    struct SmallDisk {
        dir: PathBuf,
    }

    impl SmallDisk {
        fn mount(name: &str, bytes: u64) -> Result<SmallDisk, String> {
            if !nix::unistd::geteuid().is_root() {
                return Err("mounting a tmpfs needs root".to_owned());
            }
            let dir = std::env::temp_dir().join(format!("bao-small-disk-{name}-{}", std::process::id()));
            std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            let options = format!("size={bytes}");
            nix::mount::mount(
                Some("tmpfs"),
                &dir,
                Some("tmpfs"),
                nix::mount::MsFlags::empty(),
                Some(options.as_str()),
            )
            .map_err(|e| format!("cannot mount a tmpfs on {}: {e}", dir.display()))?;
            Ok(SmallDisk { dir })
        }
    }

    impl Drop for SmallDisk {
        fn drop(&mut self) {
            let _ = nix::mount::umount(&self.dir);
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    #[test]
    fn a_disk_that_fills_and_frees_again_leaves_only_complete_lines() {
        let disk = match SmallDisk::mount("journal", 64 * 1024) {
            Ok(disk) => disk,
            Err(why) if std::env::var_os("BAO_REQUIRE_ALL").is_some_and(|v| v == "1") => {
                panic!("BAO_REQUIRE_ALL=1: {why}")
            }
            Err(why) => {
                eprintln!("skipped: a_disk_that_fills_and_frees_again_leaves_only_complete_lines: {why}");
                return;
            }
        };
        let path = disk.dir.join("journal.jsonl");
        let (mut journal, _) = Journal::open(&path, drop).unwrap();
        let mut expected: Vec<JournalEntry> =
            (0..3).map(|g| entry(g, 0, 1, Some(Side::South), Reason::FrontRowEmpty)).collect();
        for e in &expected {
            journal.append(e).unwrap();
        }
        // Fill the rest of the disk.
        let filler = disk.dir.join("filler");
        let mut file = File::create(&filler).unwrap();
        let chunk = vec![b'x'; 1024];
        while file.write_all(&chunk).is_ok() {}
        while file.write_all(b"x").is_ok() {}
        drop(file);
        // Appends fail once the journal's last page is full (a partial line may have been
        // written): each failure is cut back to the complete lines.
        let mut failures = 0;
        for g in 3..200 {
            let next = entry(g, 0, 1, None, Reason::MaxPlies);
            match journal.append(&next) {
                Ok(()) => {
                    assert_eq!(failures, 0, "game {g} appended after a failure, with the disk still full");
                    expected.push(next);
                }
                Err(e) => {
                    failures += 1;
                    let message = e.to_string();
                    assert!(message.starts_with(&path.display().to_string()), "{message}");
                    assert_eq!(message.matches("os error 28").count(), 1, "said once: {message}");
                }
            }
            let text = std::fs::read(&path).unwrap();
            assert!(text.ends_with(b"\n"), "a fragment was left after game {g}");
            if failures == 3 {
                break;
            }
        }
        assert_eq!(failures, 3, "the disk never filled");
        // Space is back: the next append is a line of its own.
        std::fs::remove_file(&filler).unwrap();
        let later = entry(500, 1, 0, Some(Side::North), Reason::NoLegalMoves);
        journal.append(&later).unwrap();
        drop(journal);
        expected.push(later);
        let parsed = read(&path).unwrap();
        assert_eq!(parsed.entries, expected);
        assert_eq!(parsed.torn_bytes, 0);
    }

    proptest::proptest! {
        /// The corpus-free smoke test of the `journal` fuzz target.
        #[test]
        fn any_bytes_parse_without_panicking_and_add_up(
            edits in proptest::collection::vec((0usize..2000, proptest::prelude::any::<u8>()), 0..8),
            cut in 0usize..2000,
        ) {
            let mut bytes = Vec::new();
            for g in 0..3 {
                bytes.extend(serde_json::to_vec(&entry(g, 0, 1, Some(Side::South), Reason::FrontRowEmpty)).unwrap());
                bytes.push(b'\n');
            }
            for (at, byte) in edits {
                let at = at % bytes.len();
                bytes[at] = byte;
            }
            bytes.truncate(bytes.len() - cut % bytes.len());
            if let Ok(parsed) = parse(&bytes, Path::new("journal.jsonl")) {
                proptest::prop_assert!(parsed.valid_len + parsed.torn_bytes <= bytes.len() as u64);
                proptest::prop_assert!(parsed.valid_len == 0 || bytes[parsed.valid_len as usize - 1] == b'\n');
            }
        }
    }
}
