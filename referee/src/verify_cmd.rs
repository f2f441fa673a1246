//! `bao-referee verify LOG`: reads the file and reports what [`bao_game::verify::verify_log`] says.

use std::path::PathBuf;

use bao_game::verify::verify_log;

/// The arguments of `bao-referee verify`.
#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// The game log (JSON Lines) to check.
    pub log: PathBuf,
}

/// Runs `bao-referee verify`; returns the exit code (0 verified, 1 wrong, 2 unreadable).
#[must_use]
pub fn run(args: &VerifyArgs) -> u8 {
    let text = match std::fs::read(&args.log) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                eprintln!(
                    "error: {}: not UTF-8 text (byte {})",
                    args.log.display(),
                    e.utf8_error().valid_up_to()
                );
                return crate::exit::MALFORMED;
            }
        },
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", args.log.display());
            return crate::exit::MALFORMED;
        }
    };
    match verify_log(&text) {
        Ok(v) => {
            println!("ok: {} plies, {}", v.plies, v.result);
            crate::exit::SUCCESS
        }
        Err(e) => {
            eprintln!("{}: {e}", args.log.display());
            if e.malformed { crate::exit::MALFORMED } else { crate::exit::REJECTED }
        }
    }
}
