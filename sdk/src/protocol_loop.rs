//! The one protocol loop of both SDKs: read the referee's lines, hand each message to the
//! bot's [`Handler`], write its answers, until `quit` or the end of input.

use std::io::{BufRead, Read, Write};
use std::time::Instant;

use bao_protocol::{
    BotMessage, GameOver, Hello, MoveReply, MoveRequest, PROTOCOL_VERSION, ProtocolError, Ready,
    RefereeMessage,
};

use crate::SdkError;

/// The longest line the SDK accepts from the referee, in bytes. The referee's lines
/// are far shorter (a `move_request` is under 1 KiB); this only bounds memory.
pub const SDK_MAX_LINE_BYTES: usize = 1 << 20;

/// What a bot does with each message: the raw bots ([`crate::raw::Bot`]) and the typed ones
/// ([`crate::Bot`]) are both driven through it.
pub(crate) trait Handler {
    /// `hello` (on line `line_number`, its protocol version already checked): the `ready`.
    fn hello(&mut self, hello: &Hello, line_number: u64) -> Result<Ready, SdkError>;

    /// A `move_request`, read at `received`: the move to send. `info` lines go to `out`
    /// before it returns (each flushed).
    fn move_request(
        &mut self,
        request: &MoveRequest,
        received: Instant,
        out: &mut dyn Write,
    ) -> Result<MoveReply, SdkError>;

    /// `game_over`.
    fn game_over(&mut self, game_over: &GameOver);
}

/// Runs `handler` on the referee's lines from `reader`, writing its answers to `writer`,
/// until `quit` or the end of input.
pub(crate) fn serve<H: Handler, R: BufRead, W: Write>(
    mut handler: H,
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
                let ready = handler.hello(&hello, line_number)?;
                send(&mut writer, &BotMessage::Ready(ready))?;
            }
            RefereeMessage::MoveRequest(request) => {
                let reply = handler.move_request(&request, received, &mut writer)?;
                send(&mut writer, &BotMessage::Move(reply))?;
            }
            RefereeMessage::GameOver(game_over) => handler.game_over(&game_over),
            RefereeMessage::Quit => return Ok(()),
        }
    }
}

/// [`serve`] on stdin and stdout.
pub(crate) fn serve_stdio<H: Handler>(handler: H) -> Result<(), SdkError> {
    serve(handler, std::io::stdin().lock(), std::io::stdout().lock())
}

/// Writes one message line and flushes.
pub(crate) fn send(writer: &mut dyn Write, message: &BotMessage) -> std::io::Result<()> {
    writeln!(writer, "{}", message.to_line())?;
    writer.flush()
}
