//! Starting each bot once before the first game, so that a bot that cannot start (a typo in
//! its program, a missing directory, a crash on `hello`) is an operator error with a message,
//! not a silent forfeit in every game.
//!
//! The check is the game's own handshake: the bot is spawned as a game would spawn it (same
//! limits and isolation), gets the `hello` of a game from the start position playing South,
//! must answer `ready` within the startup time, and is then told `quit` and ended.

use std::fmt;
use std::time::Duration;

use bao_game::{TimeControl, wire};
use bao_protocol::BotMessage;
use bao_rules::{Position, Side};
use bao_supervise::{BotProcess, BotSpec, Isolation, ResourceLimits, SpawnOptions};

/// How long a bot has to exit after the preflight's `quit`.
const QUIT_GRACE: Duration = Duration::from_millis(500);
/// At most this many bytes of the bot's stderr are quoted in the message.
const STDERR_QUOTE_BYTES: usize = 2000;

/// What a preflight starts the bot with.
#[derive(Debug, Clone, Copy)]
pub struct Preflight<'a> {
    /// The start position announced in `hello`.
    pub start: &'a Position,
    /// The time control announced in `hello`; its startup time is the deadline for `ready`.
    pub time: &'a TimeControl,
    /// The resource limits of a game.
    pub limits: &'a ResourceLimits,
    /// The isolation of a game.
    pub isolation: Isolation,
}

/// A bot that did not start and answer `ready`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unstartable {
    /// The bot's display name.
    pub name: String,
    /// Its command line, shell-quoted.
    pub command: String,
    /// Its working directory, if one was given.
    pub dir: Option<String>,
    /// What went wrong.
    pub problem: String,
    /// What it wrote on stderr (the start of it), trimmed.
    pub stderr: String,
    /// The referee or the machine could not start it (no descriptors, memory, processes...):
    /// not the bot's fault, never a forfeit.
    pub referee_fault: bool,
}

impl fmt::Display for Unstartable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bot {:?} cannot start: {}\n  command: {}", self.name, self.problem, self.command)?;
        if let Some(dir) = &self.dir {
            write!(f, "\n  directory: {dir}")?;
        }
        if self.stderr.is_empty() {
            write!(f, "\n  stderr: (nothing)")
        } else {
            write!(f, "\n  stderr:")?;
            for line in self.stderr.lines() {
                write!(f, "\n    {line}")?;
            }
            Ok(())
        }
    }
}

impl std::error::Error for Unstartable {}

/// Starts `spec` once and waits for its `ready`; the bot is ended afterwards either way.
///
/// # Errors
/// [`Unstartable`] naming the bot, its command, the problem and its stderr.
pub async fn check_bot(spec: &BotSpec, with: &Preflight<'_>) -> Result<bao_protocol::Ready, Unstartable> {
    let failure = |problem: String, stderr: String| Unstartable {
        name: spec.display_name(),
        command: shell_words::join(spec.command_line()),
        dir: spec.dir.as_ref().map(|d| d.display().to_string()),
        problem,
        stderr: quote(&stderr),
        referee_fault: false,
    };
    let options = SpawnOptions {
        isolation: with.isolation,
        max_line_bytes: bao_protocol::MAX_LINE_BYTES,
        ..SpawnOptions::default()
    };
    let mut process = BotProcess::spawn_with(spec, with.limits, &options).await.map_err(|e| Unstartable {
        referee_fault: e.is_referee_fault(),
        ..failure(e.to_string(), String::new())
    })?;
    let deadline = tokio::time::Instant::now() + with.time.startup;
    let hello = wire::hello_line(Side::South, with.start, with.time);
    let answer = handshake(&mut process, &hello, deadline, with).await;
    if answer.is_ok() {
        let _ = process.send_line(&wire::quit_line(), tokio::time::Instant::now() + QUIT_GRACE).await;
    }
    let (_, stderr) = process.shutdown_with_stderr(QUIT_GRACE).await;
    answer.map_err(|problem| failure(problem, stderr.text()))
}

/// Sends `hello` and reads lines until `ready` (skipping `info`).
async fn handshake(
    process: &mut BotProcess,
    hello: &str,
    deadline: tokio::time::Instant,
    with: &Preflight<'_>,
) -> Result<bao_protocol::Ready, String> {
    let during = |fault: bao_supervise::BotFault| match fault {
        bao_supervise::BotFault::Timeout => {
            format!("no ready within the startup time ({} ms, --startup-time)", with.time.startup.as_millis())
        }
        other => broken_limit(&other, with.limits)
            .map(|limit| format!("it exceeded its {limit} while starting, and was killed"))
            .unwrap_or_else(|| format!("it did not answer hello with ready: {other}")),
    };
    process.send_line(hello, deadline).await.map_err(during)?;
    loop {
        let line = process.recv_line(deadline).await.map_err(during)?;
        match BotMessage::parse(&line) {
            Ok(BotMessage::Ready(ready)) => return Ok(ready),
            Ok(BotMessage::Info(_)) => {}
            Ok(other) => {
                return Err(format!(
                    "it answered hello with a {} message instead of ready: {}",
                    other.message_type(),
                    bao_game::judge::excerpt(&line)
                ));
            }
            Err(e) => {
                return Err(format!(
                    "it answered hello with {:?}, not ready: {e}",
                    bao_game::judge::excerpt(&line)
                ));
            }
        }
    }
}

/// The limit a fault says the bot broke, with the option that set it: `memory limit
/// (--max-memory 20M)`; `None` for a fault that is not a resource limit.
fn broken_limit(fault: &bao_supervise::BotFault, limits: &ResourceLimits) -> Option<String> {
    use bao_supervise::BotFault;
    let (what, option, value) = match fault {
        BotFault::MemoryLimit => ("memory limit", "--max-memory", limits.max_memory_bytes.map(size)),
        BotFault::CpuLimit => ("CPU time limit", "--max-cpu", limits.max_cpu_secs.map(|s| s.to_string())),
        BotFault::ProcessLimit => {
            ("process limit", "--max-processes", limits.max_processes.map(|n| n.to_string()))
        }
        BotFault::OutputLimit { limit } => ("output limit", "--max-output", Some(size(*limit))),
        _ => return None,
    };
    Some(match value {
        Some(value) => format!("{what} ({option} {value})"),
        None => what.to_owned(),
    })
}

/// Bytes as the size options take them: `20M` for 20 MiB, `1536K`, `1000`.
fn size(bytes: u64) -> String {
    match bytes {
        0 => "0".to_owned(),
        b if b % (1 << 30) == 0 => format!("{}G", b >> 30),
        b if b % (1 << 20) == 0 => format!("{}M", b >> 20),
        b if b % (1 << 10) == 0 => format!("{}K", b >> 10),
        b => b.to_string(),
    }
}

fn quote(stderr: &str) -> String {
    cut(stderr.trim(), STDERR_QUOTE_BYTES)
}

/// The first `max` bytes of `text`, cut at a character boundary, with `…` when cut.
fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// Checks every bot of `specs` (each distinct one once, all at the same time).
///
/// Returns the failures, in the order of `specs`.
pub async fn check_all(specs: &[&BotSpec], with: &Preflight<'_>) -> Vec<Unstartable> {
    let mut distinct: Vec<&BotSpec> = Vec::new();
    for spec in specs {
        if !distinct.iter().any(|d| same_process(d, spec)) {
            distinct.push(spec);
        }
    }
    let checks = distinct.iter().map(|spec| check_bot(spec, with));
    futures_util::future::join_all(checks).await.into_iter().filter_map(Result::err).collect()
}

/// Starts each bot of `plan` once, as its games would (the plan's first opening, clocks,
/// limits and isolation), under the [`crate::signals`]: `None` when a signal came first (the
/// bots being started are ended), else the bots that did not start.
///
/// # Errors
/// The runtime or the signal handlers cannot be set up.
pub fn check_plan(plan: &crate::plan::Plan) -> Result<Option<Vec<Unstartable>>, crate::Error> {
    let start = plan.opening(0).unwrap_or_else(|_| Position::start(bao_rules::Variant::Kiswahili));
    let with = Preflight {
        start: &start,
        time: &plan.time_control,
        limits: &plan.limits,
        isolation: plan.isolation,
    };
    let runtime = bao_game::runtime::build().map_err(crate::Error::Runtime)?;
    let specs: Vec<&BotSpec> = plan.bots.iter().collect();
    let cancel = tokio_util::sync::CancellationToken::new();
    runtime.block_on(async {
        crate::signals::install(cancel.clone()).map_err(crate::Error::Signals)?;
        Ok(tokio::select! {
            () = cancel.cancelled() => None,
            found = check_all(&specs, &with) => Some(found),
        })
    })
}

/// A bot that cannot run under the isolation asked for is an error before the game, not a
/// forfeit (other start-up failures stay the bot's fault: `handshake_failed`).
///
/// # Errors
/// Naming the bot and why it cannot be isolated.
pub fn check_isolation(bots: &[&BotSpec], isolation: Isolation) -> Result<(), crate::error::IsolationError> {
    let options = SpawnOptions { isolation, ..Default::default() };
    for bot in bots {
        if let Err(e @ bao_supervise::SpawnError::Isolation { .. }) = BotProcess::preflight(bot, &options) {
            return Err(crate::error::IsolationError { bot: bot.display_name(), source: e });
        }
    }
    Ok(())
}

/// Whether two specs start the same program the same way (names aside).
fn same_process(a: &BotSpec, b: &BotSpec) -> bool {
    a.program == b.program && a.args == b.args && a.dir == b.dir
}

/// The program of a bot command: `bao-referee` is this referee's own executable (so that
/// `bao-referee sample-bot greedy` works without `bao-referee` on PATH); anything else as given.
#[must_use]
pub fn resolve_self(program: String) -> String {
    if program == "bao-referee"
        && let Ok(exe) = std::env::current_exe()
    {
        return exe.display().to_string();
    }
    program
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(program: &str, args: &[&str], dir: Option<&str>) -> BotSpec {
        BotSpec {
            name: None,
            program: program.to_owned(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            dir: dir.map(std::path::PathBuf::from),
        }
    }

    fn run(specs: &[&BotSpec]) -> Vec<Unstartable> {
        let start = Position::start(bao_rules::Variant::Kiswahili);
        let time = TimeControl { startup: Duration::from_secs(5), ..TimeControl::default() };
        let limits = ResourceLimits::default();
        let with = Preflight { start: &start, time: &time, limits: &limits, isolation: Isolation::default() };
        let runtime = bao_game::runtime::build().expect("a runtime");
        runtime.block_on(check_all(specs, &with))
    }

    #[test]
    fn a_missing_program_is_named_with_its_command() {
        let missing = spec("/nonexistent/bot-xyz", &["--fast"], None);
        let failures = run(&[&missing]);
        assert_eq!(failures.len(), 1);
        let text = failures[0].to_string();
        assert!(text.contains("bot \"bot-xyz\" cannot start"), "{text}");
        assert!(text.contains("command: /nonexistent/bot-xyz --fast"), "{text}");
    }

    #[test]
    fn a_bad_directory_and_a_crash_on_hello_are_reported_with_stderr() {
        let bad_dir = spec("sh", &["-c", "true"], Some("/nonexistent/dir"));
        let crash = spec("sh", &["-c", "read line; echo 'no such file: bot.js' >&2; exit 1"], None);
        let failures = run(&[&bad_dir, &crash]);
        assert_eq!(failures.len(), 2);
        assert!(failures[0].to_string().contains("directory: /nonexistent/dir"), "{}", failures[0]);
        let crashed = failures[1].to_string();
        assert!(crashed.contains("no such file: bot.js"), "{crashed}");
        assert!(crashed.contains("exit code 1"), "{crashed}");
    }

    #[test]
    fn a_bot_that_answers_ready_passes_and_duplicates_start_once() {
        let ok = spec("sh", &["-c", r#"read line; echo '{"type":"ready","name":"ok"}'; read line"#], None);
        let not_json = spec("sh", &["-c", "read line; echo hello there"], None);
        assert!(run(&[&ok, &ok]).is_empty());
        let failures = run(&[&not_json, &not_json]);
        assert_eq!(failures.len(), 1);
        assert!(failures[0].problem.contains("hello there"), "{}", failures[0]);
    }

    #[test]
    fn a_broken_limit_names_its_option_and_value() {
        let limits = ResourceLimits { max_memory_bytes: Some(20 << 20), ..ResourceLimits::default() };
        let text = broken_limit(&bao_supervise::BotFault::MemoryLimit, &limits);
        assert_eq!(text.as_deref(), Some("memory limit (--max-memory 20M)"));
        let output = bao_supervise::BotFault::OutputLimit { limit: 1536 };
        assert_eq!(broken_limit(&output, &limits).as_deref(), Some("output limit (--max-output 1536)"));
        assert_eq!(broken_limit(&bao_supervise::BotFault::Timeout, &limits), None);
        assert_eq!(size(3 << 30), "3G");
        assert_eq!(size(1536 << 10), "1536K");
    }

    #[test]
    fn bao_referee_is_this_executable() {
        let me = std::env::current_exe().unwrap().display().to_string();
        assert_eq!(resolve_self("bao-referee".to_owned()), me);
        assert_eq!(resolve_self("./bao-referee".to_owned()), "./bao-referee");
        assert_eq!(resolve_self("python3".to_owned()), "python3");
    }
}
