//! The sandbox profiles of `arena.toml`: what a build may use, and what a bot
//! may use in a game and at the gate (the same, so that a bot that passes the
//! gate is a bot the ladder can run).

use bao_supervise::{Isolation, IsolationLevel, ResourceLimits, SpawnOptions};

use crate::config::ArenaConfig;

/// The processes a bot may run at once in a game and at the gate.
pub const BOT_PROCESSES: u64 = 64;
/// The bytes a bot may write to stdout and stderr in a game and at the gate.
pub const BOT_OUTPUT_BYTES: u64 = 64 << 20;
/// The bytes a build may write to its output (its log keeps `build_log_bytes` of them).
pub const BUILD_OUTPUT_BYTES: u64 = 64 << 20;

/// How one untrusted program is started: its limits and its spawn options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// Memory, CPU time, processes, output.
    pub limits: ResourceLimits,
    /// The sandbox (`IsolationLevel::Full`: no network, its own processes, a
    /// separate uid when the server is root) and the stderr kept.
    pub options: SpawnOptions,
}

impl Profile {
    /// A build: `limits.build_*` of `arena.toml`; its output is kept up to
    /// `build_log_bytes`.
    #[must_use]
    pub fn build(config: &ArenaConfig) -> Profile {
        let l = &config.limits;
        Profile {
            limits: ResourceLimits {
                max_memory_bytes: Some(l.build_memory_mib << 20),
                max_cpu_secs: Some(l.build_cpu_secs),
                max_processes: Some(l.build_processes),
                max_output_bytes: Some(BUILD_OUTPUT_BYTES),
            },
            options: SpawnOptions { stderr_cap: l.build_log_bytes, ..sandboxed() },
        }
    }

    /// A bot in a game or at the gate: `games.bot_*` of `arena.toml`.
    #[must_use]
    pub fn bot(config: &ArenaConfig) -> Profile {
        let g = &config.games;
        Profile {
            limits: ResourceLimits {
                max_memory_bytes: Some(g.bot_memory_mib << 20),
                max_cpu_secs: Some(g.bot_cpu_secs),
                max_processes: Some(BOT_PROCESSES),
                max_output_bytes: Some(BOT_OUTPUT_BYTES),
            },
            options: sandboxed(),
        }
    }
}

/// The spawn options of every sandbox.
fn sandboxed() -> SpawnOptions {
    SpawnOptions {
        isolation: Isolation { level: IsolationLevel::Full, no_network: true },
        ..SpawnOptions::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_follow_arena_toml() {
        let mut config = ArenaConfig::default_config();
        config.limits.build_processes = 7;
        config.limits.build_memory_mib = 100;
        config.games.bot_cpu_secs = 9;
        let build = Profile::build(&config);
        assert_eq!(build.limits.max_processes, Some(7));
        assert_eq!(build.limits.max_memory_bytes, Some(100 << 20));
        assert_eq!(build.options.stderr_cap, config.limits.build_log_bytes);
        let bot = Profile::bot(&config);
        assert_eq!(bot.limits.max_cpu_secs, Some(9));
        for p in [&build, &bot] {
            assert_eq!(p.options.isolation.level, IsolationLevel::Full);
            assert!(p.options.isolation.no_network());
        }
    }
}
