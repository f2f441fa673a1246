//! The chaos test of the workers (issue 25): one server (`games.executor = "workers"`) and
//! three `worker` processes on a PostgreSQL cluster of the test's own, bots in two languages
//! (executables and Python). For a bounded time every worker is killed with SIGKILL and
//! restarted at random moments (a seeded RNG: the seed is printed, `BAO_CHAOS_SEED` replays
//! it), the server is killed with SIGKILL once and restarted, the database is stopped for 10 s
//! and started again, and a worker is paused (SIGSTOP) past its lease and resumed; a loop of
//! the test restarts whatever exits (the supervisor: a leader whose lock connection dies exits
//! with code 3). Then, from the database's rows and nothing the processes print: every game the
//! schedule made is finished exactly once or aborted (or still queued when everything
//! stopped); no game has two results nor two logs; every finished game's stored log verifies
//! and agrees with its row; the ratings of the running leader's rounds and of its last round
//! at a clean stop equal a recomputation from the finished games; each of the three workers
//! played games; games were played after the server's restart and after the outage.
//! `BAO_CHAOS_KEEP=1` keeps the folder with the processes' logs.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bao_stats::rating::RatingModel;
use rand::{Rng, SeedableRng};

use crate::support::{
    Server, bot_script, give_to_server_user, postgres_database, server_command, settle, signal_and_wait,
    submit,
};
use crate::workers::{add_user, configure};

/// How long workers are killed at random.
const CHAOS: Duration = Duration::from_secs(60);
/// When, into the chaos, the server is killed.
const SERVER_KILL_AT: Duration = Duration::from_secs(15);
/// When, into the chaos, the database stops, and for how long.
const OUTAGE_AT: Duration = Duration::from_secs(30);
const OUTAGE: Duration = Duration::from_secs(10);
/// When, into the chaos, a worker is paused (SIGSTOP) for longer than its lease, then resumed
/// (SIGCONT): a holder of an expired lease that is alive, whose result must not count.
const PAUSE_AT: Duration = Duration::from_secs(47);
const PAUSE: Duration = Duration::from_secs(6);
/// A worker lives this long (uniformly drawn, in ms) between its start and its SIGKILL.
const WORKER_LIFE_MS: std::ops::Range<u64> = 2_000..9_000;

/// A PostgreSQL cluster of this test's own (`deploy/postgres/throwaway.sh`), stopped and
/// started again for the outage.
struct Cluster {
    dir: tempfile::TempDir,
    port: u16,
    /// The superuser's URL.
    url: String,
}

fn throwaway(args: &[&str]) -> Result<String, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/postgres/throwaway.sh");
    let out = Command::new("bash").arg(&script).args(args).output().map_err(|e| format!("{e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    } else {
        Err(format!("throwaway.sh {args:?}: {}", String::from_utf8_lossy(&out.stderr)))
    }
}

impl Cluster {
    fn start() -> Result<Cluster, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        let url = throwaway(&["start", &dir.path().display().to_string(), &port.to_string()])?;
        Ok(Cluster { dir, port, url })
    }

    fn stop(&self) {
        throwaway(&["stop", &self.dir.path().display().to_string()]).expect("the cluster stops");
    }

    fn restart(&self) {
        throwaway(&["start", &self.dir.path().display().to_string(), &self.port.to_string()])
            .expect("the cluster starts again");
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = throwaway(&["stop", &self.dir.path().display().to_string()]);
    }
}

/// A process the test supervises: restarted when it exits, killed at the end.
struct Supervised {
    child: Option<Child>,
    /// What its first stdout line said (the server's URL, the worker's name), once said.
    first_line: Arc<Mutex<Option<String>>>,
}

impl Supervised {
    fn spawn(mut command: Command, log: &Path) -> Supervised {
        let log = std::fs::OpenOptions::new().create(true).append(true).open(log).expect("log");
        let mut child = command.stdout(Stdio::piped()).stderr(log).spawn().expect("the process starts");
        let stdout = child.stdout.take().expect("stdout");
        let first_line = Arc::new(Mutex::new(None));
        let slot = first_line.clone();
        std::thread::spawn(move || {
            let mut line = String::new();
            if BufReader::new(stdout).read_line(&mut line).is_ok() && !line.is_empty() {
                *slot.lock().expect("lock") = Some(line.trim().to_owned());
            }
        });
        Supervised { child: Some(child), first_line }
    }

    fn pid(&self) -> nix::unistd::Pid {
        nix::unistd::Pid::from_raw(i32::try_from(self.child.as_ref().expect("running").id()).expect("pid"))
    }

    /// The exit status if it has exited.
    fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.as_mut().and_then(|c| c.try_wait().expect("wait"))
    }

    fn kill9(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            c.wait().expect("reaped");
        }
    }

    /// SIGTERM and the exit status (SIGKILL and a panic after `secs`).
    fn terminate(&mut self, secs: u64) -> std::process::ExitStatus {
        let child = self.child.take().expect("running");
        signal_and_wait(child, nix::sys::signal::Signal::SIGTERM, secs, "a process")
    }

    fn first_line(&self) -> Option<String> {
        self.first_line.lock().expect("lock").clone()
    }
}

impl Drop for Supervised {
    fn drop(&mut self) {
        self.kill9();
    }
}

/// Everything the test starts, and what it did to them.
struct Fleet {
    data: PathBuf,
    url: String,
    logs: PathBuf,
    server: Supervised,
    workers: Vec<Supervised>,
    caches: Vec<PathBuf>,
    /// When each worker is to be killed next.
    kill_at: Vec<Instant>,
    /// Every name each worker slot went by.
    names: Vec<HashSet<String>>,
    server_starts: u32,
    server_exits: Vec<Option<i32>>,
    worker_kills: u32,
    /// Kills of a worker that held a game under a live lease at that moment.
    kills_mid_game: u32,
    /// Workers that exited by themselves.
    worker_exits: Vec<String>,
}

impl Fleet {
    fn server_command(&self) -> Command {
        let mut c = server_command();
        c.args(["serve", "--listen", "127.0.0.1:0", "--data"])
            .arg(&self.data)
            .env("RUST_LOG", "info")
            .env("BAO_DATABASE", &self.url);
        c
    }

    fn worker_command(&self, slot: usize) -> Command {
        let mut c = server_command();
        c.args(["worker", "--database", &self.url, "--concurrency", "1", "--lease-secs", "3", "--cache"])
            .arg(&self.caches[slot]);
        c
    }

    fn start_worker(&mut self, slot: usize, rng: &mut impl Rng) {
        let log = self.logs.join(format!("worker-{slot}.log"));
        self.workers[slot] = Supervised::spawn(self.worker_command(slot), &log);
        self.kill_at[slot] = Instant::now() + Duration::from_millis(rng.random_range(WORKER_LIFE_MS));
    }

    /// Notes the names the workers said; restarts whatever exited by itself.
    fn supervise(&mut self, rng: &mut impl Rng) {
        for slot in 0..self.workers.len() {
            if let Some(name) = self.workers[slot].first_line().and_then(|l| worker_name(&l)) {
                self.names[slot].insert(name);
            }
            if let Some(status) = self.workers[slot].exited() {
                self.worker_exits.push(format!("worker {slot}: {status}"));
                self.start_worker(slot, rng);
            }
        }
        // Not running: killed by the test (no status), or exited by itself.
        let gone =
            if self.server.child.is_none() { Some(None) } else { self.server.exited().map(|s| s.code()) };
        if let Some(code) = gone {
            self.server_exits.push(code);
            // A server that cannot reach the database exits at once: not faster than once a second.
            std::thread::sleep(Duration::from_secs(1));
            self.server = Supervised::spawn(self.server_command(), &self.logs.join("server.log"));
            self.server_starts += 1;
        }
    }

    /// Kills (SIGKILL) the workers whose moment has come and starts them again.
    fn kill_due_workers(&mut self, rng: &mut impl Rng) {
        for slot in 0..self.workers.len() {
            if Instant::now() < self.kill_at[slot] {
                continue;
            }
            let name = self.workers[slot].first_line().and_then(|l| worker_name(&l));
            let held = name.as_deref().is_some_and(|n| holds_a_lease(&self.url, n));
            self.workers[slot].kill9();
            if let Some(n) = name {
                self.names[slot].insert(n);
            }
            self.worker_kills += 1;
            self.kills_mid_game += u32::from(held);
            self.start_worker(slot, rng);
        }
    }
}

/// The last lines of the processes' logs in `dir`.
fn tails(dir: &Path) -> String {
    let mut out = String::new();
    for name in ["server.log", "worker-0.log", "worker-1.log", "worker-2.log"] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        out.push_str(&format!("--- {name}\n{}\n", lines[lines.len().saturating_sub(25)..].join("\n")));
    }
    out
}

/// The worker's name from its first line (`worker NAME plays ...`).
fn worker_name(line: &str) -> Option<String> {
    line.strip_prefix("worker ").and_then(|l| l.split(' ').next()).map(str::to_owned)
}

fn connect(url: &str) -> Option<postgres::Client> {
    let mut config: postgres::Config = url.parse().ok()?;
    config.connect_timeout(Duration::from_secs(2));
    config.connect(postgres::NoTls).ok()
}

/// Whether `worker` holds a game under a live lease (false when the database is down).
fn holds_a_lease(url: &str, worker: &str) -> bool {
    let now = bao_server::db::now_ms();
    connect(url)
        .and_then(|mut c| {
            c.query_one(
                "SELECT count(*) FROM game_tasks WHERE leased_by = $1 AND lease_expires_at >= $2",
                &[&worker, &now],
            )
            .ok()
        })
        .is_some_and(|r| r.get::<_, i64>(0) > 0)
}

/// Finished games (id, finished_at), or nothing while the database is down.
fn finished_games(url: &str) -> Vec<(i64, i64)> {
    connect(url)
        .and_then(|mut c| c.query("SELECT id, finished_at FROM games WHERE state = 'finished'", &[]).ok())
        .map(|rows| rows.iter().map(|r| (r.get(0), r.get(1))).collect())
        .unwrap_or_default()
}

pub fn workers_survive_kills_a_server_crash_and_a_database_outage() {
    if crate::support::test_postgres().is_none() {
        assert!(
            std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"),
            "BAO_REQUIRE_ALL=1 but BAO_TEST_POSTGRES is not set: the chaos test needs PostgreSQL's programs \
             (deploy/postgres/throwaway.sh start DIR prints the URL)"
        );
        eprintln!(
            "SKIPPED workers_survive_kills_a_server_crash_and_a_database_outage: BAO_TEST_POSTGRES is not set \
             (workers need PostgreSQL; the test starts a cluster of its own with deploy/postgres/throwaway.sh)"
        );
        return;
    }
    let seed: u64 =
        std::env::var("BAO_CHAOS_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(rand::random);
    eprintln!("chaos seed {seed} (BAO_CHAOS_SEED={seed} replays the same kill schedule)");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let cluster = Cluster::start().unwrap_or_else(|e| panic!("the chaos test's own PostgreSQL cluster: {e}"));

    let mut dir = tempfile::tempdir().expect("tempdir");
    // BAO_CHAOS_KEEP=1 keeps the folder with the processes' logs.
    dir.disable_cleanup(std::env::var_os("BAO_CHAOS_KEEP").is_some());
    give_to_server_user(dir.path());
    let data = dir.path().join("arena");
    let url = postgres_database(&cluster.url, &data);
    let token = add_user(&data, &url, "admin");
    configure(&data);
    let caches: Vec<PathBuf> = (0..3).map(|i| dir.path().join(format!("cache-{i}"))).collect();
    for c in &caches {
        std::fs::create_dir(c).expect("cache");
        give_to_server_user(c);
    }

    // The bots, through the first server: executables (this binary) and a Python bot.
    let server = Server::start_with_env(&data, &[("BAO_DATABASE", &url)]);
    // Builds and checks are the workers' tasks: a worker with slot 0's cache (its name counted
    // as that slot's) runs them before the chaos begins.
    let mut builder = {
        let mut c = server_command();
        c.args(["worker", "--database", &url, "--concurrency", "1", "--lease-secs", "3", "--cache"])
            .arg(&caches[0]);
        Supervised::spawn(c, &dir.path().join("worker-0.log"))
    };
    let python = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../sample-bots/python/random_bot.py"))
        .expect("bot");
    let subs = [
        submit(&server, &token, "random", "executable", "random.sh", &bot_script("random"), ""),
        submit(&server, &token, "greedy", "executable", "greedy.sh", &bot_script("greedy"), ""),
        submit(&server, &token, "search", "executable", "search.sh", &bot_script("search-small"), ""),
        submit(&server, &token, "py", "python", "random_bot.py", &python, ""),
    ];
    for s in &subs {
        assert_eq!(s.status, 201, "{}", s.body);
    }
    for s in &subs {
        assert_eq!(settle(&server, s.json()["id"].as_i64().expect("id"), 180), "active", "{}", s.body);
    }
    let builder_name = builder.first_line().and_then(|l| worker_name(&l));
    let status = builder.terminate(30);
    assert_eq!(status.code(), Some(130), "the building worker stopped by SIGTERM: {status}");
    // From now on the server is supervised like the workers.
    let status = server.terminate();
    assert_eq!(status.code(), Some(130), "the first server stopped by SIGTERM: {status}");

    let logs = dir.path().to_owned();
    let mut fleet = Fleet {
        data: data.clone(),
        url: url.clone(),
        logs: logs.clone(),
        server: Supervised { child: None, first_line: Arc::new(Mutex::new(None)) },
        workers: (0..3).map(|_| Supervised { child: None, first_line: Arc::new(Mutex::new(None)) }).collect(),
        caches,
        kill_at: vec![Instant::now(); 3],
        names: vec![builder_name.into_iter().collect(), HashSet::new(), HashSet::new()],
        server_starts: 1,
        server_exits: Vec::new(),
        worker_kills: 0,
        kills_mid_game: 0,
        worker_exits: Vec::new(),
    };
    fleet.server = Supervised::spawn(fleet.server_command(), &logs.join("server.log"));
    for slot in 0..3 {
        fleet.start_worker(slot, &mut rng);
    }

    let start = Instant::now();
    let (mut server_killed, mut outage_started, mut outage_ended) = (None, None, None);
    let (mut paused, mut pause_done) = (None::<(usize, nix::unistd::Pid, Instant)>, false);
    while start.elapsed() < CHAOS {
        let t = start.elapsed();
        if server_killed.is_none() && t >= SERVER_KILL_AT {
            fleet.server.kill9();
            server_killed = Some(bao_server::db::now_ms());
            eprintln!("chaos: the server killed at {t:?}; {} games finished", finished_games(&url).len());
        }
        if outage_started.is_none() && t >= OUTAGE_AT {
            outage_started = Some(Instant::now());
            let n = finished_games(&url).len();
            cluster.stop();
            eprintln!("chaos: the database stopped at {t:?}; {n} games finished");
        }
        if let Some(s) = outage_started
            && outage_ended.is_none()
            && s.elapsed() >= OUTAGE
        {
            cluster.restart();
            outage_ended = Some(bao_server::db::now_ms());
            eprintln!("chaos: the database started again at {:?}", start.elapsed());
        }
        if !pause_done && paused.is_none() && t >= PAUSE_AT {
            let slot = rng.random_range(0..3);
            let pid = fleet.workers[slot].pid();
            nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGSTOP).expect("SIGSTOP");
            // Not killed while paused.
            fleet.kill_at[slot] = Instant::now() + PAUSE + Duration::from_secs(2);
            paused = Some((slot, pid, Instant::now()));
            eprintln!("chaos: worker {slot} paused at {t:?}");
        }
        if let Some((slot, pid, since)) = paused
            && since.elapsed() >= PAUSE
        {
            nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGCONT).expect("SIGCONT");
            paused = None;
            pause_done = true;
            eprintln!("chaos: worker {slot} resumed at {:?}", start.elapsed());
        }
        fleet.kill_due_workers(&mut rng);
        fleet.supervise(&mut rng);
        std::thread::sleep(Duration::from_millis(100));
    }
    let server_killed = server_killed.expect("the server was killed");
    let outage_ended = outage_ended.expect("the outage ended");

    // Calm: no more kills; the fleet plays on until games end after the outage.
    let calm = Instant::now();
    loop {
        fleet.supervise(&mut rng);
        let after = finished_games(&url).iter().filter(|(_, at)| *at > outage_ended).count();
        if after >= 4 {
            break;
        }
        assert!(
            calm.elapsed() < Duration::from_secs(90),
            "only {after} games finished in the 90 s after the outage; the logs' ends:\n{}",
            tails(&logs)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    // A clean stop: the workers hand their games back, then the server runs its last rating
    // round over every recorded game.
    let mut terminated = HashSet::new();
    for (slot, w) in fleet.workers.iter_mut().enumerate() {
        if let Some(name) = w.first_line().and_then(|l| worker_name(&l)) {
            fleet.names[slot].insert(name.clone());
            terminated.insert(name);
        }
        let status = w.terminate(30);
        assert_eq!(status.code(), Some(130), "worker {slot} stopped by SIGTERM: {status}");
    }
    let outcomes = check_the_rows(&url, &fleet.names, &terminated, server_killed, outage_ended);
    // The leader's own rating rounds (incremental: each reads the games recorded since the
    // last, which chaos records out of order) agree with the recomputation once one has run
    // after the last recorded game: a mismatch that lasts a minute is a failure.
    let last: i64 = {
        let mut db = connect(&url).expect("the database");
        db.query_one("SELECT coalesce(max(finished_at), 0) FROM games", &[]).expect("games").get(0)
    };
    let mut db = connect(&url).expect("the database");
    let deadline = Instant::now() + Duration::from_secs(70);
    loop {
        let at: Option<i64> =
            db.query_one("SELECT max(computed_at) FROM ratings", &[]).expect("ratings").get(0);
        // The leader's fit starts from its last round's strengths, this one from scratch: both
        // stop at the fit's tolerance, and for a dominant bot (a flat likelihood) their Elo
        // differs by about a hundredth of a point (0.011 seen); the counts must be equal.
        let mismatch = ratings_mismatch(&mut db, &outcomes, 0.5);
        if at.is_some_and(|at| at > last) && mismatch.is_none() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the running leader's ratings (computed at {at:?}, the last game recorded at {last}): {mismatch:?}"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    let status = fleet.server.terminate(60);
    assert_eq!(status.code(), Some(130), "the server stopped by SIGTERM: {status}");
    if let Some(m) = ratings_mismatch(&mut db, &outcomes, 0.01) {
        panic!("the server's last rating round at its stop: {m}");
    }
    eprintln!(
        "chaos: {} worker kills ({} mid-game), server starts {}, server exits {:?}, worker exits {:?}",
        fleet.worker_kills, fleet.kills_mid_game, fleet.server_starts, fleet.server_exits, fleet.worker_exits
    );
    assert!(fleet.kills_mid_game >= 1, "no kill landed while a worker held a game");
    assert!(
        fleet.worker_exits.is_empty(),
        "workers exited by themselves (they should wait for the database): {:?}",
        fleet.worker_exits
    );
}

/// The checks, on the database's rows alone.
fn check_the_rows(
    url: &str,
    names: &[HashSet<String>],
    terminated: &HashSet<String>,
    server_killed: i64,
    outage_ended: i64,
) -> Vec<(i64, i64, String)> {
    let mut db = connect(url).expect("the database");
    let games = db
        .query(
            "SELECT g.id, g.state, g.result, g.plies, g.played_by, g.finished_at, g.south_id, g.north_id,
                    g.pair_key, g.purpose,
                    (SELECT count(*) FROM game_logs l WHERE l.game_id = g.id),
                    t.leased_by, t.lease_expires_at, t.game_id
             FROM games g LEFT JOIN game_tasks t ON t.game_id = g.id ORDER BY g.id",
            &[],
        )
        .expect("games");
    let orphan_tasks: i64 = db
        .query_one("SELECT count(*) FROM game_tasks t WHERE NOT EXISTS (SELECT 1 FROM games g WHERE g.id = t.game_id)", &[])
        .expect("tasks")
        .get(0);
    assert_eq!(orphan_tasks, 0, "a task without its game");
    let orphan_logs: i64 = db
        .query_one(
            "SELECT count(*) FROM game_logs l JOIN games g ON g.id = l.game_id WHERE g.state != 'finished'",
            &[],
        )
        .expect("logs")
        .get(0);
    assert_eq!(orphan_logs, 0, "a log of a game that is not finished");

    let all_names: HashSet<&String> = names.iter().flatten().collect();
    let mut by_worker: HashMap<String, u32> = HashMap::new();
    let mut finished_pairs: HashSet<(String, i64)> = HashSet::new();
    let (mut finished, mut aborted, mut queued) = (0u32, 0u32, 0u32);
    let mut outcomes: Vec<(i64, i64, String)> = Vec::new();
    let (mut after_restart, mut after_outage) = (0, 0);
    let now = bao_server::db::now_ms();
    for g in &games {
        let id: i64 = g.get(0);
        let state: String = g.get(1);
        let result: Option<String> = g.get(2);
        let logs: i64 = g.get(10);
        let task_holder: Option<String> = g.get(11);
        let task_expiry: Option<i64> = g.get(12);
        let has_task = g.get::<_, Option<i64>>(13).is_some();
        match state.as_str() {
            "finished" => {
                finished += 1;
                let result = result.unwrap_or_else(|| panic!("finished game {id} without a result"));
                assert_eq!(logs, 1, "finished game {id} has {logs} stored logs");
                assert!(!has_task, "finished game {id} still has a task");
                let by: Option<String> = g.get(4);
                let by = by.unwrap_or_else(|| panic!("finished game {id} names no worker"));
                assert!(
                    all_names.contains(&by),
                    "game {id} recorded by {by}, a worker this test never started"
                );
                *by_worker.entry(by).or_default() += 1;
                let pair: String = g.get(8);
                let south: i64 = g.get(6);
                assert!(
                    finished_pairs.insert((pair.clone(), south)),
                    "pair {pair} south {south} finished twice"
                );
                let at: i64 = g.get(5);
                after_restart += i32::from(at > server_killed);
                after_outage += i32::from(at > outage_ended);
                // The stored log verifies and says what the row says.
                let data: Vec<u8> = db
                    .query_one("SELECT data FROM game_logs WHERE game_id = $1", &[&id])
                    .expect("log")
                    .get(0);
                let text =
                    String::from_utf8(bao_server::worker::logs::decompress(&data, 64 << 20).expect("gzip"))
                        .expect("utf8");
                let verified =
                    bao_game::verify::verify_log(&text).unwrap_or_else(|e| panic!("game {id}'s log: {e}"));
                let plies: i64 = g.get(3);
                assert_eq!(i64::from(verified.plies), plies, "game {id}: the log's plies and the row's");
                let expected = match result.as_str() {
                    "south" => "S wins",
                    "north" => "N wins",
                    _ => "draw",
                };
                assert!(
                    verified.result.starts_with(expected),
                    "game {id}: the row says {result}, the log {}",
                    verified.result
                );
                let purpose: String = g.get(9);
                if purpose != "candidate" {
                    outcomes.push((south, g.get(7), result));
                }
            }
            "aborted" => {
                aborted += 1;
                assert_eq!(result, None, "aborted game {id} has a result");
                assert_eq!(logs, 0, "aborted game {id} has a log");
                assert!(!has_task, "aborted game {id} still has a task");
            }
            "running" => {
                // Queued when everything stopped: its task held by nobody (the workers handed
                // theirs back at SIGTERM) or by a worker killed in the last seconds (its lease
                // expires): the next leader's recovery or a worker takes it.
                queued += 1;
                assert!(has_task, "running game {id} has no task: nobody will ever play it");
                if let Some(holder) = &task_holder {
                    assert!(
                        all_names.contains(holder),
                        "game {id} leased by {holder}, a worker this test never started"
                    );
                    assert!(
                        !terminated.contains(holder) || task_expiry.is_some_and(|e| e < now),
                        "game {id} still leased by {holder}, which stopped by SIGTERM: it did not hand it back"
                    );
                }
            }
            other => panic!("game {id} in state {other}"),
        }
    }
    eprintln!(
        "chaos: {finished} games finished, {aborted} aborted, {queued} queued at the stop; per worker {by_worker:?}"
    );
    assert!(after_restart > 0, "no game finished after the server's restart");
    assert!(after_outage > 0, "no game finished after the database's outage");
    for (slot, slot_names) in names.iter().enumerate() {
        let played: u32 = slot_names.iter().map(|n| by_worker.get(n).copied().unwrap_or(0)).sum();
        assert!(played >= 1, "worker {slot} ({slot_names:?}) played no game");
    }

    outcomes
}

/// How the `ratings` table differs from a fit of `outcomes` (south, north, result) over the
/// active versions (games, wins, losses and draws exactly, the Elo within `elo_tolerance`);
/// `None` if it does not.
fn ratings_mismatch(
    db: &mut postgres::Client,
    outcomes: &[(i64, i64, String)],
    elo_tolerance: f64,
) -> Option<String> {
    let players: Vec<i64> = db
        .query("SELECT id FROM versions WHERE state = 'active' ORDER BY id", &[])
        .expect("versions")
        .iter()
        .map(|r| r.get(0))
        .collect();
    let mut table = bao_stats::rating::PairResults::new();
    let mut wld: BTreeMap<i64, (u32, u32, u32)> = BTreeMap::new();
    for (south, north, result) in outcomes {
        let score = match result.as_str() {
            "south" => 1.0,
            "north" => 0.0,
            _ => 0.5,
        };
        table.add(*south, *north, score);
        for (me, mine) in [(*south, score), (*north, 1.0 - score)] {
            let e = wld.entry(me).or_default();
            if mine == 1.0 {
                e.0 += 1;
            } else if mine == 0.0 {
                e.1 += 1;
            } else {
                e.2 += 1;
            }
        }
    }
    let fitted = bao_stats::rating::BradleyTerry.fit(&players, &table, &mut Default::default());
    let stored: BTreeMap<i64, (f64, i64, i64, i64, i64)> = db
        .query("SELECT version_id, elo, games, wins, losses, draws FROM ratings", &[])
        .expect("ratings")
        .iter()
        .map(|r| (r.get(0), (r.get(1), r.get(2), r.get(3), r.get(4), r.get(5))))
        .collect();
    if stored.len() != players.len() {
        return Some(format!(
            "{} ratings stored for {} active versions: {stored:?}",
            stored.len(),
            players.len()
        ));
    }
    for r in &fitted {
        let Some(&(elo, games, wins, losses, draws)) = stored.get(&r.player) else {
            return Some(format!("no stored rating of version {}", r.player));
        };
        let (w, l, d) = wld.get(&r.player).copied().unwrap_or_default();
        let counted = (i64::from(w + l + d), i64::from(w), i64::from(l), i64::from(d));
        if (games, wins, losses, draws) != counted {
            return Some(format!(
                "version {}: stored games, wins, losses, draws {:?}; the finished games give {counted:?}",
                r.player,
                (games, wins, losses, draws)
            ));
        }
        if (elo - r.elo).abs() >= elo_tolerance {
            return Some(format!(
                "version {}: stored Elo {elo}, recomputed {} from the finished games",
                r.player, r.elo
            ));
        }
    }
    None
}
