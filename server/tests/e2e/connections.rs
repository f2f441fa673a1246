//! Clients that hold connections (silent, half-sent, many), a descriptor flood during games,
//! the privacy of the public log, and the operator's side: exit codes, SIGHUP, the
//! `submit` client's messages, an oversized form upload, `public_url`.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{Arena, FAST, Server, bot_script, get, post, server_exe, settle, submit, wait_for};

/// The server's address from its URL.
fn address(server: &Server) -> SocketAddr {
    server.url.trim_start_matches("http://").parse().expect("the server's address")
}

/// Waits until the server closes `stream` (EOF or reset); returns how long it took, or
/// `None` if it was still open after `limit`. Whatever the server answered is in `answer`.
fn closed_within(stream: &mut TcpStream, limit: Duration, answer: &mut Vec<u8>) -> Option<Duration> {
    let start = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        let left = limit.checked_sub(start.elapsed())?;
        stream.set_read_timeout(Some(left.max(Duration::from_millis(1)))).expect("read timeout");
        match stream.read(&mut buf) {
            Ok(0) => return Some(start.elapsed()),
            Ok(n) => answer.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                return None;
            }
            Err(_) => return Some(start.elapsed()),
        }
    }
}

pub fn slow_and_many_clients_are_cut() {
    let mut edits = FAST.to_vec();
    edits.extend([
        ("header_timeout_secs = 10", "header_timeout_secs = 2"),
        ("body_timeout_secs = 30", "body_timeout_secs = 2"),
        ("max_connections_per_address = 64", "max_connections_per_address = 8"),
        ("max_event_streams = 256", "max_event_streams = 2"),
    ]);
    let arena = Arena::new(&["admin"], &edits);
    let server = Server::start(&arena.data());
    let addr = address(&server);
    let limit = Duration::from_secs(6);
    let connect = || TcpStream::connect(addr).expect("connect");

    // A connection that never sends anything.
    let mut silent = connect();
    let t = closed_within(&mut silent, limit, &mut Vec::new());
    assert!(t.is_some_and(|t| t >= Duration::from_millis(1500)), "silent connection: closed after {t:?}");
    // Half a header.
    let mut half = connect();
    half.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ").expect("write");
    let t = closed_within(&mut half, limit, &mut Vec::new());
    assert!(t.is_some(), "a half-sent header was still open after {limit:?}");
    // Headers, then half a body.
    let mut body = connect();
    body.write_all(
        b"POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n\
          Content-Length: 100\r\n\r\ntoken=ab",
    )
    .expect("write");
    let mut answer = Vec::new();
    let t = closed_within(&mut body, limit, &mut answer);
    assert!(t.is_some(), "a half-sent body was still open after {limit:?}");
    // A kept-alive connection after its answer, then silent.
    let mut idle = connect();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").expect("write");
    let mut answer = Vec::new();
    let t = closed_within(&mut idle, limit, &mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200") && answer.ends_with("ok\n"), "{answer}");
    assert!(t.is_some(), "an idle kept-alive connection was still open after {limit:?}");

    // One address holds at most 8 connections: the 9th is closed at once, the 8 stay until
    // their timeout, and then the address is served again. (Before the event streams below:
    // a stream its client has dropped keeps its place until the server notices, which it may
    // or may not have done by now, and the count would be off by that.)
    let held: Vec<TcpStream> = (0..8).map(|_| connect()).collect();
    std::thread::sleep(Duration::from_millis(300));
    let mut ninth = connect();
    let t = closed_within(&mut ninth, Duration::from_secs(1), &mut Vec::new());
    assert!(t.is_some(), "a 9th connection from one address was not closed at once");
    drop(held);
    wait_for(10, "the address to be served again", || {
        (get(&format!("{}/healthz", server.url), None, None).status == 200).then_some(())
    });

    // Two event streams at most: a third is told to come back later.
    let stream = || {
        let mut s = connect();
        s.write_all(b"GET /live/events HTTP/1.1\r\nHost: x\r\n\r\n").expect("write");
        let mut head = [0u8; 12];
        s.read_exact(&mut head).expect("a status line");
        (s, String::from_utf8_lossy(&head).into_owned())
    };
    let (first, a) = stream();
    let (second, b) = stream();
    let (third, c) = stream();
    assert_eq!((a.as_str(), b.as_str()), ("HTTP/1.1 200", "HTTP/1.1 200"));
    assert_eq!(c, "HTTP/1.1 503", "a third event stream over the cap of 2");
    drop((first, third));
    // The server sees the viewer gone when its stream's next write or read fails: on a loaded
    // machine that may take a moment, so the place is asked for again for up to 10 s.
    let freed_by = std::time::Instant::now() + Duration::from_secs(10);
    let (fourth, d) = loop {
        let (s, d) = stream();
        if d == "HTTP/1.1 200" || std::time::Instant::now() > freed_by {
            break (s, d);
        }
        drop(s);
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(d, "HTTP/1.1 200", "a place came free when a viewer left (asked for 10 s)");
    drop((second, fourth));

    drop(server);
}

/// A shell script that writes a marker and its folder to stderr, then plays as `kind`.
fn noisy_bot(kind: &str) -> Vec<u8> {
    // The test binary as the sandbox shows it (the arena's read-only `bin_dir`).
    let exe = crate::support::test_exe();
    format!("#!/bin/sh\necho \"stderr-marker from $(pwd)\" >&2\nexec '{}' --bot {kind}\n", exe.display())
        .into_bytes()
}

/// Raises this process's soft descriptor limit to `want` (or the hard limit).
fn raise_own_descriptors(want: u64) -> u64 {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).expect("getrlimit");
    let new = want.min(hard).max(soft);
    setrlimit(Resource::RLIMIT_NOFILE, new, hard).expect("setrlimit");
    new
}

fn games(server: &Server, state: &str) -> Vec<Value> {
    get(&format!("{}/api/games?state={state}&limit=1000", server.url), None, None)
        .json()
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Whether a game's recorded reason blames the machine (what a flood used to turn into results).
fn server_side(reason: &str) -> bool {
    ["Too many open files", "could not start", "Resource temporarily", "No space", "Cannot allocate"]
        .iter()
        .any(|n| reason.contains(n))
}

pub fn descriptor_flood_during_games_and_private_logs() {
    if Command::new("prlimit").arg("--version").output().is_err() {
        let why = "prlimit (util-linux) is not installed";
        assert!(std::env::var_os("BAO_REQUIRE_ALL").is_none(), "BAO_REQUIRE_ALL is set: {why}");
        eprintln!("skipped: {why}");
        return;
    }
    let mut edits = FAST.to_vec();
    edits.extend([
        // Every flooding connection may come from 127.0.0.1: the global cap is what is tested.
        ("max_connections_per_address = 64", "max_connections_per_address = 5000"),
        ("max_connections = 1024", "max_connections = 5000"),
        ("header_timeout_secs = 10", "header_timeout_secs = 30"),
    ]);
    let arena = Arena::new(&["admin", "alice", "bob"], &edits);
    let data = arena.data();
    let server = Server::start_with(&data, &["prlimit", "--nofile=1024:1024", "--"]);
    let (admin, alice, bob) = (&arena.tokens[0], &arena.tokens[1], &arena.tokens[2]);
    let subs = [
        submit(&server, alice, "greedy", "executable", "greedy.sh", &noisy_bot("greedy"), ""),
        submit(&server, bob, "random", "executable", "random.sh", &bot_script("random"), ""),
    ];
    let ids: Vec<i64> = subs
        .iter()
        .map(|a| {
            assert_eq!(a.status, 201, "{}", a.body);
            a.json()["id"].as_i64().expect("id")
        })
        .collect();
    for &id in &ids {
        assert_eq!(settle(&server, id, 240), "active");
    }
    wait_for(60, "a first game", || (!games(&server, "finished").is_empty()).then_some(()));
    let finished_before = games(&server, "finished").len();

    // 1,100 connections held while games go on.
    assert!(raise_own_descriptors(1400) >= 1200, "the test needs 1,200 descriptors of its own");
    let addr = address(&server);
    let started = Instant::now();
    let mut flood = Vec::new();
    for _ in 0..1100 {
        if let Ok(s) = TcpStream::connect_timeout(&addr, Duration::from_millis(500)) {
            flood.push(s);
        }
    }
    let opened = flood.len();
    assert!(opened >= 1000, "only {opened} of 1,100 connections opened");
    // Past the cap the server stops accepting: the rest wait in the kernel's queue.
    let flood_secs = 12;
    std::thread::sleep(Duration::from_secs(flood_secs).saturating_sub(started.elapsed()));
    // The games went on during the flood (the cap keeps the games' descriptors free).
    let during = games(&server, "finished").len() - finished_before;
    drop(flood);
    let after = Instant::now();
    wait_for(10, "/healthz after the flood", || {
        (get(&format!("{}/healthz", server.url), None, None).status == 200).then_some(())
    });
    let healthz_secs = after.elapsed().as_secs_f64();
    assert!(healthz_secs < 5.0, "/healthz answered {healthz_secs:.1} s after the flood");
    eprintln!(
        "flood: {opened} connections for {flood_secs} s, {during} games finished meanwhile; \
         /healthz {healthz_secs:.2} s after"
    );
    assert!(during >= 1, "no game finished during the flood");
    // The ladder goes on, and no game is a result of the server's own failure.
    wait_for(90, "more games after the flood", || {
        (games(&server, "finished").len() >= finished_before + 4).then_some(())
    });
    let finished = games(&server, "finished");
    let mut reasons = std::collections::BTreeMap::<String, usize>::new();
    for g in &finished {
        let reason = g["reason"].as_str().unwrap_or("");
        assert!(!server_side(reason), "a finished (rated) game with a server-side cause: {g}");
        *reasons.entry(reason.split(':').next().unwrap_or("").to_owned()).or_default() += 1;
    }
    eprintln!("finished games by reason: {reasons:?}");
    // Honest bots: every game ends by the rules (or adjudication), never by a verdict.
    for reason in reasons.keys() {
        assert!(
            ["front_row_empty", "no_legal_moves", "max_plies"].contains(&reason.as_str()),
            "a game between honest bots ended by {reason:?}: {reasons:?}"
        );
    }
    for g in games(&server, "aborted") {
        eprintln!("aborted (not rated): {}", g["reason"]);
    }
    let folder = data.canonicalize().expect("arena folder").display().to_string();
    let listed = get(&format!("{}/api/games?limit=1000", server.url), None, None).body;
    assert!(!listed.contains(&folder), "the arena's folder in the public game list");

    // The public log: no stderr, no server folder, and it verifies; the owner's and an
    // admin's have both.
    let id = finished[0]["id"].as_i64().expect("id");
    let url = format!("{}/api/games/{id}/log", server.url);
    let public = get(&url, None, None);
    assert_eq!(public.status, 200, "{}", public.body);
    assert!(!public.body.contains("\"stderr\"") && !public.body.contains("stderr-marker"), "{}", public.body);
    assert!(!public.body.contains(&folder), "the arena's folder in the public log: {}", public.body);
    bao_game::verify::verify_log(&public.body)
        .unwrap_or_else(|e| panic!("the public log does not verify: {e}"));
    for (who, token) in [("the owner", alice), ("an admin", admin)] {
        let full = get(&url, Some(token), None);
        assert!(full.body.contains("\"type\":\"stderr\"") && full.body.contains("stderr-marker"), "{who}");
        assert!(full.body.contains(&folder), "{who}: the full log names the bot's folder");
    }
    // The other owner (of the opponent) sees the whole log too; a third party does not.
    assert!(get(&url, Some(bob), None).body.contains("stderr-marker"));
    let replay = get(&format!("{}/games/{id}/replay", server.url), None, None);
    assert_eq!(replay.status, 200);
    assert!(!replay.body.contains("stderr-marker") && !replay.body.contains(&folder), "the public replay");
    let version = get(&format!("{}/api/versions/{}", server.url, ids[0]), None, None);
    assert!(!version.body.contains(&folder), "a version's public page: {}", version.body);
    let status = server.terminate();
    assert_eq!(status.code(), Some(130), "{status}");

    // `serve export` holds no game of the server's own failure either.
    let out = arena.dir.path().join("export");
    let run = Command::new(server_exe())
        .args(["serve", "--data"])
        .arg(&data)
        .arg("export")
        .arg(&out)
        .output()
        .expect("export");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let mut logs = 0;
    for entry in std::fs::read_dir(out.join("games")).expect("exported games") {
        let text = std::fs::read_to_string(entry.expect("entry").path()).expect("log");
        let result = text.lines().last().unwrap_or("");
        assert!(!server_side(result), "an exported game with a server-side cause: {result}");
        logs += 1;
    }
    assert!(logs >= finished.len(), "{logs} exported of {} finished", finished.len());
}

pub fn operators_and_clients_get_clear_answers() {
    // A free port for /metrics on its own address.
    let metrics_port =
        std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
    let metrics_listen = format!("metrics_listen = \"127.0.0.1:{metrics_port}\"");
    let mut edits = FAST.to_vec();
    edits.push(("# public_url = \"https://bao.example.org\"", "public_url = \"https://bao.example.org\""));
    edits.push(("# metrics_listen = \"127.0.0.1:9100\"", &metrics_listen));
    let arena = Arena::new(&["admin", "alice"], &edits);
    let data = arena.data();
    let alice = &arena.tokens[1];
    // A taken name and an invalid one are the operator's errors: exit 2.
    for name in ["alice", "no spaces <allowed>"] {
        let out = Command::new(server_exe())
            .args(["serve", "--data"])
            .arg(&data)
            .args(["user", "add", name])
            .output()
            .expect("run");
        assert_eq!(
            out.status.code(),
            Some(2),
            "serve user add {name:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let server = Server::start(&data);
    let u = &server.url;
    // /metrics only on its own address, there to anyone.
    assert_eq!(get(&format!("{u}/metrics"), Some(&arena.tokens[0]), None).status, 404);
    let metrics = get(&format!("http://127.0.0.1:{metrics_port}/metrics"), None, None);
    assert!(metrics.status == 200 && metrics.body.contains("bao_games_finished_total"), "{}", metrics.body);

    // `submit`: the token from BAO_TOKEN; a name the URL parser would refuse reaches the
    // server, whose message is quoted.
    let file = arena.dir.path().join("bot.py");
    std::fs::write(&file, "print('hi')\n").expect("bot file");
    let out = Command::new(server_exe())
        .args(["submit", "--server", u, "--bot", "a<b", "--language", "python"])
        .arg(&file)
        .env("BAO_TOKEN", alice)
        .output()
        .expect("submit runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("400") && stderr.contains("bot name"), "the server's message: {stderr}");
    assert!(!stderr.contains("invalid uri"), "{stderr}");
    let out = Command::new(server_exe())
        .args(["submit", "--server", u, "--bot", "fine", "--language", "python"])
        .arg(&file)
        .env("BAO_TOKEN", alice)
        .output()
        .expect("submit runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    // Behind a proxy that passes its upstream's name as Host, a form from public_url is
    // accepted; one from elsewhere is not.
    let form = ("Content-Type", "application/x-www-form-urlencoded");
    let body = format!("token={alice}");
    let proxied =
        post(&format!("{u}/login"), &[form, ("Origin", "https://bao.example.org")], body.as_bytes());
    assert!(proxied.status == 303 || proxied.status == 302, "{}: {}", proxied.status, proxied.body);
    let evil = post(&format!("{u}/login"), &[form, ("Origin", "https://evil.example")], body.as_bytes());
    assert_eq!(evil.status, 403, "{}", evil.body);

    // An upload over the limit through the web form: 413, the limit said, the form kept.
    let cookie = proxied.header("set-cookie").and_then(|c| c.split(';').next()).expect("cookie").to_owned();
    let page = get(&format!("{u}/submit"), None, Some(&cookie)).body;
    let csrf = page.split("name=\"csrf\" value=\"").nth(1).and_then(|r| r.split('"').next()).expect("csrf");
    let boundary = "XyZbound";
    let mut multipart = Vec::new();
    for (name, value) in [("csrf", csrf), ("bot", "big"), ("language", "python")] {
        multipart.extend(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
                .bytes(),
        );
    }
    multipart.extend(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.py\"\r\n\
             Content-Type: text/x-python\r\n\r\n"
        )
        .bytes(),
    );
    multipart.extend(std::iter::repeat_n(b'#', 3 << 20));
    multipart.extend(format!("\r\n--{boundary}--\r\n").bytes());
    let content_type = format!("multipart/form-data; boundary={boundary}");
    let big = post(
        &format!("{u}/submit"),
        &[("Content-Type", &content_type), ("Cookie", &cookie), ("Origin", u)],
        &multipart,
    );
    assert_eq!(big.status, 413, "{}", big.body);
    assert!(big.body.contains("too large") && big.body.contains("2048 KiB"), "{}", big.body);
    assert!(big.body.contains("<form"), "the form is kept: {}", big.body);
    assert!(!big.body.contains("Error parsing"), "{}", big.body);

    // SIGHUP is a graceful stop, as SIGTERM: exit 130.
    let status = server.signal(nix::sys::signal::Signal::SIGHUP);
    assert_eq!(status.code(), Some(130), "{status}");
}
