//! The conformance gate: the check a built version must pass before it plays.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;

/// A built bot, ready to run: its command line and directory.
#[derive(Debug, Clone)]
pub struct BuiltBot {
    /// A display name (`bot v3`).
    pub name: String,
    /// The command line.
    pub argv: Vec<String>,
    /// The directory it runs in.
    pub dir: PathBuf,
}

/// What the gate said.
#[derive(Debug, Clone)]
pub struct GateReport {
    /// Whether every check passed.
    pub passed: bool,
    /// The report shown to the owner.
    pub report: String,
}

/// A boxed future, for the object-safe traits of the server.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Runs the conformance checks on a built bot.
pub trait ConformanceGate: Send + Sync {
    /// Checks `bot`; the report says what passed and what failed.
    fn check<'a>(&'a self, bot: &'a BuiltBot) -> BoxFuture<'a, GateReport>;
}
