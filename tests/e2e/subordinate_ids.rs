//! An unprivileged referee with subordinate ids (`/etc/subuid`, `/etc/subgid`, `newuidmap`)
//! runs each sandboxed bot as a uid of its own from them (docs/supervision.md, "Identity"),
//! seen from outside: each bot's `id -u` and the `/proc` status of its process agree, and
//! the two bots of a game differ. Under `no_new_privs` the setuid helpers gain nothing: the
//! referee says so once and its bots run as its own uid. The user is `bao-ci` (which
//! `.ci/run` gives a range) or `BAO_E2E_SUBID_USER`.

use std::process::{Command, Stdio};

use serde_json::Value;

use crate::hostile::isolation_available;
use crate::sandbox::skipped;
use crate::support::{Scratch, bin};

/// A bot that writes its uid to stderr, leaves a process marked `MARK` to be looked at
/// from outside (for a second at least), then plays as the sample bot of the referee its first argument names.
const BOT: &str = "echo \"uid $(id -u)\" >&2\nsh -c 'sleep 2; :' \"$2\" </dev/null >/dev/null 2>&1 &\n\
                   sleep 1\nexec \"$1\" sample-bot random\n";

/// A user with subordinate ids: its name, its uid, its subordinate uid ranges (first, count).
type SubidUser = (String, u32, Vec<(u32, u32)>);

/// The user with subordinate ids; `None` when there is none here (a skip says why, a
/// failure under `BAO_REQUIRE_ALL=1`).
fn subid_user(test: &str) -> Option<SubidUser> {
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
/// reported uid, and the uids of the marked processes seen in `/proc` while it ran.
fn play_as(user: &str, no_new_privs: bool) -> (std::process::Output, [u32; 2], Vec<u32>) {
    let dir = Scratch::dir("subids");
    std::fs::set_permissions(&*dir, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    std::fs::write(dir.join("bot.sh"), BOT).unwrap();
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
            if cmdline == format!("sh\0-c\0sleep 2; :\0{mark}\0").as_bytes()
                && let Ok(status) = std::fs::read_to_string(entry.path().join("status"))
                && let Some(uid) = status.lines().find(|l| l.starts_with("Uid:"))
                && let Some(uid) = uid.split_whitespace().nth(1).and_then(|u| u.parse().ok())
                && !seen.contains(&uid)
            {
                seen.push(uid);
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
    assert!(
        seen.contains(&south) && seen.contains(&north),
        "seen in /proc: {seen:?}, reported: {south} {north}"
    );
    assert!(seen.iter().all(|&uid| uid != own_uid && in_ranges(uid)), "seen in /proc: {seen:?}");
}

#[test]
fn under_no_new_privs_subordinate_ids_fall_back_to_the_referee_s_uid_said_once() {
    let test = "under_no_new_privs_subordinate_ids_fall_back_to_the_referee_s_uid_said_once";
    let Some((user, own_uid, _)) = subid_user(test) else { return };
    let (out, uids, seen) = play_as(&user, true);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(uids, [own_uid, own_uid], "{stderr}");
    assert!(seen.iter().all(|uid| *uid == own_uid), "seen in /proc: {seen:?}");
    assert_eq!(stderr.matches("its subordinate ids do not work here").count(), 1, "said once: {stderr}");
}
