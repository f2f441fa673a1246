//! Bots and their versions in the database: records, lookups and the
//! state changes of the lifecycle (each a [`VersionChange`] the lifecycle allows).

use crate::db::{Behavior, Conn, OptionalExtension, Row, params};
use serde::Serialize;

use crate::db::now_ms;
use crate::domain::{BotId, BotName, SprtVerdict, UserId, UserName, VersionChange, VersionId, VersionState};
use crate::error::ServerError;

/// A bot: a name owned by a user, with versions.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Bot {
    /// Database id.
    pub id: BotId,
    /// The bot's name.
    pub name: BotName,
    /// The owner's user id.
    pub owner_id: UserId,
    /// The owner's name.
    pub owner: UserName,
}

/// A version of a bot, as anyone may see it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Version {
    /// Database id.
    pub id: VersionId,
    /// The bot's id.
    pub bot_id: BotId,
    /// The bot's name.
    pub bot: BotName,
    /// The owner's name.
    pub owner: UserName,
    /// 1 for the first version of the bot, then 2, ...
    pub number: i64,
    /// The language (a name from the arena's table).
    pub language: String,
    /// The uploaded file's name.
    pub source_name: String,
    /// The upload's size in bytes.
    pub source_bytes: i64,
    /// The lifecycle state.
    pub state: VersionState,
    /// Whether it was submitted as a candidate against the active version.
    pub candidate: bool,
    /// Whether a candidate that passes its SPRT replaces the active version.
    pub auto_promote: bool,
    /// The version a candidate is tested against.
    pub baseline_id: Option<VersionId>,
    /// When it was submitted (Unix ms).
    pub submitted_at: i64,
    /// When it entered its state (Unix ms).
    pub state_at: i64,
    /// Why it was rejected, or how its candidate test ended.
    pub reason: String,
    /// The candidate test's log-likelihood ratio, while or after it runs.
    pub sprt_llr: Option<f64>,
    /// The candidate test's verdict: `h1` (better) or `h0` (not better); none while undecided.
    pub sprt_result: Option<SprtVerdict>,
}

/// A version with the logs only its owner (and admins) may read.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct VersionDetail {
    /// The version.
    #[serde(flatten)]
    pub version: Version,
    /// The build's output (bounded).
    pub build_log: String,
    /// The conformance gate's report.
    pub check_report: String,
    /// The CPU architectures on which a worker's build of it, or the gate's check of that
    /// build, failed (`games.executor = "workers"`): no game is played with it there.
    pub arch_failures: Vec<crate::worker::build_queue::ArchFailureRecord>,
}

const VERSION_COLUMNS: &str =
    "v.id, v.bot_id, b.name, u.name, v.number, v.language, v.source_name, v.source_bytes,
     v.state, v.candidate, v.auto_promote, v.baseline_id, v.submitted_at, v.state_at, v.reason, v.sprt_llr, v.sprt_result";

fn version_from_row(r: &Row<'_>) -> rusqlite::Result<Version> {
    Ok(Version {
        id: r.get(0)?,
        bot_id: r.get(1)?,
        bot: r.get(2)?,
        owner: r.get(3)?,
        number: r.get(4)?,
        language: r.get(5)?,
        source_name: r.get(6)?,
        source_bytes: r.get(7)?,
        state: r.get(8)?,
        candidate: r.get(9)?,
        auto_promote: r.get(10)?,
        baseline_id: r.get(11)?,
        submitted_at: r.get(12)?,
        state_at: r.get(13)?,
        reason: r.get(14)?,
        sprt_llr: r.get(15)?,
        sprt_result: r.get(16)?,
    })
}

fn select_versions(
    conn: &Conn,
    filter: &str,
    args: impl crate::db::Params,
) -> Result<Vec<Version>, ServerError> {
    let sql = format!(
        "SELECT {VERSION_COLUMNS} FROM versions v JOIN bots b ON b.id = v.bot_id JOIN users u ON u.id = b.owner_id
         {filter}"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(args, version_from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// One version by id.
pub fn version(conn: &Conn, id: VersionId) -> Result<Option<Version>, ServerError> {
    Ok(select_versions(conn, "WHERE v.id = ?1", [id])?.pop())
}

/// One version with its logs.
pub fn version_detail(conn: &Conn, id: VersionId) -> Result<Option<VersionDetail>, ServerError> {
    let Some(version) = version(conn, id)? else { return Ok(None) };
    let (build_log, check_report) =
        conn.query_row("SELECT build_log, check_report FROM versions WHERE id = ?1", [id], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    let arch_failures = crate::worker::build_queue::failures(conn, id)?;
    Ok(Some(VersionDetail { version, build_log, check_report, arch_failures }))
}

/// The versions of a bot, newest first.
pub fn versions_of_bot(conn: &Conn, bot_id: BotId) -> Result<Vec<Version>, ServerError> {
    select_versions(conn, "WHERE v.bot_id = ?1 ORDER BY v.number DESC", [bot_id])
}

/// The versions in a state, oldest first.
pub fn versions_in_state(conn: &Conn, state: VersionState) -> Result<Vec<Version>, ServerError> {
    select_versions(conn, "WHERE v.state = ?1 ORDER BY v.id", [state])
}

/// A bot by name (case-insensitive).
pub fn bot_by_name(conn: &Conn, name: &str) -> Result<Option<Bot>, ServerError> {
    Ok(conn
        .query_row(
            "SELECT b.id, b.name, b.owner_id, u.name FROM bots b JOIN users u ON u.id = b.owner_id WHERE b.name = ?1",
            [name],
            |r| Ok(Bot { id: r.get(0)?, name: r.get(1)?, owner_id: r.get(2)?, owner: r.get(3)? }),
        )
        .optional()?)
}

/// Every bot, by name.
pub fn all_bots(conn: &Conn) -> Result<Vec<Bot>, ServerError> {
    let mut stmt = conn.prepare_cached(
        "SELECT b.id, b.name, b.owner_id, u.name FROM bots b JOIN users u ON u.id = b.owner_id ORDER BY b.name",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(Bot { id: r.get(0)?, name: r.get(1)?, owner_id: r.get(2)?, owner: r.get(3)? })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Moves a version through `change` (from its `from` to its `to` state: only
/// a change the lifecycle allows can be made), recording `reason`. Returns false
/// when the version was not in state `from` any more.
pub fn set_state(
    conn: &Conn,
    id: VersionId,
    change: VersionChange,
    reason: &str,
) -> Result<bool, ServerError> {
    let n = conn.execute(
        "UPDATE versions SET state = ?3, state_at = ?4, reason = ?5 WHERE id = ?1 AND state = ?2",
        params![id, change.from(), change.to(), now_ms(), reason],
    )?;
    Ok(n == 1)
}

/// Makes a version active through `change` (from `checking` or
/// `evaluating`) and retires the bot's previously active one, inside the
/// caller's transaction: nothing is changed (and false returned) when the
/// version is no longer in state `change.from()`.
pub fn activate_in(
    conn: &Conn,
    id: VersionId,
    change: VersionChange,
    reason: &str,
) -> Result<bool, ServerError> {
    if change.to() != VersionState::Active {
        return Err(ServerError::Internal(format!("version {id}: {} is no activation", change.to())));
    }
    let bot_id: BotId = conn.query_row("SELECT bot_id FROM versions WHERE id = ?1", [id], |r| r.get(0))?;
    if !set_state(conn, id, change, reason)? {
        return Ok(false);
    }
    crate::failpoint::hit("activate.between_writes");
    let retire = VersionChange::RETIRE;
    conn.execute(
        "UPDATE versions SET state = ?5, state_at = ?3, reason = ?4
         WHERE bot_id = ?1 AND state = ?6 AND id != ?2",
        params![
            bot_id,
            id,
            now_ms(),
            format!("replaced by a newer version (id {id})"),
            retire.to(),
            retire.from()
        ],
    )?;
    Ok(true)
}

/// Makes a version active and retires the bot's previously active one, in one
/// transaction that commits only when the version was still in state `change.from()`.
pub fn activate(
    conn: &mut Conn,
    id: VersionId,
    change: VersionChange,
    reason: &str,
) -> Result<bool, ServerError> {
    let tx = conn.transaction_with_behavior(Behavior::Immediate)?;
    let ok = activate_in(&tx, id, change, reason)?;
    if ok {
        tx.commit()?;
    }
    Ok(ok)
}

/// Stores the build output of a version.
pub fn set_build_log(conn: &Conn, id: VersionId, log: &str) -> Result<(), ServerError> {
    conn.execute("UPDATE versions SET build_log = ?2 WHERE id = ?1", params![id, log])?;
    Ok(())
}

/// Stores the conformance report of a version.
pub fn set_check_report(conn: &Conn, id: VersionId, report: &str) -> Result<(), ServerError> {
    conn.execute("UPDATE versions SET check_report = ?2 WHERE id = ?1", params![id, report])?;
    Ok(())
}

/// The queued version to build next, in fair order: users take turns. The
/// user served least recently goes first (a user's last service is the latest
/// state change of any of their versions that left the queue; a user never
/// served comes first), and each user's versions are built oldest first. So
/// one user's backlog delays another user's next build by at most the build
/// under way.
/// `?1` is [`VersionState::Queued`].
const NEXT_QUEUED: &str = "WHERE v.state = ?1
     ORDER BY coalesce((SELECT max(w.state_at) FROM versions w JOIN bots wb ON wb.id = w.bot_id
                        WHERE wb.owner_id = b.owner_id AND w.state != ?1), 0), v.id
     LIMIT 1";

/// Takes the next queued version for building (moves it to `building`), in the
/// fair order of users described at `NEXT_QUEUED`.
pub fn claim_queued(conn: &Conn) -> Result<Option<Version>, ServerError> {
    loop {
        let Some(v) = select_versions(conn, NEXT_QUEUED, [VersionState::Queued])?.pop() else {
            return Ok(None);
        };
        let change = VersionChange::START_BUILD;
        if set_state(conn, v.id, change, "")? {
            return Ok(Some(Version { state: change.to(), ..v }));
        }
    }
}

/// The versions a user has waiting to be built or checked (queued, building, checking).
pub fn pending_of_user(conn: &Conn, user_id: UserId) -> Result<i64, ServerError> {
    Ok(conn.query_row(
        "SELECT count(*) FROM versions v JOIN bots b ON b.id = v.bot_id
         WHERE b.owner_id = ?1 AND v.state IN (?2, ?3, ?4)",
        params![user_id, VersionState::Queued, VersionState::Building, VersionState::Checking],
        |r| r.get(0),
    )?)
}
