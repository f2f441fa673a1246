//! `serve export DIR`: every finished game's log, and the standings as JSON.

use std::path::Path;

use crate::arena::Arena;
use crate::error::ServerError;
use crate::games::{self, GameFilter};

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportSummary {
    /// Game logs copied.
    pub games: usize,
    /// Rows of the standings.
    pub standings: usize,
}

/// Writes `out/games/ID.jsonl` for every finished game, `out/games.json` (their
/// records) and `out/standings.json`, from the arena in `data_dir`. A server may
/// be running: SQLite's WAL gives the export a consistent snapshot.
pub fn export(place: impl Into<crate::ArenaPlace>, out: &Path) -> Result<ExportSummary, ServerError> {
    let arena = Arena::open_place(&place.into())?;
    let games_dir = out.join("games");
    std::fs::create_dir_all(&games_dir)
        .map_err(|e| ServerError::io(format!("cannot create {}", games_dir.display()), e))?;
    let (all, standings) = arena.db.write_blocking(|c| {
        // Deferred: a read snapshot that never holds the running server's write lock.
        let tx = c.transaction_with_behavior(crate::db::Behavior::Deferred)?;
        let mut all = Vec::new();
        let mut before = None;
        loop {
            let filter = GameFilter {
                state: Some(crate::domain::GameState::Finished),
                limit: 1000,
                before,
                ..GameFilter::default()
            };
            let page = games::list(&tx, &filter)?;
            let Some(last) = page.last() else { break };
            before = Some(last.id);
            all.extend(page);
        }
        let standings = crate::standings::leaderboard(&tx)?;
        tx.commit()?;
        Ok((all, standings))
    })?;
    for g in &all {
        // A worker's game has its log in the database; the server's own, in the arena's folder.
        let id = g.id;
        let log = arena.db.write_blocking(|c| crate::worker::logs::read_blocking(c, &arena.dir, id))?;
        let to = games_dir.join(format!("{id}.jsonl"));
        std::fs::write(&to, log).map_err(|e| ServerError::io(format!("cannot write {}", to.display()), e))?;
    }
    write_json(&out.join("games.json"), &all)?;
    write_json(&out.join("standings.json"), &standings)?;
    Ok(ExportSummary { games: all.len(), standings: standings.len() })
}

fn write_json(path: &Path, value: &impl serde::Serialize) -> Result<(), ServerError> {
    let text = serde_json::to_vec_pretty(value).map_err(|e| ServerError::Internal(format!("JSON: {e}")))?;
    std::fs::write(path, text).map_err(|e| ServerError::io(format!("cannot write {}", path.display()), e))
}
