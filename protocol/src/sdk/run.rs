//! The protocol loop: read the referee's lines, answer them, until `quit` or end of input.

use std::io::{BufRead, Read, Write};

use crate::{BotMessage, MoveReply, PROTOCOL_VERSION, ProtocolError, RefereeMessage};

use super::{Bot, InfoSink, SdkError};

/// The longest line the SDK accepts from the referee, in bytes. The referee's lines
/// are far shorter (a `move_request` is under 1 KiB); this only bounds memory.
pub const SDK_MAX_LINE_BYTES: usize = 1 << 20;

/// Runs `bot` on stdin and stdout until `quit` or the end of stdin.
///
/// Answers `hello` with `ready` and each `move_request` with `move` (same id);
/// every line written is flushed at once. Print nothing else on stdout: use stderr.
///
/// # Errors
/// [`SdkError`] if stdin or stdout fails, a referee line is invalid, or the
/// referee speaks another protocol version.
pub fn run<B: Bot>(bot: B) -> Result<(), SdkError> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    run_with_io(bot, stdin.lock(), stdout.lock())
}

/// [`run`] on any reader and writer (for tests: an in-memory transcript).
///
/// # Errors
/// As [`run`].
pub fn run_with_io<B: Bot, R: BufRead, W: Write>(
    mut bot: B,
    mut reader: R,
    mut writer: W,
) -> Result<(), SdkError> {
    let mut buffer = Vec::new();
    let mut line_number = 0u64;
    loop {
        buffer.clear();
        let read = (&mut reader).take(SDK_MAX_LINE_BYTES as u64 + 1).read_until(b'\n', &mut buffer)?;
        if read == 0 {
            return Ok(());
        }
        line_number += 1;
        let protocol_error = |source| SdkError::Protocol { line_number, source };
        if buffer.last() != Some(&b'\n') && buffer.len() > SDK_MAX_LINE_BYTES {
            return Err(protocol_error(ProtocolError::LineTooLong {
                bytes: buffer.len(),
                max: SDK_MAX_LINE_BYTES,
            }));
        }
        let line = std::str::from_utf8(&buffer)
            .map_err(|e| protocol_error(ProtocolError::NotUtf8 { valid_up_to: e.valid_up_to() }))?;
        match RefereeMessage::parse(line).map_err(protocol_error)? {
            RefereeMessage::Hello(hello) => {
                if hello.protocol != PROTOCOL_VERSION {
                    return Err(SdkError::UnsupportedProtocol {
                        found: hello.protocol,
                        supported: PROTOCOL_VERSION,
                    });
                }
                bot.hello(&hello);
                send(&mut writer, &BotMessage::Ready(bot.identity().to_ready()))?;
            }
            RefereeMessage::MoveRequest(request) => {
                let mut info = InfoSink::new(&mut writer);
                let move_text = bot.choose_move(&request, &mut info);
                if let Some(error) = info.into_error() {
                    return Err(error.into());
                }
                send(&mut writer, &BotMessage::Move(MoveReply { id: request.id, move_text }))?;
            }
            RefereeMessage::GameOver(game_over) => bot.game_over(&game_over),
            RefereeMessage::Quit => return Ok(()),
        }
    }
}

/// Writes one message line and flushes.
fn send<W: Write>(writer: &mut W, message: &BotMessage) -> std::io::Result<()> {
    writeln!(writer, "{}", message.to_line())?;
    writer.flush()
}
