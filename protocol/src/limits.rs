//! The protocol's version and its numeric limits. The referee's own defaults (clocks, margin,
//! grace periods) are its policy, not the wire's: they live in `bao_game::defaults`.

/// The protocol version this crate speaks, sent in `hello` as `"protocol"`. Protocol 1.1
/// (several games in one process, opted into by `ready`'s `"games":"many"`) is an addition a
/// version-1 bot never sees, so `hello` still says `1`.
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
