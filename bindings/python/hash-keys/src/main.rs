//! `hash-keys`: the Rust engine's Zobrist key of every position read on stdin (one
//! position per line, the notation of docs/rules.md), one decimal number per line on
//! stdout, in order. The Python tests compare `bao.Position.hash_key()` with it: the
//! expected keys come from `bao_rules::Position::hash_key` itself, not from a table.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use bao_rules::Position;

fn main() -> ExitCode {
    let stdin = std::io::stdin().lock();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (number, line) in stdin.lines().enumerate() {
        let text = match line {
            Ok(text) => text,
            Err(e) => {
                eprintln!("error: reading stdin: {e}");
                return ExitCode::from(2);
            }
        };
        match text.parse::<Position>() {
            Ok(position) => {
                if let Err(e) = writeln!(out, "{}", position.hash_key()) {
                    eprintln!("error: writing stdout: {e}");
                    return ExitCode::from(2);
                }
            }
            Err(e) => {
                eprintln!("error: line {}: {text:?}: {e}", number + 1);
                return ExitCode::from(2);
            }
        }
    }
    if let Err(e) = out.flush() {
        eprintln!("error: writing stdout: {e}");
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
