//! Reading stdin line by line for the batch modes, with line numbers.

use std::io::{BufRead, BufReader, Read, Write};

use super::Failure;

/// Size of the input buffer: large enough to bypass stdin's own buffer.
const BUFFER: usize = 64 * 1024;

/// Lines of input, numbered from 1. A line ends at `\n`; a `\r` before it is
/// dropped; the last line need not end with `\n`.
pub(crate) struct Lines<R> {
    reader: BufReader<R>,
    bytes: Vec<u8>,
    number: usize,
}

impl<R: Read> Lines<R> {
    /// Reads lines from `input`.
    pub(crate) fn new(input: R) -> Self {
        Lines { reader: BufReader::with_capacity(BUFFER, input), bytes: Vec::new(), number: 0 }
    }

    /// The next line and its number, or `None` at the end of the input.
    ///
    /// # Errors
    /// A line that is not UTF-8 is malformed; a read error is an input failure.
    pub(crate) fn next_line(&mut self) -> Result<Option<(usize, &str)>, Failure> {
        self.bytes.clear();
        let read = self.reader.read_until(b'\n', &mut self.bytes).map_err(Failure::Input)?;
        if read == 0 {
            return Ok(None);
        }
        self.number += 1;
        if self.bytes.last() == Some(&b'\n') {
            self.bytes.pop();
            if self.bytes.last() == Some(&b'\r') {
                self.bytes.pop();
            }
        }
        match std::str::from_utf8(&self.bytes) {
            Ok(line) => Ok(Some((self.number, line))),
            Err(_) => Err(Failure::Malformed(format!("line {}: not valid UTF-8", self.number))),
        }
    }

    /// Flushes `out` if no more input is waiting in the buffer, so that a
    /// program feeding one line at a time gets each answer at once, while a
    /// large batch is written in big blocks.
    pub(crate) fn flush_if_idle(&self, out: &mut impl Write) -> Result<(), Failure> {
        if self.reader.buffer().is_empty() { out.flush().map_err(Failure::Output) } else { Ok(()) }
    }
}

/// Runs `answer` on each line of `input` in order, writing its output to
/// `out`; stops at the first failure, which names the line.
pub(crate) fn for_each_line<R: Read, W: Write>(
    input: R,
    out: &mut W,
    mut answer: impl FnMut(&str, &mut W) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let mut lines = Lines::new(input);
    while let Some((number, line)) = lines.next_line()? {
        answer(line, out).map_err(|f| f.prefixed(&format!("line {number}: ")))?;
        lines.flush_if_idle(out)?;
    }
    Ok(())
}

/// Writes a line; an output failure on error.
pub(crate) fn write_line(out: &mut impl Write, args: std::fmt::Arguments<'_>) -> Result<(), Failure> {
    out.write_fmt(args).and_then(|()| out.write_all(b"\n")).map_err(Failure::Output)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(input: &[u8]) -> Result<Vec<(usize, String)>, String> {
        let mut lines = Lines::new(input);
        let mut out = Vec::new();
        loop {
            match lines.next_line() {
                Ok(Some((n, l))) => out.push((n, l.to_owned())),
                Ok(None) => return Ok(out),
                Err(Failure::Malformed(m)) => return Err(m),
                Err(other) => return Err(format!("{other:?}")),
            }
        }
    }

    #[test]
    fn numbers_lines_and_strips_line_ends() {
        let got = collect(b"one\r\ntwo\n\nlast").unwrap();
        let want: Vec<(usize, String)> =
            vec![(1, "one".into()), (2, "two".into()), (3, String::new()), (4, "last".into())];
        assert_eq!(got, want);
    }

    #[test]
    fn empty_input_has_no_lines() {
        assert_eq!(collect(b"").unwrap(), vec![]);
    }

    #[test]
    fn non_utf8_line_is_malformed_with_its_number() {
        assert_eq!(collect(b"ok\n\xff\xfe\n").unwrap_err(), "line 2: not valid UTF-8");
    }
}
