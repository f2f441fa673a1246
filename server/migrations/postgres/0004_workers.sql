-- The same schema as ../0004_workers.sql, in PostgreSQL's words (integers are BIGINT).
-- Games played by `bao-referee worker` processes (arena.toml: games.executor = "workers"),
-- the bots' built folders and the games' logs in the database, and the workers themselves.

-- A game the scheduler wants played by a worker (its row in `games` is 'running'). A worker
-- claims it by writing its name and a lease expiry; it renews the lease while it plays and
-- deletes the row in the transaction that records the result, only while it still holds the
-- lease (same worker, same attempt, not expired). An expired lease makes it claimable again.
CREATE TABLE game_tasks (
    game_id          BIGINT PRIMARY KEY REFERENCES games(id),
    leased_by        TEXT,
    lease_expires_at BIGINT,
    attempts         BIGINT NOT NULL DEFAULT 0,
    queued_at        BIGINT NOT NULL
);
CREATE INDEX game_tasks_lease ON game_tasks(lease_expires_at);

-- The worker that recorded a game (NULL: the server played it).
ALTER TABLE games ADD COLUMN played_by TEXT;

-- A version's built folder: a gzip-compressed tar, named by the SHA-256 of those bytes and
-- the CPU architecture it was built on.
CREATE TABLE artifacts (
    hash       TEXT NOT NULL,
    arch       TEXT NOT NULL,
    bytes      BIGINT NOT NULL,
    data       BYTEA NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (hash, arch)
);
CREATE TABLE version_artifacts (
    version_id BIGINT NOT NULL REFERENCES versions(id),
    arch       TEXT NOT NULL,
    hash       TEXT NOT NULL,
    PRIMARY KEY (version_id, arch)
);

-- The log of a game a worker played, gzip-compressed (the server's own games keep theirs in
-- the arena's games/ folder).
CREATE TABLE game_logs (
    game_id BIGINT PRIMARY KEY REFERENCES games(id),
    data    BYTEA NOT NULL
);

-- Each worker process, as it last reported itself (every few seconds).
CREATE TABLE workers (
    id          TEXT PRIMARY KEY,
    host        TEXT NOT NULL,
    version     TEXT NOT NULL,
    arch        TEXT NOT NULL,
    concurrency BIGINT NOT NULL,
    running     BIGINT NOT NULL,
    load        DOUBLE PRECISION NOT NULL,
    started_at  BIGINT NOT NULL,
    seen_at     BIGINT NOT NULL
);

-- The leader's arena.toml, which the workers play by (one row).
CREATE TABLE worker_settings (
    id         BIGINT PRIMARY KEY CHECK (id = 1),
    arena_toml TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);
