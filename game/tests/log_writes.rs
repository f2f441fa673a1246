//! `GameLog` writes each record before `write` returns (what a referee killed mid-game leaves
//! is every record so far), and a failed write fails every later call.

use bao_game::log::{GameLog, LogRecord};

const GENUINE: &str = include_str!("data/genuine.jsonl");

/// A file in the temporary directory, removed when dropped.
struct TempFile(std::path::PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn every_record_is_in_the_file_when_write_returns() {
    let file = TempFile(std::env::temp_dir().join(format!("bao-log-writes-{}.jsonl", std::process::id())));
    let mut log = GameLog::create(&file.0).expect("the log is created");
    let records: Vec<LogRecord> =
        GENUINE.lines().map(|line| serde_json::from_str(line).expect("a genuine record")).collect();
    assert!(records.len() > 3, "the sample log has a header, plies and a result");
    for (written, record) in records.iter().enumerate() {
        log.write(record).expect("written");
        // Read back before `finish`: nothing waits in a buffer or on another thread.
        let text = std::fs::read_to_string(&file.0).expect("readable");
        assert!(text.ends_with('\n'), "only complete lines: {text:?}");
        let back: Vec<LogRecord> =
            text.lines().map(|line| serde_json::from_str(line).expect("a complete record")).collect();
        assert_eq!(back, records[..=written], "after record {written}");
    }
    log.sync().expect("synced");
    log.finish().expect("closed");
}

#[test]
fn a_failed_write_fails_every_later_call_naming_the_log() {
    let full = std::path::Path::new("/dev/full");
    if !full.exists() {
        assert!(std::env::var_os("BAO_REQUIRE_ALL").is_none(), "/dev/full is missing");
        eprintln!("skipped: no /dev/full on this machine");
        return;
    }
    let record: LogRecord =
        serde_json::from_str(GENUINE.lines().next().expect("a header")).expect("a record");
    let mut log = GameLog::create(full).expect("/dev/full opens");
    let first = log.write(&record).expect_err("the device is full").to_string();
    assert!(first.contains("/dev/full"), "{first}");
    let again = log.write(&record).expect_err("still broken").to_string();
    assert!(again.contains("/dev/full") && again.contains("an earlier write failed"), "{again}");
    assert!(log.sync().is_err());
    assert!(log.finish().expect_err("broken").to_string().contains("an earlier write failed"));
}
