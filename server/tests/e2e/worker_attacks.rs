//! Hostile entrants against the worker path (`games.executor = "workers"`, docs/worker.md):
//! bots submitted to a server on PostgreSQL and played by `worker` processes (this test
//! binary as `e2e worker ...`). Every attack is judged by its effect seen from outside —
//! the stored log's stderr record of the attacker, a database that must not exist, a
//! listener that must see no connection, `/proc`, files that must not exist, the `games`
//! rows — never by what the attacking code prints. Run with the server and the workers as
//! root and, in CI's second pass, as an unprivileged user (`BAO_E2E_SERVER_USER`).
//!
//! - [`worker_attacks_stay_in_the_sandbox`]: a thief reads what it can of the worker's
//!   machine (another entrant's built bot in the cache, the cache's other files, the worker's
//!   logs folder, its environment and command line with the database's password, its
//!   working folder), writes where it can, connects to the database's port and socket and to
//!   a listener of the test, signals and traces the worker, and leaves a daemon behind.
//! - [`worker_attacks_cache_is_closed_to_other_users`]: another local user of a worker's
//!   machine lists and reads the bots' built folders and the running games' logs.
//! - [`worker_attacks_results_are_the_referees`]: a forger prints fake records, an oversize
//!   stderr and a fake `game_over`; a bot puts a NUL into its own verdict's text, which
//!   PostgreSQL refuses to store.
//! - [`worker_attacks_unpackable_bot_is_not_the_machines_fault`]: a bot whose build leaves a
//!   path that fits the leader's folder but not a worker's cache, so that every game it
//!   plays on a worker ends "aborted by the machine's fault" (not counted).
//! - [`worker_attacks_gate_verdict_with_a_nul_is_recorded`]: the same NUL at the gate (in the
//!   verdict's text, in the line the report quotes) and in a build's output.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::attack::{Listener, host_address, processes_with, zip_of};
use crate::support::{
    SCRIPT_LANGUAGE, Server, WorkerProcess, give_to_server_user, postgres_database, postgres_or_skip, settle,
    submit, test_exe, wait_for,
};
use crate::workers::{add_user, configure};

/// A random hex word of 128 bits.
fn random_hex() -> String {
    format!("{:016x}{:016x}", rand::random::<u64>(), rand::random::<u64>())
}

/// A secret of `kind` planted somewhere the bots must not reach; every one has the form the
/// thief looks for (`S3CR3T-KIND-HEX`).
fn secret(kind: &str) -> String {
    format!("S3CR3T-{kind}-{}", random_hex())
}

/// Starts `e2e worker` on `url` (given in `BAO_DATABASE`, and on the command line too if
/// `on_command_line`), with `cache`, `concurrency`, the working folder `cwd` and `env` added;
/// waits for its first line when `wait` (a worker says it plays once a server has published
/// the arena's settings).
#[expect(clippy::too_many_arguments, reason = "each blank of the command line, named")]
fn start_worker(
    url: &str,
    on_command_line: bool,
    cache: &Path,
    concurrency: usize,
    cwd: &Path,
    env: &[(&str, &str)],
    log: &Path,
    wait: bool,
) -> WorkerProcess {
    let mut cmd = WorkerProcess::command(on_command_line.then_some(url), cache, concurrency);
    cmd.current_dir(cwd).env("BAO_DATABASE", url).envs(env.iter().copied());
    let worker = WorkerProcess::spawn(cmd, log);
    if wait {
        worker.id();
    }
    worker
}

/// Records, every 20 ms until dropped, the processes whose command line holds `marker`
/// (pid → when first seen).
struct PidSampler {
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<BTreeMap<i32, Instant>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl PidSampler {
    fn start(marker: &str) -> PidSampler {
        let stop = Arc::new(AtomicBool::new(false));
        let seen: Arc<Mutex<BTreeMap<i32, Instant>>> = Arc::default();
        let (s, m, marker) = (stop.clone(), seen.clone(), marker.to_owned());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                for pid in pids_with(&marker) {
                    m.lock().expect("lock").entry(pid).or_insert_with(Instant::now);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        PidSampler { stop, seen, thread: Some(thread) }
    }

    /// The processes seen before `at`.
    fn seen_before(&self, at: Instant) -> Vec<i32> {
        self.seen.lock().expect("lock").iter().filter(|(_, t)| **t < at).map(|(p, _)| *p).collect()
    }
}

impl Drop for PidSampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The processes of the host whose command line holds `marker`.
fn pids_with(marker: &str) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()))
        .filter(|pid| holds(*pid, marker))
        .collect()
}

/// Whether process `pid` runs with `marker` in its command line.
fn holds(pid: i32, marker: &str) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|c| c.windows(marker.len()).any(|w| w == marker.as_bytes()))
}

/// `State` and `TracerPid` of a process, from `/proc/PID/status`.
fn state_and_tracer(pid: u32) -> (String, String) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status.lines().find_map(|l| l.strip_prefix(name)).map(str::trim).unwrap_or("?").to_owned()
    };
    (field("State:"), field("TracerPid:"))
}

/// Every file under `dir` whose name holds `needle`.
fn files_named(dir: &Path, needle: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if e.file_name().to_string_lossy().contains(needle) {
                found.push(p.clone());
            }
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(p);
            }
        }
    }
    found
}

/// A PostgreSQL client for the test's own look at the database.
fn pg(url: &str) -> postgres::Client {
    postgres::Client::connect(url, postgres::NoTls).expect("the database connects")
}

/// A game's row.
#[derive(Debug, Clone)]
struct GameRow {
    id: i64,
    south: i64,
    state: String,
    result: Option<String>,
    reason: String,
    played_by: Option<String>,
    attempts: Option<i64>,
}

/// The games in which `version` plays, with their task's attempts if still queued.
fn games_of(url: &str, version: i64) -> Vec<GameRow> {
    pg(url)
        .query(
            "SELECT g.id, g.south_id, g.north_id, g.state, g.result, g.reason, g.played_by, t.attempts
             FROM games g LEFT JOIN game_tasks t ON t.game_id = g.id
             WHERE g.south_id = $1 OR g.north_id = $1 ORDER BY g.id",
            &[&version],
        )
        .expect("games")
        .iter()
        .map(|r| GameRow {
            id: r.get(0),
            south: r.get(1),
            state: r.get(3),
            result: r.get(4),
            reason: r.get(5),
            played_by: r.get(6),
            attempts: r.get(7),
        })
        .collect()
}

/// A game's log as the database keeps it (`game_logs`, gzip), if stored.
fn stored_log(url: &str, game: i64) -> Option<String> {
    let row =
        pg(url).query_opt("SELECT data FROM game_logs WHERE game_id = $1", &[&game]).expect("game_logs")?;
    let data: Vec<u8> = row.get(0);
    let bytes = bao_server::worker::logs::decompress(&data, 256 << 20).expect("a stored log decompresses");
    Some(String::from_utf8(bytes).expect("a stored log is UTF-8"))
}

/// The text of the stderr records of `side` (`"S"` or `"N"`) in a log.
fn stderr_of(log: &str, side: &str) -> String {
    log.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|r| r["type"] == "stderr" && r["side"] == side)
        .map(|r| r["text"].as_str().unwrap_or("").to_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Submits `body` as the `executable` bot `bot` and waits for its gate; its version id.
fn submit_active(server: &Server, token: &str, bot: &str, language: &str, file: &str, body: &[u8]) -> i64 {
    let a = submit(server, token, bot, language, file, body, "");
    assert_eq!(a.status, 201, "{}", a.body);
    let id = a.json()["id"].as_i64().expect("id");
    let state = settle(server, id, 180);
    assert_eq!(state, "active", "{bot} passes the gate (it behaves there): {}", version_text(server, id));
    id
}

/// A version's state, reason, build log and check report, for messages.
fn version_text(server: &Server, id: i64) -> String {
    crate::support::get(&format!("{}/api/versions/{id}", server.url), None, None).body
}

/// A fresh arena on the suite's cluster for the workers, with the test language `script`
/// (an entrant's `build.sh` and `bot.sh`) beside the others; its folder, data folder,
/// database URL and admin token.
fn workers_arena(base: &str) -> (tempfile::TempDir, PathBuf, String, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    give_to_server_user(dir.path());
    let data = dir.path().join("arena");
    let url = postgres_database(base, &data);
    let token = add_user(&data, &url, "admin");
    configure(&data);
    let toml = data.join("arena.toml");
    let text = std::fs::read_to_string(&toml).expect("arena.toml");
    assert!(text.contains("name = \"executable\""));
    std::fs::write(&toml, text.replacen("name = \"executable\"", SCRIPT_LANGUAGE, 1)).expect("arena.toml");
    (dir, data, url, token)
}

/// A folder for a worker's cache (or working folder) in `dir`, the server user's.
fn worker_dir(dir: &Path, name: &str) -> PathBuf {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).expect("folder");
    give_to_server_user(&d);
    d
}

/// A bot in Python that plays the first legal move, with hooks run on the ladder's games
/// only (told apart by their time control: the test arena's increment of 300 ms, which the
/// gate's fixed move time does not have), so that it passes the gate and attacks in games.
fn python_bot(on_ladder_hello: &str, on_ladder_move: &str, ready_on_ladder: &str) -> String {
    format!(
        r#"#!/usr/bin/python3
import json, os, sys

def send(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()

ladder = False
for line in sys.stdin:
    m = json.loads(line)
    t = m.get("type")
    if t == "hello":
        ladder = m.get("time_control", {{}}).get("increment_ms") == 300
        ready = {{"type": "ready", "name": "attacker"}}
        if ladder:
{on_ladder_hello}
            ready = {ready_on_ladder}
        send(ready)
    elif t == "move_request":
        if ladder:
{on_ladder_move}
        send({{"type": "move", "id": m["id"], "move": m["legal"][0]}})
    elif t == "quit":
        break
"#
    )
}

/// Indents Python lines to the depth of the hooks of [`python_bot`].
fn hook(code: &str) -> String {
    let body: String = code.lines().map(|l| format!("            {l}\n")).collect();
    if body.trim().is_empty() { "            pass\n".to_owned() } else { body }
}

/// A PostgreSQL client in plain Python (the protocol's start-up message with no password, as
/// a cluster that trusts local connections takes it, and one simple query): `pg_create(sock,
/// user, name)` creates the database `name`; true when it did.
const PG_CLIENT: &str = r#"
import socket, struct
def pg_create(sock, user, name):
    body = struct.pack("!I", 196608) + b"user\0" + user.encode() + b"\0database\0postgres\0\0"
    sock.sendall(struct.pack("!I", len(body) + 4) + body)
    def until_ready():
        buf = b""
        while b"Z\0\0\0\x05" not in buf:
            d = sock.recv(65536)
            if not d:
                return buf
            buf += d
        return buf
    until_ready()
    q = ("CREATE DATABASE " + name).encode() + b"\0"
    sock.sendall(b"Q" + struct.pack("!I", len(q) + 4) + q)
    got = until_ready()
    sock.sendall(b"X\0\0\0\x04")
    return b"CREATE DATABASE" in got
"#;

/// The thief: at every start (the gate's and the games'), before it plays the first legal
/// move, every attack on the worker's machine; whatever secret it finds goes to its stderr,
/// which the stored log keeps (the channel the test watches).
#[expect(clippy::too_many_arguments, reason = "the attack's blanks, each named")]
fn thief_bot(
    cache: &Path,
    worker_cwd: &Path,
    worker_pid: u32,
    other_pids: &[u32],
    pg_port: u16,
    pg_user: &str,
    pg_socket_dirs: &[String],
    listener_port: u16,
    host: &str,
    marker: &str,
    own_canary: &str,
) -> String {
    let attack = format!(
        r#"
import ctypes, glob, os, re, signal, socket, subprocess, sys, time
{PG_CLIENT}
# The thief's own canary, which it may read: proof that what it reads reaches its log.
# {own_canary}
where = "worker" if "/artifacts/" in os.getcwd() else "leader"
cache = {cache:?}
texts = []
def grab(path):
    try:
        with open(path, "rb") as f:
            texts.append(f.read(1 << 20).decode("latin-1"))
    except Exception:
        pass
# Reads: its own folder, its neighbours in the cache, the cache's other files and logs, the
# worker's working folder, environment and command line (the database's URL and password).
patterns = ["./*", "../*", "../*/*", "../../*", "../../*/*", "../../*/*/*", cache + "/*", cache + "/*/*",
            cache + "/*/*/*", cache + "/logs/*", {worker_cwd:?} + "/*", "/proc/*/environ", "/proc/*/cmdline",
            "/proc/{worker_pid}/environ", "/proc/{worker_pid}/cmdline", "/proc/{worker_pid}/cwd/*",
            "/proc/{worker_pid}/root" + cache + "/*/*/*", "/proc/1/root" + cache + "/*/*/*", "/tmp/*"]
for p in patterns:
    for path in glob.glob(p):
        grab(path)
texts.append("\n".join(k + "=" + v for k, v in os.environ.items()))
# Writes: beside itself, into its neighbours (another entrant's bot), the cache, its logs
# folder, the worker's working folder.
for d in [".", "..", "../..", cache, cache + "/artifacts", cache + "/logs", {worker_cwd:?}] + glob.glob("../*") + glob.glob(cache + "/artifacts/*"):
    try:
        open(os.path.join(d, "pwned-{marker}"), "w").write("pwned")
    except Exception:
        pass
    try:
        open(os.path.join(d, "bot"), "a").write("pwned")
    except Exception:
        pass
# The network: a listener of the test, the database's port and sockets.
for host, port in [("127.0.0.1", {listener_port}), ({host:?}, {listener_port}), ("127.0.0.1", {pg_port}), ({host:?}, {pg_port})]:
    try:
        s = socket.create_connection((host, port), 0.5)
        if port == {pg_port}:
            pg_create(s, {pg_user:?}, "pwned_{marker}")
        s.close()
    except Exception:
        pass
for d in {pg_socket_dirs:?} + ["/var/run/postgresql", "/run/postgresql", "/tmp"]:
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(0.5)
        s.connect(d + "/.s.PGSQL.{pg_port}")
        pg_create(s, {pg_user:?}, "pwned_{marker}")
    except Exception:
        pass
# Signals and ptrace: the worker, the server, the test.
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
for pid in [{worker_pid}] + {other_pids:?}:
    libc.ptrace(16, pid, None, None)
    libc.ptrace(0x4206, pid, None, None)
    for sig in [signal.SIGSTOP, signal.SIGTERM, signal.SIGKILL]:
        try:
            os.kill(pid, sig)
        except Exception:
            pass
# The other bots' processes it can find (the victim's command lines hold victim-MARKER).
for p in os.listdir("/proc"):
    try:
        if p.isdigit() and b"victim-{marker}" in open("/proc/" + p + "/cmdline", "rb").read():
            libc.ptrace(16, int(p), None, None)
            os.kill(int(p), signal.SIGKILL)
    except Exception:
        pass
# A daemon to outlive the game.
subprocess.Popen(["setsid", "sh", "-c", "while :; do sleep 1; done", "daemon-{marker}-" + where],
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
found = sorted(set(re.findall(r"S3CR3T-[a-z]+-[0-9a-f]{{32}}", "\n".join(texts))))
found += sorted(set(re.findall(r"postgres(?:ql)?://[^\s\x00]*", "\n".join(texts))))
sys.stderr.write("found: " + " ".join(found) + "\n")
sys.stderr.flush()
"#
    );
    // The attack runs at every start, before the handshake.
    let play = python_bot(&hook(""), &hook(""), "ready");
    play.replacen("ladder = False\n", &format!("{attack}\nladder = False\n"), 1)
}

/// A thief played by a worker next to a victim: it reads nothing secret, writes nothing
/// outside its sandbox, reaches neither the database nor the test's listener, neither
/// signals nor traces the worker, and leaves no process behind.
pub fn worker_attacks_stay_in_the_sandbox() {
    const TEST: &str = "worker_attacks_stay_in_the_sandbox";
    let Some(base) = postgres_or_skip(TEST) else { return };
    let (dir, data, url, token) = workers_arena(&base);
    let marker = random_hex();
    let (victim_secret, env_secret, cache_secret, logs_secret, cwd_secret, password) =
        (secret("victim"), secret("env"), secret("cache"), secret("logs"), secret("cwd"), secret("dbpass"));
    let own_canary = secret("own");
    // The worker's database URL with a password (the test cluster trusts local connections
    // and ignores it): on its command line and in its environment.
    let base_config: postgres::Config = url.parse().expect("url");
    let pg_user = base_config.get_user().unwrap_or("postgres").to_owned();
    let pg_port = base_config.get_ports().first().copied().unwrap_or(5432);
    let secret_url = url.replacen(&format!("{pg_user}@"), &format!("{pg_user}:{password}@"), 1);
    assert_ne!(secret_url, url, "the password is in the URL");
    let cache = worker_dir(dir.path(), "cache");
    let cwd = worker_dir(dir.path(), "worker-home");
    std::fs::write(cwd.join("secret.txt"), &cwd_secret).expect("secret");
    std::fs::write(cache.join("secret.txt"), &cache_secret).expect("secret");
    std::fs::create_dir_all(cache.join("logs")).expect("logs");
    std::fs::write(cache.join("logs/0-1.jsonl"), &logs_secret).expect("secret");
    give_to_server_user(&cache);
    let sockets: Vec<String> = {
        let row = pg(&url).query_one("SHOW unix_socket_directories", &[]).expect("socket directories");
        row.get::<_, String>(0).split(',').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect()
    };
    let listener = Listener::open();
    let host = host_address().unwrap_or_else(|| "127.0.0.1".into());
    // The listener counts a connection (from here), then starts again from none.
    drop(std::net::TcpStream::connect(("127.0.0.1", listener.port)).expect("the test's listener"));
    wait_for(5, "the listener to count the test's own connection", || {
        (listener.accepted.load(Ordering::Relaxed) == 1).then_some(())
    });
    listener.accepted.store(0, Ordering::Relaxed);

    // The attacker's PostgreSQL client works where there is a network: from here it creates
    // a database (dropped at once). In the sandbox it must not.
    let control = format!("pwnctl_{marker}");
    let script = format!(
        "{PG_CLIENT}\nimport sys\ns = socket.create_connection(('127.0.0.1', {pg_port}), 5)\nsys.exit(0 if pg_create(s, {pg_user:?}, {control:?}) else 1)\n"
    );
    let out = std::process::Command::new("python3").arg("-c").arg(&script).output().expect("python3 runs");
    assert!(
        out.status.success(),
        "the attacker's database client works outside: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut admin = pg(&base);
    admin.batch_execute(&format!("DROP DATABASE {control}")).expect("the control database existed");

    let server = Server::start_with_env(&data, &[("BAO_DATABASE", &url)]);
    let mut worker = start_worker(
        &secret_url,
        true,
        &cache,
        2,
        &cwd,
        &[("BAO_E2E_WORKER_SECRET", &env_secret)],
        &dir.path().join("worker.log"),
        true,
    );
    // The victim's processes are named (victim-MARKER) for the thief to find them if it can.
    let victim_source = format!(
        "#!/bin/sh\n# {victim_secret}\nexec '{}' --bot random victim-{marker}\n",
        test_exe().display()
    );
    let victims = PidSampler::start(&format!("victim-{marker}"));
    let victim =
        submit_active(&server, &token, "victim", "executable", "victim.sh", victim_source.as_bytes());
    let thief_source = thief_bot(
        &cache,
        &cwd,
        worker.pid(),
        &[server.pid(), std::process::id()],
        pg_port,
        &pg_user,
        &sockets,
        listener.port,
        &host,
        &marker,
        &own_canary,
    );
    let daemons = PidSampler::start(&format!("daemon-{marker}"));
    let worker_daemons = PidSampler::start(&format!("daemon-{marker}-worker"));
    let thief = submit_active(&server, &token, "thief", "executable", "thief.py", thief_source.as_bytes());

    // Two games of the thief played by the worker (both of the first pair, at once).
    let played = wait_for(90, "two games of the thief recorded by the worker", || {
        let done: Vec<GameRow> = games_of(&url, thief)
            .into_iter()
            .filter(|g| g.state == "finished" && g.played_by.is_some())
            .collect();
        (done.len() >= 2).then_some(done)
    });
    let recorded_at = Instant::now();

    // What the thief could send out: its stderr in the stored logs. Its own canary is there
    // (the channel works and the attack ran on the worker); nothing else secret is.
    let mut thief_stderr = String::new();
    for g in &played {
        let log = stored_log(&url, g.id).unwrap_or_else(|| panic!("game {} has a stored log", g.id));
        bao_game::verify::verify_log(&log).unwrap_or_else(|e| panic!("game {} does not verify: {e}", g.id));
        let side = if g.south == thief { "S" } else { "N" };
        thief_stderr.push_str(&stderr_of(&log, side));
    }
    eprintln!("the thief's stderr in its stored logs: {thief_stderr}");
    assert!(
        thief_stderr.contains(&own_canary),
        "the thief's stderr reached the stored log with what it read of its own folder (else this test checks \
         nothing): {thief_stderr:?}"
    );
    for (what, s) in [
        ("the victim's built bot in the worker's cache", &victim_secret),
        ("the worker's environment", &env_secret),
        ("a file in the worker's cache folder", &cache_secret),
        ("the worker's logs folder", &logs_secret),
        ("the worker's working folder", &cwd_secret),
        ("the database's password", &password),
    ] {
        assert!(!thief_stderr.contains(s.as_str()), "the thief read {what}: {thief_stderr}");
    }
    assert!(!thief_stderr.contains("postgres://"), "the thief found the database's URL: {thief_stderr}");

    // No connection reached the listener or the database.
    assert_eq!(listener.accepted.load(Ordering::Relaxed), 0, "a sandbox connected to the test's listener");
    let pwned = admin
        .query("SELECT datname FROM pg_database WHERE datname LIKE $1", &[&format!("%{marker}%")])
        .expect("pg_database");
    assert!(pwned.is_empty(), "a sandbox reached PostgreSQL and created a database");

    // The worker and the server run, neither stopped nor traced.
    assert!(worker.alive(), "the worker died: {}", worker.log());
    for (who, pid) in [("worker", worker.pid()), ("server", server.pid())] {
        let (state, tracer) = state_and_tracer(pid);
        assert!(!state.starts_with('T') && !state.starts_with('t'), "the {who} is stopped: {state}");
        assert_eq!(tracer, "0", "the {who} is traced");
    }
    // The games the victim played ended by the rules, by a draw, or by the thief's fault:
    // nothing killed the victim's processes.
    for g in games_of(&url, victim).iter().filter(|g| g.state == "finished") {
        let victim_side = if g.south == victim { "south" } else { "north" };
        let victim_lost = g.result.as_deref().is_some_and(|r| r != victim_side && r != "draw");
        let by_rules =
            ["front_row_empty", "no_legal_moves", "max_plies"].iter().any(|r| g.reason.starts_with(r));
        assert!(!victim_lost || by_rules, "the victim lost game {} by a fault: {}", g.id, g.reason);
    }

    assert!(
        !victims.seen_before(recorded_at).is_empty(),
        "the victim's processes never ran beside the thief's (so this test checks nothing of them)"
    );

    // Nothing written outside the thief's sandbox: no file of its under the test's folder
    // (the arena, the cache, the worker's working folder); the victim's bot unchanged.
    let written = files_named(dir.path(), &format!("pwned-{marker}"));
    assert!(written.is_empty(), "the thief wrote outside its sandbox: {written:?}");
    let bots: Vec<PathBuf> = files_named(&cache.join("artifacts"), "bot");
    assert!(bots.len() >= 2, "both bots unpacked in the cache: {bots:?}");
    for b in &bots {
        let text = std::fs::read(b).expect("a bot");
        assert!(!text.ends_with(b"pwned"), "the thief wrote into {}", b.display());
    }
    let victim_copy = bots
        .iter()
        .find(|b| std::fs::read_to_string(b).is_ok_and(|t| t.contains(&victim_secret)))
        .expect("the victim's bot in the cache");
    assert_eq!(
        std::fs::read_to_string(victim_copy).expect("victim"),
        victim_source,
        "the victim's bot changed"
    );

    // The daemons of the games already recorded are gone: no process outlives its game.
    let ran = daemons.seen_before(recorded_at);
    assert!(
        !worker_daemons.seen_before(recorded_at).is_empty(),
        "the thief's daemon never ran (so this test checks nothing of it); the worker's log:\n{}",
        worker.log()
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    let left = loop {
        let left: Vec<i32> = ran.iter().copied().filter(|p| holds(*p, &format!("daemon-{marker}"))).collect();
        if left.is_empty() || Instant::now() > deadline {
            break left;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(left.is_empty(), "the thief's daemons {left:?} outlived their games");

    // And none is left once the worker stops.
    let status = worker.terminate();
    assert_eq!(status.code(), Some(130), "SIGTERM ends the worker with 130: {status}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while processes_with(&format!("daemon-{marker}")) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(processes_with(&format!("daemon-{marker}")), 0, "a daemon of the thief outlived the worker");
    drop((daemons, worker_daemons, victims));
    drop(server);
}

/// Another user of a worker's machine (a local account, another tenant of a shared node) can
/// read neither the bots' built folders in the cache (an entrant's program: on the server
/// they sit in the arena's folder, mode 700) nor the logs of the games being played.
pub fn worker_attacks_cache_is_closed_to_other_users() {
    const TEST: &str = "worker_attacks_cache_is_closed_to_other_users";
    let Some(base) = postgres_or_skip(TEST) else { return };
    if !nix::unistd::geteuid().is_root() {
        assert!(
            std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"),
            "BAO_REQUIRE_ALL=1 but {TEST} needs root (it reads the cache as the user nobody)"
        );
        eprintln!("SKIPPED {TEST}: not root (it reads the cache as the user nobody)");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    // Every folder above the cache may be passed through by anyone, as /var/cache is.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    give_to_server_user(dir.path());
    // A database nobody has published settings in: the worker sets up its cache, then waits.
    let url = postgres_database(&base, &dir.path().join("no-arena"));
    let cache = worker_dir(dir.path(), "cache");
    let mut worker =
        start_worker(&url, false, &cache, 1, dir.path(), &[], &dir.path().join("worker.log"), false);
    wait_for(30, "the worker to set up its cache", || {
        (cache.join("artifacts").is_dir() && cache.join("logs").is_dir()).then_some(())
    });
    assert!(worker.alive(), "{}", worker.log());
    // A built bot unpacked into the cache by the worker's own code, and a running game's log
    // as the engine writes it.
    let secret_bot = secret("bot");
    let built = tempfile::tempdir().expect("built");
    std::fs::write(built.path().join("bot"), format!("#!/bin/sh\n# {secret_bot}\n")).expect("bot");
    std::fs::set_permissions(built.path().join("bot"), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
    let bytes = bao_server::worker::artifacts::pack(built.path()).expect("pack");
    let hash = bao_server::worker::artifacts::hash(&bytes);
    bao_server::worker::artifacts::unpack_cached(&cache.join("artifacts"), &hash, &bytes).expect("unpack");
    let secret_log = secret("log");
    std::fs::write(cache.join("logs/7-1.jsonl"), &secret_log).expect("log");
    give_to_server_user(&cache);

    // The user nobody reads what anyone may read (else the reads below prove nothing).
    let open_word = secret("open");
    std::fs::write(dir.path().join("open.txt"), &open_word).expect("open file");
    let script = format!(
        "cat {o}; ls {c}/artifacts; cat {c}/artifacts/*/bot {c}/logs/*",
        c = cache.display(),
        o = dir.path().join("open.txt").display()
    );
    let out = std::process::Command::new("setpriv")
        .args(["--reuid", "65534", "--regid", "65534", "--clear-groups", "sh", "-c", &script])
        .output()
        .expect("setpriv runs");
    let seen = String::from_utf8_lossy(&out.stdout);
    assert!(
        seen.contains(&open_word),
        "the user nobody reads a file open to all: {seen} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!seen.contains(&hash), "the user nobody lists the bots' folders in the worker's cache: {seen}");
    assert!(!seen.contains(&secret_bot), "the user nobody reads a bot in the worker's cache: {seen}");
    assert!(!seen.contains(&secret_log), "the user nobody reads a running game's log: {seen}");
    worker.terminate();
}

/// The result recorded for a worker's game is the one the referee judged, whatever the bots
/// print: fake log records and an oversize stderr change nothing; and a bot cannot keep its
/// game from being recorded by putting a NUL into the text of its own verdict (which
/// PostgreSQL refuses to store in a text column).
pub fn worker_attacks_results_are_the_referees() {
    const TEST: &str = "worker_attacks_results_are_the_referees";
    let Some(base) = postgres_or_skip(TEST) else { return };
    let (dir, data, url, token) = workers_arena(&base);
    let cache = worker_dir(dir.path(), "cache");
    let server = Server::start_with_env(&data, &[("BAO_DATABASE", &url)]);
    let worker = start_worker(&url, false, &cache, 2, dir.path(), &[], &dir.path().join("worker.log"), true);
    let honest_source = format!("#!/bin/sh\nexec '{}' --bot random\n", test_exe().display());
    submit_active(&server, &token, "honest", "executable", "honest.sh", honest_source.as_bytes());

    // The forger: fake records and a fake result on stderr, 2 MiB of it, then a `game_over`
    // of its own on stdout, claiming the win.
    let forge = r#"me = m["position"]["to_move"] if "position" in m else "S"
fake = '\n{"type":"result","winner":"%s","reason":"front_row_empty","plies":1}\n' % me
sys.stderr.write(fake * 3 + "x" * (2 << 20) + fake)
sys.stderr.flush()
send({"type": "game_over", "winner": me, "reason": "front_row_empty"})"#;
    let forger_source = python_bot(&hook(""), &hook(forge), "ready");
    let forger =
        submit_active(&server, &token, "forger", "executable", "forger.py", forger_source.as_bytes());
    let forged = wait_for(90, "a game of the forger recorded by the worker", || {
        games_of(&url, forger).into_iter().find(|g| g.state == "finished" && g.played_by.is_some())
    });
    let forger_side = if forged.south == forger { "south" } else { "north" };
    let opponent_side = if forger_side == "south" { "north" } else { "south" };
    assert_eq!(
        forged.result.as_deref(),
        Some(opponent_side),
        "the forger's fake result counted: game {} {:?} ({})",
        forged.id,
        forged.result,
        forged.reason
    );
    assert!(
        ["malformed_line", "unexpected_message"].iter().any(|r| forged.reason.starts_with(r)),
        "the referee's verdict: {}",
        forged.reason
    );
    let log = stored_log(&url, forged.id).expect("the forger's game has a stored log");
    assert!(log.len() < 4 << 20, "the stored log holds {} bytes (stderr is capped)", log.len());
    let verified = bao_game::verify::verify_log(&log)
        .unwrap_or_else(|e| panic!("game {} does not verify: {e}", forged.id));
    let winner_letter = if opponent_side == "south" { "S" } else { "N" };
    assert!(
        verified.result.starts_with(&format!("{winner_letter} wins")),
        "the log's result {} is the row's ({opponent_side} won)",
        verified.result
    );

    // The NUL: a ready whose `games` is "\u0000" fails the handshake, and the verdict's text
    // quotes that value as it is ("unknown variant `\0`"). The game must be recorded (lost
    // by the bot) like any other, not played again and again.
    let nul_source =
        python_bot(&hook(""), &hook(""), r#"{"type": "ready", "name": "nul", "games": "\u0000"}"#);
    let nul = submit_active(&server, &token, "nul", "executable", "nul.py", nul_source.as_bytes());
    let started = Instant::now();
    let first = wait_for(60, "a game of the NUL bot queued", || games_of(&url, nul).into_iter().next());
    let deadline = Instant::now() + Duration::from_secs(20);
    let ended = loop {
        let g = games_of(&url, nul).into_iter().find(|g| g.id == first.id).expect("the game");
        if g.state != "running" || Instant::now() > deadline {
            break g;
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    let unrecorded = worker.log().lines().filter(|l| l.contains("cannot record the game")).count();
    assert_eq!(
        ended.state,
        "finished",
        "game {} of the NUL bot was not recorded {:?} after it was queued: still {} after {} attempts, the \
         worker failed to record it {unrecorded} times (the worker's log:\n{})",
        ended.id,
        started.elapsed(),
        ended.state,
        ended.attempts.unwrap_or(0),
        worker.log().lines().filter(|l| l.contains("cannot record")).take(2).collect::<Vec<_>>().join("\n")
    );
    let nul_side = if ended.south == nul { "south" } else { "north" };
    assert!(
        ended.result.as_deref().is_some_and(|r| r != nul_side && r != "draw"),
        "the NUL bot lost its game: {ended:?}"
    );
    drop(worker);
    drop(server);
}

/// A bot whose built folder holds a path that fits the leader's folder but not a worker's
/// cache (PATH_MAX is 4096 bytes: the build makes a path of 4090 from its folder down, and
/// the worker's `CACHE/artifacts/.unpack-XXXXXX` is longer than `ARENA/bots/B/vN`). The gate
/// passes it on the leader; every worker then fails to unpack it, hands each game back, and
/// after 5 attempts the game is recorded aborted: never counted, never lost. Either the gate
/// refuses such a folder, or its games are played and counted.
pub fn worker_attacks_unpackable_bot_is_not_the_machines_fault() {
    const TEST: &str = "worker_attacks_unpackable_bot_is_not_the_machines_fault";
    let Some(base) = postgres_or_skip(TEST) else { return };
    let (dir, data, url, token) = workers_arena(&base);
    let cache = worker_dir(dir.path(), "cache");
    let server = Server::start_with_env(&data, &[("BAO_DATABASE", &url)]);
    let worker = start_worker(&url, false, &cache, 2, dir.path(), &[], &dir.path().join("worker.log"), true);
    let honest_source = format!("#!/bin/sh\nexec '{}' --bot random\n", test_exe().display());
    submit_active(&server, &token, "honest", "executable", "honest.sh", honest_source.as_bytes());

    let build = r#"python3 - <<'EOF'
import os
# The deepest file's absolute path: 4090 bytes here, in the leader's folder.
left = 4090 - len(os.getcwd()) - 1
os.mkdir("deep"); os.chdir("deep"); left -= 5
while left > 210:
    os.mkdir("d" * 200); os.chdir("d" * 200); left -= 201
open("f" * left, "w").write("x")
EOF
"#;
    let bot_py = python_bot(&hook(""), &hook(""), "ready");
    let zip = zip_of(&[
        ("build.sh", build.as_bytes()),
        ("bot.sh", b"exec python3 ./bot.py\n"),
        ("bot.py", bot_py.as_bytes()),
    ]);
    let a = submit(&server, &token, "deep", "script", "deep.zip", &zip, "");
    assert_eq!(a.status, 201, "{}", a.body);
    let deep = a.json()["id"].as_i64().expect("id");
    let state = settle(&server, deep, 180);
    if state != "active" {
        // Refused at the gate, with a reason: also right.
        let v = version_text(&server, deep);
        assert!(v.contains("path") || v.contains("long"), "the refusal names the long path: {v}");
        return;
    }
    let ended = wait_for(60, "a game of the deep bot to end", || {
        games_of(&url, deep).into_iter().find(|g| g.state != "running")
    });
    let handed_back = worker.log().lines().filter(|l| l.contains("could not play the game")).count();
    let mut problems = Vec::new();
    if ended.state != "finished" {
        problems.push(format!(
            "game {} of the deep bot was {} after the worker handed it back {handed_back} times: a bot's own \
             folder turned into the machine's fault, and its game is not counted",
            ended.id, ended.state
        ));
    }
    // What anyone is shown of a game leaves the worker's folders out (docs/worker.md).
    let cache_text = cache.display().to_string();
    if ended.reason.contains(&cache_text) {
        problems.push(format!(
            "game {}'s reason, shown to anyone, names the worker's cache {cache_text}",
            ended.id
        ));
    }
    // What it did to the bot's rating (no game of it counted), for the message.
    let rated: Option<(i64, i64)> = pg(&url)
        .query_opt("SELECT games, losses FROM ratings WHERE version_id = $1", &[&deep])
        .expect("ratings")
        .map(|r| (r.get(0), r.get(1)));
    let shown: String = ended.reason.chars().take(300).collect();
    assert!(
        problems.is_empty(),
        "{}\n(the deep bot's rating row, games and losses: {rated:?})\n(the reason, {} bytes: {shown}...)",
        problems.join("\n"),
        ended.reason.len()
    );
    drop(worker);
    drop(server);
}

/// The gate's verdict on a bot that answers `hello` with a NUL in its `ready` (quoted as it
/// is in the verdict's text, which PostgreSQL refuses to store) is recorded: the version is
/// rejected, not left checking; so is that of a bot answering with a raw NUL byte (the
/// gate's report quotes the line); and a build whose output holds a NUL byte is recorded too
/// (its log kept, the version active), not left building. (Builds and the gate run on a
/// worker.)
pub fn worker_attacks_gate_verdict_with_a_nul_is_recorded() {
    const TEST: &str = "worker_attacks_gate_verdict_with_a_nul_is_recorded";
    let Some(base) = postgres_or_skip(TEST) else { return };
    let (dir, data, url, token) = workers_arena(&base);
    let server = Server::start_with_env(&data, &[("BAO_DATABASE", &url)]);
    // The builds and the gate run on a worker.
    let cache = worker_dir(dir.path(), "cache");
    let worker = start_worker(&url, false, &cache, 2, dir.path(), &[], &dir.path().join("worker.log"), true);
    let nul = r#"#!/usr/bin/python3
import sys
for line in sys.stdin:
    sys.stdout.write('{"type":"ready","name":"nul","games":"\\u0000"}\n')
    sys.stdout.flush()
"#;
    let a = submit(&server, &token, "nul", "executable", "nul.py", nul.as_bytes(), "");
    assert_eq!(a.status, 201, "{}", a.body);
    let checked = a.json()["id"].as_i64().expect("id");
    // A raw NUL byte as its answer: not JSON; the gate's report quotes the line it got.
    let raw = "#!/usr/bin/python3\nimport sys\nfor line in sys.stdin:\n    sys.stdout.buffer.write(b'\\x00\\n')\n    sys.stdout.flush()\n";
    let a = submit(&server, &token, "rawnul", "executable", "rawnul.py", raw.as_bytes(), "");
    assert_eq!(a.status, 201, "{}", a.body);
    let quoted = a.json()["id"].as_i64().expect("id");
    let bot_py = python_bot(&hook(""), &hook(""), "ready");
    let zip = zip_of(&[
        ("build.sh", b"printf 'a NUL: \\000 and on\\n'\n"),
        ("bot.sh", b"exec python3 ./bot.py\n"),
        ("bot.py", bot_py.as_bytes()),
    ]);
    let a = submit(&server, &token, "nulbuild", "script", "nulbuild.zip", &zip, "");
    assert_eq!(a.status, 201, "{}", a.body);
    let built = a.json()["id"].as_i64().expect("id");
    let deadline = Instant::now() + Duration::from_secs(40);
    let states = loop {
        let states = [checked, quoted, built].map(|id| crate::support::version_state(&server, id));
        let settled = states.iter().all(|s| !matches!(s.as_str(), "queued" | "building" | "checking"));
        if settled || Instant::now() > deadline {
            break states;
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    let log = std::fs::read_to_string(data.with_extension("log")).unwrap_or_default() + &worker.log();
    let errors: Vec<&str> = log.lines().filter(|l| l.contains("0x00")).take(3).collect();
    assert_eq!(
        states.each_ref().map(String::as_str),
        ["rejected", "rejected", "active"],
        "40 s after their uploads: the bot answering with a NUL in JSON and the one answering with a NUL byte \
         (both rejected by the gate), and the build printing one (active); the server's errors: {errors:?}"
    );
    drop(worker);
    drop(server);
}
