//! The raw SDK: a bot that receives the wire messages themselves (strings of notation, the
//! referee's `legal` list as sent) and answers a move in notation. Implement [`Bot`] and call
//! [`run`]. It runs on the same protocol loop as the typed SDK (the crate root), with the same
//! [`SdkError`].
//!
//! ```no_run
//! use bao_sdk::raw::{self, Bot, Identity, InfoSink};
//! use bao_protocol::MoveRequest;
//!
//! struct FirstLegal;
//!
//! impl Bot for FirstLegal {
//!     fn identity(&self) -> Identity {
//!         Identity::new("first-legal")
//!     }
//!     fn choose_move(&mut self, request: &MoveRequest, info: &mut InfoSink<'_>) -> String {
//!         info.comment(format!("{} legal moves", request.legal.len()));
//!         request.legal[0].clone()
//!     }
//! }
//!
//! fn main() -> Result<(), raw::SdkError> {
//!     raw::run(FirstLegal)
//! }
//! ```

mod bot;
mod info_sink;
mod run;

pub use crate::{SDK_MAX_LINE_BYTES, SdkError};
pub use bot::{Bot, Identity};
pub use info_sink::InfoSink;
pub use run::{run, run_with_io};
