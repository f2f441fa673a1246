//! Running a typed bot: on the protocol loop, requests become positions and moves become replies.

use std::io::{BufRead, Write};
use std::time::Instant;

use bao_protocol::{BotMessage, GameOver, Hello, MoveReply, MoveRequest, Ready};
use bao_rules::{Move, MoveList, Position};

use crate::protocol_loop::{Handler, send, serve, serve_stdio};
use crate::{Bot, Deadline, GameEnd, NewGame, SdkError};

/// Runs `bot` on stdin and stdout until `quit` or the end of stdin.
///
/// Print nothing else on stdout: use stderr for diagnostics.
///
/// # Errors
/// [`SdkError`] if stdin or stdout fails, a referee line is invalid, the referee
/// speaks another protocol version, a position cannot be read, the referee's legal
/// moves differ from the engine's, or the bot chooses an illegal move.
pub fn run<B: Bot>(bot: B) -> Result<(), SdkError> {
    serve_stdio(Typed(bot))
}

/// [`run`] on any reader and writer (for tests: an in-memory transcript).
///
/// # Errors
/// As [`run`].
pub fn run_with_io<B: Bot, R: BufRead, W: Write>(bot: B, reader: R, writer: W) -> Result<(), SdkError> {
    serve(Typed(bot), reader, writer)
}

/// A typed bot as the protocol loop drives it.
struct Typed<B>(B);

impl<B: Bot> Handler for Typed<B> {
    fn hello(&mut self, hello: &Hello, line_number: u64) -> Result<Ready, SdkError> {
        let game =
            NewGame::from_hello(hello).map_err(|problem| SdkError::BadHello { line_number, problem })?;
        self.0.new_game(&game);
        Ok(self.0.identity().to_ready())
    }

    fn move_request(
        &mut self,
        request: &MoveRequest,
        received: Instant,
        out: &mut dyn Write,
    ) -> Result<MoveReply, SdkError> {
        let deadline = Deadline::from_clock(&request.clock, received);
        let (position, legal) = read_request(request)?;
        let chosen = self.0.choose_move(&position, &legal, &deadline);
        if !legal.contains(&chosen) {
            return Err(SdkError::IllegalChoice {
                id: request.id,
                notation: request.position.notation.clone(),
                chosen: chosen.to_string(),
                legal: texts(&legal),
            });
        }
        for info in self.0.take_info() {
            send(out, &BotMessage::Info(info))?;
        }
        Ok(MoveReply { id: request.id, move_text: chosen.to_string() })
    }

    fn game_over(&mut self, game_over: &GameOver) {
        self.0.game_over(&GameEnd::from(game_over));
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
