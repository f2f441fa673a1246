//! `rules perft POSITION DEPTH`: the number of move sequences.

use std::io::Write;

use super::lines::write_line;
use super::{Failure, input};

/// Prints `bao_rules::perft` of the position at the depth.
pub(crate) fn run(position: &str, depth: &str, out: &mut impl Write) -> Result<(), Failure> {
    let position = input::position_arg(position)?;
    let depth = input::depth(depth)?;
    write_line(out, format_args!("{}", bao_rules::perft(&position, depth)))
}
