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

    /// The kept bytes as text for a JSON log, within `max_log_bytes` as the log writes it
    /// (each control character other than `\n`, `\t`, `\r`, backspace and form feed is six
    /// bytes there, `\u0000`; `"` and `\` two): the whole [`StderrCapture::text`] when it fits,
    /// otherwise a head and a tail of about half that each with the marker line between them
    /// saying how many bytes of stderr are not in the text. The flag says whether the text
    /// holds less than every byte written (then or before, see `truncated`).
    #[must_use]
    pub fn log_text(&self, max_log_bytes: usize) -> (String, bool) {
        let (head, tail) = match self.gap_at {
            Some(at) => self.kept.split_at(at.min(self.kept.len())),
            None => (self.kept.as_slice(), &[][..]),
        };
        if log_cost(head) + log_cost(tail) <= max_log_bytes {
            return (self.text(), self.truncated);
        }
        let (front, front_bytes) = prefix_within(head, max_log_bytes / 2);
        let budget = max_log_bytes - log_cost(front.as_bytes());
        // Without a gap, the tail is what follows the head's kept prefix.
        let rest = if self.gap_at.is_some() { tail } else { &head[front_bytes..] };
        let (back, back_bytes) = suffix_within(rest, budget);
        let dropped = self.total_bytes.saturating_sub((front_bytes + back_bytes) as u64);
        (format!("{front}\n[... {dropped} bytes of stderr not kept ...]\n{back}"), true)
    }
}

/// The bytes `c` takes in a JSON string as `serde_json` writes it.
fn char_cost(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\t' | '\r' | '\u{8}' | '\u{c}' => 2,
        c if u32::from(c) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// The characters of `bytes` read as lossy UTF-8 (an invalid sequence is one U+FFFD), each
/// with how many bytes of `bytes` it stands for.
fn lossy_chars(bytes: &[u8]) -> impl Iterator<Item = (char, usize)> + '_ {
    bytes.utf8_chunks().flat_map(|chunk| {
        let invalid = chunk.invalid().len();
        chunk
            .valid()
            .chars()
            .map(|c| (c, c.len_utf8()))
            .chain((invalid > 0).then_some((char::REPLACEMENT_CHARACTER, invalid)))
    })
}

/// What the lossy text of `bytes` takes in a JSON string.
fn log_cost(bytes: &[u8]) -> usize {
    lossy_chars(bytes).map(|(c, _)| char_cost(c)).sum()
}

/// The longest start of the lossy text of `bytes` within `budget` log bytes, and how many
/// of `bytes` it stands for.
fn prefix_within(bytes: &[u8], budget: usize) -> (String, usize) {
    let (mut text, mut used, mut cost) = (String::new(), 0, 0);
    for (c, len) in lossy_chars(bytes) {
        cost += char_cost(c);
        if cost > budget {
            break;
        }
        text.push(c);
        used += len;
    }
    (text, used)
}

/// The longest end of the lossy text of `bytes` within `budget` log bytes, and how many of
/// `bytes` it stands for.
fn suffix_within(bytes: &[u8], budget: usize) -> (String, usize) {
    let mut excess = log_cost(bytes).saturating_sub(budget);
    let mut chars = lossy_chars(bytes);
    let mut skipped = 0;
    while excess > 0 {
        let Some((c, len)) = chars.next() else { break };
        excess = excess.saturating_sub(char_cost(c));
        skipped += len;
    }
    let text: String = chars.map(|(c, _)| c).collect();
    (text, bytes.len() - skipped)
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

    /// The capture so far, and a fresh start: what comes next is captured (and counted) as if
    /// nothing had come before (a process kept for another game: each game's log holds the
    /// stderr written during that game).
    pub(crate) fn take(&mut self) -> StderrCapture {
        let capture = self.snapshot();
        self.head.clear();
        self.tail.clear();
        self.total = 0;
        capture
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
    fn take_returns_the_capture_and_starts_afresh() {
        let mut buffer = StderrBuffer::new(6);
        buffer.push(b"abcdefgh");
        let taken = buffer.take();
        assert_eq!((taken.kept.as_slice(), taken.total_bytes), (b"abcfgh".as_slice(), 8));
        buffer.push(b"xy");
        assert_eq!(
            buffer.snapshot(),
            StderrCapture { kept: b"xy".to_vec(), total_bytes: 2, truncated: false, gap_at: None }
        );
    }

    /// The bytes `text` takes as a JSON string, without its quotes.
    fn json_len(text: &str) -> usize {
        serde_json::to_string(text).unwrap().len() - 2
    }

    #[test]
    fn log_text_is_bounded_in_log_bytes() {
        let mut buffer = StderrBuffer::new(1 << 20);
        buffer.push(&vec![0u8; 1 << 20]);
        let capture = buffer.snapshot();
        assert!(!capture.truncated);
        assert!(json_len(&capture.text()) > 6_000_000);
        let (text, truncated) = capture.log_text(1 << 16);
        assert!(truncated);
        assert!(json_len(&text) <= (1 << 16) + 100, "{} log bytes", json_len(&text));
        let kept = text.chars().filter(|&c| c == '\0').count();
        assert!(kept > 10_000, "{kept} NULs kept");
        let dropped = (1 << 20) - kept;
        assert!(
            text.contains(&format!("\n[... {dropped} bytes of stderr not kept ...]\n")),
            "{:.200}",
            text.replace('\0', "")
        );
    }

    #[test]
    fn log_text_is_the_text_when_it_fits() {
        let mut buffer = StderrBuffer::new(6);
        buffer.push(b"a\"b\x00");
        assert_eq!(buffer.snapshot().log_text(12), ("a\"b\0".to_owned(), false));
        buffer.push(b"cdefg");
        let capture = buffer.snapshot();
        assert_eq!(capture.log_text(1000), (capture.text(), true));
    }

    #[test]
    fn log_text_keeps_both_ends_and_counts_what_it_left_out() {
        let mut buffer = StderrBuffer::new(100);
        buffer.push("é".repeat(20).as_bytes());
        buffer.push(b"\xff\xfe");
        buffer.push(b"0123456789");
        // 52 bytes: 40 of é (2 each), two invalid bytes (one U+FFFD, 3 log bytes), ten digits:
        // 10 log bytes of é at the front, the ten digits at the back.
        let (text, truncated) = buffer.snapshot().log_text(20);
        assert!(truncated);
        assert_eq!(text, format!("{}\n[... 32 bytes of stderr not kept ...]\n0123456789", "é".repeat(5)));
    }

    #[test]
    fn text_is_lossy() {
        let mut buffer = StderrBuffer::new(16);
        buffer.push(b"a\xffb");
        assert_eq!(buffer.snapshot().text(), "a\u{fffd}b");
    }
}
