//! Builds and conformance checks as worker tasks (`games.executor = "workers"` on PostgreSQL):
//! two servers with arena folders of their own (nothing shared but the database) and a
//! worker. A version uploaded through the server that does not lead is built and checked by
//! the worker, becomes active and plays ladder games through the worker; its build log and
//! check report are seen through both servers; a version whose build fails is rejected with
//! its build log; a worker killed with SIGKILL during a build has the build taken over and
//! completed once, and the leader killed during that build leaves it to its worker (the new
//! leader's recovery does not queue it again). Then a worker of another architecture (faked with `BAO_WORKER_ARCH` on
//! this one machine) builds its own artifacts of the active versions and claims a game only
//! once both of its versions have one. Everything is checked from the database's rows, the
//! HTTP answers and the arena folders.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{
    Server, WorkerProcess, bot_script, get, give_to_server_user, postgres_database, postgres_or_skip, settle,
    submit, wait_for,
};
use crate::workers::{add_user, configure, count, db};

/// The faked architecture of the second worker.
const FAKE_ARCH: &str = "fake-arch-e2e";

/// Two languages for the test, before `executable`: a build that takes 8 s (long enough to
/// kill a worker in it) and one that always fails, saying so.
const TEST_LANGUAGES: &str = "name = \"slowbuild\"
description = \"test: an executable whose build takes 8 s\"
main = \"bot\"
build = \"sleep 8 && chmod 755 ./bot\"
run = \"./bot\"

[[languages]]
name = \"failbuild\"
description = \"test: an executable whose build fails\"
main = \"bot\"
build = \"echo failbuild-marker: no compiler here; exit 3\"
run = \"./bot\"

[[languages]]
name = \"executable\"";

/// The process id of the server holding the leader lock, if one does now.
fn holder_process(url: &str) -> Option<u32> {
    let mut c = postgres::Client::connect(url, postgres::NoTls).expect("connect");
    crate::leader::holder_process(&mut c)
}

/// The process id of the server holding the leader lock.
fn leader_process(url: &str) -> u32 {
    holder_process(url).expect("a server's connection holds the leader lock")
}

/// A version through the API, as its owner (an administrator) sees it: with its logs.
fn version(server: &Server, token: &str, id: i64) -> Value {
    let a = get(&format!("{}/api/versions/{id}", server.url), Some(token), None);
    assert_eq!(a.status, 200, "{}", a.body);
    a.json()
}

fn submitted(server: &Server, token: &str, bot: &str, language: &str, kind: &str) -> i64 {
    let a = submit(server, token, bot, language, "bot", &bot_script(kind), "");
    assert_eq!(a.status, 201, "{}", a.body);
    a.json()["id"].as_i64().expect("id")
}

/// The entries of `dir` (none if it does not exist).
fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default()
}

/// The versions with an artifact for `arch`.
fn built_for(url: &str, arch: &str) -> Vec<i64> {
    let conn = db(url);
    let mut stmt = conn
        .prepare("SELECT version_id FROM version_artifacts WHERE arch = ?1 ORDER BY version_id")
        .expect("q");
    stmt.query_map([arch], |r| r.get(0)).expect("rows").collect::<Result<_, _>>().expect("rows")
}

/// (game, south, north) of the finished games `worker` played.
fn played_by(url: &str, worker: &str) -> Vec<(i64, i64, i64)> {
    let conn = db(url);
    let mut stmt = conn
        .prepare("SELECT id, south_id, north_id FROM games WHERE state = 'finished' AND played_by = ?1 ORDER BY id")
        .expect("q");
    stmt.query_map([worker], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("rows")
}

pub fn workers_build_and_check_for_two_servers_without_a_shared_folder() {
    let Some(base) = postgres_or_skip("workers_build_and_check_for_two_servers_without_a_shared_folder")
    else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    give_to_server_user(dir.path());
    let (data_a, data_b) = (dir.path().join("arena-a"), dir.path().join("arena-b"));
    let url = postgres_database(&base, &data_a);
    let token = add_user(&data_a, &url, "admin");
    // The second server's folder (and its arena.toml) is made by a command of its own.
    add_user(&data_b, &url, "second");
    for data in [&data_a, &data_b] {
        configure(data);
        let toml = data.join("arena.toml");
        let text = std::fs::read_to_string(&toml).expect("arena.toml");
        assert_eq!(text.matches("name = \"executable\"").count(), 1, "one executable language");
        std::fs::write(&toml, text.replace("name = \"executable\"", TEST_LANGUAGES)).expect("write");
    }
    let a = Server::start_with_env(&data_a, &[("BAO_DATABASE", &url)]);
    let b = Server::start_with_env(&data_b, &[("BAO_DATABASE", &url)]);
    assert_eq!(leader_process(&url), a.pid(), "the first server leads");
    let native = bao_server::worker::artifacts::arch();
    let mut w1 = WorkerProcess::start_of_arch(
        &url,
        &dir.path().join("cache-1"),
        &dir.path().join("worker-1.log"),
        None,
    );

    // Two versions uploaded through the server that does not lead: built and checked by the
    // worker, active.
    let random = submitted(&b, &token, "rnd", "executable", "random");
    let greedy = submitted(&b, &token, "grd", "executable", "greedy");
    for id in [random, greedy] {
        assert_eq!(settle(&b, id, 120), "active", "version {id}");
        for server in [&a, &b] {
            let v = version(server, &token, id);
            assert_eq!(v["reason"], "passed the checks", "{v}");
            let log = v["build_log"].as_str().expect("build log");
            assert!(log.contains("$ chmod 755 ./bot") && log.contains("the build succeeded"), "{log}");
            assert!(!v["check_report"].as_str().expect("report").is_empty(), "{v}");
        }
    }
    // No arena folder holds a version's files: the upload went to the database, the build
    // to the worker.
    for data in [&data_a, &data_b] {
        assert!(
            entries(&data.join("bots")).is_empty(),
            "{}: {:?}",
            data.display(),
            entries(&data.join("bots"))
        );
        assert!(
            entries(&data.join("tmp")).iter().all(|e| !e.starts_with("upload-")),
            "staging left in {data:?}"
        );
    }
    assert_eq!(
        count(&url, "SELECT count(*) FROM version_sources WHERE version_id IN (?1, ?2)", [random, greedy]),
        2
    );
    assert_eq!(built_for(&url, native), vec![random, greedy], "built for this machine by the worker");
    assert_eq!(count(&url, "SELECT count(*) FROM build_tasks", []), 0, "no build left");

    // They play ladder games through the worker; the logs read through the follower verify.
    let games = wait_for(90, "two games between them played by the worker", || {
        let g = played_by(&url, w1.id());
        (g.len() >= 2).then_some(g)
    });
    for (id, _, _) in &games {
        let log = get(&format!("{}/api/games/{id}/log", b.url), Some(&token), None);
        assert_eq!(log.status, 200, "game {id}: {}", log.body);
        bao_game::verify::verify_log(&log.body).unwrap_or_else(|e| panic!("game {id} does not verify: {e}"));
    }

    // A person plays an entrant's bot through the follower: that server, which has no copy of
    // the version, fetches its artifact for this machine into its own folder.
    let on = crate::support::post(
        &format!("{}/api/bots/rnd/playable", b.url),
        &[("Authorization", &format!("Bearer {token}")), ("Content-Type", "application/json")],
        br#"{"playable": true}"#,
    );
    assert_eq!(on.status, 200, "{}", on.body);
    let started = get(&format!("{}/play/new?opponent=bot:rnd&side=S", b.url), None, None);
    assert_eq!(started.status, 303, "a game with the bot starts: {}", started.body);
    let hash: String = db(&url)
        .query_row(
            "SELECT hash FROM version_artifacts WHERE version_id = ?1 AND arch = ?2",
            bao_server::db::params![random, native],
            |r| r.get(0),
        )
        .expect("the artifact");
    assert!(data_b.join("artifacts").join(&hash).join("bot").is_file(), "the artifact unpacked in arena-b");
    assert!(!data_a.join("artifacts").exists(), "and only there");

    // A build that fails: rejected, with its build log, seen through both servers.
    let broken = submitted(&b, &token, "broken", "failbuild", "random");
    assert_eq!(settle(&a, broken, 120), "rejected");
    for server in [&a, &b] {
        let v = version(server, &token, broken);
        assert_eq!(v["reason"], "the build failed (see the build log)", "{v}");
        let log = v["build_log"].as_str().expect("build log");
        assert!(log.contains("failbuild-marker: no compiler here") && log.contains("exit code 3"), "{log}");
        assert_eq!(v["check_report"], "", "not checked: {v}");
    }
    assert!(built_for(&url, native).iter().all(|&v| v != broken), "no artifact of a failed build");

    // A worker killed with SIGKILL in a build: its lease expires, another worker builds the
    // version again, and it is recorded once.
    let slow = submitted(&a, &token, "slowb", "slowbuild", "random");
    let building = || {
        count(
            &url,
            "SELECT count(*) FROM build_tasks t JOIN versions v ON v.id = t.version_id
             WHERE t.version_id = ?1 AND t.arch = '' AND t.leased_by = ?2 AND v.state = 'building'",
            bao_server::db::params![slow, w1.id()],
        ) == 1
    };
    wait_for(60, "the worker to start the slow build", || building().then_some(()));
    std::thread::sleep(Duration::from_millis(1500));
    assert!(building(), "still building");
    w1.kill9();
    let mut w1b = WorkerProcess::start_of_arch(
        &url,
        &dir.path().join("cache-1"),
        &dir.path().join("worker-1b.log"),
        None,
    );
    let attempts = wait_for(30, "the build taken over", || {
        let conn = db(&url);
        let row: Option<(Option<String>, i64)> = conn
            .query_row(
                "SELECT leased_by, attempts FROM build_tasks WHERE version_id = ?1 AND arch = ''",
                [slow],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .ok();
        row.filter(|(by, _)| by.as_deref() == Some(w1b.id())).map(|(_, n)| n)
    });
    assert_eq!(attempts, 2, "the second attempt");
    // The leader killed while the worker builds: the other server takes the lead, and its
    // recovery leaves the build to the worker that holds it (never queued again, no third
    // attempt).
    let a_pid = a.pid();
    a.kill9();
    let task = || -> Option<i64> {
        db(&url)
            .query_row("SELECT attempts FROM build_tasks WHERE version_id = ?1 AND arch = ''", [slow], |r| {
                r.get(0)
            })
            .ok()
    };
    wait_for(30, "the follower to take the lead", || {
        holder_process(&url).filter(|&p| p != a_pid).map(|p| assert_eq!(p, b.pid(), "the follower leads"))
    });
    assert_eq!(task(), Some(2), "the lead moved while the worker still held the build");
    let mut states = std::collections::BTreeSet::new();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let (state, attempts) = (crate::support::version_state(&b, slow), task());
        assert!(attempts.is_none_or(|n| n == 2), "a third attempt: the build was taken from its worker");
        let done = !matches!(state.as_str(), "queued" | "building" | "checking");
        states.insert(state);
        if done {
            break;
        }
        assert!(Instant::now() < deadline, "the slow version was not built within 120 s: {states:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(!states.contains("queued"), "the new leader's recovery queued the held build again: {states:?}");
    assert_eq!(crate::support::version_state(&b, slow), "active");
    let v = version(&b, &token, slow);
    let log = v["build_log"].as_str().expect("build log");
    assert_eq!(log.matches("$ sleep 8").count(), 1, "one build's log: {log}");
    assert!(log.contains("the build succeeded"), "{log}");
    assert_eq!(count(&url, "SELECT count(*) FROM build_tasks", []), 0, "the task ended");
    assert_eq!(
        count(&url, "SELECT count(*) FROM version_artifacts WHERE version_id = ?1", [slow]),
        1,
        "one artifact"
    );
    assert_eq!(
        count(
            &url,
            "SELECT count(*) FROM versions v JOIN bots b ON b.id = v.bot_id WHERE b.name = 'slowb' AND v.state = 'active'",
            []
        ),
        1
    );

    // Per architecture: the native worker stops (handing its games back), and a worker of
    // another architecture (faked on this machine) builds its own artifacts of the active
    // versions; until both versions of a game are built for it, it does not claim the game.
    assert_eq!(w1b.terminate().code(), Some(130));
    let before: HashMap<i64, i64> = {
        let conn = db(&url);
        let mut stmt = conn.prepare("SELECT game_id, attempts FROM game_tasks").expect("q");
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("rows")
    };
    let w2 = WorkerProcess::start_of_arch(
        &url,
        &dir.path().join("cache-2"),
        &dir.path().join("worker-2.log"),
        Some(FAKE_ARCH),
    );
    // Its first line comes before its first report (its row): waited for.
    let arch: String = wait_for(30, "the worker's row", || {
        use bao_server::db::OptionalExtension;
        db(&url)
            .query_row("SELECT arch FROM workers WHERE id = ?1", [w2.id()], |r| r.get(0))
            .optional()
            .expect("workers")
    });
    assert_eq!(arch, FAKE_ARCH, "the worker reports the architecture it was given");
    // While some version lacks its artifact for the faked architecture, no game of it is
    // claimed: its task's attempts (counted at every claim) do not grow.
    let mut seen_waiting = 0;
    let deadline = Instant::now() + Duration::from_secs(120);
    while !built_for(&url, FAKE_ARCH).contains(&slow) {
        assert!(Instant::now() < deadline, "the slow version was not built for {FAKE_ARCH} within 120 s");
        let conn = db(&url);
        let mut stmt = conn
            .prepare(
                "SELECT t.game_id, t.attempts, t.leased_by FROM game_tasks t JOIN games g ON g.id = t.game_id
                 WHERE NOT EXISTS (SELECT 1 FROM version_artifacts a WHERE a.version_id = g.south_id AND a.arch = ?1)
                    OR NOT EXISTS (SELECT 1 FROM version_artifacts a WHERE a.version_id = g.north_id AND a.arch = ?1)",
            )
            .expect("q");
        let unbuilt: Vec<(i64, i64, Option<String>)> = stmt
            .query_map([FAKE_ARCH], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("rows");
        for (game, attempts, by) in &unbuilt {
            assert_eq!(by.as_deref(), None, "game {game} held without its artifacts for {FAKE_ARCH}");
            assert_eq!(
                *attempts,
                before.get(game).copied().unwrap_or(0),
                "game {game} was claimed without its artifacts for {FAKE_ARCH}"
            );
        }
        seen_waiting += unbuilt.len();
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(seen_waiting > 0, "no game waited for an artifact of {FAKE_ARCH}: nothing was shown");
    wait_for(120, "a game of the slow version played by the other architecture's worker", || {
        played_by(&url, w2.id()).iter().any(|&(_, s, n)| s == slow || n == slow).then_some(())
    });
    let mut built = built_for(&url, FAKE_ARCH);
    built.retain(|v| [random, greedy, slow, broken].contains(v));
    assert_eq!(built, vec![random, greedy, slow], "every active version, not the rejected one");
    assert_eq!(built_for(&url, native), vec![random, greedy, slow], "this machine's artifacts unchanged");
    for (game, s, n) in played_by(&url, w2.id()) {
        let both = count(
            &url,
            "SELECT count(*) FROM version_artifacts WHERE arch = ?1 AND version_id IN (?2, ?3)",
            bao_server::db::params![FAKE_ARCH, s, n],
        );
        assert_eq!(both, 2, "game {game} played with both artifacts of {FAKE_ARCH}");
        let log = get(&format!("{}/api/games/{game}/log", b.url), Some(&token), None);
        bao_game::verify::verify_log(&log.body)
            .unwrap_or_else(|e| panic!("game {game} does not verify: {e}"));
    }
    drop(w2);

    // A server that crashes after writing a version's row, its source and its build task, before
    // the commit: nothing of the upload is recorded (one transaction), no source without its
    // version, no build queued.
    b.kill9();
    let versions = count(&url, "SELECT count(*) FROM versions", []);
    let crashy = Server::start_with_env(
        &data_b,
        &[("BAO_DATABASE", &url), ("BAO_SERVER_FAILPOINT", "submit.after_insert")],
    );
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into();
    let answer = agent
        .post(&format!("{}/api/bots/crashy/versions?language=executable&file_name=bot", crashy.url))
        .header("Authorization", &format!("Bearer {token}"))
        .header("Content-Type", "application/octet-stream")
        .send(&bot_script("random")[..]);
    assert!(answer.is_err(), "the server answered instead of crashing");
    assert!(!crashy.wait_exit(30).success(), "the server aborted at the failpoint");
    assert_eq!(count(&url, "SELECT count(*) FROM versions", []), versions, "no version recorded");
    assert_eq!(count(&url, "SELECT count(*) FROM bots WHERE name = 'crashy'", []), 0, "no bot recorded");
    assert_eq!(
        count(
            &url,
            "SELECT count(*) FROM version_sources s WHERE NOT EXISTS (SELECT 1 FROM versions v WHERE v.id = s.version_id)",
            []
        ),
        0
    );
    assert_eq!(
        count(&url, "SELECT count(*) FROM version_sources", []),
        versions,
        "every version has its source"
    );
    assert_eq!(count(&url, "SELECT count(*) FROM build_tasks WHERE arch = ''", []), 0, "no build queued");
}
