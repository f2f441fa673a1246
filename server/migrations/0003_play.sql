-- People playing in the browser (/play): games apart from the ladder's (never rated).

-- Whether the bot's owner lets people play its active version at /play (off by default).
ALTER TABLE bots ADD COLUMN playable INTEGER NOT NULL DEFAULT 0;

-- A game with a person in it. token: its public id (the page's address).
-- opponent: a reference rung's name, 'friend', or 'bot' (then version_id is the bot's version).
-- person_side: the side of the person who started it ('S' or 'N'; a friend sits at the other).
-- state: running, finished, abandoned (an unclocked game left too long: recorded, not counted)
-- or aborted (the server stopped or failed). result: south, north or draw (finished games).
CREATE TABLE human_games (
    id          INTEGER PRIMARY KEY,
    token       TEXT NOT NULL UNIQUE,
    variant     TEXT NOT NULL,
    opponent    TEXT NOT NULL,
    version_id  INTEGER REFERENCES versions(id),
    person_side TEXT NOT NULL CHECK (person_side IN ('S', 'N')),
    clock       TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('running', 'finished', 'abandoned', 'aborted')),
    result      TEXT CHECK (result IN ('south', 'north', 'draw')),
    reason      TEXT NOT NULL DEFAULT '',
    plies       INTEGER NOT NULL DEFAULT 0,
    started_at  INTEGER NOT NULL,
    finished_at INTEGER,
    log_path    TEXT NOT NULL
);
CREATE INDEX human_games_version ON human_games(version_id, state);
