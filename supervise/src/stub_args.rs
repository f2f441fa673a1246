//! The command line of the re-exec stub, `__exec-bot [OPTIONS] -- PROGRAM [ARGS...]`, parsed
//! with `lexopt` (no clap: the stub is started twice per game's bots, and what its
//! executable links is paid for on every start, see `bao-exec-stub`).

use std::ffi::OsString;
use std::path::PathBuf;

use crate::options::IsolationLevel;

/// The version of the stub's command line and status protocol. A `bao-exec-stub` found next
/// to the running executable is used only if it prints the same (`__exec-bot
/// --stub-protocol`), and a spawn server only if it greets with it; change it whenever the
/// stub's options, its spawn server's messages or its behaviour change.
pub const STUB_PROTOCOL: &str = concat!("bao-exec-stub ", env!("CARGO_PKG_VERSION"), " protocol 7");

/// The arguments of the hidden `__exec-bot` subcommand.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExecBotArgs {
    /// `RLIMIT_DATA` in bytes (memory backstop when no cgroup limits memory).
    pub rlimit_data: Option<u64>,
    /// `RLIMIT_CPU` in seconds (soft limit: SIGXCPU; SIGKILL one second later).
    pub rlimit_cpu: Option<u64>,
    /// Tasks (processes and threads) allowed beyond the user's current ones (`RLIMIT_NPROC`,
    /// applied only when not root, since root is exempt from it).
    pub nproc_allowance: Option<u64>,
    /// The referee's pid: exit at once if the parent is no longer this process.
    pub parent_pid: Option<i32>,
    /// Cgroup directories to move into before anything else (the v2 cgroup and a v1 memory
    /// cgroup).
    pub cgroup: Vec<PathBuf>,
    /// The isolation level: none (without `--isolation`), pid or full.
    pub isolation: IsolationLevel,
    /// Run the bot in a new network namespace (no network).
    pub no_network: bool,
    /// Run the bot under this uid (with `gid`): the referee runs as root, or it is one of
    /// the referee's subordinate uids (mapped by `newuidmap`).
    pub uid: Option<u32>,
    /// Run the bot under this gid (with `uid`).
    pub gid: Option<u32>,
    /// Under `--isolation full` (the sandbox): more host paths shown read-only (`--ro`).
    pub read_only: Vec<PathBuf>,
    /// Under `--isolation full`: the program's folder (the working directory) writable in a
    /// tmpfs of this many MiB, copied back when the program ends (`--rw-mib`); without it the
    /// folder is read-only.
    pub writable_mib: Option<u64>,
    /// Under `--isolation full`: the size of `/tmp` in MiB (`--tmp-mib`; default 64).
    pub tmp_mib: Option<u64>,
    /// Under `--isolation full`: variables of the stub's environment passed on to the program
    /// (`--pass-env NAME`), beyond the few it always gets.
    pub pass_env: Vec<String>,
    /// Check that the isolation can be set up, then exit with 0 instead of running a program.
    pub probe: bool,
    /// Print [`STUB_PROTOCOL`] and exit.
    pub stub_protocol: bool,
    /// The program and its arguments.
    pub command: Vec<OsString>,
}

/// Parses the stub's options (everything after `__exec-bot`); the error names what was wrong.
///
/// # Errors
/// An unknown option, a missing or malformed value, `--uid` without `--gid` (or the reverse),
/// or no program where one is needed.
pub fn parse(argv: impl IntoIterator<Item = OsString>) -> Result<ExecBotArgs, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(argv);
    // Without `--isolation`, none (not the referee's default level).
    let mut args = ExecBotArgs { isolation: IsolationLevel::None, ..ExecBotArgs::default() };
    let error = |e: lexopt::Error| e.to_string();
    loop {
        let mut raw = parser.raw_args().map_err(error)?;
        if raw.peek() == Some(std::ffi::OsStr::new("--")) {
            raw.next();
            args.command = raw.collect();
            break;
        }
        let Some(arg) = parser.next().map_err(error)? else { break };
        match arg {
            Long("rlimit-data") => {
                args.rlimit_data = Some(parser.value().map_err(error)?.parse().map_err(error)?)
            }
            Long("rlimit-cpu") => {
                args.rlimit_cpu = Some(parser.value().map_err(error)?.parse().map_err(error)?)
            }
            Long("nproc-allowance") => {
                args.nproc_allowance = Some(parser.value().map_err(error)?.parse().map_err(error)?);
            }
            Long("parent-pid") => {
                args.parent_pid = Some(parser.value().map_err(error)?.parse().map_err(error)?)
            }
            Long("cgroup") => args.cgroup.push(parser.value().map_err(error)?.into()),
            Long("isolation") => {
                let value = parser.value().map_err(error)?;
                args.isolation = match value.to_str() {
                    Some("none") => IsolationLevel::None,
                    Some("pid") => IsolationLevel::Pid,
                    Some("full") => IsolationLevel::Full,
                    _ => {
                        return Err(format!(
                            "invalid value {value:?} for '--isolation': expected none, pid or full"
                        ));
                    }
                };
            }
            Long("no-network") => args.no_network = true,
            Long("uid") => args.uid = Some(parser.value().map_err(error)?.parse().map_err(error)?),
            Long("gid") => args.gid = Some(parser.value().map_err(error)?.parse().map_err(error)?),
            Long("ro") => args.read_only.push(parser.value().map_err(error)?.into()),
            Long("pass-env") => {
                let name = parser.value().map_err(error)?;
                let name = name.into_string().map_err(|name| format!("invalid variable name {name:?}"))?;
                args.pass_env.push(name);
            }
            Long("rw-mib") => {
                args.writable_mib = Some(parser.value().map_err(error)?.parse().map_err(error)?);
            }
            Long("tmp-mib") => args.tmp_mib = Some(parser.value().map_err(error)?.parse().map_err(error)?),
            Long("probe") => args.probe = true,
            Long("stub-protocol") => args.stub_protocol = true,
            Value(first) => {
                // Only after `--` (a program named like an option must not be taken for one).
                return Err(format!("unexpected argument {first:?}: the program goes after '--'"));
            }
            _ => return Err(arg.unexpected().to_string()),
        }
    }
    if args.uid.is_some() != args.gid.is_some() {
        return Err("'--uid' and '--gid' go together".to_owned());
    }
    if args.command.is_empty() && !args.probe && !args.stub_protocol {
        return Err("no program given (it goes after '--')".to_owned());
    }
    Ok(args)
}

impl ExecBotArgs {
    /// The command line [`parse`] reads back as these arguments: every option that is set,
    /// then `--` and the program with its arguments when there is one (the one writer of the
    /// stub's command line).
    #[must_use]
    pub fn to_args(&self) -> Vec<OsString> {
        let mut out: Vec<OsString> = Vec::new();
        let mut number = |flag: &str, value: Option<u64>| {
            if let Some(value) = value {
                out.extend([flag.into(), value.to_string().into()]);
            }
        };
        number("--rlimit-data", self.rlimit_data);
        number("--rlimit-cpu", self.rlimit_cpu);
        number("--nproc-allowance", self.nproc_allowance);
        number("--uid", self.uid.map(u64::from));
        number("--rw-mib", self.writable_mib);
        number("--tmp-mib", self.tmp_mib);
        number("--gid", self.gid.map(u64::from));
        if let Some(pid) = self.parent_pid {
            out.extend(["--parent-pid".into(), pid.to_string().into()]);
        }
        for cgroup in &self.cgroup {
            out.extend(["--cgroup".into(), cgroup.into()]);
        }
        for path in &self.read_only {
            out.extend(["--ro".into(), path.into()]);
        }
        for name in &self.pass_env {
            out.extend(["--pass-env".into(), name.into()]);
        }
        if self.isolation != IsolationLevel::None {
            out.extend(["--isolation".into(), self.isolation.name().into()]);
        }
        let flags = [
            ("--no-network", self.no_network),
            ("--probe", self.probe),
            ("--stub-protocol", self.stub_protocol),
        ];
        out.extend(flags.into_iter().filter(|(_, set)| *set).map(|(flag, _)| flag.into()));
        if !self.command.is_empty() {
            out.push("--".into());
            out.extend(self.command.iter().cloned());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_args_is_read_back_by_parse() {
        let full = ExecBotArgs {
            rlimit_data: Some(1 << 30),
            rlimit_cpu: Some(12),
            nproc_allowance: Some(64),
            parent_pid: Some(4242),
            cgroup: vec!["/sys/fs/cgroup/a".into(), "/sys/fs/cgroup/memory/b".into()],
            isolation: IsolationLevel::Full,
            no_network: true,
            uid: Some(1001),
            gid: Some(1002),
            read_only: vec!["/opt/jdk".into(), "/root/.pyenv".into()],
            writable_mib: Some(100),
            tmp_mib: Some(32),
            pass_env: vec!["JAVA_OPTS".into()],
            probe: false,
            stub_protocol: false,
            command: words("bot --mode x -- y"),
        };
        let none =
            ExecBotArgs { isolation: IsolationLevel::None, command: words("bot"), ..ExecBotArgs::default() };
        let probe = ExecBotArgs { isolation: IsolationLevel::Pid, probe: true, ..ExecBotArgs::default() };
        for args in [full, none, probe] {
            assert_eq!(parse(args.to_args()), Ok(args.clone()), "{:?}", args.to_args());
        }
    }

    fn words(text: &str) -> Vec<OsString> {
        text.split_whitespace().map(OsString::from).collect()
    }

    #[test]
    fn parses_what_the_referee_and_the_stub_pass() {
        let args = parse(words(
            "--rlimit-cpu 7 --parent-pid 12 --cgroup /a --cgroup /b --isolation full --no-network \
             --uid 5 --gid 6 -- bot --isolation x -- y",
        ))
        .unwrap();
        assert_eq!(args.rlimit_cpu, Some(7));
        assert_eq!(args.parent_pid, Some(12));
        assert_eq!(args.cgroup, vec![PathBuf::from("/a"), PathBuf::from("/b")]);
        assert_eq!(args.isolation, IsolationLevel::Full);
        assert!(args.no_network && !args.probe);
        assert_eq!((args.uid, args.gid), (Some(5), Some(6)));
        assert_eq!(args.command, words("bot --isolation x -- y"), "everything after the first --");
        let probe = parse(words("--isolation pid --probe")).unwrap();
        assert!(probe.probe && probe.command.is_empty());
        assert!(parse(words("--stub-protocol")).unwrap().stub_protocol);
        assert_eq!(parse(words("-- bot")).unwrap().isolation, IsolationLevel::None, "none unless asked");
    }

    #[test]
    fn bad_command_lines_say_what_is_wrong() {
        let error = |text: &str| parse(words(text)).unwrap_err();
        assert!(error("--rlimit-cpu lots -- bot").contains("lots"), "{}", error("--rlimit-cpu lots -- bot"));
        assert!(error("--isolation some -- bot").contains("expected none, pid or full"));
        assert!(error("--frobnicate -- bot").contains("frobnicate"));
        assert!(error("--uid 3 -- bot").contains("go together"));
        assert!(error("--parent-pid 3").contains("no program"));
        assert!(error("bot").contains("after '--'"));
        assert!(error("--cgroup").contains("cgroup"), "{}", error("--cgroup"));
    }
}
