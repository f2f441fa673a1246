//! `bao-referee verify LOG...`: reads each log (or each `*.jsonl` of a folder) and reports what
//! [`bao_game::verify::verify_log`] says; across several logs, also the chains of the bot
//! processes kept from game to game ([`bao_game::process_chains`]).

use std::path::{Path, PathBuf};

use bao_game::verify::verify_log;

/// The arguments of `bao-referee verify`.
#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// The game logs (JSON Lines) to check, or folders of them (a tournament's `games/`: its
    /// `*.jsonl`, taken as every game of the run, so a kept process's chain must have no gap).
    #[arg(required = true)]
    pub log: Vec<PathBuf>,
}

/// Runs `bao-referee verify`; returns the exit code (0 verified, 1 wrong, 2 unreadable).
#[must_use]
pub fn run(args: &VerifyArgs) -> u8 {
    let (mut paths, mut complete) = (Vec::new(), false);
    for arg in &args.log {
        if arg.is_dir() {
            complete = true;
            match logs_in(arg) {
                Ok(found) => paths.extend(found),
                Err(e) => {
                    eprintln!("error: cannot read the folder {}: {e}", arg.display());
                    return crate::exit::MALFORMED;
                }
            }
        } else {
            paths.push(arg.clone());
        }
    }
    let several = paths.len() > 1;
    let mut code = crate::exit::SUCCESS;
    let mut texts = Vec::new();
    for path in &paths {
        let (verdict, text) = verify_one(path, several);
        code = code.max(verdict);
        texts.extend(text.map(|t| (path.display().to_string(), t)));
    }
    match bao_game::process_chains::check(&texts, complete) {
        Ok(chains) if chains.processes > 0 && several => crate::out::outln!(
            "ok: {} bot processes, {} games played in a kept process, every chain consistent",
            chains.processes,
            chains.kept_games
        ),
        Ok(_) => {}
        Err(e) => {
            eprintln!("error: kept processes: {e}");
            code = code.max(crate::exit::REJECTED);
        }
    }
    code
}

/// Verifies one log; returns the exit code and its text (when it could be read).
fn verify_one(path: &Path, several: bool) -> (u8, Option<String>) {
    let text = match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                eprintln!("error: {}: not UTF-8 text (byte {at})", path.display());
                return (crate::exit::MALFORMED, None);
            }
        },
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", path.display());
            return (crate::exit::MALFORMED, None);
        }
    };
    match verify_log(&text) {
        Ok(v) if several => crate::out::outln!("{}: ok: {} plies, {}", path.display(), v.plies, v.result),
        Ok(v) => crate::out::outln!("ok: {} plies, {}", v.plies, v.result),
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            let code = if e.malformed { crate::exit::MALFORMED } else { crate::exit::REJECTED };
            return (code, Some(text));
        }
    }
    (crate::exit::SUCCESS, Some(text))
}

/// The `*.jsonl` files of `dir`, sorted.
fn logs_in(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "jsonl") && path.is_file() {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}
