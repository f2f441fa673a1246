//! Reading a bot's stdout as bounded lines, counting every byte read.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use bytes::BytesMut;
use tokio::io::{AsyncRead, ReadBuf};
use tokio_util::codec::Decoder;

/// Why a stdout line could not be decoded.
#[derive(Debug)]
pub enum LineError {
    /// More than the limit bytes arrived without a `'\n'`.
    TooLong,
    /// A complete line was not UTF-8.
    InvalidUtf8,
    /// Reading the pipe failed.
    Io(io::Error),
}

impl From<io::Error> for LineError {
    fn from(error: io::Error) -> Self {
        Self::Io(error)
    }
}

/// Splits a byte stream at `'\n'` into UTF-8 lines of at most `max` bytes (without the
/// `'\n'`; a `'\r'` before it is dropped). A longer line is an error as soon as `max + 1`
/// bytes without a newline are buffered, so memory stays bounded. An unterminated last
/// line at end of file is dropped: only complete lines count.
#[derive(Debug)]
pub struct BoundedLines {
    max: usize,
    /// How much of the buffer is known to hold no `'\n'`.
    scanned: usize,
}

impl BoundedLines {
    /// A decoder of lines of at most `max` bytes.
    #[must_use]
    pub fn new(max: usize) -> Self {
        Self { max, scanned: 0 }
    }
}

impl Decoder for BoundedLines {
    type Item = String;
    type Error = LineError;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<String>, LineError> {
        let Some(offset) = buf[self.scanned..].iter().position(|&b| b == b'\n') else {
            self.scanned = buf.len();
            return if buf.len() > self.max { Err(LineError::TooLong) } else { Ok(None) };
        };
        let newline = self.scanned + offset;
        self.scanned = 0;
        if newline > self.max {
            return Err(LineError::TooLong);
        }
        let frame = buf.split_to(newline + 1);
        let mut line = &frame[..newline];
        if let [rest @ .., b'\r'] = line {
            line = rest;
        }
        match std::str::from_utf8(line) {
            Ok(text) => Ok(Some(text.to_owned())),
            Err(_) => Err(LineError::InvalidUtf8),
        }
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<String>, LineError> {
        let line = self.decode(buf)?;
        if line.is_none() {
            buf.clear();
            self.scanned = 0;
        }
        Ok(line)
    }
}

/// An [`AsyncRead`] that adds the number of bytes it reads to a shared counter.
#[derive(Debug)]
pub(crate) struct CountingReader<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R> CountingReader<R> {
    pub(crate) fn new(inner: R, count: Arc<AtomicU64>) -> Self {
        Self { inner, count }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for CountingReader<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        let read = buf.filled().len() - before;
        self.count.fetch_add(read as u64, Ordering::Relaxed);
        poll
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(max: usize, input: &[u8]) -> Vec<Result<String, String>> {
        let mut codec = BoundedLines::new(max);
        let mut buf = BytesMut::new();
        let mut out = Vec::new();
        // Feed one byte at a time to exercise the incremental scan.
        for &b in input {
            buf.extend_from_slice(&[b]);
            loop {
                match codec.decode(&mut buf) {
                    Ok(Some(line)) => out.push(Ok(line)),
                    Ok(None) => break,
                    Err(e) => {
                        out.push(Err(format!("{e:?}")));
                        return out;
                    }
                }
            }
        }
        if let Ok(Some(line)) = codec.decode_eof(&mut buf) {
            out.push(Ok(line));
        }
        out
    }

    #[test]
    fn splits_lines_and_drops_cr() {
        assert_eq!(
            decode_all(10, b"ab\ncd\r\n\nxyz"),
            vec![Ok("ab".to_owned()), Ok("cd".to_owned()), Ok(String::new())]
        );
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_fine_one_more_byte_is_not() {
        assert_eq!(decode_all(3, b"abc\n"), vec![Ok("abc".to_owned())]);
        assert_eq!(decode_all(3, b"abcd\n"), vec![Err("TooLong".to_owned())]);
        // Detected before the newline arrives.
        assert_eq!(decode_all(3, b"abcd"), vec![Err("TooLong".to_owned())]);
    }

    #[test]
    fn invalid_utf8_is_an_error() {
        assert_eq!(
            decode_all(10, b"ok\n\xff\xfe\n"),
            vec![Ok("ok".to_owned()), Err("InvalidUtf8".to_owned())]
        );
    }
}
