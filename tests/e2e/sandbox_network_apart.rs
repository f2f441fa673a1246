//! Every sandbox (`--isolation full`) has a network namespace of its own, with only its
//! loopback, down (docs/supervision.md, "The sandbox's network"): two bots of one `match`,
//! run by root and by an unprivileged user with subordinate ids (`bao-ci`, whose sandboxes
//! share one user namespace), seen from outside. Their programs' `/proc/PID/ns/net` differ
//! from each other's and from the host's; and an abstract Unix name one bot binds, which
//! carries data of its choosing, is not in the other's `/proc/net/unix` (in one shared
//! namespace it would be: a channel between sandboxes that Landlock's scopes do not close).
//! The receiver writes what it read to its stderr, which the game log records; the test
//! checks that it did read (its own name is there) and that the sender's payload is not.

use std::process::{Command, Stdio};

use serde_json::Value;

use crate::hostile::isolation_available;
use crate::sandbox::skipped;
use crate::subordinate_ids::subid_user;
use crate::support::{Scratch, bin};

/// What the sender's name carries (any bytes, up to 107 of them in one name).
const PAYLOAD: &str = "bao-netns-payload-e2e4-eval+1.5";

/// A bot (`sh bot.sh REFEREE MARK ROLE`): leaves a process marked `MARK-ROLE` to be looked
/// at from outside, runs `ROLE.py`, then plays as the referee's sample bot.
const BOT: &str = "sh -c 'sleep 3; :' \"$2-$3\" </dev/null >/dev/null 2>&1 &\n\
                   python3 \"$3.py\" </dev/null\n\
                   exec \"$1\" sample-bot random\n";

/// The sender: binds an abstract name carrying the payload and holds it for six seconds, in
/// the background, while its bot plays.
const SENDER: &str = "import os, socket, sys, time\n\
                      if os.fork() == 0:\n    \
                          os.setsid()\n    \
                          s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\n    \
                          s.bind(b'\\0PAYLOAD')\n    \
                          time.sleep(6)\n    \
                          os._exit(0)\n\
                      time.sleep(0.5)\n";

/// The receiver: binds a name of its own, reads `/proc/net/unix` every 50 ms for a second
/// and a half, and writes every line naming `bao-netns` it saw to stderr.
const RECEIVER: &str = "import socket, sys, time\n\
                        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\n\
                        s.bind(b'\\0bao-netns-own-name')\n\
                        seen = set()\n\
                        end = time.monotonic() + 1.5\n\
                        while time.monotonic() < end:\n    \
                            with open('/proc/net/unix') as f:\n        \
                                seen.update(l.split()[-1] for l in f if 'bao-netns' in l)\n    \
                            time.sleep(0.05)\n\
                        print('unix:', ' '.join(sorted(seen)), file=sys.stderr, flush=True)\n";

/// Plays a match with `--isolation full`, as `user` (through `setpriv`) or as this process
/// (root); the referee's output, the receiver's stderr (from the game log), and the network
/// namespaces (`net:[INODE]`) of the sender's and the receiver's marked processes.
fn play(user: Option<&str>) -> (std::process::Output, String, [Vec<String>; 2]) {
    let dir = Scratch::dir("netns-apart");
    std::fs::set_permissions(&*dir, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    std::fs::write(dir.join("bot.sh"), BOT).unwrap();
    std::fs::write(dir.join("sender.py"), SENDER.replace("PAYLOAD", PAYLOAD)).unwrap();
    std::fs::write(dir.join("receiver.py"), RECEIVER).unwrap();
    let log = dir.join("game.jsonl");
    let referee = bin("bao-referee").display().to_string();
    let mark = format!("netns-apart-{}-{}", std::process::id(), u8::from(user.is_some()));
    let mut command = match user {
        Some(user) => {
            let mut command = Command::new("setpriv");
            command.args(["--reuid", user, "--regid", user, "--clear-groups"]).arg(&referee);
            command
        }
        None => Command::new(&referee),
    };
    let mut child = command
        .args(["match", "--isolation", "full", "--max-plies", "20", "--move-time", "0.05"])
        .args(["--south", &format!("sh bot.sh {referee} {mark} sender"), "--south-dir"])
        .arg(&*dir)
        .args(["--north", &format!("sh bot.sh {referee} {mark} receiver"), "--north-dir"])
        .arg(&*dir)
        .arg("--log")
        .arg(&log)
        .current_dir(&*dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut nets: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() && start.elapsed() < std::time::Duration::from_secs(60) {
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            for (role, found) in ["sender", "receiver"].iter().zip(nets.iter_mut()) {
                if cmdline == format!("sh\0-c\0sleep 3; :\0{mark}-{role}\0").as_bytes()
                    && let Ok(net) = std::fs::read_link(entry.path().join("ns/net"))
                {
                    let net = net.to_string_lossy().into_owned();
                    if !found.contains(&net) {
                        found.push(net);
                    }
                }
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let receiver_stderr: String = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["type"] == "stderr" && r["side"] == "N")
        .map(|r| r["text"].as_str().unwrap_or("").to_owned())
        .collect();
    (out, receiver_stderr, nets)
}

/// The two bots' network namespaces differ from each other's and the host's, and the
/// receiver read `/proc/net/unix` (its own name is there) without the sender's payload.
fn assert_apart(user: Option<&str>) {
    let (out, receiver_stderr, [sender, receiver]) = play(user);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the match as {user:?}: {stderr}");
    assert!(
        receiver_stderr.contains("@bao-netns-own-name"),
        "the receiver did not read its own name in /proc/net/unix (as {user:?}): {receiver_stderr:?}"
    );
    assert!(
        !receiver_stderr.contains(PAYLOAD),
        "the sender's name reached the receiver (as {user:?}): {receiver_stderr:?}"
    );
    let host = std::fs::read_link("/proc/self/ns/net").unwrap().to_string_lossy().into_owned();
    assert!(
        !sender.is_empty() && !receiver.is_empty(),
        "bots seen in /proc: sender {sender:?}, receiver {receiver:?}"
    );
    for net in sender.iter().chain(&receiver) {
        assert_ne!(net, &host, "a bot in the host's network namespace (as {user:?})");
    }
    for net in &sender {
        assert!(
            !receiver.contains(net),
            "the bots share a network namespace (as {user:?}): sender {sender:?}, receiver {receiver:?}"
        );
    }
}

#[test]
fn each_sandbox_of_a_root_referee_has_a_network_namespace_of_its_own() {
    let test = "each_sandbox_of_a_root_referee_has_a_network_namespace_of_its_own";
    if !isolation_available(test) {
        return;
    }
    if !nix::unistd::geteuid().is_root() {
        skipped(test, "a root referee needs root");
        return;
    }
    assert_apart(None);
}

#[test]
fn each_sandbox_of_an_unprivileged_referee_has_a_network_namespace_of_its_own() {
    let test = "each_sandbox_of_an_unprivileged_referee_has_a_network_namespace_of_its_own";
    let Some((user, _, _)) = subid_user(test) else { return };
    assert_apart(Some(&user));
}
