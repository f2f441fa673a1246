//! Uploaded submissions: what kind of file it is, and unpacking it safely into
//! a version's directory.

mod extract;
mod kind;

pub use extract::{UnpackLimits, UnpackSummary, UploadError, unpack};
pub use kind::UploadKind;
