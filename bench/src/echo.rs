//! `bao-referee bench-echo` (hidden): the far end of the raw pipe benchmark. It answers
//! every line on stdin at once with one short line, doing no other work, until end of input.

use std::io::{BufRead, Write};

/// The reply: a move message of typical size (the sample bots answer like this).
pub const ECHO_REPLY: &str = r#"{"type":"move","id":57,"move":"B3<"}"#;

/// Answers every line read with [`ECHO_REPLY`] (flushed at once) until end of input;
/// returns the number of lines answered.
///
/// # Errors
/// Reading or writing failed.
pub fn echo_lines<R: BufRead, W: Write>(mut input: R, mut output: W) -> std::io::Result<u64> {
    let mut reply = Vec::with_capacity(ECHO_REPLY.len() + 1);
    reply.extend_from_slice(ECHO_REPLY.as_bytes());
    reply.push(b'\n');
    let mut line = Vec::new();
    let mut answered = 0;
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(answered);
        }
        output.write_all(&reply)?;
        output.flush()?;
        answered += 1;
    }
}

/// Runs the echo on stdin and stdout; returns the exit code.
#[must_use]
pub fn run() -> u8 {
    match echo_lines(std::io::stdin().lock(), std::io::stdout().lock()) {
        Ok(_) => crate::exit::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => crate::exit::SUCCESS,
        Err(e) => {
            eprintln!("bench-echo: {e}");
            crate::exit::INTERNAL
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_every_line_with_the_reply_and_stops_at_end_of_input() {
        let mut output = Vec::new();
        let answered =
            echo_lines(&b"first\n{\"type\":\"move_request\"}\nlast without newline"[..], &mut output)
                .expect("in memory");
        assert_eq!(answered, 3);
        let expected = format!("{ECHO_REPLY}\n").repeat(3);
        assert_eq!(String::from_utf8(output).expect("utf-8"), expected);
    }

    #[test]
    fn the_reply_is_a_valid_move_message() {
        let parsed = bao_protocol::BotMessage::parse(ECHO_REPLY).expect("a valid message");
        assert_eq!(parsed.message_type(), "move");
    }
}
