//! Game logs in the database: a worker's game keeps its log there, gzip-compressed (the
//! server's own games keep theirs in the arena's `games/` folder). Every place that reads a
//! game's log reads it through [`read`], which looks in the database first.

use std::io::{Read, Write};

use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;

use crate::arena::Arena;
use crate::db::{Conn, OptionalExtension, params};
use crate::domain::GameId;
use crate::error::ServerError;

/// The bytes gzip-compressed.
pub fn compress(bytes: &[u8]) -> Result<Vec<u8>, ServerError> {
    let mut gz = GzEncoder::new(Vec::new(), Compression::default());
    gz.write_all(bytes).map_err(|e| ServerError::io("cannot compress", e))?;
    gz.finish().map_err(|e| ServerError::io("cannot compress", e))
}

/// The bytes of a gzip stream, at most `limit` of them.
pub fn decompress(bytes: &[u8], limit: u64) -> Result<Vec<u8>, ServerError> {
    let mut out = Vec::new();
    GzDecoder::new(bytes)
        .take(limit + 1)
        .read_to_end(&mut out)
        .map_err(|e| ServerError::io("cannot decompress a stored log", e))?;
    if out.len() as u64 > limit {
        return Err(ServerError::Internal(format!("a stored log is larger than {limit} bytes")));
    }
    Ok(out)
}

/// The largest log the server reads back (a game's log is far smaller: bounded plies and
/// stderr caps).
const MAX_LOG_BYTES: u64 = 256 << 20;

/// Stores a game's log, compressed (in the caller's transaction).
pub fn store(conn: &Conn, game: GameId, log: &[u8]) -> Result<(), ServerError> {
    conn.execute("INSERT INTO game_logs (game_id, data) VALUES (?1, ?2)", params![game, compress(log)?])?;
    Ok(())
}

/// A game's stored log, if the database holds it.
pub fn stored(conn: &Conn, game: GameId) -> Result<Option<Vec<u8>>, ServerError> {
    let data: Option<Vec<u8>> =
        conn.query_row("SELECT data FROM game_logs WHERE game_id = ?1", [game], |r| r.get(0)).optional()?;
    data.map(|d| decompress(&d, MAX_LOG_BYTES)).transpose()
}

/// A game's log: from the database when a worker played it, else from the arena's folder.
pub async fn read(arena: &Arena, game: GameId) -> std::io::Result<Vec<u8>> {
    match arena.db.read(move |c| stored(c, game)).await {
        Ok(Some(log)) => Ok(log),
        Ok(None) => tokio::fs::read(arena.game_log_path(game)).await,
        Err(e) => Err(std::io::Error::other(e.to_string())),
    }
}

/// A game's log as text (see [`read`]).
pub async fn read_text(arena: &Arena, game: GameId) -> std::io::Result<String> {
    let bytes = read(arena, game).await?;
    String::from_utf8(bytes).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// A game's log, on the calling thread (for `serve export`).
pub fn read_blocking(conn: &Conn, arena_dir: &std::path::Path, game: GameId) -> Result<Vec<u8>, ServerError> {
    if let Some(log) = stored(conn, game)? {
        return Ok(log);
    }
    let path = arena_dir.join("games").join(format!("{game}.jsonl"));
    std::fs::read(&path).map_err(|e| ServerError::io(format!("cannot read {}", path.display()), e))
}
