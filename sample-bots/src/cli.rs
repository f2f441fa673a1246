//! What every sample bot binary does: parse the arguments, run the bot, map errors to
//! exit codes (0 after `quit` or end of input, 1 on a protocol or I/O error, 2 on bad
//! arguments).

use std::process::ExitCode;

use bao_sdk::Bot;

use crate::{Args, USAGE, parse_args};

/// The parsed arguments of `program`, or the exit code to stop with (help or bad arguments).
///
/// # Errors
/// The exit code: success after `--help`, 2 after printing what is wrong.
pub fn arguments(program: &str) -> Result<Args, ExitCode> {
    match parse_args(std::env::args().skip(1)) {
        Ok(args) if args.help => {
            eprintln!("{USAGE}");
            Err(ExitCode::SUCCESS)
        }
        Ok(args) => Ok(args),
        Err(message) => Err(usage_error(program, &message)),
    }
}

/// Prints `message` and the usage; exit code 2.
#[must_use]
pub fn usage_error(program: &str, message: &str) -> ExitCode {
    eprintln!("{program}: {message}\n{USAGE}");
    ExitCode::from(2)
}

/// Runs `bot` on stdin/stdout until `quit` or the end of input.
#[must_use]
pub fn serve<B: Bot>(program: &str, bot: B) -> ExitCode {
    match bao_sdk::run(bot) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{program}: {e}");
            ExitCode::FAILURE
        }
    }
}
