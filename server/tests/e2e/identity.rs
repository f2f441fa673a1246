//! Who a sandbox runs as, seen from outside in the host's `/proc`: never the
//! server's uid, and a uid of its own per sandbox, so that two builds running at
//! once have two uids and each its own task limit (`RLIMIT_NPROC` of its uid, or
//! `pids.max`). As root the uids come from `sandbox.uid_base`; as an unprivileged
//! server (`BAO_E2E_SERVER_USER`, run so by `.ci/run`) from the server user's
//! subordinate ids (`/etc/subuid`, `newuidmap`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::attack::zip_of;
use crate::support::{
    Arena, FAST, SCRIPT_LANGUAGE, Server, get, server_user, submit, test_exe, version_state, wait_for,
};

/// The task limit of a build in this test's arena.
const BUILD_TASKS: usize = 24;
/// The processes each build tries to hold at once (each a `sh` with a `sleep` child).
const TRIED: usize = 40;

/// The uid of process `pid` (its real uid, from `/proc/PID/status`).
fn uid_of(pid: &str) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("Uid:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// One look at `/proc`: for each tag, the uids of the processes whose command line
/// holds `marker-TAG`; and how many processes each uid runs.
fn scan(marker: &str) -> (BTreeMap<String, BTreeSet<u32>>, BTreeMap<u32, usize>) {
    let mut tagged: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    let mut per_uid: BTreeMap<u32, usize> = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else { return (tagged, per_uid) };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().filter(|n| n.bytes().all(|b| b.is_ascii_digit())) else { continue };
        let Some(uid) = uid_of(pid) else { continue };
        *per_uid.entry(uid).or_default() += 1;
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if let Some(at) = cmdline.find(marker) {
            let tag = cmdline[at + marker.len()..].split_whitespace().next().unwrap_or("").to_owned();
            tagged.entry(tag).or_default().insert(uid);
        }
    }
    (tagged, per_uid)
}

/// What the sampler saw.
#[derive(Default)]
struct Seen {
    /// Every uid each tag ran as.
    uids: BTreeMap<String, BTreeSet<u32>>,
    /// The most processes each sandbox uid ran at once.
    most: BTreeMap<u32, usize>,
    /// Two tags seen at once under two different uids, with the processes of both
    /// uids together at that moment (the most such).
    together: Option<usize>,
}

/// The subordinate uids of `user` in `/etc/subuid` (first, count), if it has any.
fn subordinate_uids(user: &str) -> Vec<(u32, u32)> {
    let uid = nix::unistd::User::from_name(user).ok().flatten().map(|u| u.uid.as_raw().to_string());
    std::fs::read_to_string("/etc/subuid")
        .unwrap_or_default()
        .lines()
        .filter_map(|line| {
            let mut f = line.trim().split(':');
            let (owner, first, count) = (f.next()?, f.next()?, f.next()?);
            (owner == user || Some(owner) == uid.as_deref()).then_some(())?;
            Some((first.parse().ok()?, count.parse().ok()?))
        })
        .collect()
}

/// Whether this test can show a uid per sandbox here: root, or an unprivileged server
/// user with subordinate ids and `newuidmap` (a skip says why; a failure under
/// `BAO_REQUIRE_ALL=1`).
fn distinct_uids_possible() -> bool {
    let why = match server_user() {
        None if nix::unistd::geteuid().is_root() => return true,
        None => "the tests do not run as root and BAO_E2E_SERVER_USER is not set".to_owned(),
        Some(user) if subordinate_uids(&user).is_empty() => {
            format!("user {user} has no range in /etc/subuid")
        }
        Some(_) if !std::path::Path::new("/usr/bin/newuidmap").exists() => {
            "no /usr/bin/newuidmap (Debian's package uidmap)".to_owned()
        }
        Some(_) => return true,
    };
    let why = format!("sandboxes_run_as_uids_of_their_own: skipped: {why}");
    assert!(std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"), "{why} (BAO_REQUIRE_ALL=1)");
    eprintln!("{why}");
    false
}

pub fn sandboxes_run_as_uids_of_their_own() {
    if !distinct_uids_possible() {
        return;
    }
    let tasks = format!("build_processes = {BUILD_TASKS}");
    let mut edits = FAST.to_vec();
    edits.extend([
        ("name = \"executable\"", SCRIPT_LANGUAGE),
        ("build_processes = 64", tasks.as_str()),
        ("build_concurrency = 1", "build_concurrency = 2"),
    ]);
    let arena = Arena::new(&["admin", "first", "second"], &edits);
    let server = Server::start(&arena.data());
    let server_uid = uid_of(&server.pid().to_string()).expect("the server runs");
    let marker = format!("idcheck-{:016x}-", rand::random::<u64>());

    // Each build tries to hold TRIED processes (both builds start at once: two may run
    // together). Each held process is a shell blocked opening a FIFO nobody writes (no
    // second fork that could be refused and end it), and `fork.sh` dies at the first
    // refused fork (as a shell does), so a build holds its limit exactly. Then `build.sh`
    // keeps them 8 s more, however long the forks took: a process it started first waits
    // on another FIFO and then becomes the `sleep` (exec: no fork is left), and succeeds.
    // Each bot, at every start, leaves one process beside it.
    let fork = format!(
        "i=0\nwhile [ $i -lt {TRIED} ]; do sh -c 'read x < blocked' {marker}build-$1 & i=$((i+1)); done\n"
    );
    let build = "mkfifo held blocked\n(read go < held; exec sleep 8) &\nsh ./fork.sh \"$TAG\" 2>/dev/null\n\
                 echo go > held\nwait\nexit 0\n";
    let seen = Arc::new(Mutex::new(Seen::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (seen, stop, marker) = (seen.clone(), stop.clone(), marker.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let (tagged, per_uid) = scan(&marker);
                let mut seen = seen.lock().expect("seen");
                for (tag, uids) in &tagged {
                    seen.uids.entry(tag.clone()).or_default().extend(uids);
                    for uid in uids {
                        let most = seen.most.entry(*uid).or_default();
                        *most = (*most).max(per_uid.get(uid).copied().unwrap_or(0));
                    }
                }
                let builds: Vec<&BTreeSet<u32>> =
                    tagged.iter().filter(|(t, _)| t.starts_with("build-")).map(|(_, u)| u).collect();
                if let [a, b] = builds[..]
                    && a.len() == 1
                    && b.len() == 1
                    && a != b
                {
                    let both: usize = a.union(b).map(|uid| per_uid.get(uid).copied().unwrap_or(0)).sum();
                    seen.together = Some(seen.together.unwrap_or(0).max(both));
                }
                drop(seen);
                std::thread::sleep(Duration::from_millis(25));
            }
        })
    };
    let mut ids = Vec::new();
    for (i, name) in ["first", "second"].into_iter().enumerate() {
        let bot = format!(
            "sh -c 'sleep 3; :' {marker}run-{name} </dev/null >/dev/null 2>&1 &\nexec '{}' --bot random\n",
            test_exe().display()
        );
        let build = build.replace("$TAG", name);
        let zip = zip_of(&[
            ("bot.sh", bot.as_bytes()),
            ("build.sh", build.as_bytes()),
            ("fork.sh", fork.as_bytes()),
        ]);
        let answer = submit(&server, &arena.tokens[i + 1], name, "script", "b.zip", &zip, "");
        assert_eq!(answer.status, 201, "{}", answer.body);
        ids.push(answer.json()["id"].as_i64().expect("id"));
    }
    wait_for(120, "both builds to end", || {
        ids.iter()
            .all(|id| !matches!(version_state(&server, *id).as_str(), "queued" | "building"))
            .then_some(())
    });
    // At the gate and in games between the two, their bots run too.
    let ran = |seen: &Seen| seen.uids.contains_key("run-first") && seen.uids.contains_key("run-second");
    for _ in 0..600 {
        if ran(&seen.lock().expect("seen")) {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    if !ran(&seen.lock().expect("seen")) {
        let versions: Vec<String> = ids
            .iter()
            .zip(&arena.tokens[1..])
            .map(|(id, token)| get(&format!("{}/api/versions/{id}", server.url), Some(token), None).json())
            .map(|v| format!("{}: {}", v["state"], v["build_log"]))
            .collect();
        let log = std::fs::read_to_string(arena.data().with_extension("log")).unwrap_or_default();
        let uids = seen.lock().expect("seen").uids.clone();
        panic!("a bot never ran: {uids:?}\n{versions:#?}\nthe server's log:\n{log}");
    }
    stop.store(true, Ordering::Relaxed);
    sampler.join().expect("the sampler");
    let seen = seen.lock().expect("seen");
    let status = server.terminate();
    assert_eq!(status.code(), Some(130), "SIGTERM ends the server with 130: {status}");

    // Never the server's uid, nor root; within the range the server may give.
    let all: BTreeSet<u32> = seen.uids.values().flatten().copied().collect();
    assert!(!all.is_empty(), "no sandboxed process was seen: {:?}", seen.uids);
    assert!(
        !all.contains(&server_uid) && !all.contains(&0),
        "a sandbox ran as the server's uid or root: {:?}",
        seen.uids
    );
    let in_range = |uid: u32| match server_user() {
        Some(user) => subordinate_uids(&user)
            .iter()
            .any(|&(first, count)| uid >= first && u64::from(uid) < u64::from(first) + u64::from(count)),
        None => (1_500_000_000..1_500_065_536).contains(&uid),
    };
    assert!(all.iter().all(|&uid| in_range(uid)), "uids outside the server's range: {all:?}");
    // One uid per sandbox: the two builds, and the two bots of a game, apart.
    for tag in ["build-first", "build-second", "run-first", "run-second"] {
        assert!(seen.uids.contains_key(tag), "{tag} never ran: {:?}", seen.uids);
    }
    // Every sandbox leases a fresh uid: no two of these runs shared one.
    let tags: Vec<&String> = seen.uids.keys().collect();
    for (i, a) in tags.iter().enumerate() {
        for b in &tags[i + 1..] {
            assert!(seen.uids[*a].is_disjoint(&seen.uids[*b]), "{a} and {b} shared a uid: {:?}", seen.uids);
        }
    }
    // Each build within its own task limit, and both together past it: the limit is
    // per sandbox, not shared.
    for (uid, most) in &seen.most {
        assert!(*most <= BUILD_TASKS, "uid {uid} ran {most} processes at once (limit {BUILD_TASKS} tasks)");
    }
    let together = seen.together.expect("the two builds never ran at once");
    eprintln!(
        "sandboxes_run_as_uids_of_their_own: server uid {server_uid}; uids {:?}; most processes per uid {:?}; \
         both builds at once {together}",
        seen.uids, seen.most
    );
    assert!(
        together > BUILD_TASKS,
        "two builds at once ran {together} processes together: not more than one build's limit ({BUILD_TASKS})"
    );
}
