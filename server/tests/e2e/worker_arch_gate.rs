//! A build for another architecture passes the conformance gate before it plays, and a game no
//! live worker can play is not left queued (`games.executor = "workers"` on PostgreSQL).
//!
//! A bot whose build records the architecture it is built for (`BAO_BUILD_ARCH`, set by the
//! worker for its builds) and that breaks when built for a faked one passes the gate on this
//! machine's worker and becomes active. A worker of a faked architecture (`BAO_WORKER_ARCH`)
//! builds it, runs the gate on that build, which fails: the failure is recorded for that
//! architecture (seen in `/api/versions/ID` with the check's report), the version stays
//! active, and that worker never claims a game of it. Then this machine's worker stops with
//! a game of that bot in the queue: nobody live can play it, and it is aborted (not counted,
//! saying why) after `games.unclaimable_abort_secs`; the matchmaker queues no new game of it,
//! while the faked architecture's worker plays the games of the others.

use serde_json::Value;

use crate::support::{Server, WorkerProcess, bot_script, get, settle, submit, test_exe, wait_for};
use crate::workers::{WorkersArena, count, db};

/// The faked architecture of the second worker.
const FAKE_ARCH: &str = "fake-arch-gate";

/// A language whose build writes the architecture it builds for into the bot's folder.
const ARCH_LANGUAGE: &str = r#"name = "archbuild"
description = "test: the build records BAO_BUILD_ARCH"
main = "bot"
build = "printf '%s' \"$BAO_BUILD_ARCH\" > built-for && chmod 755 ./bot"
run = "./bot"

[[languages]]
name = "executable""#;

/// A bot that plays slowly (150 ms a move) where it was built for this machine, and exits at
/// once where it was built for [`FAKE_ARCH`]: its build there fails the gate.
fn arch_bot() -> Vec<u8> {
    format!(
        "#!/bin/sh\nread -r arch < built-for\nif [ \"$arch\" = '{FAKE_ARCH}' ]; then echo \"built for $arch: broken\" >&2; exit 1; fi\nexec '{}' --bot slow\n",
        test_exe().display()
    )
    .into_bytes()
}

/// (game, south, north) of the games matching `filter` (on `games g`), with `arg` as `?1`.
fn games(url: &str, filter: &str, arg: impl bao_server::db::Params) -> Vec<(i64, i64, i64)> {
    let conn = db(url);
    let mut stmt = conn
        .prepare(&format!("SELECT g.id, g.south_id, g.north_id FROM games g WHERE {filter} ORDER BY g.id"))
        .expect("q");
    stmt.query_map(arg, |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("rows")
}

/// Queued games of `version` held by `worker`: must stay none.
fn held_by(url: &str, version: i64, worker: &str) -> i64 {
    count(
        url,
        "SELECT count(*) FROM game_tasks WHERE leased_by = ?2 AND (south_id = ?1 OR north_id = ?1)",
        bao_server::db::params![version, worker],
    )
}

fn submitted(server: &Server, token: &str, bot: &str, language: &str, body: &[u8]) -> i64 {
    let a = submit(server, token, bot, language, "bot", body, "");
    assert_eq!(a.status, 201, "{}", a.body);
    a.json()["id"].as_i64().expect("id")
}

pub fn workers_gate_every_architectures_build_and_abort_unclaimable_games() {
    let Some(WorkersArena { dir, data, url, token }) =
        WorkersArena::new("workers_gate_every_architectures_build_and_abort_unclaimable_games")
    else {
        return;
    };
    let toml = data.join("arena.toml");
    let mut text = std::fs::read_to_string(&toml).expect("arena.toml");
    for (from, to) in [
        ("name = \"executable\"", ARCH_LANGUAGE),
        ("# unclaimable_abort_secs = 600", "unclaimable_abort_secs = 4"),
    ] {
        assert_eq!(text.matches(from).count(), 1, "arena.toml has one {from:?}");
        text = text.replace(from, to);
    }
    std::fs::write(&toml, text).expect("write");
    let server = Server::start_with_env(&data, &[("BAO_DATABASE", &url)]);
    let native = bao_server::worker::artifacts::arch();
    let mut w1 = WorkerProcess::start_of_arch(
        &url,
        &dir.path().join("cache-1"),
        &dir.path().join("worker-1.log"),
        None,
    );

    // Built and checked on this machine's worker: both active.
    let gated = submitted(&server, &token, "gated", "archbuild", &arch_bot());
    let plain = submitted(&server, &token, "plain", "executable", &bot_script("random"));
    for id in [gated, plain] {
        assert_eq!(settle(&server, id, 120), "active", "version {id}");
    }
    let api = |id: i64| -> Value {
        let a = get(&format!("{}/api/versions/{id}", server.url), Some(&token), None);
        assert_eq!(a.status, 200, "{}", a.body);
        a.json()
    };
    assert_eq!(api(gated)["arch_failures"], serde_json::json!([]), "it passed the gate on {native}");

    // The faked architecture's worker builds both, checks both builds: the gated bot's fails.
    let w2 = WorkerProcess::start_of_arch(
        &url,
        &dir.path().join("cache-2"),
        &dir.path().join("worker-2.log"),
        Some(FAKE_ARCH),
    );
    wait_for(120, "both versions built and checked for the faked architecture", || {
        let failed = count(
            &url,
            "SELECT count(*) FROM version_arch_failures WHERE version_id = ?1 AND arch = ?2",
            bao_server::db::params![gated, FAKE_ARCH],
        );
        let built = count(
            &url,
            "SELECT count(*) FROM version_artifacts WHERE version_id = ?1 AND arch = ?2",
            bao_server::db::params![plain, FAKE_ARCH],
        );
        assert_eq!(held_by(&url, gated, w2.id()), 0, "the faked architecture's worker holds a game of gated");
        (failed == 1 && built == 1).then_some(())
    });
    assert_eq!(
        count(
            &url,
            "SELECT count(*) FROM version_artifacts WHERE version_id = ?1 AND arch = ?2",
            bao_server::db::params![gated, FAKE_ARCH]
        ),
        0,
        "no artifact of a build that failed the gate"
    );
    let v = api(gated);
    assert_eq!(v["state"], "active", "its first build decided it: {v}");
    let failures = v["arch_failures"].as_array().expect("arch_failures");
    assert_eq!(failures.len(), 1, "{v}");
    assert_eq!(failures[0]["arch"], FAKE_ARCH, "{v}");
    let reason = failures[0]["reason"].as_str().expect("reason");
    assert!(reason.contains(&format!("the conformance check failed on {FAKE_ARCH}")), "{reason}");
    let log = failures[0]["log"].as_str().expect("log");
    assert!(log.contains("$ printf") && log.contains("the build succeeded"), "the build's log: {log}");
    let report = log
        .split_once(&format!("--- the conformance check on {FAKE_ARCH} ---"))
        .map(|(_, r)| r.trim())
        .unwrap_or_else(|| panic!("no check report in the log: {log}"));
    assert!(!report.is_empty(), "the check's report is kept: {log}");
    assert_eq!(api(plain)["arch_failures"], serde_json::json!([]), "{}", api(plain));

    // This machine's worker stops while it plays a game of the gated bot: handed back, that
    // game waits for a worker of this machine's architecture, and none is live.
    // A game that ends in the moment between the look and SIGTERM leaves none: then the
    // worker starts again and it is tried with its next game (a game of the slow bot lasts
    // seconds, so this is rare).
    let mut tries = 0;
    let (stopped_at, queued) = loop {
        tries += 1;
        wait_for(60, "a game of gated held by this machine's worker", || {
            assert_eq!(
                held_by(&url, gated, w2.id()),
                0,
                "the faked architecture's worker holds a game of gated"
            );
            (held_by(&url, gated, w1.id()) > 0).then_some(())
        });
        assert_eq!(w1.terminate().code(), Some(130), "the worker hands its games back and exits 130");
        let stopped_at = bao_server::db::now_ms();
        let queued = games(
            &url,
            "g.state = 'running' AND g.id IN (SELECT game_id FROM game_tasks) AND (g.south_id = ?1 OR g.north_id = ?1)",
            [gated],
        );
        if !queued.is_empty() {
            break (stopped_at, queued);
        }
        assert!(tries < 3, "{tries} times the game of gated ended as the worker was stopped");
        eprintln!("the game of gated ended as the worker was stopped: once more");
        w1 = WorkerProcess::start_of_arch(
            &url,
            &dir.path().join("cache-1"),
            &dir.path().join("worker-1.log"),
            None,
        );
    };
    // A third version, built and checked by the faked architecture's worker: the faked
    // architecture now plays plain and it, never gated.
    let third = submitted(&server, &token, "third", "executable", &bot_script("greedy"));
    assert_eq!(settle(&server, third, 120), "active");
    for &(id, _, _) in &queued {
        let game = wait_for(60, &format!("game {id}, which no live worker can claim, to be aborted"), || {
            assert_eq!(
                held_by(&url, gated, w2.id()),
                0,
                "the faked architecture's worker holds a game of gated"
            );
            let g = get(&format!("{}/api/games/{id}", server.url), None, None).json();
            (g["state"] != "running").then_some(g)
        });
        assert_eq!(game["state"], "aborted", "not counted: {game}");
        let why = game["reason"].as_str().unwrap_or_default();
        assert!(why.starts_with("no worker could play it"), "the reason says why: {game}");
    }
    let played =
        wait_for(120, "two games of plain and third played by the faked architecture's worker", || {
            let g = games(&url, "g.state = 'finished' AND g.played_by = ?1", [w2.id()]);
            (g.len() >= 2).then_some(g)
        });
    for (game, s, n) in &played {
        assert!(*s != gated && *n != gated, "game {game} of gated was played on {FAKE_ARCH}");
        assert!([plain, third].contains(s) && [plain, third].contains(n), "game {game}: {s} v {n}");
    }
    // The matchmaker queued no game of gated once no live worker could play it (a second for
    // a pair chosen as the worker's row went).
    let late = games(
        &url,
        "(g.south_id = ?1 OR g.north_id = ?1) AND g.started_at > ?2",
        bao_server::db::params![gated, stopped_at + 1000],
    );
    assert!(late.is_empty(), "games of gated queued with no live worker to play them: {late:?}");
    assert_eq!(
        games(
            &url,
            "(g.south_id = ?1 OR g.north_id = ?1) AND g.played_by = ?2",
            bao_server::db::params![gated, w2.id()]
        ),
        vec![],
        "no game of gated played on {FAKE_ARCH}"
    );
    assert_eq!(api(gated)["state"], "active", "the machines' failure is not the bot's");
    drop(w2);
}
