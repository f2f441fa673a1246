//! `bao-referee record LOG`: the game of a log as a readable record ([`bao_game::record`]),
//! `--json` as structured data. The log is verified first (as `bao-referee verify` does): a
//! record is only printed for a game whose every move the rules engine accepts.

use std::path::PathBuf;

use bao_game::log::LogRecord;
use bao_game::record::{build, render};
use bao_game::verify::verify_log;

/// The arguments of `bao-referee record`.
#[derive(Debug, clap::Args)]
pub struct RecordArgs {
    /// The game log (JSON Lines).
    pub log: PathBuf,
    /// Print one JSON object (players, start, moves, result) instead of the text record.
    #[arg(long)]
    pub json: bool,
}

/// Runs `bao-referee record`; returns the exit code (0 printed, 1 a log that does not verify,
/// 2 an unreadable or malformed log).
#[must_use]
pub fn run(args: &RecordArgs) -> u8 {
    let path = args.log.display();
    let text = match std::fs::read_to_string(&args.log) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("error: cannot read {path}: {e}");
            return crate::exit::MALFORMED;
        }
    };
    if let Err(e) = verify_log(&text) {
        eprintln!("error: {path}: {e}");
        return if e.malformed { crate::exit::MALFORMED } else { crate::exit::REJECTED };
    }
    let records: Result<Vec<LogRecord>, _> =
        text.lines().filter(|l| !l.trim().is_empty()).map(serde_json::from_str::<LogRecord>).collect();
    let record = match records.map_err(|e| e.to_string()).and_then(|r| build(&r)) {
        Ok(record) => record,
        Err(e) => {
            eprintln!("error: {path}: {e}");
            return crate::exit::MALFORMED;
        }
    };
    if args.json {
        match serde_json::to_string(&record) {
            Ok(line) => crate::out::line(&line),
            Err(e) => {
                eprintln!("error: {e}");
                return crate::exit::INTERNAL;
            }
        }
    } else {
        crate::out::text(&render(&record));
    }
    crate::exit::SUCCESS
}
