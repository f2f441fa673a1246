//! Sending `info` lines while a bot thinks.

use std::io::Write;

use bao_protocol::{BotMessage, Info};

/// Writes `info` lines to the referee during [`super::Bot::choose_move`].
///
/// Sending never fails from the bot's point of view: the first write error is kept
/// and reported by the protocol loop after the move is chosen.
pub struct InfoSink<'a> {
    out: &'a mut dyn Write,
    error: Option<std::io::Error>,
    sent: usize,
}

impl<'a> InfoSink<'a> {
    /// A sink writing to `out`.
    pub(crate) fn new(out: &'a mut dyn Write) -> InfoSink<'a> {
        InfoSink { out, error: None, sent: 0 }
    }

    /// Sends `info` now (one line, flushed).
    pub fn send(&mut self, info: &Info) {
        if self.error.is_some() {
            return;
        }
        let line = BotMessage::Info(info.clone()).to_line();
        match writeln!(self.out, "{line}").and_then(|()| self.out.flush()) {
            Ok(()) => self.sent += 1,
            Err(e) => self.error = Some(e),
        }
    }

    /// Sends an `info` holding only `text` as its comment.
    pub fn comment(&mut self, text: impl Into<String>) {
        self.send(&Info::comment(text));
    }

    /// How many `info` lines were written for this move.
    #[must_use]
    pub const fn sent(&self) -> usize {
        self.sent
    }

    /// The first write error, if any.
    pub(crate) fn into_error(self) -> Option<std::io::Error> {
        self.error
    }
}
