//! An open arena: its directory, configuration, database, metrics, the live
//! event hub and the signals that wake the background workers.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::config::ArenaConfig;
use crate::db::Db;
use crate::domain::{BotId, GameId};
use crate::error::ServerError;
use crate::live::LiveHub;
use crate::metrics::Metrics;
use crate::pages::Templates;

/// The file name of the database inside the arena directory.
pub const DB_FILE: &str = "arena.sqlite3";

/// Everything the server's handlers and workers share.
pub struct Arena {
    /// The arena directory.
    pub dir: PathBuf,
    /// `arena.toml`.
    pub config: ArenaConfig,
    /// The database.
    pub db: Db,
    /// Prometheus metrics.
    pub metrics: Metrics,
    /// Moves of running games, for the live pages.
    pub live: LiveHub,
    /// Cancelled on shutdown.
    pub shutdown: CancellationToken,
    /// Wakes the build worker (a version was queued).
    pub build_wake: Notify,
    /// Wakes the matchmaker (a version became active, a game ended).
    pub game_wake: Notify,
    /// Wakes the rating task (a game ended).
    pub rating_wake: Notify,
    /// The page templates.
    pub templates: Templates,
    /// The leaderboard as served (rebuilt in the background).
    pub leaderboard: crate::leaderboard_snapshot::LeaderboardSnapshots,
    /// The games people are playing (`/play`).
    pub play: crate::play::hub::PlayHub,
}

/// Where an arena is: its directory, and its database when that is not the directory's
/// SQLite file (`--database postgres://…`).
#[derive(Debug, Clone)]
pub struct ArenaPlace {
    /// The arena directory.
    pub dir: PathBuf,
    /// A `postgres://` URL, or `None` for the SQLite file in the directory.
    pub database: Option<String>,
}

impl From<&Path> for ArenaPlace {
    fn from(dir: &Path) -> ArenaPlace {
        ArenaPlace { dir: dir.to_owned(), database: None }
    }
}

impl From<&PathBuf> for ArenaPlace {
    fn from(dir: &PathBuf) -> ArenaPlace {
        ArenaPlace { dir: dir.clone(), database: None }
    }
}

/// The shared handle on the arena.
pub type SharedArena = Arc<Arena>;

impl Arena {
    /// Opens the arena in `dir`: creates the directory, `arena.toml`, the
    /// database and its subdirectories on first use.
    pub fn open(dir: &Path) -> Result<Arena, ServerError> {
        Arena::open_place(&ArenaPlace::from(dir))
    }

    /// Opens the arena at `place`: its directory as [`Arena::open`] does, and its database
    /// (migrated to the latest schema).
    pub fn open_place(place: &ArenaPlace) -> Result<Arena, ServerError> {
        let dir = &place.dir;
        std::fs::create_dir_all(dir)
            .map_err(|e| ServerError::io(format!("cannot create {}", dir.display()), e))?;
        // Private to the server's user: nobody else (and no sandbox, which runs as
        // another uid when the server is root) may read the database, the sources
        // or arena.toml.
        crate::db::make_private(dir, 0o700)?;
        for sub in ["bots", "games", "play", "tmp"] {
            let p = dir.join(sub);
            std::fs::create_dir_all(&p)
                .map_err(|e| ServerError::io(format!("cannot create {}", p.display()), e))?;
        }
        // Absolute, so that bots started in their own directories find their files.
        let dir = &std::fs::canonicalize(dir)
            .map_err(|e| ServerError::io(format!("cannot resolve {}", dir.display()), e))?;
        let config = ArenaConfig::load_or_create(dir)?;
        let db = Db::open_location(&crate::db::Location::from_option(
            place.database.as_deref(),
            &dir.join(DB_FILE),
        )?)?;
        Ok(Arena {
            dir: dir.to_path_buf(),
            config,
            db,
            metrics: Metrics::new()?,
            live: LiveHub::new(),
            shutdown: CancellationToken::new(),
            build_wake: Notify::new(),
            game_wake: Notify::new(),
            rating_wake: Notify::new(),
            templates: Templates::new()?,
            leaderboard: crate::leaderboard_snapshot::LeaderboardSnapshots::default(),
            play: crate::play::hub::PlayHub::default(),
        })
    }

    /// Puts the arena back in a consistent state after a stop at any moment
    /// (see [`crate::recovery`]). Returns (games aborted, versions requeued);
    /// the rest of what it did is logged.
    pub fn recover(&self) -> Result<(usize, usize), ServerError> {
        let candidate = self.config.candidate.clone();
        let done = self.db.write_blocking(|conn| crate::recovery::recover(conn, &self.dir, &candidate))?;
        let people = self.db.write_blocking(|conn| crate::play::records::abort_running(conn))?;
        if people > 0 {
            tracing::warn!(games = people, "recovered from a stop: games with people aborted");
        }
        if done.verdicts + done.retired + done.files_removed > 0 {
            tracing::warn!(
                verdicts = done.verdicts,
                retired = done.retired,
                files_removed = done.files_removed,
                "recovered from a stop: candidate verdicts completed, duplicate active versions retired, leftover files removed"
            );
        }
        Ok((done.games_aborted, done.requeued))
    }

    /// The directory of a bot version's files.
    #[must_use]
    pub fn version_dir(&self, bot_id: BotId, number: i64) -> PathBuf {
        self.dir.join("bots").join(bot_id.to_string()).join(format!("v{number}"))
    }

    /// The path of a game's log.
    #[must_use]
    pub fn game_log_path(&self, game_id: GameId) -> PathBuf {
        self.dir.join("games").join(format!("{game_id}.jsonl"))
    }
}
