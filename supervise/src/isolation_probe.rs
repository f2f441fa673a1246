//! Whether the kernel lets the stub isolate a bot: checked once per process and isolation
//! (`EXE __exec-bot --isolation LEVEL --probe`, which sets everything up and exits), so that
//! a machine that allows no namespaces is said so once, clearly, and its bots run with
//! process-group isolation instead of failing one by one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use crate::options::Isolation;
use crate::sandbox::BotUser;

/// The outcome of the probe for one stub and isolation: `Err` holds why it failed.
type Outcomes = HashMap<(PathBuf, Isolation, bool), Result<(), String>>;

static OUTCOMES: Mutex<Option<Outcomes>> = Mutex::new(None);

/// Whether `isolation` can be set up by `stub` (running the bot as the separate `user`, when
/// there is one: a root caller's, or an unprivileged caller's subordinate ids). The first failure for an isolation is reported once on stderr (as a
/// warning through `tracing`), naming what the kernel refused.
pub(crate) fn check(stub: &Path, isolation: Isolation, user: Option<BotUser>) -> Result<(), String> {
    // A process is either root or not: a separate user is the root caller's, or else its
    // subordinate ids.
    let key = (stub.to_path_buf(), isolation, user.is_some());
    let mut outcomes = OUTCOMES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(outcome) = outcomes.get_or_insert_with(HashMap::new).get(&key) {
        return outcome.clone();
    }
    let outcome = run(stub, isolation, user).map(drop);
    // The sandbox falls back to nothing: its caller says why (see `decide_isolation`).
    if let Err(reason) = &outcome
        && isolation.level != crate::IsolationLevel::Full
    {
        tracing::warn!(
            "bots cannot be isolated here ({reason}); they run with process-group isolation only \
             (`--isolation none`): a bot can signal, trace and read the processes of the same user, \
             the referee's included (see docs/supervision.md)"
        );
    }
    outcomes.get_or_insert_with(HashMap::new).insert(key, outcome.clone());
    outcome
}

/// Runs the stub's probe of `isolation` (from the system's temporary directory); its stdout
/// (what the sandbox's probe reports, see `SandboxSupport`), or why it failed.
pub(crate) fn run(stub: &Path, isolation: Isolation, user: Option<BotUser>) -> Result<String, String> {
    let mut command = std::process::Command::new(stub);
    command.arg(crate::EXEC_STUB_SUBCOMMAND).arg("--probe");
    command.arg("--isolation").arg(isolation.level.name());
    if isolation.no_network() {
        command.arg("--no-network");
    }
    if let Some(BotUser { uid, gid }) = user {
        command.arg("--uid").arg(uid.to_string()).arg("--gid").arg(gid.to_string());
    }
    let output = command
        .current_dir(std::env::temp_dir())
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {} {}: {e}", stub.display(), crate::EXEC_STUB_SUBCOMMAND))?;
    if output.status.success() {
        return Ok(String::from_utf8_lossy(&output.stdout).into_owned());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let reason = stderr.lines().last().unwrap_or("").trim();
    let reason = reason.strip_prefix("__exec-bot: ").unwrap_or(reason);
    Err(if reason.is_empty() {
        format!("the isolation check ended with {}", output.status)
    } else {
        reason.to_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stub that refuses as a kernel without namespaces would: the reason is its last line.
    #[test]
    fn a_refusing_stub_gives_its_reason_and_the_answer_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let stub = dir.path().join("stub");
        let script = "#!/bin/sh\necho \"__exec-bot: cannot isolate the bot: unshare: Operation not permitted\" >&2\nexit 125\n";
        crate::test_executable::write(&stub, script);
        let asked = Isolation::default();
        let reason = check(&stub, asked, None).unwrap_err();
        assert_eq!(reason, "cannot isolate the bot: unshare: Operation not permitted");
        std::fs::remove_file(&stub).unwrap();
        assert_eq!(check(&stub, asked, None).unwrap_err(), reason, "asked once per process");
    }
}
