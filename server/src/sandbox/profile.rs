//! The sandbox profiles of `arena.toml`: what a build may use, and what a bot
//! may use in a game and at the gate (the same, so that a bot that passes the
//! gate is a bot the ladder can run).

use bao_supervise::{IdRange, Isolation, IsolationLevel, ResourceLimits, SandboxProfile, SpawnOptions};

use bao_supervise::BotSpec;

use crate::build::gate::BuiltBot;
use crate::config::{ArenaConfig, SandboxConfig};

/// The program that starts a bot with an environment of its own.
const ENV: &str = "/usr/bin/env";

/// The processes a bot may run at once in a game and at the gate.
pub const BOT_PROCESSES: u64 = 64;
/// The tasks (processes and threads) a bot may run at once, enforced by the
/// kernel: room for a JVM's or Node's threads, not for a fork bomb.
pub const BOT_TASKS: u64 = 256;
/// The bytes a bot may write to stdout and stderr in a game and at the gate.
pub const BOT_OUTPUT_BYTES: u64 = 64 << 20;
/// The bytes a build may write to its output (its log keeps `build_log_bytes` of them).
pub const BUILD_OUTPUT_BYTES: u64 = 64 << 20;

/// How one untrusted program is started: its limits and its spawn options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// Memory, CPU time, processes, output.
    pub limits: ResourceLimits,
    /// The sandbox (`IsolationLevel::Full`: a new root, no network, its own
    /// processes, a uid of its own when the server is root or has subordinate
    /// ids; the program folder
    /// writable for a build, read-only otherwise) and the stderr kept.
    pub options: SpawnOptions,
    /// The `PATH` of the program (`sandbox.path`).
    pub path: String,
}

impl Profile {
    /// A build: `limits.build_*` of `arena.toml` (its folder and its `/tmp`
    /// each hold at most `build_disk_mib`; at most `build_processes` tasks);
    /// its output is kept up to `build_log_bytes`.
    #[must_use]
    pub fn build(config: &ArenaConfig) -> Profile {
        let l = &config.limits;
        let sandbox = SandboxProfile {
            read_only_paths: config.sandbox.read_only_paths.clone(),
            ids: Profile::id_range(&config.sandbox),
            subordinate_ids: config.sandbox.subordinate_ids,
            ..SandboxProfile::build(l.build_disk_mib, l.build_processes)
        };
        Profile {
            limits: ResourceLimits {
                max_memory_bytes: Some(l.build_memory_mib << 20),
                max_cpu_secs: Some(l.build_cpu_secs),
                max_processes: Some(l.build_processes),
                max_output_bytes: Some(BUILD_OUTPUT_BYTES),
                // Builds are confined like games: one CPU for the whole tree.
                cpus: Some(bao_supervise::CpuShare::ONE),
            },
            options: SpawnOptions { stderr_cap: l.build_log_bytes, sandbox, ..sandboxed() },
            path: config.sandbox.path.clone(),
        }
    }

    /// A bot in a game or at the gate: `games.bot_*` of `arena.toml`, its
    /// folder read-only.
    #[must_use]
    pub fn bot(config: &ArenaConfig) -> Profile {
        let g = &config.games;
        let sandbox = SandboxProfile {
            read_only_paths: config.sandbox.read_only_paths.clone(),
            ids: Profile::id_range(&config.sandbox),
            subordinate_ids: config.sandbox.subordinate_ids,
            max_tasks: Some(BOT_TASKS),
            ..SandboxProfile::default()
        };
        Profile {
            limits: ResourceLimits {
                max_memory_bytes: Some(g.bot_memory_mib << 20),
                max_cpu_secs: Some(g.bot_cpu_secs),
                max_processes: Some(BOT_PROCESSES),
                max_output_bytes: Some(BOT_OUTPUT_BYTES),
                // One CPU for the bot's whole tree, in games and at the gate alike.
                cpus: Some(bao_supervise::CpuShare::ONE),
            },
            options: SpawnOptions { sandbox, ..sandboxed() },
            path: config.sandbox.path.clone(),
        }
    }

    /// The specification of a built bot in this sandbox: its run command, a
    /// relative program (`./bot`) made absolute in its folder, started by
    /// `env -i` with an environment of its own (`PATH`, `HOME` its folder,
    /// `LANG`, `TMPDIR=/tmp`), not the server's.
    #[must_use]
    pub fn bot_spec(&self, bot: &BuiltBot) -> BotSpec {
        let mut argv = bot.argv.clone();
        let program = if argv.is_empty() { String::new() } else { argv.remove(0) };
        let program = match program.strip_prefix("./") {
            Some(rest) => bot.dir.join(rest).to_string_lossy().into_owned(),
            None if program.contains('/') && !program.starts_with('/') => {
                bot.dir.join(&program).to_string_lossy().into_owned()
            }
            None => program,
        };
        let mut args = vec![
            "-i".to_owned(),
            // `env` reads no option after this: a program named `-x` stays a program.
            "--".to_owned(),
            format!("PATH={}", self.path),
            format!("HOME={}", bot.dir.display()),
            "LANG=C.UTF-8".to_owned(),
            "TMPDIR=/tmp".to_owned(),
            program,
        ];
        args.extend(argv);
        BotSpec { name: Some(bot.name.clone()), program: ENV.into(), args, dir: Some(bot.dir.clone()) }
    }

    /// The uids of the sandboxes of a root server.
    #[must_use]
    pub fn id_range(sandbox: &SandboxConfig) -> IdRange {
        IdRange { first: sandbox.uid_base, count: sandbox.uid_count }
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
    use bao_supervise::ProgramDirAccess;

    use super::*;

    #[test]
    fn a_bot_starts_with_its_own_environment() {
        let config = ArenaConfig::default_config();
        let bot = BuiltBot {
            name: "b v1".into(),
            argv: vec!["./bot".into(), "--fast".into()],
            dir: "/arena/bots/1/v1".into(),
        };
        let spec = Profile::bot(&config).bot_spec(&bot);
        assert_eq!(spec.program, "/usr/bin/env");
        assert_eq!(
            spec.args,
            [
                "-i",
                "--",
                "PATH=/usr/local/bin:/usr/bin:/bin",
                "HOME=/arena/bots/1/v1",
                "LANG=C.UTF-8",
                "TMPDIR=/tmp",
                "/arena/bots/1/v1/bot",
                "--fast"
            ]
        );
        assert_eq!(spec.dir.as_deref(), Some(std::path::Path::new("/arena/bots/1/v1")));
        let python = BuiltBot { argv: vec!["python3".into(), "main.py".into()], ..bot };
        assert_eq!(Profile::bot(&config).bot_spec(&python).args[6..], ["python3", "main.py"]);
    }

    #[test]
    fn profiles_follow_arena_toml() {
        let mut config = ArenaConfig::default_config();
        config.limits.build_processes = 7;
        config.limits.build_memory_mib = 100;
        config.limits.build_disk_mib = 30;
        config.games.bot_cpu_secs = 9;
        config.sandbox.uid_base = 2_000_000;
        let within = bao_supervise::SubordinateIds::Within(IdRange { first: 300_000, count: 10 });
        config.sandbox.subordinate_ids = within;
        config.sandbox.read_only_paths = vec!["/opt/jdk".into()];
        let build = Profile::build(&config);
        assert_eq!(build.limits.max_processes, Some(7));
        assert_eq!(build.limits.max_memory_bytes, Some(100 << 20));
        assert_eq!(build.options.stderr_cap, config.limits.build_log_bytes);
        assert_eq!(build.options.sandbox.program_dir, ProgramDirAccess::Writable { disk_mib: 30 });
        assert_eq!((build.options.sandbox.tmp_mib, build.options.sandbox.max_tasks), (30, Some(7)));
        let bot = Profile::bot(&config);
        assert_eq!(bot.limits.max_cpu_secs, Some(9));
        assert_eq!(bot.options.sandbox.program_dir, ProgramDirAccess::ReadOnly);
        for p in [&build, &bot] {
            assert_eq!(p.options.isolation.level, IsolationLevel::Full);
            assert!(p.options.isolation.no_network());
            assert_eq!(p.options.sandbox.ids.first, 2_000_000);
            assert_eq!(p.options.sandbox.subordinate_ids, within);
            assert_eq!(p.options.sandbox.read_only_paths, config.sandbox.read_only_paths);
        }
    }
}
