//! The harness: an arena directory, the server process, HTTP helpers, bots.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A random bot that thinks 150 ms per move (so that games last long enough to watch).
struct SlowBot(bao_sample_bots::RandomBot);

impl bao_sdk::Bot for SlowBot {
    fn identity(&self) -> bao_sdk::Identity {
        bao_sdk::Identity::new("slow-random")
    }

    fn choose_move(
        &mut self,
        position: &bao_sdk::Position,
        legal: &bao_sdk::MoveList,
        deadline: &bao_sdk::Deadline,
    ) -> bao_sdk::Move {
        std::thread::sleep(Duration::from_millis(150));
        self.0.choose_move(position, legal, deadline)
    }
}

/// The weakest bot: the move that leaves it the fewest seeds against the opponent's.
struct WorstBot;

impl bao_sdk::Bot for WorstBot {
    fn identity(&self) -> bao_sdk::Identity {
        bao_sdk::Identity::new("worst")
    }

    fn choose_move(
        &mut self,
        position: &bao_sdk::Position,
        legal: &bao_sdk::MoveList,
        _deadline: &bao_sdk::Deadline,
    ) -> bao_sdk::Move {
        let me = position.side_to_move();
        position
            .successors()
            .into_iter()
            .min_by_key(|(_, next)| bao_sample_bots::evaluate(next, me))
            .map_or(legal[0], |(m, _)| m)
    }
}

/// Runs this binary as a sample bot: `random`, `greedy` or `slow`.
pub fn run_bot(kind: &str) -> ExitCode {
    let fresh = || bao_sample_bots::RandomBot::new(bao_sample_bots::GameSeed::new(None));
    let searcher = |nodes: u64| {
        bao_sample_bots::AlphaBetaBot::new(
            bao_sample_bots::Level::Nodes(nodes),
            bao_sample_bots::GameSeed::new(None),
        )
    };
    let r = match kind {
        "greedy" => bao_sdk::run(bao_sample_bots::GreedyBot::default()),
        "slow" => bao_sdk::run(SlowBot(fresh())),
        // Alpha-beta searches of a few nodes and of a few thousand: two more strengths.
        "search-small" => bao_sdk::run(searcher(40)),
        "search-large" => bao_sdk::run(searcher(3000)),
        "worst" => bao_sdk::run(WorstBot),
        _ => bao_sdk::run(fresh()),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("e2e bot: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs this binary as `bao-referee sample-bot KIND [--depth N | --nodes N | --time]` does
/// (the reference rungs of /play).
pub fn run_sample_bot(args: &[String]) -> ExitCode {
    let seeds = bao_sample_bots::GameSeed::new(None);
    let number = |flag: &str| {
        args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).and_then(|n| n.parse::<u64>().ok())
    };
    let level = match (number("--depth"), number("--nodes")) {
        (Some(d), _) => bao_sample_bots::Level::Depth(u32::try_from(d).unwrap_or(1)),
        (None, Some(n)) => bao_sample_bots::Level::Nodes(n),
        (None, None) => bao_sample_bots::Level::Time,
    };
    let r = match args.first().map(String::as_str) {
        Some("random") => bao_sdk::run(bao_sample_bots::RandomBot::new(seeds)),
        Some("greedy") => bao_sdk::run(bao_sample_bots::GreedyBot::default()),
        Some("alphabeta") => bao_sdk::run(bao_sample_bots::AlphaBetaBot::new(level, seeds)),
        other => {
            eprintln!("e2e sample-bot: unknown bot {other:?}");
            return ExitCode::from(2);
        }
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("e2e sample-bot: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A shell script that runs this binary as a bot (submitted as `executable`).
pub fn bot_script(kind: &str) -> Vec<u8> {
    format!("#!/bin/sh\nexec '{}' --bot {kind}\n", test_exe().display()).into_bytes()
}

/// The user the server runs as (`BAO_E2E_SERVER_USER`, e.g. `bao-ci`), if not this
/// process's: `.ci/run` runs the tests a second time with an unprivileged system user.
pub fn server_user() -> Option<String> {
    std::env::var("BAO_E2E_SERVER_USER").ok().filter(|u| !u.is_empty())
}

/// Whether the server runs unprivileged with subordinate ids it can use (a range
/// in `/etc/subuid` and `/etc/subgid`, and `newuidmap`): its sandboxes then get
/// uids of their own.
pub fn server_has_subordinate_ids() -> bool {
    let Some(user) = server_user() else { return false };
    let has_range = |file: &str| {
        std::fs::read_to_string(file)
            .unwrap_or_default()
            .lines()
            .any(|line| line.split(':').next() == Some(user.as_str()))
    };
    has_range("/etc/subuid") && has_range("/etc/subgid") && Path::new("/usr/bin/newuidmap").exists()
}

/// The missing protections of the sandbox the test arenas accept: a server's own
/// cgroup (an unprivileged server gets none delegated there), the kernel's process
/// limit only where a sandbox shares the server's uid (no pids controller is
/// delegated on the CI machine; where each sandbox has a uid of its own, as
/// root or with subordinate ids, its `RLIMIT_NPROC` is the limit, which the probe
/// counts), and what `BAO_E2E_UNSAFE_SANDBOX` adds.
pub fn accepted_gaps() -> String {
    let mut gaps = String::new();
    if server_user().is_some() || !nix::unistd::geteuid().is_root() {
        gaps.push_str("cgroup-v2,memory-limit");
        if !server_has_subordinate_ids() {
            gaps.push_str(",process-limit");
        }
    }
    if let Ok(more) = std::env::var("BAO_E2E_UNSAFE_SANDBOX")
        && !more.is_empty()
    {
        if !gaps.is_empty() {
            gaps.push(',');
        }
        gaps.push_str(&more);
    }
    gaps
}

/// A folder every user may read holding this test binary, which is also the server
/// (`e2e serve ...`) and the bots (`e2e --bot ...`) (a hard link, or a copy across file
/// systems), so that a server run as another user and the sandboxed bots (which see it
/// read-only) can run it wherever the build put it (under `/root` on CI).
pub fn bin_dir() -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("bao-e2e-bin-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).expect("bin dir");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod bin dir");
        let exe = std::env::current_exe().expect("current exe");
        let to = dir.join("e2e");
        if std::fs::hard_link(&exe, &to).is_err() {
            std::fs::copy(&exe, &to).expect("copy the test binary into the bin dir");
        }
        std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o755)).expect("chmod binary");
        dir
    })
}

/// Removes [`bin_dir`] (at the end of the run).
pub fn remove_bin_dir() {
    let _ = std::fs::remove_dir_all(std::env::temp_dir().join(format!("bao-e2e-bin-{}", std::process::id())));
}

/// This test binary, as the bots run it.
pub fn test_exe() -> PathBuf {
    bin_dir().join("e2e")
}

/// A command running the server (this binary: `e2e serve ...` is `bao-referee serve ...`) as
/// [`server_user`] (through `setpriv`) or as this process's user.
pub fn server_command() -> Command {
    server_command_through(&[])
}

/// [`server_command`] started through `wrapper` (e.g. `prlimit --nofile=1024`), if not empty.
pub fn server_command_through(wrapper: &[&str]) -> Command {
    let exe = test_exe();
    let mut argv: Vec<std::ffi::OsString> = wrapper.iter().map(Into::into).collect();
    if let Some(user) = server_user() {
        argv.extend(["setpriv", "--reuid", &user, "--regid", &user, "--clear-groups", "--"].map(Into::into));
    }
    argv.push(exe.into_os_string());
    let mut c = Command::new(&argv[0]);
    c.args(&argv[1..]);
    c
}

/// The server (this test binary) as cargo built it, for commands run as this process's user.
pub fn server_exe() -> PathBuf {
    std::env::current_exe().expect("current exe")
}

/// The PostgreSQL cluster the suite runs against (`BAO_TEST_POSTGRES`, the URL of a database
/// whose user may create databases, as `deploy/postgres/throwaway.sh start` prints), if any.
pub fn test_postgres() -> Option<String> {
    std::env::var("BAO_TEST_POSTGRES").ok().filter(|u| !u.trim().is_empty())
}

/// The PostgreSQL cluster of the suite for `test`, or `None` after saying why the test is
/// skipped (a failure under `BAO_REQUIRE_ALL=1`).
pub fn postgres_or_skip(test: &str) -> Option<String> {
    let base = test_postgres();
    if base.is_none() {
        assert!(
            std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"),
            "BAO_REQUIRE_ALL=1 but BAO_TEST_POSTGRES is unset: {test} needs a PostgreSQL cluster \
             (deploy/postgres/throwaway.sh start DIR prints its URL)"
        );
        eprintln!(
            "SKIPPED {test}: BAO_TEST_POSTGRES is unset (it needs a PostgreSQL cluster; \
             deploy/postgres/throwaway.sh start DIR prints a URL)"
        );
    }
    base
}

/// Whether the whole suite runs on PostgreSQL (`BAO_E2E_DATABASE=postgres`, with the cluster
/// of `BAO_TEST_POSTGRES`) rather than on each arena's SQLite file.
pub fn suite_on_postgres() -> bool {
    std::env::var("BAO_E2E_DATABASE").is_ok_and(|d| d == "postgres")
}

/// The database of the arena in `data` when the suite runs on PostgreSQL (see
/// [`suite_on_postgres`]); `None` on SQLite.
pub fn test_database(data: &Path) -> Option<String> {
    if !suite_on_postgres() {
        return None;
    }
    let Some(base) = test_postgres() else {
        panic!(
            "BAO_E2E_DATABASE=postgres needs BAO_TEST_POSTGRES (deploy/postgres/throwaway.sh start DIR prints it)"
        )
    };
    Some(postgres_database(&base, data))
}

/// A database of the cluster at `base` for the arena in `data` (named from its path),
/// created on first use; its URL.
pub fn postgres_database(base: &str, data: &Path) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::path::absolute(data).unwrap_or_else(|_| data.to_owned()).hash(&mut h);
    let name = format!("bao_e2e_{:016x}", h.finish());
    let mut admin = postgres::Client::connect(base, postgres::NoTls).expect("BAO_TEST_POSTGRES connects");
    let exists = admin
        .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name])
        .expect("pg_database")
        .is_some();
    // Two commands of one arena may race to create it; the loser finds it made.
    if !exists && let Err(e) = admin.batch_execute(&format!("CREATE DATABASE {name}")) {
        assert!(e.code() == Some(&postgres::error::SqlState::DUPLICATE_DATABASE), "CREATE DATABASE: {e}");
    }
    let mut config: postgres::Config = base.parse().expect("BAO_TEST_POSTGRES is a URL");
    config.dbname(&name);
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .map(|h| match h {
            postgres::config::Host::Tcp(h) => h.clone(),
            postgres::config::Host::Unix(p) => p.display().to_string(),
        })
        .collect();
    let user = config.get_user().unwrap_or("postgres");
    let port = config.get_ports().first().copied().unwrap_or(5432);
    format!("postgres://{user}@{}:{port}/{name}", hosts.join(","))
}

/// A connection to the database of the arena in `data` (the server may be running): its
/// SQLite file, or its PostgreSQL database when the suite runs on PostgreSQL.
pub fn arena_db(data: &Path) -> bao_server::db::Conn {
    let location = bao_server::db::Location::from_option(
        test_database(data).as_deref(),
        &data.join(bao_server::arena::DB_FILE),
    )
    .expect("the arena's database");
    bao_server::db::open_location(&location).expect("the arena database opens")
}

/// Runs the server's command line (`serve ...`, `submit ...`, as `bao-referee serve|submit`
/// take them, from `bao_server::cli`) in this process, as the referee's `main` does: the log on
/// stderr (`RUST_LOG`, default `info`), the output line on stdout, the README's exit codes.
pub fn run_server_command(args: &[String]) -> std::process::ExitCode {
    #[derive(clap::Parser)]
    #[command(name = "e2e")]
    enum ServerCli {
        Serve(bao_server::cli::ServeArgs),
        Submit(bao_server::cli::SubmitArgs),
    }
    let cli = match <ServerCli as clap::Parser>::try_parse_from(
        std::iter::once("e2e").chain(args.iter().map(String::as_str)),
    ) {
        Ok(ServerCli::Serve(mut serve)) => {
            if serve.database.is_none() {
                serve.database = test_database(&serve.data);
            }
            ServerCli::Serve(serve)
        }
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return std::process::ExitCode::from(2);
        }
    };
    {
        use tracing_subscriber::layer::SubscriberExt;
        use tracing_subscriber::util::SubscriberInitExt;
        let filter: tracing_subscriber::filter::Targets =
            std::env::var("RUST_LOG").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
                tracing_subscriber::filter::Targets::new()
                    .with_default(tracing_subscriber::filter::LevelFilter::INFO)
            });
        tracing_subscriber::registry()
            .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
            .with(filter)
            .init();
    }
    let result = match &cli {
        ServerCli::Serve(args) => bao_server::cli::run_serve(args),
        ServerCli::Submit(args) => bao_server::cli::run_submit(args),
    };
    match &result {
        Ok(bao_server::cli::Done::Printed(line)) => println!("{line}"),
        Ok(bao_server::cli::Done::Stopped) => {}
        Err(e) => eprintln!("error: {e}"),
    }
    std::process::ExitCode::from(bao_server::cli::exit_code(&result))
}

/// Gives `path` (recursively) to [`server_user`], if there is one.
pub fn give_to_server_user(path: &Path) {
    if let Some(user) = server_user() {
        let out =
            Command::new("chown").args(["-R", &format!("{user}:{user}")]).arg(path).output().expect("chown");
        assert!(out.status.success(), "chown {user}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// An arena directory with users, created with `serve user add`; `edits`
/// are text replacements applied to the default arena.toml.
pub struct Arena {
    pub dir: tempfile::TempDir,
    pub tokens: Vec<String>,
}

impl Arena {
    pub fn new(users: &[&str], edits: &[(&str, &str)]) -> Arena {
        Arena::new_with_paths(users, edits, &[])
    }

    /// An arena whose sandboxes also see `paths` read-only (a toolchain).
    pub fn new_with_paths(users: &[&str], edits: &[(&str, &str)], paths: &[&Path]) -> Arena {
        let dir = tempfile::tempdir().expect("tempdir");
        give_to_server_user(dir.path());
        let data = dir.path().join("arena");
        let mut tokens = Vec::new();
        for (i, user) in users.iter().enumerate() {
            let mut cmd = server_command();
            cmd.args(["serve", "--data"]).arg(&data).args(["user", "add", user]);
            if i == 0 {
                cmd.arg("--admin");
            }
            let out = cmd.output().expect("serve user add runs");
            assert!(out.status.success(), "serve user add failed: {}", String::from_utf8_lossy(&out.stderr));
            let token = String::from_utf8(out.stdout).expect("utf8").trim().to_owned();
            assert_eq!(token.len(), 64, "a token: {token:?}");
            tokens.push(token);
        }
        let toml = data.join("arena.toml");
        let mut text = std::fs::read_to_string(&toml).expect("arena.toml written on first use");
        let shown: Vec<String> = std::iter::once(bin_dir())
            .chain(paths.iter().copied())
            .map(|p| p.display().to_string())
            .collect();
        let sandbox: [(&str, &str); 2] = [
            ("read_only_paths = []", &format!("read_only_paths = {:?}", shown)),
            ("unsafe_sandbox = \"\"", &format!("unsafe_sandbox = {:?}", accepted_gaps())),
        ];
        // A server that is not root gets no cgroup delegated on the CI machine, so it cannot
        // confine a bot's CPU either: its arenas accept that too (as `accepted_gaps` does for
        // the sandbox), or the ladder would play no game at all.
        let unconfined: &[(&str, &str)] = if server_user().is_some() || !nix::unistd::geteuid().is_root() {
            &[("allow_unconfined_cpu = false", "allow_unconfined_cpu = true")]
        } else {
            &[]
        };
        for (from, to) in
            sandbox.iter().copied().chain(unconfined.iter().copied()).chain(edits.iter().copied())
        {
            assert!(text.contains(from), "arena.toml has no {from:?}");
            text = text.replace(from, to);
        }
        std::fs::write(&toml, text).expect("write arena.toml");
        Arena { dir, tokens }
    }

    pub fn data(&self) -> PathBuf {
        self.dir.path().join("arena")
    }
}

/// The test arena's language whose build and run are the entrant's own scripts
/// (an operator may offer one; the sandbox must hold whatever a build runs): an edit
/// of the default arena.toml that puts it before the `executable` language.
pub const SCRIPT_LANGUAGE: &str = "name = \"script\"
description = \"test: build.sh builds, bot.sh runs\"
main = \"bot.sh\"
build = \"sh ./build.sh\"
run = \"sh ./bot.sh\"

[[languages]]
name = \"executable\"";

/// Fast games for tests.
pub const FAST: &[(&str, &str)] = &[
    ("base_ms = 10000", "base_ms = 3000"),
    ("max_plies = 600", "max_plies = 300"),
    ("recompute_secs = 5", "recompute_secs = 1"),
];

/// The running server.
pub struct Server {
    child: Option<Child>,
    pub url: String,
}

impl Server {
    pub fn start(data: &Path) -> Server {
        Server::launch(data, &[], &[])
    }

    /// Starts the server through a wrapper command (`prlimit --nofile=... --`).
    pub fn start_with(data: &Path, wrapper: &[&str]) -> Server {
        Server::launch(data, wrapper, &[])
    }

    /// Waits for the server to exit by itself (a crash injected by a failpoint).
    pub fn wait_exit(mut self, secs: u64) -> std::process::ExitStatus {
        let mut c = self.child.take().expect("running");
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            if let Some(status) = c.try_wait().expect("wait") {
                return status;
            }
            if Instant::now() > deadline {
                let _ = c.kill();
                panic!("the server did not stop by itself within {secs} s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Starts the server with `env` added to its environment.
    pub fn start_with_env(data: &Path, env: &[(&str, &str)]) -> Server {
        Server::launch(data, &[], env)
    }

    /// Starts the server, through `wrapper` if not empty, with `env` added.
    fn launch(data: &Path, wrapper: &[&str], env: &[(&str, &str)]) -> Server {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(data.with_extension("log"))
            .expect("server log");
        let mut child = server_command_through(wrapper)
            .args(["serve", "--listen", "127.0.0.1:0", "--data"])
            .arg(data)
            .env("RUST_LOG", "info")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("the server starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx.recv_timeout(Duration::from_secs(30)).unwrap_or_default();
        let url = line.trim().strip_prefix("listening on ").map(str::to_owned);
        let Some(url) = url else {
            let _ = child.kill();
            let log = std::fs::read_to_string(data.with_extension("log")).unwrap_or_default();
            panic!("the server did not say where it listens (got {line:?}); its log:\n{log}");
        };
        Server { child: Some(child), url }
    }

    /// Whether the server's process is still running (it has not exited).
    pub fn is_running(&mut self) -> bool {
        self.child.as_mut().is_some_and(|c| c.try_wait().expect("wait").is_none())
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("running").id()
    }

    /// SIGKILL, as a crash would.
    pub fn kill9(mut self) {
        if let Some(mut c) = self.child.take() {
            c.kill().expect("kill -9");
            c.wait().expect("reaped");
        }
    }

    /// SIGTERM, and the exit status.
    pub fn terminate(self) -> std::process::ExitStatus {
        self.signal(nix::sys::signal::Signal::SIGTERM)
    }

    /// Sends `signal`, and waits for the exit status.
    pub fn signal(mut self, signal: nix::sys::signal::Signal) -> std::process::ExitStatus {
        signal_and_wait(self.child.take().expect("running"), signal, 30, "the server")
    }
}

/// Sends `signal` to `child` and waits for its exit status; after `secs`, SIGKILL and a panic
/// that names `who`.
pub fn signal_and_wait(
    mut child: Child,
    signal: nix::sys::signal::Signal,
    secs: u64,
    who: &str,
) -> std::process::ExitStatus {
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("pid"));
    nix::sys::signal::kill(pid, signal).expect("signal");
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{who} did not stop within {secs} s of {signal}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A `worker` process (this test binary as `e2e worker ...`, the command line of
/// `bao-referee worker`, run as [`server_user`]), its stderr appended to a log; killed when
/// dropped.
pub struct WorkerProcess {
    child: Option<Child>,
    /// Its first stdout line, once it says it.
    first_line: std::sync::mpsc::Receiver<String>,
    /// Its name, from that line.
    id: std::cell::OnceCell<String>,
    log: PathBuf,
}

impl WorkerProcess {
    /// `e2e worker [--database URL] --concurrency N --lease-secs 3 --cache CACHE`, to add to
    /// (an environment, a working folder) before [`WorkerProcess::spawn`].
    pub fn command(database: Option<&str>, cache: &Path, concurrency: usize) -> Command {
        let mut cmd = server_command();
        cmd.arg("worker");
        if let Some(url) = database {
            cmd.args(["--database", url]);
        }
        cmd.args(["--concurrency", &concurrency.to_string(), "--lease-secs", "3", "--cache"]).arg(cache);
        cmd
    }

    /// Starts a worker on `database` with `cache` and `concurrency`, its stderr appended to
    /// `log`, and waits for its first line (its name).
    pub fn start(database: &str, cache: &Path, concurrency: usize, log: &Path) -> WorkerProcess {
        let worker = WorkerProcess::spawn(WorkerProcess::command(Some(database), cache, concurrency), log);
        worker.id();
        worker
    }

    /// Starts a worker on `database` with `--concurrency 2` and the cache `cache` (made, and
    /// given to [`server_user`]), of the architecture `arch` (`BAO_WORKER_ARCH`) or of this
    /// machine, and waits for its first line (its name).
    pub fn start_of_arch(database: &str, cache: &Path, log: &Path, arch: Option<&str>) -> WorkerProcess {
        std::fs::create_dir_all(cache).expect("cache");
        give_to_server_user(cache);
        let mut cmd = WorkerProcess::command(Some(database), cache, 2);
        cmd.env_remove(bao_server::worker::artifacts::ARCH_ENV);
        if let Some(arch) = arch {
            cmd.env(bao_server::worker::artifacts::ARCH_ENV, arch);
        }
        let worker = WorkerProcess::spawn(cmd, log);
        worker.id();
        worker
    }

    /// Starts `cmd` (a [`WorkerProcess::command`]), its stderr appended to `log`, without
    /// waiting for its first line (a worker says it plays once a server has published the
    /// arena's settings). Its stdout is read to the end: a worker writing to a closed pipe
    /// would die of SIGPIPE.
    pub fn spawn(mut cmd: Command, log: &Path) -> WorkerProcess {
        let file = std::fs::OpenOptions::new().create(true).append(true).open(log).expect("worker log");
        let mut child = cmd.stdout(Stdio::piped()).stderr(file).spawn().expect("the worker starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let _ = tx.send(line);
            let mut rest = Vec::new();
            let _ = std::io::Read::read_to_end(&mut reader, &mut rest);
        });
        WorkerProcess {
            child: Some(child),
            first_line: rx,
            id: std::cell::OnceCell::new(),
            log: log.to_owned(),
        }
    }

    /// Its name, from its first line (`worker NAME plays ...`), waited for up to 60 s.
    pub fn id(&self) -> &str {
        self.id.get_or_init(|| {
            let line = self.first_line.recv_timeout(Duration::from_secs(60)).unwrap_or_default();
            let Some(id) = line.strip_prefix("worker ").and_then(|l| l.split(' ').next()) else {
                panic!("the worker did not say it plays (got {line:?}); its log:\n{}", self.log());
            };
            id.to_owned()
        })
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("running").id()
    }

    /// Whether it still runs.
    pub fn alive(&mut self) -> bool {
        self.child.as_mut().is_some_and(|c| c.try_wait().expect("wait").is_none())
    }

    /// Its stderr so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// SIGKILL, as a crash would.
    pub fn kill9(&mut self) {
        if let Some(mut c) = self.child.take() {
            c.kill().expect("kill -9");
            c.wait().expect("reaped");
        }
    }

    /// SIGTERM (it hands its games back and stops its sandboxes), and the exit status.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        let child = self.child.take().expect("running");
        signal_and_wait(child, nix::sys::signal::Signal::SIGTERM, 30, "the worker")
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

/// An HTTP answer.
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The error message of a JSON error answer.
    pub fn error(&self) -> String {
        let v = self.json();
        v.get("error").and_then(Value::as_str).unwrap_or_else(|| panic!("no error message: {v}")).to_owned()
    }
}

fn answer(r: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Answer {
    let mut r = r.expect("the server answers");
    let headers = r
        .headers()
        .iter()
        .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
        .collect();
    let status = r.status().as_u16();
    let body = r.body_mut().with_config().limit(64 << 20).read_to_string().unwrap_or_default();
    Answer { status, headers, body }
}

pub fn get(url: &str, token: Option<&str>, cookie: Option<&str>) -> Answer {
    let mut req = agent().get(url);
    if let Some(t) = token {
        req = req.header("Authorization", &format!("Bearer {t}"));
    }
    if let Some(c) = cookie {
        req = req.header("Cookie", c);
    }
    answer(req.call())
}

pub fn post(url: &str, headers: &[(&str, &str)], body: &[u8]) -> Answer {
    let mut req = agent().post(url);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    answer(req.send(body))
}

/// Submits a file through the API.
pub fn submit(
    server: &Server,
    token: &str,
    bot: &str,
    language: &str,
    file_name: &str,
    body: &[u8],
    extra: &str,
) -> Answer {
    let url =
        format!("{}/api/bots/{bot}/versions?language={language}&file_name={file_name}{extra}", server.url);
    post(
        &url,
        &[("Authorization", &format!("Bearer {token}")), ("Content-Type", "application/octet-stream")],
        body,
    )
}

/// Polls `f` every 200 ms until it returns `Some`, failing after `secs` with `what`.
pub fn wait_for<T>(secs: u64, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out after {secs} s waiting for {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The state of a version, read through the API.
pub fn version_state(server: &Server, id: i64) -> String {
    let v = get(&format!("{}/api/versions/{id}", server.url), None, None).json();
    v["state"].as_str().unwrap_or("?").to_owned()
}

/// Waits until the version leaves queued/building/checking; returns its state.
pub fn settle(server: &Server, id: i64, secs: u64) -> String {
    wait_for(secs, &format!("version {id} to pass the gate"), || {
        let s = version_state(server, id);
        (!matches!(s.as_str(), "queued" | "building" | "checking")).then_some(s)
    })
}
