//! The typed protocol loop: requests become positions, moves become replies.

use std::io::{BufRead, Read, Write};
use std::time::Instant;

use bao_protocol::{BotMessage, MoveReply, MoveRequest, PROTOCOL_VERSION, ProtocolError, RefereeMessage};
use bao_rules::{Move, MoveList, Position};

use crate::{Bot, Deadline, GameEnd, NewGame, SdkError};

/// The longest line the runner accepts from the referee, in bytes (the referee's lines
/// are under 1 KiB; this only bounds memory).
pub const SDK_MAX_LINE_BYTES: usize = bao_protocol::sdk::SDK_MAX_LINE_BYTES;

/// Runs `bot` on stdin and stdout until `quit` or the end of stdin.
///
/// Print nothing else on stdout: use stderr for diagnostics.
///
/// # Errors
/// [`SdkError`] if stdin or stdout fails, a referee line is invalid, the referee
/// speaks another protocol version, a position cannot be read, the referee's legal
/// moves differ from the engine's, or the bot chooses an illegal move.
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
        let received = Instant::now();
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
                let game = NewGame::from_hello(&hello)
                    .map_err(|problem| SdkError::BadHello { line_number, problem })?;
                bot.new_game(&game);
                send(&mut writer, &BotMessage::Ready(bot.identity().to_ready()))?;
            }
            RefereeMessage::MoveRequest(request) => {
                let deadline = Deadline::from_clock(&request.clock, received);
                let (position, legal) = read_request(&request)?;
                let chosen = bot.choose_move(&position, &legal, &deadline);
                if !legal.contains(&chosen) {
                    return Err(SdkError::IllegalChoice {
                        id: request.id,
                        notation: request.position.notation.clone(),
                        chosen: chosen.to_string(),
                        legal: texts(&legal),
                    });
                }
                for info in bot.take_info() {
                    send(&mut writer, &BotMessage::Info(info))?;
                }
                let reply = MoveReply { id: request.id, move_text: chosen.to_string() };
                send(&mut writer, &BotMessage::Move(reply))?;
            }
            RefereeMessage::GameOver(game_over) => bot.game_over(&GameEnd::from(&game_over)),
            RefereeMessage::Quit => return Ok(()),
        }
    }
}

/// The request's position and its legal moves, checked against the referee's list.
fn read_request(request: &MoveRequest) -> Result<(Position, MoveList), SdkError> {
    let notation = &request.position.notation;
    let position = notation.parse::<Position>().map_err(|e| SdkError::BadPosition {
        id: request.id,
        notation: notation.clone(),
        problem: e.to_string(),
    })?;
    let legal = position.legal_moves();
    if legal.is_empty() {
        return Err(SdkError::NoLegalMove { id: request.id, notation: notation.clone() });
    }
    // Both lists are in byte order of the notation, so they agree exactly or not at all.
    let agrees = legal.len() == request.legal.len()
        && legal.iter().zip(&request.legal).all(|(m, text)| same_text(*m, text));
    if !agrees {
        return Err(SdkError::LegalMismatch {
            id: request.id,
            notation: notation.clone(),
            referee: request.legal.clone(),
            engine: texts(&legal),
        });
    }
    Ok((position, legal))
}

/// Whether `text` is the canonical notation of `m`.
fn same_text(m: Move, text: &str) -> bool {
    use std::fmt::Write as _;
    let mut buffer = String::with_capacity(4);
    let _ = write!(buffer, "{m}");
    buffer == text
}

fn texts(moves: &MoveList) -> Vec<String> {
    moves.iter().map(ToString::to_string).collect()
}

/// Writes one message line and flushes.
fn send<W: Write>(writer: &mut W, message: &BotMessage) -> std::io::Result<()> {
    writeln!(writer, "{}", message.to_line())?;
    writer.flush()
}
