//! A bot's stderr, kept up to a cap while the rest is counted and dropped.

/// A snapshot of what a bot wrote to stderr.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StderrCapture {
    /// The first bytes written, at most the cap given at spawn.
    pub kept: Vec<u8>,
    /// All bytes written so far, kept or not.
    pub total_bytes: u64,
    /// Whether bytes were dropped because of the cap (`total_bytes > kept.len()`).
    pub truncated: bool,
}

impl StderrCapture {
    /// The kept bytes as text; invalid UTF-8 becomes U+FFFD.
    #[must_use]
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.kept).into_owned()
    }
}

/// The growing capture, owned by the pump.
#[derive(Debug)]
pub(crate) struct StderrBuffer {
    cap: usize,
    capture: StderrCapture,
}

impl StderrBuffer {
    pub(crate) fn new(cap: usize) -> Self {
        Self { cap, capture: StderrCapture::default() }
    }

    /// Keeps what fits under the cap and counts everything.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        let room = self.cap.saturating_sub(self.capture.kept.len());
        let kept = chunk.len().min(room);
        self.capture.kept.extend_from_slice(&chunk[..kept]);
        self.capture.total_bytes += chunk.len() as u64;
        if kept < chunk.len() {
            self.capture.truncated = true;
        }
    }

    pub(crate) fn snapshot(&self) -> StderrCapture {
        self.capture.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_head_up_to_the_cap_and_counts_the_rest() {
        let mut buffer = StderrBuffer::new(5);
        buffer.push(b"abc");
        assert_eq!(
            buffer.snapshot(),
            StderrCapture { kept: b"abc".to_vec(), total_bytes: 3, truncated: false }
        );
        buffer.push(b"defgh");
        buffer.push(b"ij");
        let snap = buffer.snapshot();
        assert_eq!(snap.kept, b"abcde");
        assert_eq!(snap.total_bytes, 10);
        assert!(snap.truncated);
        assert_eq!(snap.text(), "abcde");
    }

    #[test]
    fn text_is_lossy() {
        let mut buffer = StderrBuffer::new(16);
        buffer.push(b"a\xffb");
        assert_eq!(buffer.snapshot().text(), "a\u{fffd}b");
    }
}
