//! Running a bot program as a supervised child process.

pub mod spec;

pub use spec::{BotSpec, ResourceLimits};
