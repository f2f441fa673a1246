//! `rules legal [POSITION]`: the legal moves, one line per position.

use std::io::{Read, Write};

use bao_rules::Position;

use super::lines::for_each_line;
use super::{Failure, input};

/// Prints the legal moves of one position.
pub(crate) fn run_one(position: &str, out: &mut impl Write) -> Result<(), Failure> {
    write_moves(&input::position_arg(position)?, out)
}

/// Prints the legal moves of each position read from `stdin`, one line each.
pub(crate) fn run_batch(stdin: impl Read, out: &mut impl Write) -> Result<(), Failure> {
    for_each_line(stdin, out, |line, out| write_moves(&input::position(line)?, out))
}

/// One line: the legal moves in byte order of their notation (the engine's
/// order), separated by single spaces; an empty line if there are none.
fn write_moves(position: &Position, out: &mut impl Write) -> Result<(), Failure> {
    let moves = position.legal_moves();
    let mut line = String::with_capacity(moves.len() * 5 + 1);
    for (i, m) in moves.iter().enumerate() {
        if i > 0 {
            line.push(' ');
        }
        // Writing to a String cannot fail.
        let _ = std::fmt::Write::write_fmt(&mut line, format_args!("{m}"));
    }
    line.push('\n');
    out.write_all(line.as_bytes()).map_err(Failure::Output)
}
