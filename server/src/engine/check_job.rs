//! The conformance gate on the engine thread: every check of `bao-check`, with
//! its report as the owner sees it.

use std::time::Duration;

use bao_check::{CheckKind, CheckResult, Settings, Status, report, suite};

use crate::build::gate::{BuiltBot, GateReport};

/// The clocks of the checks.
#[derive(Debug, Clone, Copy)]
pub struct CheckLimits {
    /// The fixed time per move.
    pub move_time: Duration,
    /// The time to answer hello.
    pub startup: Duration,
}

/// Runs every check on the bot. The report names the bot's folder `.` (it is shown on the
/// version's page, where the server's folders are nobody's business).
pub async fn run(bot: &BuiltBot, limits: CheckLimits) -> GateReport {
    let mut report = run_checks(bot, limits).await;
    let dir = bot.dir.display().to_string();
    report.report = report.report.replace(&format!("{dir}/"), "").replace(&dir, ".");
    report
}

async fn run_checks(bot: &BuiltBot, limits: CheckLimits) -> GateReport {
    let spec = crate::engine::game_spec(bot);
    let settings = Settings::new(spec, limits.move_time, limits.startup);
    let checks: Vec<CheckKind> = CheckKind::ALL.to_vec();
    let mut text = report::header(&settings, checks.len());
    text.push('\n');
    let mut on_result = |r: &CheckResult| {
        text.push_str(&report::human(r));
        text.push('\n');
    };
    match suite::run(&settings, &checks, &mut on_result).await {
        Err(e) => GateReport { passed: false, report: format!("{text}{e}\n") },
        Ok(results) => {
            let passed = results.iter().all(|r| r.status == Status::Pass);
            text.push_str(&report::summary(&results));
            text.push('\n');
            GateReport { passed, report: text }
        }
    }
}
