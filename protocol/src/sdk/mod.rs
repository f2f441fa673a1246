//! A small SDK for writing bots in Rust: implement [`Bot`] and call [`run`].
//!
//! ```no_run
//! use bao_protocol::sdk::{self, Bot, Identity, InfoSink};
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
//! fn main() -> Result<(), sdk::SdkError> {
//!     sdk::run(FirstLegal)
//! }
//! ```

mod bot;
mod error;
mod info_sink;
mod run;

pub use bot::{Bot, Identity};
pub use error::SdkError;
pub use info_sink::InfoSink;
pub use run::{SDK_MAX_LINE_BYTES, run, run_with_io};
