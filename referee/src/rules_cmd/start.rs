//! `rules start VARIANT`: the start position.

use std::io::Write;

use bao_rules::Position;

use super::lines::write_line;
use super::{Failure, input};

/// Prints the start position of `variant`.
pub(crate) fn run(variant: &str, out: &mut impl Write) -> Result<(), Failure> {
    let variant = input::variant(variant)?;
    write_line(out, format_args!("{}", Position::start(variant)))
}
