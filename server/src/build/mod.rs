//! Building a submitted version: the sandboxed command runner and the worker
//! that takes queued versions through building and the conformance gate.

pub mod gate;
pub mod sandbox;
pub mod worker;

use crate::arena::Arena;
use crate::config::Executor;

/// Whether the arena's builds and conformance checks are the workers' tasks
/// (`games.executor = "workers"` on PostgreSQL, docs/worker.md) rather than this server's:
/// uploads are then stored in the database with a build task, and no server builds.
#[must_use]
pub fn on_workers(arena: &Arena) -> bool {
    arena.config.games.executor == Executor::Workers
        && matches!(arena.db.location(), crate::db::Location::Postgres(_))
}
