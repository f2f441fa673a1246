//! Two servers on one PostgreSQL database: exactly one leads (builds, games, ratings); when
//! the leader's lock connection is cut, it steps down in place and one server leads again;
//! when the leader is killed, the other takes over, aborts the games the dead one left
//! running, and plays on. Seen from outside: the leader lock's holders in `pg_locks`, the
//! processes, their answers, and the games' rows.

use std::time::Instant;

use crate::support::{
    Arena, FAST, Server, bot_script, postgres_database, server_command, settle, submit, wait_for,
};

/// The leader lock's rows in `pg_locks` (a bigint key shows as its high and low halves), in
/// this connection's database: `pg_locks` shows the whole cluster's, and the servers of every
/// other arena's database on it (another test's, or one whose backend is still going away)
/// hold the same key there.
const HELD: &str = "l.locktype = 'advisory' AND l.granted
     AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
     AND l.classid::bigint = ($1::bigint >> 32) AND l.objid::bigint = ($1::bigint & 4294967295)";

/// Sessions holding the leader lock ([`bao_server::leader::LEADER_LOCK`]).
fn leaders(db: &mut postgres::Client) -> i64 {
    db.query_one(
        &format!("SELECT count(*) FROM pg_locks l WHERE {HELD}"),
        &[&bao_server::leader::LEADER_LOCK],
    )
    .expect("pg_locks")
    .get(0)
}

fn count(db: &mut postgres::Client, sql: &str, at: i64) -> i64 {
    db.query_one(sql, &[&at]).expect("count").get(0)
}

fn now_ms() -> i64 {
    i64::try_from(
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("clock").as_millis(),
    )
    .expect("ms")
}

pub fn a_follower_takes_the_lead_when_the_leader_dies() {
    let Some(base) = crate::support::postgres_or_skip("a_follower_takes_the_lead_when_the_leader_dies")
    else {
        return;
    };
    let arena = Arena::new(&["admin"], FAST);
    let data = arena.data();
    let url = postgres_database(&base, &data);
    let env = [("BAO_DATABASE", url.as_str())];
    let out = server_command()
        .args(["serve", "--data"])
        .arg(&data)
        .args(["user", "add", "kim"])
        .env("BAO_DATABASE", &url)
        .output()
        .expect("serve user add");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let kim = String::from_utf8(out.stdout).expect("utf8").trim().to_owned();
    let mut db = postgres::Client::connect(&url, postgres::NoTls).expect("the arena's database");

    let mut first = Server::start_with_env(&data, &env);
    let mut second = Server::start_with_env(&data, &env);
    assert_eq!(leaders(&mut db), 1, "exactly one of the two servers leads");
    // Both answer: the follower serves the API and pages from the shared database.
    for (i, kind) in ["random", "greedy"].into_iter().enumerate() {
        let server = if i == 0 { &first } else { &second };
        let a = submit(server, &kim, &format!("lead-{kind}"), "executable", "b.sh", &bot_script(kind), "");
        assert_eq!(a.status, 201, "{}", a.body);
        assert_eq!(settle(server, a.json()["id"].as_i64().expect("id"), 120), "active");
    }
    wait_for(120, "two finished games", || {
        (count(&mut db, "SELECT count(*) FROM games WHERE state = 'finished' AND started_at > $1", 0) >= 2)
            .then_some(())
    });
    assert_eq!(leaders(&mut db), 1, "still exactly one leader");

    // The leader's lock connection cut, as a network failure would: that server steps down in
    // place (it goes on running and answering), and one server leads again, plays and
    // finishes games; no game of the cut term stays running.
    let holder = |db: &mut postgres::Client| -> Option<i32> {
        db.query_opt(
            &format!("SELECT l.pid FROM pg_locks l WHERE {HELD}"),
            &[&bao_server::leader::LEADER_LOCK],
        )
        .expect("the lock's backend")
        .map(|r| r.get(0))
    };
    let backend = holder(&mut db).expect("a backend holds the lock");
    db.execute("SELECT pg_terminate_backend($1)", &[&backend]).expect("terminate the lock's connection");
    let cut = Instant::now();
    wait_for(30, "a leader again after the cut", || holder(&mut db).filter(|&b| b != backend).map(|_| ()));
    let led_at = now_ms();
    eprintln!("one server led again {:.1} s after the cut", cut.elapsed().as_secs_f64());
    wait_for(120, "a game started under the new lead finished", || {
        (count(&mut db, "SELECT count(*) FROM games WHERE state = 'finished' AND started_at > $1", led_at)
            >= 1)
            .then_some(())
    });
    wait_for(60, "no game of the cut term left running", || {
        (count(&mut db, "SELECT count(*) FROM games WHERE state = 'running' AND started_at < $1", led_at)
            == 0)
            .then_some(())
    });
    assert!(
        first.is_running() && second.is_running(),
        "the server that lost the lead stepped down without stopping"
    );
    for server in [&first, &second] {
        let health = crate::support::get(&format!("{}/healthz", server.url), None, None);
        assert_eq!(health.status, 200, "both servers answer after the cut: {}", health.body);
    }
    assert_eq!(leaders(&mut db), 1, "exactly one leader after the cut");

    // The database chose the leader: the process whose connection holds the lock (each
    // connection is named `bao-referee PID`). Kill it.
    let leader_pid = leader_process(&mut db);
    let killed_at = now_ms();
    let survivor = if leader_pid == first.pid() {
        first.kill9();
        second
    } else {
        assert_eq!(leader_pid, second.pid(), "the lock is held by one of the two servers");
        second.kill9();
        first
    };
    let killed = Instant::now();
    wait_for(30, "the survivor to take the lead", || {
        (leaders(&mut db) == 1 && holder_process(&mut db) == Some(survivor.pid())).then_some(())
    });
    eprintln!("the lead moved {:.1} s after the kill", killed.elapsed().as_secs_f64());
    // The games the dead leader left running are aborted, and new games are played to the end.
    wait_for(60, "no game of the dead leader left running", || {
        (count(&mut db, "SELECT count(*) FROM games WHERE state = 'running' AND started_at < $1", killed_at)
            == 0)
            .then_some(())
    });
    wait_for(120, "a game started after the kill finished", || {
        (count(&mut db, "SELECT count(*) FROM games WHERE state = 'finished' AND started_at > $1", killed_at)
            >= 1)
            .then_some(())
    });
    let api = crate::support::get(&format!("{}/api/leaderboard", survivor.url), None, None);
    assert_eq!(api.status, 200, "{}", api.body);
    drop(survivor);
}

/// The process id of the server whose connection holds the leader lock.
fn leader_process(db: &mut postgres::Client) -> u32 {
    holder_process(db).expect("a server's connection holds the leader lock")
}

/// The process id of the server whose connection holds the leader lock, if one does now (a
/// killed server's backend may be gone between two queries).
pub fn holder_process(db: &mut postgres::Client) -> Option<u32> {
    let name: String = db
        .query_opt(
            &format!("SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE {HELD}"),
            &[&bao_server::leader::LEADER_LOCK],
        )
        .expect("pg_locks")?
        .get(0);
    Some(
        name.strip_prefix("bao-referee ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("connection named {name:?}")),
    )
}
