//! `games.executor = "workers"` on PostgreSQL: a server queues the ladder's games and two
//! `worker` processes (this test binary as `e2e worker ...`, the command line of
//! `bao-referee worker`) claim and play them; every finished game's log (read back from the
//! database through the API) verifies; a worker killed with SIGKILL mid-game loses its lease
//! and the other worker plays the game again, which is recorded exactly once.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::support::{
    FAST, Server, WorkerProcess, accepted_gaps, bin_dir, bot_script, get, give_to_server_user,
    postgres_database, postgres_or_skip, server_command, server_user, settle, submit, wait_for,
};

/// `e2e worker ...`: the worker's command line, as `bao-referee worker` takes it.
pub fn run_worker_command(args: &[String]) -> std::process::ExitCode {
    #[derive(clap::Parser)]
    #[command(name = "e2e")]
    enum WorkerCli {
        Worker(bao_server::cli::WorkerArgs),
    }
    let cli = match <WorkerCli as clap::Parser>::try_parse_from(
        std::iter::once("e2e").chain(args.iter().map(String::as_str)),
    ) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return std::process::ExitCode::from(2);
        }
    };
    {
        use tracing_subscriber::layer::SubscriberExt;
        use tracing_subscriber::util::SubscriberInitExt;
        tracing_subscriber::registry()
            .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
            .with(tracing_subscriber::filter::LevelFilter::INFO)
            .init();
    }
    let WorkerCli::Worker(args) = cli;
    let result = bao_server::cli::run_worker(&args);
    if let Err(e) = &result {
        eprintln!("error: {e}");
    }
    std::process::ExitCode::from(bao_server::cli::exit_code(&result))
}

/// Runs `serve user add` on the arena at `data` with its database at `database`; the token.
pub fn add_user(data: &Path, database: &str, name: &str) -> String {
    let out = server_command()
        .args(["serve", "--data"])
        .arg(data)
        .args(["user", "add", name, "--admin"])
        .env("BAO_DATABASE", database)
        .output()
        .expect("serve user add runs");
    assert!(out.status.success(), "serve user add failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf8").trim().to_owned()
}

/// The arena.toml edits of `support::Arena` (the sandbox this machine offers), fast games,
/// and the workers as the executor.
pub fn configure(data: &Path) {
    let toml = data.join("arena.toml");
    let mut text = std::fs::read_to_string(&toml).expect("arena.toml written on first use");
    let mut edits: Vec<(String, String)> = vec![
        ("read_only_paths = []".into(), format!("read_only_paths = {:?}", [bin_dir().display().to_string()])),
        ("unsafe_sandbox = \"\"".into(), format!("unsafe_sandbox = {:?}", accepted_gaps())),
        ("executor = \"server\"".into(), "executor = \"workers\"".into()),
        ("increment_ms = 100".into(), "increment_ms = 300".into()),
    ];
    if server_user().is_some() || !nix::unistd::geteuid().is_root() {
        edits.push(("allow_unconfined_cpu = false".into(), "allow_unconfined_cpu = true".into()));
    }
    edits.extend(FAST.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())));
    for (from, to) in edits {
        assert!(text.contains(&from), "arena.toml has no {from:?}");
        text = text.replace(&from, &to);
    }
    std::fs::write(&toml, text).expect("write arena.toml");
}

/// The finished games, through the API.
fn finished(server: &Server) -> Vec<Value> {
    get(&format!("{}/api/games?state=finished&limit=1000", server.url), None, None)
        .json()
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Rows of the arena's database.
pub fn db(url: &str) -> bao_server::db::Conn {
    let location = bao_server::db::Location::Postgres(url.to_owned());
    bao_server::db::open_location(&location).expect("the arena's database opens")
}

/// The single number `sql` (with `args`) reads from the arena's database at `url`.
pub fn count(url: &str, sql: &str, args: impl bao_server::db::Params) -> i64 {
    db(url).query_row(sql, args, |r| r.get(0)).expect(sql)
}

/// An arena for workers in a database of its own on the test cluster (`BAO_TEST_POSTGRES`):
/// its folder, configured ([`configure`]), and an administrator's token.
pub struct WorkersArena {
    /// The test's folder (given to the server's user); the arena is `data` inside it.
    pub dir: tempfile::TempDir,
    /// The arena's folder.
    pub data: PathBuf,
    /// The arena's database.
    pub url: String,
    /// The administrator's token.
    pub token: String,
}

impl WorkersArena {
    /// The arena of `test`, or `None` (said on stderr; a failure under `BAO_REQUIRE_ALL=1`)
    /// without a test cluster.
    pub fn new(test: &str) -> Option<WorkersArena> {
        let base = postgres_or_skip(test)?;
        let dir = tempfile::tempdir().expect("tempdir");
        give_to_server_user(dir.path());
        let data = dir.path().join("arena");
        let url = postgres_database(&base, &data);
        let token = add_user(&data, &url, "admin");
        configure(&data);
        Some(WorkersArena { dir, data, url, token })
    }
}

/// (game, worker) of every game a worker recorded.
fn played_by(url: &str) -> Vec<(i64, String)> {
    let conn = db(url);
    let mut stmt = conn
        .prepare(
            "SELECT id, played_by FROM games WHERE state = 'finished' AND played_by IS NOT NULL ORDER BY id",
        )
        .expect("query");
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).expect("rows").collect::<Result<_, _>>().expect("rows")
}

/// The worker holding `game`'s lease, if any.
fn lease_holder(url: &str, game: i64) -> Option<String> {
    db(url)
        .query_row("SELECT leased_by FROM game_tasks WHERE game_id = ?1", [game], |r| {
            r.get::<_, Option<String>>(0)
        })
        .ok()
        .flatten()
}

/// How many games a kill or a signal may miss (the game ended first) before the test fails.
const MID_GAME_ATTEMPTS: u32 = 5;

/// A game the worker holds under a live lease now that was queued less than a second and a
/// half ago (a worker claims a queued game within half a second): one it has barely begun.
fn fresh_lease(url: &str, worker: &str) -> Option<i64> {
    let conn = db(url);
    let now = bao_server::db::now_ms();
    conn.query_row(
        "SELECT t.game_id FROM game_tasks t JOIN games g ON g.id = t.game_id
         WHERE t.leased_by = ?1 AND t.lease_expires_at >= ?2 AND g.started_at >= ?3",
        bao_server::db::params![worker, now, now - 1500],
        |r| r.get(0),
    )
    .ok()
}

pub fn workers_play_the_ladder_and_a_killed_workers_game_is_replayed_once() {
    let Some(WorkersArena { dir, data, url, token }) =
        WorkersArena::new("workers_play_the_ladder_and_a_killed_workers_game_is_replayed_once")
    else {
        return;
    };
    let caches: Vec<PathBuf> = ["cache-a", "cache-b"].iter().map(|c| dir.path().join(c)).collect();
    for c in &caches {
        std::fs::create_dir(c).expect("cache");
        give_to_server_user(c);
    }
    let mut server = Server::start_with_env(&data, &[("BAO_DATABASE", &url)]);
    let mut a = WorkerProcess::start(&url, &caches[0], 1, &dir.path().join("worker-a.log"));
    let b = WorkerProcess::start(&url, &caches[1], 1, &dir.path().join("worker-b.log"));
    assert_ne!(a.id(), b.id());

    // Two bots; slow moves on one side so that a game lasts seconds (a kill lands mid-game).
    let subs = [
        submit(&server, &token, "slow", "executable", "slow.sh", &bot_script("slow"), ""),
        submit(&server, &token, "random", "executable", "random.sh", &bot_script("random"), ""),
    ];
    for s in &subs {
        assert_eq!(s.status, 201, "{}", s.body);
        let id = s.json()["id"].as_i64().expect("id");
        assert_eq!(settle(&server, id, 120), "active");
    }

    // The first pair: both games queued at once, one on each worker.
    let first = wait_for(60, "two games recorded by workers", || {
        let by = played_by(&url);
        (by.len() >= 2).then_some(by)
    });
    let workers: std::collections::HashSet<&str> = first.iter().map(|(_, w)| w.as_str()).collect();
    assert!(workers.contains(a.id()) && workers.contains(b.id()), "both workers played: {first:?}");
    for g in finished(&server) {
        let id = g["id"].as_i64().expect("id");
        // The log comes from the database (the arena's games folder holds none).
        assert!(!data.join("games").join(format!("{id}.jsonl")).exists(), "game {id}'s log is a file");
        let log = get(&format!("{}/api/games/{id}/log", server.url), Some(&token), None);
        assert_eq!(log.status, 200, "game {id}: {}", log.body);
        bao_game::verify::verify_log(&log.body).unwrap_or_else(|e| panic!("game {id} does not verify: {e}"));
        // The bots' command lines are in the log, their folders named from the cache down.
        assert!(log.body.contains("artifacts/"), "game {id}'s log names no bot folder: {}", log.body);
        for cache in &caches {
            assert!(
                !log.body.contains(&cache.display().to_string()),
                "game {id}'s log shows a worker's folder"
            );
        }
    }

    // Kill worker a mid-game: its lease expires and b plays the game again. A game can end
    // before the kill lands (a random game may end early): that game was a's, recorded
    // before a died, and the kill did not land mid-game; a is started again and killed in
    // its next game.
    let mut victim = None;
    for attempt in 1..=MID_GAME_ATTEMPTS {
        let game = wait_for(60, "worker a to begin a game", || fresh_lease(&url, a.id()));
        std::thread::sleep(Duration::from_millis(300));
        a.kill9();
        let recorded = wait_for(60, "the killed worker's game recorded", || {
            played_by(&url).into_iter().find(|(id, _)| *id == game)
        });
        if recorded.1 == a.id() {
            eprintln!("game {game} ended before worker a was killed (attempt {attempt}); again");
            a = WorkerProcess::start(&url, &caches[0], 1, &dir.path().join("worker-a.log"));
            continue;
        }
        assert_eq!(recorded.1, b.id(), "the surviving worker recorded game {game}");
        victim = Some(game);
        break;
    }
    let victim = victim.unwrap_or_else(|| {
        panic!("in {MID_GAME_ATTEMPTS} tries, every game of worker a ended before the kill landed")
    });
    let conn = db(&url);
    let (state, tasks): (String, i64) = conn
        .query_row(
            "SELECT g.state, (SELECT count(*) FROM game_tasks t WHERE t.game_id = g.id) FROM games g WHERE g.id = ?1",
            [victim],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("the game");
    assert_eq!((state.as_str(), tasks), ("finished", 0), "game {victim} recorded once, its task ended");
    // No game twice: one finished game per (pair, south), one log per finished game.
    let twice: i64 = conn
        .query_row(
            "SELECT count(*) FROM (SELECT pair_key, south_id FROM games WHERE state = 'finished'
             GROUP BY pair_key, south_id HAVING count(*) > 1) d",
            [],
            |r| r.get(0),
        )
        .expect("twice");
    assert_eq!(twice, 0, "a game of a pair was recorded twice");
    let (finished_n, logs): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT count(*) FROM games WHERE state = 'finished'), (SELECT count(*) FROM game_logs)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("counts");
    assert_eq!(finished_n, logs, "every finished game has exactly one stored log");
    let log = get(&format!("{}/api/games/{victim}/log", server.url), Some(&token), None);
    bao_game::verify::verify_log(&log.body).unwrap_or_else(|e| panic!("game {victim} does not verify: {e}"));
    // The surviving worker is in /metrics.
    let metrics = get(&format!("{}/metrics", server.url), Some(&token), None);
    assert!(metrics.body.contains(&format!("worker=\"{}\"", b.id())), "{}", metrics.body);

    // The server killed while worker b plays: the next server's recovery leaves b its game
    // (a live lease), and b's result is counted. (If b's game ends before the new server recovers, b claims the pair's other game
    // itself and the test tries again with b's next game.)
    let state_of = |id: i64| -> String {
        db(&url).query_row("SELECT state FROM games WHERE id = ?1", [id], |r| r.get(0)).expect("a game")
    };
    let mut held = None;
    for attempt in 1..=MID_GAME_ATTEMPTS {
        let game = wait_for(60, "worker b to begin a game", || fresh_lease(&url, b.id()));
        // The other game of its pair waits in the queue, held by nobody (b plays one at a time).
        let other: i64 = conn
            .query_row(
                "SELECT id FROM games WHERE pair_key = (SELECT pair_key FROM games WHERE id = ?1) AND id != ?1",
                [game],
                |r| r.get(0),
            )
            .expect("the pair's other game");
        server.kill9();
        server = Server::start_with_env(&data, &[("BAO_DATABASE", &url)]);
        // Recovery ran: it aborted the game nobody held ...
        let recovered = wait_for(30, "the new server's recovery", || match state_of(other).as_str() {
            "aborted" => Some(true),
            "finished" => Some(false),
            _ => lease_holder(&url, other).is_some_and(|w| w == b.id()).then_some(false),
        });
        if !recovered {
            eprintln!(
                "game {game} ended before the server restarted and b took game {other} (attempt {attempt}); again"
            );
            continue;
        }
        // ... and left b's.
        assert_ne!(state_of(game), "aborted", "recovery left game {game} to its worker");
        let by = wait_for(60, "the held game recorded", || {
            played_by(&url).into_iter().find(|(id, _)| *id == game)
        });
        assert_eq!(by.1, b.id());
        held = Some(game);
        break;
    }
    let held = held.unwrap_or_else(|| {
        panic!("in {MID_GAME_ATTEMPTS} tries, worker b's game always ended before the server restarted")
    });

    // SIGTERM: the worker hands the game it has begun back at once (claimable by anyone),
    // exits with 130, and its row is gone. (A game that ended before the signal landed was
    // recorded by b; b is started again and signalled in its next game.)
    let mut b = b;
    let mut handed_back = false;
    for attempt in 1..=MID_GAME_ATTEMPTS {
        let begun = wait_for(60, "worker b to begin a game", || fresh_lease(&url, b.id()));
        std::thread::sleep(Duration::from_millis(300));
        let stopped = b.id().to_owned();
        let status = b.terminate();
        assert_eq!(status.code(), Some(130), "{status}");
        let rows: i64 = conn
            .query_row("SELECT count(*) FROM workers WHERE id = ?1", [&stopped], |r| r.get(0))
            .expect("workers");
        assert_eq!(rows, 0, "a stopped worker leaves no row");
        if played_by(&url).iter().any(|(id, by)| *id == begun && *by == stopped) {
            eprintln!("game {begun} ended before worker b was signalled (attempt {attempt}); again");
            b = WorkerProcess::start(&url, &caches[1], 1, &dir.path().join("worker-b.log"));
            continue;
        }
        let (state, holder): (String, Option<String>) = conn
            .query_row(
                "SELECT g.state, t.leased_by FROM games g JOIN game_tasks t ON t.game_id = g.id WHERE g.id = ?1",
                [begun],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .expect("the handed-back game is still queued");
        assert_eq!((state.as_str(), holder), ("running", None), "game {begun} handed back");
        handed_back = true;
        break;
    }
    assert!(handed_back, "in {MID_GAME_ATTEMPTS} tries, every game of worker b ended before SIGTERM landed");

    // `serve export` writes the workers' logs from the database.
    let out = dir.path().join("export");
    let export = server_command()
        .args(["serve", "--data"])
        .arg(&data)
        .arg("export")
        .arg(&out)
        .env("BAO_DATABASE", &url)
        .output()
        .expect("serve export runs");
    assert!(export.status.success(), "serve export: {}", String::from_utf8_lossy(&export.stderr));
    let exported: Vec<i64> = finished(&server).iter().map(|g| g["id"].as_i64().expect("id")).collect();
    assert!(exported.contains(&victim) && exported.contains(&held), "{exported:?}");
    for id in exported {
        let text = std::fs::read_to_string(out.join("games").join(format!("{id}.jsonl")))
            .unwrap_or_else(|e| panic!("game {id} not exported: {e}"));
        bao_game::verify::verify_log(&text)
            .unwrap_or_else(|e| panic!("exported game {id} does not verify: {e}"));
    }
    drop(server);
}
