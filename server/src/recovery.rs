//! Putting an arena back in a consistent state at start, whatever moment the
//! last run stopped at (a crash, `kill -9`, a power cut). Every state change of
//! a version is one transaction, so the database holds no half change; what a
//! stop leaves is work under way, which this completes or undoes:
//!
//! - a game `running` is recorded `aborted` (never counted, played again later), unless a
//!   worker holds it under a live lease (`games.executor = "workers"`);
//! - a version `building` or `checking` is queued again (built and checked anew), unless a
//!   worker holds its build under a live lease (`games.executor = "workers"`);
//! - a candidate `evaluating` has its SPRT evaluated again over its recorded
//!   games, which completes a verdict the stop interrupted (and rejects it if
//!   the version it was tested against is no longer active);
//! - a bot with more than one active version keeps its newest one;
//! - the staging folders of uploads (`tmp/upload-*`) are removed, and so is a
//!   version directory without its database row (an upload whose transaction
//!   did not commit).
//!
//! The game loop's busy versions are in memory only and start empty.

use std::collections::HashSet;
use std::path::Path;

use crate::db::{Behavior, Conn, params};

use crate::config::CandidateConfig;
use crate::db::now_ms;
use crate::domain::{BotId, VersionChange, VersionState};
use crate::error::ServerError;
use crate::versions;

/// What [`recover`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recovered {
    /// Games recorded aborted.
    pub games_aborted: usize,
    /// Versions queued again.
    pub requeued: usize,
    /// Candidates whose verdict was reached at start.
    pub verdicts: usize,
    /// Older active versions retired (a bot had more than one).
    pub retired: usize,
    /// Staging folders and orphan version directories removed.
    pub files_removed: usize,
}

/// Recovers the database (one transaction), then the files.
pub fn recover(conn: &mut Conn, dir: &Path, candidate: &CandidateConfig) -> Result<Recovered, ServerError> {
    let mut done = Recovered::default();
    let tx = conn.transaction_with_behavior(Behavior::Immediate)?;
    let now = now_ms();
    // Games that workers hold under a live lease go on (docs/worker.md).
    done.games_aborted = crate::worker::queue::recover(&tx, now)?;
    // Builds that workers hold under a live lease go on (docs/worker.md); the others are
    // claimed again from their task (an expired lease) or built again by this server.
    let held = crate::worker::build_queue::held_by_a_worker(&tx);
    for requeue in [VersionChange::REQUEUE_BUILD, VersionChange::REQUEUE_CHECK] {
        done.requeued += tx.execute(
            &format!(
                "UPDATE versions SET state = ?2, state_at = ?1, reason = 'queued again: the server stopped during its build or check'
                 WHERE state = ?3 AND NOT {held}"
            ),
            params![now, requeue.to(), requeue.from()],
        )?;
    }
    let retire = VersionChange::RETIRE;
    done.retired = tx.execute(
        "UPDATE versions SET state = ?2, state_at = ?1, reason = 'replaced by a newer version'
         WHERE state = ?3 AND id != (SELECT max(w.id) FROM versions w WHERE w.bot_id = versions.bot_id AND w.state = ?3)",
        params![now, retire.to(), retire.from()],
    )?;
    for v in versions::versions_in_state(&tx, VersionState::Evaluating)? {
        let before = v.sprt_result;
        crate::candidate::decide(&tx, v.id, candidate)?;
        let after = versions::version(&tx, v.id)?;
        if after.is_some_and(|a| a.state != VersionState::Evaluating || a.sprt_result != before) {
            done.verdicts += 1;
        }
    }
    let rows: HashSet<(BotId, i64)> = {
        let mut stmt = tx.prepare("SELECT bot_id, number FROM versions")?;
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?
    };
    tx.commit()?;
    done.files_removed = remove_staging(&dir.join("tmp"))? + remove_orphans(&dir.join("bots"), &rows)?;
    Ok(done)
}

/// Removes every `upload-*` entry of `tmp`.
fn remove_staging(tmp: &Path) -> Result<usize, ServerError> {
    let mut removed = 0;
    let entries = match std::fs::read_dir(tmp) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(ServerError::io(format!("cannot list {}", tmp.display()), e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| ServerError::io(format!("cannot list {}", tmp.display()), e))?;
        if entry.file_name().to_string_lossy().starts_with("upload-") {
            remove(&entry.path())?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// Removes every `bots/BOT/vN` directory that has no version row.
fn remove_orphans(bots: &Path, rows: &HashSet<(BotId, i64)>) -> Result<usize, ServerError> {
    let mut removed = 0;
    let list = |p: &Path| -> Result<Vec<std::fs::DirEntry>, ServerError> {
        match std::fs::read_dir(p) {
            Ok(e) => e
                .collect::<Result<_, _>>()
                .map_err(|e| ServerError::io(format!("cannot list {}", p.display()), e)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(ServerError::io(format!("cannot list {}", p.display()), e)),
        }
    };
    for bot in list(bots)? {
        let Some(bot_id) = bot.file_name().to_str().and_then(|n| n.parse::<i64>().ok()).map(BotId::new)
        else {
            continue;
        };
        for version in list(&bot.path())? {
            let name = version.file_name();
            let Some(number) =
                name.to_str().and_then(|n| n.strip_prefix('v')).and_then(|n| n.parse::<i64>().ok())
            else {
                continue;
            };
            if !rows.contains(&(bot_id, number)) {
                remove(&version.path())?;
                removed += 1;
            }
        }
    }
    Ok(removed)
}

fn remove(path: &Path) -> Result<(), ServerError> {
    let r = if path.is_dir() { std::fs::remove_dir_all(path) } else { std::fs::remove_file(path) };
    r.map_err(|e| ServerError::io(format!("cannot remove {}", path.display()), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arena_db() -> (tempfile::TempDir, Conn) {
        let dir = tempfile::tempdir().expect("tempdir");
        let conn = crate::db::open(&dir.path().join("a.sqlite3")).expect("db");
        conn.execute_batch(
            "INSERT INTO users (id, name, created_at) VALUES (1, 'u', 0);
             INSERT INTO bots (id, name, owner_id, created_at) VALUES (1, 'b', 1, 0);",
        )
        .expect("rows");
        (dir, conn)
    }

    fn add(conn: &Conn, id: i64, number: i64, state: VersionState) {
        conn.execute(
            "INSERT INTO versions (id, bot_id, number, language, source_name, source_bytes, state, submitted_at, state_at)
             VALUES (?1, 1, ?2, 'python', 'a.py', 1, ?3, 0, 0)",
            crate::db::params![id, number, state],
        )
        .expect("version");
    }

    fn state(conn: &Conn, id: i64) -> VersionState {
        conn.query_row("SELECT state FROM versions WHERE id = ?1", [id], |r| r.get(0)).expect("state")
    }

    #[test]
    fn every_state_left_by_a_stop_is_completed_or_undone() {
        let (dir, mut conn) = arena_db();
        add(&conn, 1, 1, VersionState::Active);
        add(&conn, 2, 2, VersionState::Active);
        add(&conn, 3, 3, VersionState::Building);
        add(&conn, 4, 4, VersionState::Checking);
        add(&conn, 5, 5, VersionState::Evaluating);
        // A candidate stopped between its verdict and its rejection (no longer possible, but
        // found in arenas written before the verdict became one transaction).
        conn.execute(
            "UPDATE versions SET baseline_id = 2, candidate = 1, sprt_result = ?1 WHERE id = 5",
            [crate::domain::SprtVerdict::H0],
        )
        .expect("candidate");
        add(&conn, 6, 6, VersionState::Evaluating);
        conn.execute("UPDATE versions SET baseline_id = 1, candidate = 1 WHERE id = 6", [])
            .expect("candidate");
        for p in ["tmp/upload-abc/x", "bots/1/v2/bot.py", "bots/1/v9/bot.py", "bots/7/v1/bot.py"] {
            let path = dir.path().join(p);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("dirs");
            std::fs::write(&path, "x").expect("file");
        }
        let c = crate::config::ArenaConfig::default_config().candidate;
        let done = recover(&mut conn, dir.path(), &c).expect("recover");
        assert_eq!(state(&conn, 1), VersionState::Retired, "two active versions: the newest stays");
        assert_eq!(state(&conn, 2), VersionState::Active);
        assert_eq!(state(&conn, 3), VersionState::Queued);
        assert_eq!(state(&conn, 4), VersionState::Queued);
        assert_eq!(
            state(&conn, 5),
            VersionState::Rejected,
            "its SPRT is evaluated again: no games, not decided, but h0 stays"
        );
        assert_eq!(state(&conn, 6), VersionState::Rejected, "its baseline was retired");
        assert_eq!(done.requeued, 2);
        assert_eq!(done.retired, 1);
        assert!(!dir.path().join("tmp/upload-abc").exists());
        assert!(dir.path().join("bots/1/v2/bot.py").exists(), "a version's files stay");
        assert!(!dir.path().join("bots/1/v9").exists(), "files without a row go");
        assert!(!dir.path().join("bots/7/v1").exists());
        assert_eq!(done.files_removed, 3);
        // A second start finds nothing to do.
        let again = recover(&mut conn, dir.path(), &c).expect("recover again");
        assert_eq!(again, Recovered::default());
    }
}
