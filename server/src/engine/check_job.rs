//! The conformance gate on the engine thread: every check of `bao-check`, with
//! its report as the owner sees it.

use std::time::Duration;

use bao_check::{CheckKind, CheckResult, Settings, Status, report, suite};

use crate::build::gate::{BuiltBot, GateReport};

/// The clocks of the checks, and the sandbox of the bot (the games' own).
#[derive(Debug, Clone)]
pub struct CheckLimits {
    /// The fixed time per move.
    pub move_time: Duration,
    /// The time to answer hello.
    pub startup: Duration,
    /// The bot's sandbox: exactly a game's ([`crate::sandbox::Profile::bot`]).
    pub profile: crate::sandbox::Profile,
}

/// Runs every check on the bot.
pub async fn run(bot: &BuiltBot, limits: &CheckLimits) -> GateReport {
    let spec = limits.profile.bot_spec(bot);
    let mut settings = Settings::new(spec, limits.move_time, limits.startup);
    settings.isolation = limits.profile.options.isolation;
    settings.limits = limits.profile.limits;
    settings.sandbox = limits.profile.options.sandbox.clone();
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
