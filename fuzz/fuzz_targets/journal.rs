//! Arbitrary bytes → a tournament's `journal.jsonl`, as every run and `merge` read it. Nothing
//! may panic; the complete lines and the torn tail add up to at most the input, and the entries
//! read print and read back to themselves.

#![no_main]

use std::path::Path;

use bao_tournament::journal::{self, JournalEntry};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(parsed) = journal::parse(data, Path::new("journal.jsonl")) else { return };
    let total = parsed.valid_len + parsed.torn_bytes;
    assert!(total <= data.len() as u64, "{total} of {} bytes", data.len());
    assert!(parsed.valid_len == 0 || data[parsed.valid_len as usize - 1] == b'\n');
    for entry in &parsed.entries {
        let line = serde_json::to_string(entry).expect("an entry prints");
        let back: JournalEntry = serde_json::from_str(&line).expect("an entry reads back");
        assert_eq!(&back, entry);
    }
});
