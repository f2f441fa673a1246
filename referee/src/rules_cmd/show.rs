//! `rules show POSITION`: the board drawn for a person (`bao_viewer::render_position`).

use std::io::Write;

use super::{Failure, input};

/// Prints the drawing of `position`.
pub(crate) fn run(position: &str, out: &mut impl Write) -> Result<(), Failure> {
    let position = input::position_arg(position)?;
    let mut text = bao_viewer::render_position(&position);
    text.push('\n');
    out.write_all(text.as_bytes()).map_err(Failure::Output)
}
