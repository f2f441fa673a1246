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

/// Runs every check on the bot. The report names the bot's folder `.` (it is shown on the
/// version's page, where the server's folders are nobody's business).
///
/// When the server itself cannot start the bot (no descriptors, memory, processes: see
/// `SpawnError::is_referee_fault`), the checks are run again after 2, 4 and 8 s rather than
/// judged; the report of a last such failure says that it was not the bot's fault.
pub async fn run(bot: &BuiltBot, limits: &CheckLimits) -> GateReport {
    let mut pause = std::time::Duration::from_secs(2);
    let mut report = loop {
        match run_checks(bot, limits).await {
            Checked::Referee(_) if pause <= std::time::Duration::from_secs(8) => {
                tracing::warn!(bot = %bot.name, "the server could not start the bot for its checks: trying again");
                tokio::time::sleep(pause).await;
                pause *= 2;
            }
            Checked::Referee(report) | Checked::Judged(report) => break report,
        }
    };
    let dir = bot.dir.display().to_string();
    report.report = report.report.replace(&format!("{dir}/"), "").replace(&dir, ".");
    report
}

/// A report, or the server's own failure to start the bot.
enum Checked {
    Judged(GateReport),
    Referee(GateReport),
}

async fn run_checks(bot: &BuiltBot, limits: &CheckLimits) -> Checked {
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
        Err(e) if e.0.is_referee_fault() => Checked::Referee(GateReport {
            passed: false,
            report: format!("{text}the server could not start the bot (not the bot's fault): {e}\n"),
        }),
        Err(e) => Checked::Judged(GateReport { passed: false, report: format!("{text}{e}\n") }),
        Ok(results) => {
            let passed = results.iter().all(|r| r.status == Status::Pass);
            text.push_str(&report::summary(&results));
            text.push('\n');
            Checked::Judged(GateReport { passed, report: text })
        }
    }
}
