//! Why [`super::run`] stopped with an error.

use crate::ProtocolError;

/// Why a bot's protocol loop stopped before `quit` or the end of input.
#[derive(Debug, thiserror::Error)]
pub enum SdkError {
    /// Reading stdin or writing stdout failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// A line from the referee is not a valid message.
    #[error("line {line_number} from the referee: {source}")]
    Protocol {
        /// The 1-based number of the line.
        line_number: u64,
        /// What is wrong with it.
        source: ProtocolError,
    },
    /// The referee speaks another protocol version.
    #[error("the referee speaks protocol version {found}; this bot speaks version {supported}")]
    UnsupportedProtocol {
        /// The version in `hello`.
        found: u32,
        /// [`crate::PROTOCOL_VERSION`].
        supported: u32,
    },
}
