//! An entrant attacks the arena through its build and its bot (at the gate and in
//! games), and every attack fails. Each effect is checked from outside: files that
//! must not exist, the database row seen through `/api/me`, a listener that must
//! see no connection, `/proc`, the size of the arena on disk; never by what the
//! attacker prints. Run twice by CI: with the server as root, and as an
//! unprivileged user (`BAO_E2E_SERVER_USER`).

use std::collections::BTreeMap;
use std::io::Write;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{Arena, FAST, SCRIPT_LANGUAGE, Server, get, settle, submit, test_exe, wait_for};

/// The disk a build may write in the test arena, in MiB.
const BUILD_DISK_MIB: u64 = 100;

pub fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().unix_permissions(0o755);
    for (name, data) in entries {
        w.start_file(*name, opts).expect("start");
        w.write_all(data).expect("write");
    }
    w.finish().expect("finish").into_inner()
}

/// The processes whose command line holds `marker`, seen in the host's `/proc`.
pub fn processes_with(marker: &str) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else { return 0 };
    entries
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit())))
        .filter(|e| {
            std::fs::read(e.path().join("cmdline"))
                .is_ok_and(|c| c.windows(marker.len()).any(|w| w == marker.as_bytes()))
        })
        .count()
}

/// Waits up to `secs` for no process to hold `marker`; the count left.
pub fn wait_until_gone(marker: &str, secs: u64) -> usize {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let n = processes_with(marker);
        if n == 0 || Instant::now() > deadline {
            return n;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Counts, every 20 ms until stopped, the processes holding each marker; keeps the
/// most seen at once.
struct Sampler {
    stop: Arc<AtomicBool>,
    most: Vec<Arc<AtomicUsize>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Sampler {
    fn start(markers: &[String]) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let most: Vec<Arc<AtomicUsize>> = markers.iter().map(|_| Arc::new(AtomicUsize::new(0))).collect();
        let (s, m, markers) = (stop.clone(), most.clone(), markers.to_vec());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                for (marker, most) in markers.iter().zip(&m) {
                    most.fetch_max(processes_with(marker), Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        Sampler { stop, most, thread: Some(thread) }
    }

    fn most(&self, i: usize) -> usize {
        self.most[i].load(Ordering::Relaxed)
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A TCP listener on every address that counts the connections it accepts.
pub struct Listener {
    pub port: u16,
    pub accepted: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl Listener {
    pub fn open() -> Listener {
        let l = TcpListener::bind("0.0.0.0:0").expect("listen");
        l.set_nonblocking(true).expect("nonblocking");
        let port = l.local_addr().expect("addr").port();
        let (accepted, stop) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(false)));
        let (a, s) = (accepted.clone(), stop.clone());
        std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                if l.accept().is_ok() {
                    a.fetch_add(1, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        Listener { port, accepted, stop }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// This machine's address on its default route (no packet is sent), if it has one.
pub fn host_address() -> Option<String> {
    let s = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    s.connect("192.0.2.1:9").ok()?;
    let ip = s.local_addr().ok()?.ip();
    (!ip.is_loopback()).then(|| ip.to_string())
}

/// Every file under `dir` (relative path → contents).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            if e.file_type().expect("type").is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).expect("under").to_path_buf();
                out.insert(rel, std::fs::read(&p).unwrap_or_default());
            }
        }
    }
    out
}

/// Bytes on disk under `dir` (like `du`: allocated blocks).
pub fn disk_usage(dir: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let Ok(meta) = e.path().symlink_metadata() else { continue };
            total += meta.blocks() * 512;
            if meta.is_dir() {
                stack.push(e.path());
            }
        }
    }
    total
}

/// Everything the server shows of a version's runs: its build log and check report
/// (as its owner), and the game logs on disk.
fn shown_text(server: &Server, token: &str, id: i64, data: &Path) -> String {
    let v = get(&format!("{}/api/versions/{id}", server.url), Some(token), None).json();
    let mut text =
        format!("{}\n{}\n", v["build_log"].as_str().unwrap_or(""), v["check_report"].as_str().unwrap_or(""));
    if let Ok(entries) = std::fs::read_dir(data.join("games")) {
        for e in entries.flatten() {
            text.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
        }
    }
    text
}

/// What the attacker tries, in the build (`build`) and every time its bot starts (`run`).
#[expect(clippy::too_many_arguments, reason = "the script's blanks, each named")]
fn attack_script(
    arena: &Path,
    victim_dir: &Path,
    open_dir: &Path,
    server: &Server,
    listener_port: u16,
    host: &str,
    token: &str,
    marker: &str,
) -> String {
    let (a, v, w) = (arena.display(), victim_dir.display(), open_dir.display());
    let pid = server.pid();
    let port = server.url.rsplit(':').next().expect("port");
    let url = &server.url;
    format!(
        r#"P=$1
# Secrets: the host's, the arena's, another entrant's, the server's environment.
for f in /etc/shadow {a}/arena.sqlite3 {a}/arena.toml {v}/main.py /proc/{pid}/environ /proc/1/environ; do
  cat "$f" 2>&1 | head -c 3000
  cp "$f" {w}/ 2>&1
done
ls -laR {a}/bots 2>&1 | head -50; cat {a}/bots/*/*/main.py 2>&1 | head -c 3000
env
cat /proc/*/environ 2>/dev/null | tr '\0' '\n' | head -50
# Writes: the arena, another bot's folder, a world-writable folder outside, the database.
touch {a}/pwned-$P {v}/pwned-$P {w}/pwned-$P 2>&1
echo pwned >> {a}/arena.toml; echo pwned >> {v}/main.py
python3 -c "import sqlite3; c = sqlite3.connect('{a}/arena.sqlite3'); c.execute(\"update users set is_admin = 1 where name = 'attacker'\"); c.commit()" 2>&1
# The network: the server, a listener of the test, on loopback and the host's address.
python3 - "$P" <<'PY' 2>&1
import socket, sys, urllib.request
for host, port in [("127.0.0.1", {port}), ("127.0.0.1", {listener_port}), ("{host}", {listener_port}), ("{host}", {port})]:
    try:
        socket.create_connection((host, port), 1).close()
        print("connected to", host, port)
    except Exception as e:
        print("no connection to", host, port, e)
try:
    request = urllib.request.Request("{url}/api/bots/netpwn-" + sys.argv[1] + "/versions?language=python&file_name=x.py",
        data=b"print(1)", headers={{"Authorization": "Bearer {token}"}})
    urllib.request.urlopen(request, timeout=1)
except Exception as e:
    print("no submission", e)
PY
# Signals to the server.
kill -STOP {pid} 2>&1; kill -TERM {pid} 2>&1; kill -KILL {pid} 2>&1
# A daemon that should outlive the build or the bot.
setsid sh -c 'while :; do sleep 1; done' daemon-{marker}-$P </dev/null >/dev/null 2>&1 &
sleep 0.3
"#
    )
}

/// What the hog tries: 400 processes and 700 MB, in its folder and its `TMPDIR`.
fn hog_script(marker: &str) -> String {
    format!(
        r#"P=$1
i=0
while [ $i -lt 400 ]; do sh -c 'sleep 20; :' fork-{marker}-$P 2>/dev/null & i=$((i+1)); done
dd if=/dev/zero of=./big bs=1M count=700 2>&1 | tail -1
dd if=/dev/zero of="$TMPDIR/big" bs=1M count=700 2>&1 | tail -1
"#
    )
}

fn random_hex() -> String {
    format!("{:016x}{:016x}", rand::random::<u64>(), rand::random::<u64>())
}

pub fn entrant_attacks_fail() {
    let script_language = ("name = \"executable\"", SCRIPT_LANGUAGE);
    let disk = ("build_disk_mib = 512", &*format!("build_disk_mib = {BUILD_DISK_MIB}"));
    let mut edits = FAST.to_vec();
    edits.extend([script_language, disk]);
    let arena = Arena::new(&["admin", "victim", "attacker"], &edits);
    let data = arena.data();
    let (victim, attacker) = (&arena.tokens[1], &arena.tokens[2]);
    // A folder anyone may write, outside the arena.
    let open_dir = tempfile::Builder::new().prefix("bao-open-").tempdir().expect("open dir");
    std::fs::set_permissions(open_dir.path(), std::fs::Permissions::from_mode(0o1777)).expect("chmod 1777");
    let listener = Listener::open();
    let host = host_address().unwrap_or_else(|| "127.0.0.1".into());
    let secret = random_hex();
    let server = Server::start_with_env(&data, &[("BAO_E2E_SECRET", &secret)]);
    let marker = random_hex();

    // The victim: a Python bot with a secret in its source.
    let victim_secret = random_hex();
    let source = format!(
        "{}\n# VICTIM-{victim_secret}\n",
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../sample-bots/python/random_bot.py"))
            .expect("the Python kit")
    );
    let a = submit(&server, victim, "victim", "python", "bot.py", source.as_bytes(), "");
    assert_eq!(a.status, 201, "{}", a.body);
    let victim_id = a.json()["id"].as_i64().expect("id");
    assert_eq!(settle(&server, victim_id, 120), "active", "the victim's honest bot plays");
    let victim_dir = data.join("bots/1/v1");
    let victim_files = snapshot(&victim_dir);
    assert!(victim_files.contains_key(Path::new("main.py")), "{victim_files:?}");
    let arena_toml = std::fs::read(data.join("arena.toml")).expect("arena.toml");
    let me_before = get(&format!("{}/api/me", server.url), Some(attacker), None).json();
    assert_eq!(me_before["is_admin"], Value::Bool(false), "{me_before}");

    // The thief: every attack in its build and at every start of its bot, which then plays.
    let attack =
        attack_script(&data, &victim_dir, open_dir.path(), &server, listener.port, &host, attacker, &marker);
    let bot =
        format!("sh ./attack.sh run </dev/null >&2 2>&1\nexec '{}' --bot random\n", test_exe().display());
    let build = "sh ./attack.sh build\nexit 0\n";
    let zip = zip_of(&[
        ("bot.sh", bot.as_bytes()),
        ("build.sh", build.as_bytes()),
        ("attack.sh", attack.as_bytes()),
    ]);
    let sampler = Sampler::start(&[format!("daemon-{marker}-build"), format!("daemon-{marker}-run")]);
    let a = submit(&server, attacker, "thief", "script", "t.zip", &zip, "");
    assert_eq!(a.status, 201, "{}", a.body);
    let thief_id = a.json()["id"].as_i64().expect("id");
    wait_for(120, "the thief's build to end", || {
        let s = crate::support::version_state(&server, thief_id);
        (!matches!(s.as_str(), "queued" | "building")).then_some(())
    });
    assert_eq!(
        wait_until_gone(&format!("daemon-{marker}-build"), 5),
        0,
        "the build's setsid daemon outlived it"
    );
    assert!(sampler.most(0) > 0, "the build's daemon never ran: the attack did not run");
    assert_eq!(
        settle(&server, thief_id, 180),
        "active",
        "the thief passes the gate (its attacks fail quietly)"
    );
    // Games between the thief and the victim.
    wait_for(120, "a game of the thief", || {
        let games = get(&format!("{}/api/games?bot=thief", server.url), None, None).json();
        games.as_array().is_some_and(|g| g.iter().any(|g| g["state"] == "finished")).then_some(())
    });
    assert!(sampler.most(1) > 0, "the bot's daemon never ran: the attack did not run");

    // The server is alive and was not stopped.
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.pid())).expect("the server runs");
    let state = status.lines().find(|l| l.starts_with("State:")).unwrap_or("");
    assert!(!state.contains("stopped") && !state.contains("T ("), "{state}");
    let me_after = get(&format!("{}/api/me", server.url), Some(attacker), None);
    assert_eq!(me_after.status, 200, "the server answers");
    // The database: the attacker is no admin, its row unchanged.
    assert_eq!(me_after.json(), me_before, "the attacker's row changed");
    // No connection reached the test's listener; no submission arrived over the network.
    assert_eq!(listener.accepted.load(Ordering::Relaxed), 0, "a sandbox connected to the test's listener");
    let bots = get(&format!("{}/api/bots", server.url), None, None).body;
    assert!(!bots.contains("netpwn"), "a sandbox reached the server's port: {bots}");
    // Nothing was written outside: the open folder, the arena, the victim's folder.
    let written: Vec<_> =
        std::fs::read_dir(open_dir.path()).expect("open dir").flatten().map(|e| e.path()).collect();
    assert!(written.is_empty(), "the sandbox wrote outside: {written:?}");
    let arena_entries: Vec<String> = std::fs::read_dir(&data)
        .expect("arena")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!arena_entries.iter().any(|n| n.contains("pwned")), "{arena_entries:?}");
    assert_eq!(std::fs::read(data.join("arena.toml")).expect("arena.toml"), arena_toml, "arena.toml changed");
    assert_eq!(snapshot(&victim_dir), victim_files, "the victim's folder changed");
    // Nothing secret reached what the attacker is shown (its logs) either.
    let shown = shown_text(&server, attacker, thief_id, &data);
    assert!(!shown.contains(&victim_secret), "the victim's source leaked");
    assert!(!shown.contains(&secret), "the server's environment leaked");
    assert!(!shown.contains("SQLite format 3"), "the database leaked");
    let shadow = std::fs::read_to_string("/etc/shadow").expect("the test reads /etc/shadow");
    for line in shadow.lines().filter(|l| l.len() > 8) {
        assert!(!shown.contains(line), "a line of /etc/shadow leaked: {line}");
    }

    // The hog: 400 processes and 700 MB, in its build and at the gate.
    let used_before = disk_usage(&data);
    let hog = hog_script(&marker);
    let bot = format!("sh ./hog.sh run </dev/null >&2 2>&1\nexec '{}' --bot random\n", test_exe().display());
    let build = "sh ./hog.sh build\nexit 0\n";
    let zip =
        zip_of(&[("bot.sh", bot.as_bytes()), ("build.sh", build.as_bytes()), ("hog.sh", hog.as_bytes())]);
    let forks = Sampler::start(&[format!("fork-{marker}-build"), format!("fork-{marker}-run")]);
    let a = submit(&server, attacker, "hog", "script", "h.zip", &zip, "");
    assert_eq!(a.status, 201, "{}", a.body);
    let hog_id = a.json()["id"].as_i64().expect("id");
    settle(&server, hog_id, 180);
    let (build_most, run_most) = (forks.most(0), forks.most(1));
    drop(forks);
    let shown = || shown_text(&server, attacker, hog_id, Path::new("/nonexistent"));
    // At least one of them ran (as an unprivileged server, whose own threads count
    // against the same uid's task limit, the build may not fork at all), and neither
    // ran more processes at once than its task limit allows: not the 400 it tried.
    assert!(build_most + run_most > 0, "the hog did not run: {}", shown());
    assert!(build_most <= 64, "a build ran {build_most} processes at once (limit 64 tasks)");
    let bot_tasks = usize::try_from(bao_server::sandbox::profile::BOT_TASKS).expect("small");
    assert!(run_most <= bot_tasks, "a bot ran {run_most} processes at once (limit {bot_tasks} tasks)");
    for phase in ["build", "run"] {
        assert_eq!(
            wait_until_gone(&format!("fork-{marker}-{phase}"), 5),
            0,
            "the hog's processes outlived it"
        );
    }
    let grown = disk_usage(&data).saturating_sub(used_before);
    assert!(
        grown <= (BUILD_DISK_MIB + 10) << 20,
        "the hog left {} MiB on disk (its build may keep at most {BUILD_DISK_MIB} MiB)",
        grown >> 20
    );
    let hog_dir = data.join("bots/3/v1");
    assert!(disk_usage(&hog_dir) <= (BUILD_DISK_MIB + 1) << 20, "{} bytes", disk_usage(&hog_dir));

    // When the server stops, every game's daemon is gone.
    let status = server.terminate();
    assert_eq!(status.code(), Some(130), "SIGTERM ends the server with 130: {status}");
    assert_eq!(
        wait_until_gone(&format!("daemon-{marker}-run"), 5),
        0,
        "a bot's setsid daemon outlived its game"
    );
    assert_eq!(processes_with(&marker), 0, "a process of the attacker is left");
    drop(sampler);
}
