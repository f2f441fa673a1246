//! What the "my bots" page shows a signed-in entrant: each of their bots with
//! its place on the leaderboard, and every version with its state and how its
//! build and its conformance gate went.

use std::collections::HashSet;

use crate::db::Conn;
use serde::Serialize;

use crate::domain::{BotName, UserId, VersionId, VersionState};
use crate::error::ServerError;
use crate::games::{self, GameFilter};
use crate::standings::Standing;
use crate::versions::{self, Version};

/// How one step of a version's way to the ladder went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Step {
    /// Not reached yet.
    Waiting,
    /// Under way.
    Running,
    /// Done and passed.
    Passed,
    /// Done and failed.
    Failed,
    /// Never reached (an earlier step failed).
    Skipped,
}

/// How a version's build and gate went, from its state, whether it has a
/// conformance report and its reason.
#[must_use]
pub fn steps(state: VersionState, has_check_report: bool, reason: &str) -> (Step, Step) {
    match state {
        VersionState::Queued => (Step::Waiting, Step::Waiting),
        VersionState::Building => (Step::Running, Step::Waiting),
        VersionState::Checking => (Step::Passed, Step::Running),
        VersionState::Evaluating | VersionState::Active | VersionState::Retired => {
            (Step::Passed, Step::Passed)
        }
        VersionState::Rejected if !has_check_report => (Step::Failed, Step::Skipped),
        VersionState::Rejected if reason.starts_with("the conformance check failed") => {
            (Step::Passed, Step::Failed)
        }
        // Rejected after the gate: its candidate test said no.
        VersionState::Rejected => (Step::Passed, Step::Passed),
    }
}

/// A version as the page lists it.
#[derive(Debug, Clone, Serialize)]
pub struct MyVersion {
    /// The version.
    #[serde(flatten)]
    pub version: Version,
    /// When it was submitted, as a date.
    pub submitted: String,
    /// How its build went.
    pub build: Step,
    /// How its conformance gate went.
    pub gate: Step,
}

/// One bot of the entrant.
#[derive(Debug, Clone, Serialize)]
pub struct MyBot {
    /// Its name.
    pub name: BotName,
    /// Its row on the leaderboard (its active version's), if it has one.
    pub standing: Option<Standing>,
    /// Its games, all versions.
    pub games: u64,
    /// Its versions, newest first.
    pub versions: Vec<MyVersion>,
}

/// The bots of a user, by name, with their versions and places.
pub fn of_user(conn: &Conn, user_id: UserId) -> Result<Vec<MyBot>, ServerError> {
    let reported: HashSet<VersionId> = {
        let mut stmt = conn.prepare_cached(
            "SELECT v.id FROM versions v JOIN bots b ON b.id = v.bot_id
             WHERE b.owner_id = ?1 AND length(v.check_report) > 0",
        )?;
        let rows = stmt.query_map([user_id], |r| r.get(0))?;
        rows.collect::<Result<_, _>>()?
    };
    let board = crate::standings::leaderboard(conn)?;
    let mut out = Vec::new();
    for bot in versions::all_bots(conn)?.into_iter().filter(|b| b.owner_id == user_id) {
        let versions = versions::versions_of_bot(conn, bot.id)?
            .into_iter()
            .map(|v| {
                let (build, gate) = steps(v.state, reported.contains(&v.id), &v.reason);
                MyVersion { submitted: crate::pages::format_time(v.submitted_at), build, gate, version: v }
            })
            .collect();
        let games = games::count(conn, &GameFilter { bot_id: Some(bot.id), ..GameFilter::default() })?;
        let standing = board.iter().find(|s| s.bot == bot.name).cloned();
        out.push(MyBot { name: bot.name, standing, games, versions });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_and_gate_follow_the_state() {
        use Step::{Failed, Passed, Running, Skipped, Waiting};
        assert_eq!(steps(VersionState::Queued, false, ""), (Waiting, Waiting));
        assert_eq!(steps(VersionState::Building, false, ""), (Running, Waiting));
        assert_eq!(steps(VersionState::Checking, false, ""), (Passed, Running));
        assert_eq!(steps(VersionState::Active, true, "passed the checks"), (Passed, Passed));
        assert_eq!(steps(VersionState::Rejected, false, "the build failed"), (Failed, Skipped));
        assert_eq!(
            steps(VersionState::Rejected, true, "the conformance check failed (see the report)"),
            (Passed, Failed)
        );
        assert_eq!(steps(VersionState::Rejected, true, "the SPRT accepted H0"), (Passed, Passed));
    }
}
