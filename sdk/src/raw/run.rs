//! Running a raw bot: the protocol loop with the bot's own strings.

use std::io::{BufRead, Write};
use std::time::Instant;

use bao_protocol::{GameOver, Hello, MoveReply, MoveRequest, Ready};

use super::{Bot, InfoSink};
use crate::SdkError;
use crate::protocol_loop::{Handler, serve, serve_stdio};

/// Runs `bot` on stdin and stdout until `quit` or the end of stdin.
///
/// Answers `hello` with `ready` and each `move_request` with `move` (same id);
/// every line written is flushed at once. Print nothing else on stdout: use stderr.
///
/// # Errors
/// [`SdkError`] if stdin or stdout fails, a referee line is invalid, or the
/// referee speaks another protocol version.
pub fn run<B: Bot>(bot: B) -> Result<(), SdkError> {
    serve_stdio(Raw(bot))
}

/// [`run`] on any reader and writer (for tests: an in-memory transcript).
///
/// # Errors
/// As [`run`].
pub fn run_with_io<B: Bot, R: BufRead, W: Write>(bot: B, reader: R, writer: W) -> Result<(), SdkError> {
    serve(Raw(bot), reader, writer)
}

/// A raw bot as the protocol loop drives it.
struct Raw<B>(B);

impl<B: Bot> Handler for Raw<B> {
    fn hello(&mut self, hello: &Hello, _line_number: u64) -> Result<Ready, SdkError> {
        self.0.hello(hello);
        Ok(self.0.identity().to_ready())
    }

    fn move_request(
        &mut self,
        request: &MoveRequest,
        _received: Instant,
        out: &mut dyn Write,
    ) -> Result<MoveReply, SdkError> {
        let mut info = InfoSink::new(out);
        let move_text = self.0.choose_move(request, &mut info);
        match info.into_error() {
            Some(error) => Err(error.into()),
            None => Ok(MoveReply { id: request.id, move_text }),
        }
    }

    fn game_over(&mut self, game_over: &GameOver) {
        self.0.game_over(game_over);
    }
}
