//! What to run as a bot, and the resource limits to run it under.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// A bot program: a command line, an optional working directory and name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotSpec {
    /// A display name (defaults to the program's file name).
    pub name: Option<String>,
    /// The program to run (looked up on PATH if it has no slash).
    pub program: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// The working directory (default: the referee's).
    pub dir: Option<PathBuf>,
}

impl BotSpec {
    /// The name to show: the given name, or the program's file name.
    #[must_use]
    pub fn display_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| {
            std::path::Path::new(&self.program)
                .file_name()
                .map_or_else(|| self.program.clone(), |f| f.to_string_lossy().into_owned())
        })
    }

    /// The command line as one string, for logs.
    #[must_use]
    pub fn command_line(&self) -> Vec<String> {
        std::iter::once(self.program.clone()).chain(self.args.iter().cloned()).collect()
    }
}

/// Optional limits on a bot's resources, applied before it runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceLimits {
    /// Memory, in bytes.
    pub max_memory_bytes: Option<u64>,
    /// CPU time, in whole seconds, for the whole game.
    pub max_cpu_secs: Option<u64>,
    /// Number of processes (the bot and its descendants).
    pub max_processes: Option<u64>,
    /// Bytes written to stdout and stderr together, for the whole game.
    pub max_output_bytes: Option<u64>,
}
