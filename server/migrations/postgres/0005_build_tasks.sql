-- The same schema as ../0005_build_tasks.sql, in PostgreSQL's words (integers are BIGINT).
-- Builds and conformance checks as worker tasks (games.executor = "workers" on PostgreSQL),
-- and built folders per CPU architecture.

-- A version's uploaded folder (after the upload's checks), stored with its row so that any
-- worker can build it: a gzip-compressed tar and its SHA-256.
CREATE TABLE version_sources (
    version_id BIGINT PRIMARY KEY REFERENCES versions(id),
    hash       TEXT NOT NULL,
    bytes      BIGINT NOT NULL,
    data       BYTEA NOT NULL
);

-- A build for the workers. arch = '' is a version's first build with its conformance check,
-- which any worker takes and which decides the version's state; arch = 'aarch64' (...) is a
-- build of an active or evaluating version for the workers of that CPU architecture, which
-- only adds that architecture's artifact. Leased as game_tasks are: a worker writes its
-- name, a lease expiry (the database's clock, Unix ms) and the next attempt number; the row
-- is deleted in the transaction that records the outcome, only while the lease holds.
CREATE TABLE build_tasks (
    version_id       BIGINT NOT NULL REFERENCES versions(id),
    arch             TEXT NOT NULL,
    leased_by        TEXT,
    lease_expires_at BIGINT,
    attempts         BIGINT NOT NULL DEFAULT 0,
    queued_at        BIGINT NOT NULL,
    PRIMARY KEY (version_id, arch)
);
CREATE INDEX build_tasks_lease ON build_tasks(lease_expires_at);

-- A build for one architecture that failed (the build itself, or the workers' machines five
-- times): not tried again on that architecture.
CREATE TABLE version_arch_failures (
    version_id BIGINT NOT NULL REFERENCES versions(id),
    arch       TEXT NOT NULL,
    reason     TEXT NOT NULL,
    build_log  TEXT NOT NULL,
    failed_at  BIGINT NOT NULL,
    PRIMARY KEY (version_id, arch)
);

-- A queued game's two versions, beside its task: a worker claims only games whose two
-- versions have an artifact for its architecture, and the claim reads the small queue and the
-- artifacts' table only (never the ever-growing games table).
ALTER TABLE game_tasks ADD COLUMN south_id BIGINT REFERENCES versions(id);
ALTER TABLE game_tasks ADD COLUMN north_id BIGINT REFERENCES versions(id);
UPDATE game_tasks SET south_id = (SELECT g.south_id FROM games g WHERE g.id = game_tasks.game_id),
                      north_id = (SELECT g.north_id FROM games g WHERE g.id = game_tasks.game_id);
