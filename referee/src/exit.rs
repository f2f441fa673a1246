//! The process exit codes of `bao-referee`, shared by all subcommands.
//!
//! | code | meaning |
//! |------|---------|
//! | 0 | success |
//! | 1 | an illegal move (`rules`), a log that does not verify (`verify`), a failed check (`check`) |
//! | 2 | malformed input: a bad argument, position, move or file |
//! | 3 | the referee itself failed (I/O error, could not start a bot when no verdict applies) |
//! | 130 | interrupted (SIGINT, SIGTERM or SIGHUP, see [`crate::signals`]) before finishing |

/// Success.
pub const SUCCESS: u8 = 0;
/// A rules violation: an illegal move, a log that does not verify, a failed check.
pub const REJECTED: u8 = 1;
/// Malformed input: a bad argument, position, move, or file.
pub const MALFORMED: u8 = 2;
/// The referee itself failed.
pub const INTERNAL: u8 = 3;
/// Interrupted before finishing.
pub const INTERRUPTED: u8 = 130;
