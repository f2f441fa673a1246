//! Taking a submission: validation, unpacking into a staging directory
//! (`tmp/upload-*`), then one transaction that counts the user's limits,
//! records the version (creating the bot on its first submission) and, before
//! it commits, moves the files into the version's directory.

use std::path::Path;

use crate::db::{Behavior, Conn, OptionalExtension, params};
use serde::Deserialize;

use crate::arena::Arena;
use crate::db::now_ms;
use crate::domain::{BotId, BotName, UserId, VersionId, VersionState};
use crate::error::ServerError;
use crate::upload::{UnpackLimits, UploadError, unpack};
use crate::users::User;
use crate::versions::{self, Version};

/// A submission: a bot's name, a language and one file or archive.
#[derive(Debug, Clone)]
pub struct Submission {
    /// The bot's name (created on its first submission, owned by the submitter).
    pub bot: String,
    /// A language from the arena's table.
    pub language: String,
    /// The uploaded file's name (its extension says whether it is an archive).
    pub file_name: String,
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// A candidate: tested against the bot's active version by SPRT.
    pub candidate: bool,
    /// A candidate that passes replaces the active version.
    pub auto_promote: bool,
}

/// The query parameters of the raw-body submission endpoint.
#[derive(Debug, Clone, Deserialize, utoipa::IntoParams)]
pub struct SubmitParams {
    /// A language from the arena's table (see `GET /api/languages`).
    pub language: String,
    /// The uploaded file's name, e.g. `bot.py` or `bot.zip` (default `upload`, a single file).
    pub file_name: Option<String>,
    /// Submit as a candidate against the bot's active version.
    #[serde(default)]
    pub candidate: bool,
    /// A candidate that passes its test replaces the active version.
    #[serde(default)]
    pub auto_promote: bool,
}

/// Validates and stores a submission; the new version is queued for building.
pub async fn submit(arena: &Arena, user: &User, sub: Submission) -> Result<Version, ServerError> {
    let bot_name = BotName::try_from(sub.bot.as_str()).map_err(|e| ServerError::Invalid(e.to_string()))?;
    let language = arena.config.language(&sub.language).cloned().ok_or_else(|| {
        let known: Vec<&str> = arena.config.languages.iter().map(|l| l.name.as_str()).collect();
        ServerError::Invalid(format!(
            "unknown language {:?}; this arena accepts: {}",
            sub.language,
            known.join(", ")
        ))
    })?;
    let file_name = sub.file_name.clone();
    crate::names::validate_file_name(&file_name).map_err(ServerError::Invalid)?;
    if sub.bytes.len() > arena.config.limits.upload_bytes {
        return Err(ServerError::Invalid(format!(
            "the upload has {} bytes, more than the limit of {}",
            sub.bytes.len(),
            arena.config.limits.upload_bytes
        )));
    }
    if sub.auto_promote && !sub.candidate {
        return Err(ServerError::Invalid(
            "auto_promote applies to candidates only (set candidate=true)".into(),
        ));
    }
    // Early answers before unpacking; the limits are enforced again in the insert's transaction.
    check_rate(arena, user).await?;
    check_owner(arena, user, &sub).await?;

    let staging = tempfile::Builder::new()
        .prefix("upload-")
        .tempdir_in(arena.dir.join("tmp"))
        .map_err(|e| ServerError::io("cannot create a staging directory", e))?;
    let limits = UnpackLimits {
        max_entries: arena.config.limits.archive_entries,
        max_bytes: arena.config.limits.unpacked_bytes,
    };
    let (bytes, main, stage) = (sub.bytes, language.main.clone(), staging.path().to_path_buf());
    let fname = file_name.clone();
    let source_bytes = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
    tokio::task::spawn_blocking(move || unpack(&bytes, &fname, &main, &stage, limits))
        .await
        .map_err(|e| ServerError::Internal(format!("unpack task: {e}")))?
        .map_err(|e| match e {
            UploadError::Io(io) => ServerError::io("cannot unpack the upload", io),
            other => ServerError::Invalid(other.to_string()),
        })?;
    crate::failpoint::hit("submit.after_unpack");
    // When the workers build (docs/worker.md), the upload's folder goes into the database with
    // the version's row and its build task, in the same transaction: no server keeps it.
    let source = if crate::build::on_workers(arena) {
        let stage = staging.path().to_path_buf();
        let bytes = tokio::task::spawn_blocking(move || crate::worker::artifacts::pack_any(&stage))
            .await
            .map_err(|e| ServerError::Internal(format!("packing an upload failed: {e}")))??;
        Some(bytes)
    } else {
        None
    };
    let in_database = source.is_some();
    let (user_id, lang, candidate, auto) = (user.id, sub.language.clone(), sub.candidate, sub.auto_promote);
    let (is_admin, limits) = (user.is_admin, SubmitLimits::of(arena));
    let stage = staging.path().to_path_buf();
    let bots_dir = arena.dir.join("bots");
    let version_dir =
        move |bot_id: BotId, number: i64| bots_dir.join(bot_id.to_string()).join(format!("v{number}"));
    let fname = file_name.clone();
    let (version_id, number) = arena
        .db
        .write(move |conn| {
            // IMMEDIATE: the write lock is taken before the limits are counted, so that
            // parallel submissions are counted one after the other.
            let tx = conn.transaction_with_behavior(Behavior::Immediate)?;
            if !is_admin {
                limits.check(&tx, user_id)?;
            }
            let bot: Option<(BotId, UserId)> = tx
                .query_row("SELECT id, owner_id FROM bots WHERE name = ?1", [&bot_name], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            let bot_id = match bot {
                Some((_, owner)) if owner != user_id => {
                    return Err(ServerError::Conflict(format!("the bot name {bot_name:?} belongs to another user")));
                }
                Some((id, _)) => id,
                None => {
                    tx.query_row(
                        "INSERT INTO bots (name, owner_id, created_at) VALUES (?1, ?2, ?3) RETURNING id",
                        params![bot_name, user_id, now_ms()],
                        |r| r.get::<_, BotId>(0),
                    )?
                }
            };
            let baseline: Option<VersionId> = tx
                .query_row(
                    "SELECT id FROM versions WHERE bot_id = ?1 AND state = ?2",
                    params![bot_id, VersionState::Active],
                    |r| r.get(0),
                )
                .optional()?;
            if candidate && baseline.is_none() {
                return Err(ServerError::Invalid(format!(
                    "bot {bot_name:?} has no active version to test a candidate against: submit it normally first"
                )));
            }
            let number: i64 =
                tx.query_row("SELECT coalesce(max(number), 0) + 1 FROM versions WHERE bot_id = ?1", [bot_id], |r| {
                    r.get(0)
                })?;
            let now = now_ms();
            let id = tx.query_row(
                "INSERT INTO versions (bot_id, number, language, source_name, source_bytes, state, candidate,
                 auto_promote, baseline_id, submitted_at, state_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?10, ?6, ?7, ?8, ?9, ?9) RETURNING id",
                params![
                    bot_id,
                    number,
                    lang,
                    fname,
                    source_bytes,
                    candidate,
                    auto,
                    if candidate { baseline } else { None },
                    now,
                    VersionState::Queued
                ],
                |r| r.get::<_, VersionId>(0),
            )?;
            crate::failpoint::hit("submit.after_insert");
            if let Some(source) = &source {
                crate::worker::build_queue::store_source(&tx, id, source)?;
                crate::worker::build_queue::enqueue_gate(&tx, id, now)?;
                tx.commit()?;
                return Ok((id, number));
            }
            // The files move into place before the row commits: a version row always has
            // its files. A stop between the two leaves a directory without a row, which
            // the next start removes (crate::recovery); a failed commit moves them back.
            let dest = version_dir(bot_id, number);
            move_into_place(&stage, &dest)?;
            crate::failpoint::hit("submit.after_move");
            if let Err(e) = tx.commit() {
                let _ = std::fs::rename(&dest, &stage);
                return Err(e.into());
            }
            Ok((id, number))
        })
        .await?;
    if !in_database {
        // The directory now belongs to the version: the TempDir must not delete it.
        let _ = staging.keep();
    }
    arena.build_wake.notify_one();
    tracing::info!(version = version_id.get(), bot = %sub.bot, number, "submission queued");
    arena
        .db
        .read(move |conn| versions::version(conn, version_id))
        .await?
        .ok_or_else(|| ServerError::Internal("the new version disappeared".into()))
}

/// The per-user limits of submissions (admins have none).
#[derive(Debug, Clone, Copy)]
struct SubmitLimits {
    per_hour: u32,
    pending: u32,
}

impl SubmitLimits {
    fn of(arena: &Arena) -> SubmitLimits {
        SubmitLimits {
            per_hour: arena.config.limits.submissions_per_hour,
            pending: arena.config.limits.queued_per_user,
        }
    }

    /// Refuses a submission past the hourly limit or past the versions a user may
    /// have waiting for the builder.
    fn check(self, conn: &Conn, user_id: UserId) -> Result<(), ServerError> {
        let recent: i64 = conn.query_row(
            "SELECT count(*) FROM versions v JOIN bots b ON b.id = v.bot_id
             WHERE b.owner_id = ?1 AND v.submitted_at > ?2",
            params![user_id, now_ms() - 3_600_000],
            |r| r.get(0),
        )?;
        if recent >= i64::from(self.per_hour) {
            return Err(ServerError::RateLimited(format!(
                "you have submitted {recent} versions in the last hour; the limit is {}: try again later",
                self.per_hour
            )));
        }
        let pending = versions::pending_of_user(conn, user_id)?;
        if pending >= i64::from(self.pending) {
            return Err(ServerError::RateLimited(format!(
                "you have {pending} versions waiting to be built or checked; the limit is {}: \
                 submit again when one of them is done",
                self.pending
            )));
        }
        Ok(())
    }
}

/// Refuses a submission past the user's limits (admins have none), before unpacking.
async fn check_rate(arena: &Arena, user: &User) -> Result<(), ServerError> {
    if user.is_admin {
        return Ok(());
    }
    let (uid, limits) = (user.id, SubmitLimits::of(arena));
    arena.db.read(move |conn| limits.check(conn, uid)).await
}

/// Moves the staging directory `stage` to the version directory `dest`,
/// replacing a directory a stop left there without its row.
fn move_into_place(stage: &Path, dest: &Path) -> Result<(), ServerError> {
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| ServerError::io(format!("cannot create {}", parent.display()), e))?;
    }
    if dest.exists() {
        std::fs::remove_dir_all(dest)
            .map_err(|e| ServerError::io(format!("cannot remove the leftover {}", dest.display()), e))?;
    }
    std::fs::rename(stage, dest).map_err(|e| ServerError::io("cannot move the upload into place", e))
}

/// Refuses early (before unpacking) a bot name another user owns.
async fn check_owner(arena: &Arena, user: &User, sub: &Submission) -> Result<(), ServerError> {
    let name = sub.bot.clone();
    let bot = arena.db.read(move |conn| versions::bot_by_name(conn, &name)).await?;
    match bot {
        Some(b) if b.owner_id != user.id => {
            Err(ServerError::Conflict(format!("the bot name {:?} belongs to another user", sub.bot)))
        }
        _ => Ok(()),
    }
}
