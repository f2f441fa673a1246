-- The initial schema of an arena database. Times are Unix milliseconds.

CREATE TABLE users (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE COLLATE NOCASE,
    is_admin   INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
);

-- API tokens: only their SHA-256 is kept.
CREATE TABLE tokens (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(id),
    hash       BLOB NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
);

-- Web sessions: the cookie's SHA-256 and the CSRF token of its forms.
CREATE TABLE sessions (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(id),
    hash       BLOB NOT NULL UNIQUE,
    csrf       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);

CREATE TABLE bots (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE COLLATE NOCASE,
    owner_id   INTEGER NOT NULL REFERENCES users(id),
    created_at INTEGER NOT NULL
);

-- One submission of a bot. state: queued, building, checking, evaluating
-- (a candidate under SPRT), active, rejected, retired (replaced by a newer one).
CREATE TABLE versions (
    id              INTEGER PRIMARY KEY,
    bot_id          INTEGER NOT NULL REFERENCES bots(id),
    number          INTEGER NOT NULL,
    language        TEXT NOT NULL,
    source_name     TEXT NOT NULL,
    source_bytes    INTEGER NOT NULL,
    state           TEXT NOT NULL CHECK (state IN
                        ('queued', 'building', 'checking', 'evaluating', 'active', 'rejected', 'retired')),
    candidate       INTEGER NOT NULL DEFAULT 0,
    auto_promote    INTEGER NOT NULL DEFAULT 0,
    -- The version a candidate is tested against.
    baseline_id     INTEGER REFERENCES versions(id),
    submitted_at    INTEGER NOT NULL,
    state_at        INTEGER NOT NULL,
    build_log       TEXT NOT NULL DEFAULT '',
    check_report    TEXT NOT NULL DEFAULT '',
    reason          TEXT NOT NULL DEFAULT '',
    sprt_llr        REAL,
    UNIQUE (bot_id, number)
);
CREATE INDEX versions_state ON versions(state);

-- Games. state: running, finished, aborted (the server stopped during it; not
-- counted). result: south, north or draw (finished games only).
-- purpose: ladder, placement or candidate.
CREATE TABLE games (
    id           INTEGER PRIMARY KEY,
    south_id     INTEGER NOT NULL REFERENCES versions(id),
    north_id     INTEGER NOT NULL REFERENCES versions(id),
    pair_key     TEXT NOT NULL,
    opening_seed INTEGER NOT NULL,
    purpose      TEXT NOT NULL CHECK (purpose IN ('ladder', 'placement', 'candidate')),
    state        TEXT NOT NULL CHECK (state IN ('running', 'finished', 'aborted')),
    result       TEXT CHECK (result IN ('south', 'north', 'draw')),
    reason       TEXT NOT NULL DEFAULT '',
    plies        INTEGER NOT NULL DEFAULT 0,
    started_at   INTEGER NOT NULL,
    finished_at  INTEGER,
    log_path     TEXT NOT NULL
);
CREATE INDEX games_south ON games(south_id, state);
CREATE INDEX games_north ON games(north_id, state);
CREATE INDEX games_state ON games(state);

-- The latest ratings (recomputed in the background), one row per active version.
CREATE TABLE ratings (
    version_id  INTEGER PRIMARY KEY REFERENCES versions(id),
    elo         REAL NOT NULL,
    elo_low     REAL NOT NULL,
    elo_high    REAL NOT NULL,
    games       INTEGER NOT NULL,
    wins        INTEGER NOT NULL,
    losses      INTEGER NOT NULL,
    draws       INTEGER NOT NULL,
    rank_sure   REAL NOT NULL,
    computed_at INTEGER NOT NULL
);

-- Rating over time, one point per version per recomputation that changed it.
CREATE TABLE rating_history (
    version_id INTEGER NOT NULL REFERENCES versions(id),
    at         INTEGER NOT NULL,
    elo        REAL NOT NULL,
    games      INTEGER NOT NULL
);
CREATE INDEX rating_history_version ON rating_history(version_id, at);
