//! Running the selected checks one after the other, each on a fresh bot process.

use std::time::Instant;

use bao_supervise::SpawnError;

use super::catalog::CheckKind;
use super::result::CheckResult;
use super::scripts;
use super::session::Session;
use super::settings::{CLEANUP_GRACE, Settings};

/// Why the suite could not run: the bot program could not be started at all.
#[derive(Debug, thiserror::Error)]
#[error("cannot start the bot: {0}")]
pub struct CannotStart(#[from] pub SpawnError);

/// Runs `checks` in order (the handshake first), calling `on_result` after each. When the
/// handshake fails, the other checks are skipped: a bot that cannot say ready cannot play.
///
/// # Errors
/// [`CannotStart`] when the first check cannot start the bot (a program that does not exist,
/// is not executable, or a bad directory). Later start failures fail their check.
pub async fn run(
    settings: &Settings,
    checks: &[CheckKind],
    on_result: &mut dyn FnMut(&CheckResult),
) -> Result<Vec<CheckResult>, CannotStart> {
    let mut results: Vec<CheckResult> = Vec::with_capacity(checks.len());
    let mut handshake_failed = false;
    for (index, &kind) in checks.iter().enumerate() {
        let result = if handshake_failed {
            CheckResult::skipped(kind, "not run: the handshake failed, so the bot cannot play")
        } else {
            let started = Instant::now();
            let mut session = match Session::start(settings).await {
                Ok(session) => session,
                Err(e) if index == 0 => return Err(CannotStart(e)),
                Err(e) => {
                    let failure = super::failure::Failure::new(format!("could not start the bot: {e}"));
                    let result = CheckResult::ran(kind, Err(failure), &Default::default(), started.elapsed());
                    on_result(&result);
                    results.push(result);
                    continue;
                }
            };
            let outcome = scripts::run(kind, &mut session, settings).await;
            let finished = session.finish(CLEANUP_GRACE).await;
            CheckResult::ran(kind, outcome, &finished, started.elapsed())
        };
        if kind == CheckKind::Handshake && result.status != super::result::Status::Pass {
            handshake_failed = true;
        }
        on_result(&result);
        results.push(result);
    }
    Ok(results)
}
