//! An unprivileged referee with subordinate ids (`/etc/subuid`, `/etc/subgid`, `newuidmap`)
//! runs each sandboxed bot as a uid of its own from them (docs/supervision.md, "Identity"),
//! seen from outside: each bot's `id -u` and the `/proc` status of its process agree, and
//! the two bots of a game differ, and share one user namespace (made once by the spawn server,
//! `supervise/src/shared_user_namespace.rs`). Under `no_new_privs` the setuid helpers gain
//! nothing: the referee says so once and its bots run as its own uid. Either way each bot has
//! an empty network namespace of its own, not the host's, read from `/proc/PID/ns/net`
//! outside, and neither can bring its loopback up: each bot tries, and the test reads the loopback's flags in that namespace
//! (`nsenter`), where they stay down. The user is `bao-ci` (which `.ci/run` gives a range)
//! or `BAO_E2E_SUBID_USER`.

use std::process::{Command, Stdio};

use serde_json::Value;

use crate::hostile::isolation_available;
use crate::sandbox::skipped;
use crate::support::{Scratch, bin};

/// A bot that writes its uid to stderr, tries to bring its network namespace's loopback up
/// (`SIOCSIFFLAGS` with `IFF_UP`), leaves a process marked `MARK` to be looked at from
/// outside (for a second at least), then plays as the sample bot of the referee its first
/// argument names.
const BOT: &str = "echo \"uid $(id -u)\" >&2\n\
                   python3 lo_up.py 2>/dev/null\n\
                   sh -c 'sleep 2; :' \"$2\" </dev/null >/dev/null 2>&1 &\n\
                   sleep 1\nexec \"$1\" sample-bot random\n";

/// The bot's attempt (`lo_up.py` beside it): `lo` up (`SIOCSIFFLAGS`, `IFF_UP`), in Python (in
/// the sandbox's `/usr`).
const LO_UP: &str = "import fcntl, socket, struct\n\
                     s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n\
                     fcntl.ioctl(s.fileno(), 0x8914, struct.pack('16sH14x', b'lo', 1))\n";

/// Whether `lo` is up in the network namespace `namespace` (a `/proc/PID/ns/net` path): its
/// flags (`SIOCGIFFLAGS`) read by Python inside it, entered with `nsenter`; `None` if that
/// could not be run.
fn loopback_up(namespace: &str) -> Option<bool> {
    let read = "import fcntl, socket, struct\n\
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n\
                r = fcntl.ioctl(s.fileno(), 0x8913, struct.pack('16sH14x', b'lo', 0))\n\
                print(struct.unpack('16sH14x', r)[1] & 1)\n";
    let out = Command::new("nsenter")
        .arg(format!("--net={namespace}"))
        .args(["python3", "-c", read])
        .stdin(Stdio::null())
        .output()
        .ok()?;
    match String::from_utf8_lossy(&out.stdout).trim() {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

/// A marked process seen from outside: its uid, its network and user namespaces
/// (`net:[INODE]`, `user:[INODE]`), and whether its network namespace's loopback was up
/// (`None`: could not be read).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    uid: u32,
    net: String,
    user: String,
    loopback_up: Option<bool>,
}

/// A user with subordinate ids: its name, its uid, its subordinate uid ranges (first, count).
pub(crate) type SubidUser = (String, u32, Vec<(u32, u32)>);

/// The user with subordinate ids; `None` when there is none here (a skip says why, a
/// failure under `BAO_REQUIRE_ALL=1`).
pub(crate) fn subid_user(test: &str) -> Option<SubidUser> {
    if !isolation_available(test) {
        return None;
    }
    if !nix::unistd::geteuid().is_root() {
        skipped(test, "dropping to another user needs root");
        return None;
    }
    let name = std::env::var("BAO_E2E_SUBID_USER").unwrap_or_else(|_| "bao-ci".to_owned());
    let Some(user) = nix::unistd::User::from_name(&name).ok().flatten() else {
        skipped(test, &format!("no user {name} (BAO_E2E_SUBID_USER)"));
        return None;
    };
    let ranges = |file: &str| -> Vec<(u32, u32)> {
        std::fs::read_to_string(file)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| {
                let mut f = line.trim().split(':');
                let (owner, first, count) = (f.next()?, f.next()?, f.next()?);
                (owner == name || owner == user.uid.to_string()).then_some(())?;
                Some((first.parse().ok()?, count.parse().ok()?))
            })
            .collect()
    };
    let uids = ranges("/etc/subuid");
    if uids.is_empty() || ranges("/etc/subgid").is_empty() {
        skipped(test, &format!("user {name} has no range in /etc/subuid and /etc/subgid"));
        return None;
    }
    if !std::path::Path::new("/usr/bin/newuidmap").exists() {
        skipped(test, "no /usr/bin/newuidmap (Debian's package uidmap)");
        return None;
    }
    Some((name, user.uid.as_raw(), uids))
}

/// Plays a short match with `--isolation full` as `user` (through `setpriv`, with
/// `no_new_privs` if asked), both bots the one above; the referee's output, each side's
/// reported uid, and the marked processes seen in `/proc` while it ran.
fn play_as(user: &str, no_new_privs: bool) -> (std::process::Output, [u32; 2], Vec<Seen>) {
    let dir = Scratch::dir("subids");
    std::fs::set_permissions(&*dir, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    std::fs::write(dir.join("bot.sh"), BOT).unwrap();
    std::fs::write(dir.join("lo_up.py"), LO_UP).unwrap();
    let log = dir.join("game.jsonl");
    let referee = bin("bao-referee").display().to_string();
    let mark = format!("subid-mark-{}-{}", std::process::id(), u8::from(no_new_privs));
    let mut command = Command::new("setpriv");
    command.args(["--reuid", user, "--regid", user, "--clear-groups"]);
    if no_new_privs {
        command.arg("--no-new-privs");
    }
    let bot = format!("sh bot.sh {referee} {mark}");
    let child = command
        .arg(&referee)
        .args(["match", "--isolation", "full", "--max-plies", "20", "--move-time", "0.05"])
        .args(["--south", &bot, "--south-dir"])
        .arg(&*dir)
        .args(["--north", &bot, "--north-dir"])
        .arg(&*dir)
        .arg("--log")
        .arg(&log)
        .current_dir(&*dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut seen = Vec::new();
    let start = std::time::Instant::now();
    let mut child = child;
    while child.try_wait().unwrap().is_none() && start.elapsed() < std::time::Duration::from_secs(60) {
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            // The marked process itself (the referee's and the stubs' command lines name the
            // mark too, in the bot's command).
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let namespace = |kind: &str| {
                std::fs::read_link(entry.path().join("ns").join(kind))
                    .map(|link| link.to_string_lossy().into_owned())
                    .ok()
            };
            if cmdline == format!("sh\0-c\0sleep 2; :\0{mark}\0").as_bytes()
                && let Ok(status) = std::fs::read_to_string(entry.path().join("status"))
                && let Some(uid) = status.lines().find(|l| l.starts_with("Uid:"))
                && let Some(uid) = uid.split_whitespace().nth(1).and_then(|u| u.parse().ok())
                && let (Some(net), Some(user)) = (namespace("net"), namespace("user"))
                && !seen.iter().any(|s: &Seen| s.uid == uid && s.net == net && s.user == user)
            {
                // Read once per namespace (`nsenter` is slow next to this loop's 20 ms).
                let up = match seen.iter().find(|s| s.net == net) {
                    Some(known) => known.loopback_up,
                    None => loopback_up(&entry.path().join("ns/net").display().to_string()),
                };
                seen.push(Seen { uid, net, user, loopback_up: up });
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let uid = |side: &str| -> u32 {
        let stderr: String = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|r| r["type"] == "stderr" && r["side"] == side)
            .map(|r| r["text"].as_str().unwrap_or("").to_owned())
            .collect();
        let line = stderr.lines().find(|l| l.starts_with("uid ")).unwrap_or_else(|| {
            panic!("{side} reported no uid: {stderr}\n{}", String::from_utf8_lossy(&out.stderr))
        });
        line[4..].trim().parse().unwrap()
    };
    let uids = [uid("S"), uid("N")];
    (out, uids, seen)
}

/// Each bot's program was in a network namespace of its own (every marked process seen is
/// one sandbox's), not the host's, whose loopback stayed down though each tried to bring it
/// up; and the check can tell: the host's is up.
fn assert_own_empty_networks(seen: &[Seen]) {
    let host = std::fs::read_link("/proc/self/ns/net").unwrap().to_string_lossy().into_owned();
    assert!(seen.len() >= 2, "fewer than two bot processes seen: {seen:?}");
    for (i, s) in seen.iter().enumerate() {
        assert!(
            s.net != host && seen[..i].iter().all(|before| before.net != s.net),
            "the bots' network namespaces: {seen:?} (the host's: {host})"
        );
    }
    assert_eq!(loopback_up("/proc/self/ns/net"), Some(true), "the host's loopback as read by the test");
    assert!(seen.iter().all(|s| s.loopback_up == Some(false)), "the bots' loopback: {seen:?}");
}

#[test]
fn an_unprivileged_referee_with_subordinate_ids_runs_each_bot_as_a_uid_of_its_own() {
    let test = "an_unprivileged_referee_with_subordinate_ids_runs_each_bot_as_a_uid_of_its_own";
    let Some((user, own_uid, ranges)) = subid_user(test) else { return };
    let (out, [south, north], seen) = play_as(&user, false);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let in_ranges = |uid: u32| {
        ranges
            .iter()
            .any(|&(first, count)| uid >= first && u64::from(uid) < u64::from(first) + u64::from(count))
    };
    assert_ne!(south, north, "the two bots of a game share a uid");
    for uid in [south, north] {
        assert!(
            uid != own_uid && in_ranges(uid),
            "bot uid {uid}: not one of {user}'s subordinate uids {ranges:?}"
        );
    }
    // From outside: the bots' processes (the referee may start a bot more than once) run as
    // subordinate uids, never the referee's, and as the uids the bots reported.
    let uids: Vec<u32> = seen.iter().map(|s| s.uid).collect();
    assert!(
        uids.contains(&south) && uids.contains(&north),
        "seen in /proc: {seen:?}, reported: {south} {north}"
    );
    assert!(uids.iter().all(|&uid| uid != own_uid && in_ranges(uid)), "seen in /proc: {seen:?}");
    // One user namespace for the caller's sandboxes with subordinate ids (made once by the
    // spawn server, `supervise/src/shared_user_namespace.rs`), not the host's.
    let host_user = std::fs::read_link("/proc/self/ns/user").unwrap().to_string_lossy().into_owned();
    assert!(
        seen.iter().all(|s| s.user == seen[0].user) && seen[0].user != host_user,
        "the bots' user namespaces: {seen:?} (the host's: {host_user})"
    );
    assert_own_empty_networks(&seen);
}

#[test]
fn under_no_new_privs_subordinate_ids_fall_back_to_the_referee_s_uid_said_once() {
    let test = "under_no_new_privs_subordinate_ids_fall_back_to_the_referee_s_uid_said_once";
    let Some((user, own_uid, _)) = subid_user(test) else { return };
    let (out, uids, seen) = play_as(&user, true);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(uids, [own_uid, own_uid], "{stderr}");
    assert!(!seen.is_empty() && seen.iter().all(|s| s.uid == own_uid), "seen in /proc: {seen:?}");
    assert_own_empty_networks(&seen);
    assert_eq!(stderr.matches("its subordinate ids do not work here").count(), 1, "said once: {stderr}");
}
