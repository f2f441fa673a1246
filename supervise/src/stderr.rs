//! A bot's stderr, kept up to a cap while the rest is counted and dropped.

/// A snapshot of what a bot wrote to stderr.
///
/// Both ends are kept: the first half of the cap (start-up messages) and the
/// last half (what the bot said just before it crashed or was stopped).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StderrCapture {
    /// The kept bytes: the head, then the tail when bytes in between were dropped.
    pub kept: Vec<u8>,
    /// All bytes written so far, kept or not.
    pub total_bytes: u64,
    /// Whether bytes were dropped because of the cap (`total_bytes > kept.len()`).
    pub truncated: bool,
    /// Where in `kept` the dropped bytes were (the length of the head), if any were.
    pub gap_at: Option<usize>,
}

impl StderrCapture {
    /// The kept bytes as text, with a marker line where bytes were dropped;
    /// invalid UTF-8 becomes U+FFFD.
    #[must_use]
    pub fn text(&self) -> String {
        match self.gap_at {
            Some(at) => {
                let dropped = self.total_bytes - self.kept.len() as u64;
                format!(
                    "{}\n[... {dropped} bytes of stderr not kept ...]\n{}",
                    String::from_utf8_lossy(&self.kept[..at]),
                    String::from_utf8_lossy(&self.kept[at..])
                )
            }
            None => String::from_utf8_lossy(&self.kept).into_owned(),
        }
    }
}

/// The growing capture, owned by the pump: a head of `cap / 2` bytes and a
/// ring of the last `cap - cap / 2` bytes.
#[derive(Debug)]
pub(crate) struct StderrBuffer {
    head_cap: usize,
    tail_cap: usize,
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    total: u64,
}

impl StderrBuffer {
    pub(crate) fn new(cap: usize) -> Self {
        let head_cap = cap / 2;
        Self {
            head_cap,
            tail_cap: cap - head_cap,
            head: Vec::new(),
            tail: std::collections::VecDeque::new(),
            total: 0,
        }
    }

    /// Keeps the head and the latest tail, and counts everything.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let to_head = chunk.len().min(self.head_cap - self.head.len());
        self.head.extend_from_slice(&chunk[..to_head]);
        let rest = &chunk[to_head..];
        // Only the last tail_cap bytes of `rest` can survive.
        let rest = &rest[rest.len().saturating_sub(self.tail_cap)..];
        let overflow = (self.tail.len() + rest.len()).saturating_sub(self.tail_cap);
        self.tail.drain(..overflow);
        self.tail.extend(rest);
    }

    pub(crate) fn snapshot(&self) -> StderrCapture {
        let mut kept = self.head.clone();
        kept.extend(self.tail.iter());
        let truncated = self.total > kept.len() as u64;
        StderrCapture {
            gap_at: truncated.then_some(self.head.len()),
            kept,
            total_bytes: self.total,
            truncated,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_everything_under_the_cap() {
        let mut buffer = StderrBuffer::new(6);
        buffer.push(b"abc");
        buffer.push(b"def");
        assert_eq!(
            buffer.snapshot(),
            StderrCapture { kept: b"abcdef".to_vec(), total_bytes: 6, truncated: false, gap_at: None }
        );
        assert_eq!(buffer.snapshot().text(), "abcdef");
    }

    #[test]
    fn keeps_the_head_and_the_latest_tail_and_counts_the_rest() {
        let mut buffer = StderrBuffer::new(6);
        buffer.push(b"abcdefgh");
        buffer.push(b"ij");
        buffer.push(b"k");
        let snap = buffer.snapshot();
        assert_eq!(snap.kept, b"abcijk");
        assert_eq!(snap.total_bytes, 11);
        assert!(snap.truncated);
        assert_eq!(snap.gap_at, Some(3));
        assert_eq!(snap.text(), "abc\n[... 5 bytes of stderr not kept ...]\nijk");
        // A chunk longer than the whole tail keeps only its end.
        buffer.push(b"0123456789");
        assert_eq!(buffer.snapshot().kept, b"abc789");
    }

    #[test]
    fn text_is_lossy() {
        let mut buffer = StderrBuffer::new(16);
        buffer.push(b"a\xffb");
        assert_eq!(buffer.snapshot().text(), "a\u{fffd}b");
    }
}
