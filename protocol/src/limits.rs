//! The protocol's version and its numeric limits, and the referee's default timings.

/// The protocol version this crate speaks, sent in `hello` as `"protocol"`.
pub const PROTOCOL_VERSION: u32 = 1;

/// The longest line a bot may send, in bytes, not counting the terminating `'\n'`.
/// A longer line is a protocol violation (verdict `line_too_long`).
pub const MAX_LINE_BYTES: usize = 65_536;

/// The number of `info` lines per move that the referee keeps in the game log.
/// Later `info` lines for the same move are read and dropped; they are not a violation.
pub const MAX_INFO_PER_MOVE: usize = 100;

/// The longest `info` comment kept in the game log, in bytes; longer comments are
/// truncated (at a character boundary) when logged. They are not a violation.
pub const MAX_COMMENT_BYTES: usize = 1024;

/// The longest bot name allowed in `ready`, in characters (Unicode scalar values).
pub const MAX_NAME_CHARS: usize = 64;

/// The referee's default for `time_control.startup_ms`: how long a bot has to answer `hello`.
pub const DEFAULT_STARTUP_MS: u64 = 5_000;

/// The referee's default for `time_control.margin_ms`: the lateness forgiven on every move.
pub const DEFAULT_MARGIN_MS: u64 = 100;

/// The referee's default grace period after `quit` (and again after SIGTERM), in milliseconds.
pub const DEFAULT_QUIT_GRACE_MS: u64 = 1_000;

/// How much of each bot's stderr the referee keeps, in bytes; the rest is read and dropped.
pub const STDERR_CAP_BYTES: usize = 1 << 20;

/// `text` cut to at most `max_bytes` bytes, at a character boundary.
///
/// ```
/// assert_eq!(bao_protocol::truncate_utf8("héllo", 2), "h");
/// assert_eq!(bao_protocol::truncate_utf8("héllo", 3), "hé");
/// assert_eq!(bao_protocol::truncate_utf8("hi", 10), "hi");
/// ```
#[must_use]
pub fn truncate_utf8(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
