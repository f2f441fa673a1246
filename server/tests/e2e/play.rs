//! `/play`: people playing in the browser on the server, without an account. A whole game
//! against the random rung in Chromium by clicks on `data-move`, a friend game in two browser
//! contexts through the share link (one reloading mid-game), and the WebSocket and limits
//! seen from outside: reconnection resumes exactly, stale and duplicate moves and watchers'
//! moves are refused, hostile frames close that socket only, an unclocked game left alone is
//! abandoned, games per address and starts per minute are capped, a bot is playable only
//! when its owner says so.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use crate::support::{Arena, Server, get, post, wait_for};

const CHROMIUM: &str = "/usr/bin/chromium";

/// Fails when `BAO_REQUIRE_ALL=1`; otherwise says why the test is skipped. `false`: skip.
fn browser_ready(test: &str) -> bool {
    let browser = std::env::var("BAO_CHROMIUM").unwrap_or_else(|_| CHROMIUM.into());
    let modules =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../viewer/browser-tests/node_modules/playwright-core");
    let node = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    let missing = if !Path::new(&browser).exists() {
        Some(format!("{browser} (apt-get install chromium)"))
    } else if !node || !Path::new(modules).is_dir() {
        Some("node and playwright-core (npm ci --prefix viewer/browser-tests)".to_owned())
    } else {
        None
    };
    let Some(missing) = missing else { return true };
    assert!(
        std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"),
        "BAO_REQUIRE_ALL=1 but {test} needs {missing}"
    );
    eprintln!("skipped: {test} needs {missing}");
    false
}

/// Where the browser tests keep their screenshots.
fn screenshots(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target/play-server-screenshots")).join(name)
}

/// An arena for /play: short games, quick abandonment; `edits` more.
fn play_arena(edits: &[(&str, &str)]) -> Arena {
    let mut all = vec![("human_max_plies = 800", "human_max_plies = 60")];
    all.extend_from_slice(edits);
    Arena::new(&["ann", "bob"], &all)
}

/// A started game: its token and its seat cookie (`name=value`).
struct Started {
    token: String,
    cookie: String,
}

/// `GET /play/new?QUERY`: the game's token and the starter's seat cookie.
fn start(server: &Server, query: &str) -> Started {
    let a = get(&format!("{}/play/new?{query}", server.url), None, None);
    assert_eq!(a.status, 303, "/play/new?{query}: {} {}", a.status, a.body);
    let location = a.header("location").expect("a redirect").to_owned();
    let token = location.strip_prefix("/play/game/").expect("to the game's page").to_owned();
    let cookie = a.header("set-cookie").expect("the seat's cookie");
    let cookie = cookie.split(';').next().expect("name=value").to_owned();
    assert!(cookie.starts_with(&format!("bao_seat_{token}=")), "{cookie}");
    Started { token, cookie }
}

/// The stored record of a game.
fn info(server: &Server, token: &str) -> Value {
    let a = get(&format!("{}/play/game/{token}/info", server.url), None, None);
    assert_eq!(a.status, 200, "{}", a.body);
    a.json()
}

/// The game's stored log verifies; returns it.
fn verified_log(server: &Server, token: &str) -> String {
    let log = get(&format!("{}/play/game/{token}/log", server.url), None, None);
    assert_eq!(log.status, 200, "{}", log.body);
    bao_game::verify::verify_log(&log.body)
        .unwrap_or_else(|e| panic!("the log of {token} does not verify: {e}"));
    log.body
}

/// The play script's configuration in a game page.
fn page_config(html: &str) -> Value {
    let at = html.find("id=\"bao-play-config\">").expect("the play config") + "id=\"bao-play-config\">".len();
    let end = html[at..].find("</script>").expect("its end");
    serde_json::from_str(&html[at..at + end]).expect("JSON")
}

fn plies_of(log: &str, side: &str) -> usize {
    log.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["type"] == "ply" && r["side"] == side)
        .count()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime")
}

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A page's socket: `cookie` (a seat's) or none (a watcher).
async fn connect(server: &Server, token: &str, cookie: Option<&str>) -> Socket {
    let url = format!("{}/play/game/{token}/ws", server.url.replacen("http://", "ws://", 1));
    let mut request = url.into_client_request().expect("a request");
    if let Some(cookie) = cookie {
        request.headers_mut().insert("Cookie", cookie.parse().expect("a header"));
    }
    let (socket, _) = tokio_tungstenite::connect_async(request).await.expect("the socket opens");
    socket
}

async fn send(socket: &mut Socket, frame: &Value) {
    socket.send(Message::Text(frame.to_string().into())).await.expect("send");
}

/// The next frame (within 20 s); `None` when the socket closed.
async fn next(socket: &mut Socket) -> Option<Value> {
    loop {
        let message =
            tokio::time::timeout(Duration::from_secs(20), socket.next()).await.expect("a frame in time");
        match message {
            Some(Ok(Message::Text(text))) => return Some(serde_json::from_str(&text).expect("JSON")),
            Some(Ok(Message::Close(_)) | Err(_)) | None => return None,
            Some(Ok(_)) => {}
        }
    }
}

/// Frames until one `want`s; returns it and the frames before it.
async fn until(socket: &mut Socket, want: impl Fn(&Value) -> bool) -> (Value, Vec<Value>) {
    let mut before = Vec::new();
    loop {
        let frame = next(socket).await.expect("the socket stays open");
        if want(&frame) {
            return (frame, before);
        }
        before.push(frame);
    }
}

fn is_event(frame: &Value, kind: &str) -> bool {
    frame["frame"] == "event" && frame["event"]["type"] == kind
}

/// Whether the server closed the socket (a close frame or the end of the stream) in 10 s.
async fn closed_by_server(socket: &mut Socket) -> bool {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        match tokio::time::timeout_at(deadline, socket.next()).await {
            Err(_) => return false,
            Ok(Some(Ok(Message::Close(_)) | Err(_)) | None) => return true,
            Ok(Some(Ok(_))) => {}
        }
    }
}

pub fn play_a_rung_in_a_browser() {
    if !browser_ready("play_a_rung_in_a_browser") {
        return;
    }
    let arena = play_arena(&[]);
    let server = Server::start(&arena.data());
    // The /play page offers the rungs with their Elo and a friend.
    let choose = get(&format!("{}/play", server.url), None, None);
    assert_eq!(choose.status, 200);
    for wanted in ["value=\"random\"", "value=\"alphabeta-d4\"", "Elo 1346", "value=\"friend\""] {
        assert!(choose.body.contains(wanted), "/play offers {wanted}");
    }
    let shots = screenshots("rung");
    let spec = json!({
        "url": format!("{}/play/new?opponent=random&side=N&variant=kiswahili&tc=none", server.url),
        "screenshots": shots,
        "reload_after": 3,
    });
    let spec_file = arena.dir.path().join("spec.json");
    std::fs::write(&spec_file, spec.to_string()).expect("spec");
    let harness = concat!(env!("CARGO_MANIFEST_DIR"), "/../viewer/browser-tests");
    let run = Command::new("node")
        .arg(format!("{harness}/play-test.mjs"))
        .arg(&spec_file)
        .current_dir(harness)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "the browser checks failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains(" checks, 0 failed"), "{stdout}");
    let url = std::fs::read_to_string(shots.join("url.txt")).expect("the game's address").trim().to_owned();
    let token = url.rsplit('/').next().expect("a token").to_owned();
    let moves: usize =
        std::fs::read_to_string(shots.join("moves.txt")).expect("moves").trim().parse().expect("n");
    let record = info(&server, &token);
    assert_eq!(record["state"], "finished", "{record}");
    assert_eq!(record["opponent"], "random");
    let log = verified_log(&server, &token);
    assert_eq!(plies_of(&log, "N"), moves, "every click is one ply of the person's");
    let header: Value = serde_json::from_str(log.lines().next().expect("header")).expect("JSON");
    assert_eq!(header["north"]["command"], json!(["(a person)"]), "{header}");
    assert_eq!(header["south"]["name"], "reference random", "{header}");
    // Apart from the ladder: no ladder game was recorded.
    let games = get(&format!("{}/api/games", server.url), None, None).json();
    assert_eq!(games.as_array().map(Vec::len), Some(0), "{games}");
    // Later, the page shows the game (live for a while, then as its replay).
    assert_eq!(get(&url, None, None).status, 200);
}

pub fn play_a_friend_in_two_browsers() {
    if !browser_ready("play_a_friend_in_two_browsers") {
        return;
    }
    let arena = play_arena(&[("human_max_plies = 60", "human_max_plies = 24")]);
    let server = Server::start(&arena.data());
    let shots = screenshots("friend");
    std::fs::create_dir_all(&shots).expect("screenshots");
    let out = Command::new("node")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/e2e/play_friend.mjs"))
        .arg(format!("{}/play/new?opponent=friend&side=S&tc=none", server.url))
        .arg(&shots)
        .env("BAO_PLAYWRIGHT_DIR", concat!(env!("CARGO_MANIFEST_DIR"), "/../viewer/browser-tests"))
        .output()
        .expect("node runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "play_friend.mjs failed: {text}{}", String::from_utf8_lossy(&out.stderr));
    let result: Value = serde_json::from_str(text.trim().lines().last().unwrap_or("")).expect("JSON");
    assert_eq!(result["failures"], json!([]), "{result}");
    let token = result["token"].as_str().expect("the token").to_owned();
    let record = info(&server, &token);
    assert_eq!(record["state"], "finished", "{record}");
    assert_eq!(record["opponent"], "friend");
    let log = verified_log(&server, &token);
    let (south, north) = (plies_of(&log, "S"), plies_of(&log, "N"));
    assert_eq!(
        (south as u64, north as u64),
        (result["moves"]["S"].as_u64().expect("S"), result["moves"]["N"].as_u64().expect("N")),
        "every click is one ply"
    );
    assert!(result["reloaded"] == true, "{result}");
    let header: Value = serde_json::from_str(log.lines().next().expect("header")).expect("JSON");
    assert_eq!(
        (&header["south"]["command"], &header["north"]["command"]),
        (&json!(["(a person)"]), &json!(["(a person)"]))
    );
}

pub fn play_sockets_and_limits() {
    let arena = play_arena(&[
        ("abandon_after_secs = 900", "abandon_after_secs = 2"),
        ("max_human_games_per_address = 3", "max_human_games_per_address = 3"),
        ("starts_per_minute = 10", "starts_per_minute = 5"),
    ]);
    let server = Server::start(&arena.data());
    let rt = runtime();
    // Start 1: South against random, no clock.
    let game = start(&server, "opponent=random&side=S&variant=kujifunza&tc=none");
    // The seat's page (by its cookie) offers a rematch with the sides swapped; a visitor's
    // page watches.
    let page = get(&format!("{}/play/game/{}", server.url, game.token), None, Some(&game.cookie));
    let config = page_config(&page.body);
    assert_eq!(config["you"], "S", "{config}");
    let rematch = config["new_game_href"].as_str().expect("a rematch link");
    assert!(
        rematch.contains("opponent=random")
            && rematch.contains("side=N")
            && rematch.contains("variant=kujifunza"),
        "{rematch}"
    );
    let visitor = page_config(&get(&format!("{}/play/game/{}", server.url, game.token), None, None).body);
    assert_eq!((&visitor["watching"], &visitor["new_game_href"]), (&json!(true), &Value::Null), "{visitor}");
    rt.block_on(sockets(&server, &game));
    let record = info(&server, &game.token);
    assert_eq!(record["state"], "finished", "{record}");
    assert_eq!(record["variant"], "kujifunza");
    let log = verified_log(&server, &game.token);
    assert!(log.contains("the person resigned"), "the resignation is in the log");

    // Bad choices are named.
    for (query, says) in [
        ("opponent=nobody", "nobody"),
        ("side=east", "side:"),
        ("tc=99+1", "tc:"),
        ("variant=chess", "variant:"),
    ] {
        let a = get(&format!("{}/play/new?{query}", server.url), None, None);
        assert!(a.status == 400 || a.status == 404, "{query}: {}", a.status);
        assert!(a.body.contains(says), "{query}: {}", a.body);
    }

    // Starts 2-4: three games at once from this address, the most it may play.
    let left: Vec<Started> = (0..3).map(|_| start(&server, "opponent=greedy&side=S")).collect();
    let refused = get(&format!("{}/play/new?opponent=greedy", server.url), None, None);
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert!(refused.body.contains("3 games already"), "{}", refused.body);
    // Nobody moves in them: each is abandoned (recorded, not counted) after 2 s.
    for g in &left {
        let state = wait_for(20, "an abandoned game", || {
            // Recorded once its game starts (a moment after the redirect).
            let a = get(&format!("{}/play/game/{}/info", server.url, g.token), None, None);
            let r = if a.status == 200 { a.json() } else { Value::Null };
            (r["state"].is_string() && r["state"] != "running")
                .then(|| r["state"].as_str().unwrap_or("").to_owned())
        });
        assert_eq!(state, "abandoned");
    }
    // Start 5 is taken; a sixth within the minute is too many.
    let fifth = start(&server, "opponent=greedy&side=N&tc=0.05%2B0");
    let fast = get(&format!("{}/play/new?opponent=greedy", server.url), None, None);
    assert_eq!(fast.status, 429, "{}", fast.body);
    assert!(fast.body.contains("in the last minute"), "{}", fast.body);
    // With a clock, a person who never moves loses on time (3 s and the page's margin).
    let record = wait_for(20, "the clocked game's end", || {
        let a = get(&format!("{}/play/game/{}/info", server.url, fifth.token), None, None);
        let r = if a.status == 200 { a.json() } else { Value::Null };
        (r["state"].is_string() && r["state"] != "running").then_some(r)
    });
    assert_eq!((&record["state"], &record["result"]), (&json!("finished"), &json!("south")), "{record}");
    assert!(record["reason"].as_str().is_some_and(|r| r.starts_with("timeout")), "{record}");
    verified_log(&server, &fifth.token);
    assert_eq!(get(&format!("{}/healthz", server.url), None, None).status, 200);
}

/// The sockets of one game: a turn, stale and duplicate moves, a drop and an exact resume, a
/// watcher, hostile frames, a resync, a resignation.
async fn sockets(server: &Server, game: &Started) {
    let cookie = Some(game.cookie.as_str());
    let mut a = connect(server, &game.token, cookie).await;
    send(&mut a, &json!({"type": "hello", "since": 0})).await;
    let (caught_up, _) = until(&mut a, |f| f["frame"] == "caught_up").await;
    assert_eq!(caught_up["you"], "S");
    let (turn, _) = until(&mut a, |f| is_event(f, "your_turn")).await;
    let ply = turn["event"]["ply"].as_u64().expect("ply");
    let mv = turn["event"]["legal"][0].as_str().expect("a move").to_owned();
    // A move for another ply, and one not in the list: refused.
    send(&mut a, &json!({"type": "move", "ply": ply + 2, "move": mv})).await;
    let (r, _) = until(&mut a, |f| f["frame"] == "refused").await;
    assert!(r["why"].as_str().is_some_and(|w| w.contains("ply")), "{r}");
    send(&mut a, &json!({"type": "move", "ply": ply, "move": "Z9>"})).await;
    until(&mut a, |f| f["frame"] == "refused").await;
    // The move, then the same again: the second is refused and nothing is played twice.
    send(&mut a, &json!({"type": "move", "ply": ply, "move": mv})).await;
    send(&mut a, &json!({"type": "move", "ply": ply, "move": mv})).await;
    let (mut refusal, mut next_turn) = (None, None);
    while refusal.is_none() || next_turn.is_none() {
        let frame = next(&mut a).await.expect("the socket stays open");
        if frame["frame"] == "refused" {
            refusal = Some(frame);
        } else if is_event(&frame, "your_turn") {
            next_turn = Some(frame);
        }
    }
    let (r, next_turn) = (refusal.expect("refused"), next_turn.expect("a turn"));
    assert!(r["why"].as_str().is_some_and(|w| w.contains("not your turn") || w.contains("ply")), "{r}");
    assert_eq!(next_turn["event"]["ply"].as_u64(), Some(ply + 2), "one ply of each side: {next_turn}");
    let seen = next_turn["v"].as_u64().expect("v");
    // The connection drops without a close; a new one says what it has and gets the rest.
    drop(a);
    let mut b = connect(server, &game.token, cookie).await;
    send(&mut b, &json!({"type": "hello", "since": seen - 2})).await;
    let (caught_up, missed) = until(&mut b, |f| f["frame"] == "caught_up").await;
    let versions: Vec<u64> = missed.iter().filter_map(|f| f["v"].as_u64()).collect();
    assert_eq!(versions, vec![seen - 1, seen], "exactly what it missed");
    assert_eq!(caught_up["v"].as_u64(), Some(seen));
    // A version the server never had: a resync.
    send(&mut b, &json!({"type": "hello", "since": 1_000_000})).await;
    until(&mut b, |f| f["frame"] == "resync").await;

    // A watcher (no seat cookie) sees the game and may not move.
    let mut w = connect(server, &game.token, None).await;
    send(&mut w, &json!({"type": "hello", "since": 0})).await;
    let (_, events) = until(&mut w, |f| f["frame"] == "caught_up").await;
    assert!(events.iter().any(|f| is_event(f, "ply")), "the watcher gets the plies");
    assert!(!events.iter().any(|f| is_event(f, "your_turn")), "and no turn");
    send(&mut w, &json!({"type": "move", "ply": ply + 2, "move": next_turn["event"]["legal"][0]})).await;
    let (r, _) = until(&mut w, |f| f["frame"] == "refused").await;
    assert!(r["why"].as_str().is_some_and(|w| w.contains("watching")), "{r}");

    // Another site's page may not open the seat's socket.
    let url = format!("{}/play/game/{}/ws", server.url.replacen("http://", "ws://", 1), game.token);
    let mut request = url.into_client_request().expect("a request");
    request.headers_mut().insert("Cookie", game.cookie.parse().expect("a header"));
    request.headers_mut().insert("Origin", "https://evil.example".parse().expect("a header"));
    match tokio_tungstenite::connect_async(request).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(answer)) => assert_eq!(answer.status(), 403),
        other => panic!("a socket from another origin was not refused: {:?}", other.map(|_| ())),
    }

    // Hostile frames close their own socket only.
    let mut binary = connect(server, &game.token, cookie).await;
    binary.send(Message::Binary(vec![0u8; 64].into())).await.expect("send");
    assert!(closed_by_server(&mut binary).await, "a binary frame closes the socket");
    let mut huge = connect(server, &game.token, cookie).await;
    let _ = huge.send(Message::Text("x".repeat(1 << 20).into())).await;
    assert!(closed_by_server(&mut huge).await, "a 1 MiB frame closes the socket");
    let mut garbage = connect(server, &game.token, cookie).await;
    garbage.send(Message::Text("{{{ not json".into())).await.expect("send");
    assert!(closed_by_server(&mut garbage).await, "garbage closes the socket");
    let mut flood = connect(server, &game.token, cookie).await;
    send(&mut flood, &json!({"type": "hello", "since": 0})).await;
    for _ in 0..200 {
        if flood.send(Message::Text(json!({"type": "hello", "since": 0}).to_string().into())).await.is_err() {
            break;
        }
    }
    assert!(closed_by_server(&mut flood).await, "a flood closes the socket");

    // The seat's own socket still plays: a move, then a resignation ends the game.
    send(&mut b, &json!({"type": "hello", "since": seen})).await;
    until(&mut b, |f| f["frame"] == "caught_up").await;
    let mv = next_turn["event"]["legal"][0].as_str().expect("a move");
    send(&mut b, &json!({"type": "move", "ply": ply + 2, "move": mv})).await;
    until(&mut b, |f| is_event(f, "ply") && f["event"]["ply"]["side"] == "S").await;
    until(&mut b, |f| is_event(f, "your_turn")).await;
    send(&mut b, &json!({"type": "resign"})).await;
    let (result, _) = until(&mut b, |f| is_event(f, "result")).await;
    assert!(result["event"]["words"].as_str().is_some_and(|w| w.contains("resigned")), "{result}");
    let _ = b.close(None).await;
    let begun = Instant::now();
    while info(server, &game.token)["state"] == "running" && begun.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

pub fn play_a_bot_only_when_its_owner_allows() {
    let mut edits = vec![("human_max_plies = 800", "human_max_plies = 60")];
    edits.extend_from_slice(crate::support::FAST);
    let arena = Arena::new(&["ann", "bob", "cat"], &edits);
    let server = Server::start(&arena.data());
    let (ann, bob) = (&arena.tokens[0], &arena.tokens[1]);
    let a = crate::support::submit(
        &server,
        bob,
        "bobbot",
        "executable",
        "bot",
        &crate::support::bot_script("random"),
        "",
    );
    assert!(a.status == 200 || a.status == 201 || a.status == 202, "{} {}", a.status, a.body);
    let id = a.json()["id"].as_i64().expect("a version id");
    assert_eq!(crate::support::settle(&server, id, 120), "active");
    // Off by default: neither offered nor playable by URL.
    assert!(!get(&format!("{}/play", server.url), None, None).body.contains("bobbot"));
    assert_eq!(get(&format!("{}/play/new?opponent=bobbot", server.url), None, None).status, 404);
    let switch = |token: &str, on: bool| {
        post(
            &format!("{}/api/bots/bobbot/playable", server.url),
            &[("Authorization", &format!("Bearer {token}")), ("Content-Type", "application/json")],
            json!({"playable": on}).to_string().as_bytes(),
        )
    };
    // Only its owner (or an admin) may switch it.
    let other = switch(&arena.tokens[2], true);
    assert_eq!(other.status, 403, "{}", other.body);
    let stranger = post(
        &format!("{}/api/bots/bobbot/playable", server.url),
        &[("Content-Type", "application/json")],
        br#"{"playable": true}"#,
    );
    assert_eq!(stranger.status, 401, "{}", stranger.body);
    let on = switch(bob, true);
    assert_eq!(on.status, 200, "{}", on.body);
    assert_eq!(on.json()["playable"], true);
    assert!(get(&format!("{}/play", server.url), None, None).body.contains("bot:bobbot"));
    // A person plays it through the socket: its moves come from the sandboxed bot.
    let game = start(&server, "opponent=bot:bobbot&side=S");
    let rt = runtime();
    rt.block_on(async {
        let mut s = connect(&server, &game.token, Some(&game.cookie)).await;
        send(&mut s, &json!({"type": "hello", "since": 0})).await;
        let (turn, _) = until(&mut s, |f| is_event(f, "your_turn")).await;
        let mv = turn["event"]["legal"][0].as_str().expect("a move").to_owned();
        send(&mut s, &json!({"type": "move", "ply": turn["event"]["ply"], "move": mv})).await;
        until(&mut s, |f| is_event(f, "ply") && f["event"]["ply"]["side"] == "N").await;
        send(&mut s, &json!({"type": "resign"})).await;
        until(&mut s, |f| is_event(f, "result")).await;
    });
    wait_for(10, "the game recorded", || (info(&server, &game.token)["state"] == "finished").then_some(()));
    let log = verified_log(&server, &game.token);
    assert_eq!(plies_of(&log, "N"), 1, "the bot played");
    // The person resigned: the bot's score against people, apart from its rating.
    let score = get(&format!("{}/api/bots/bobbot/people", server.url), None, None);
    assert_eq!(score.json(), json!({"wins": 1, "losses": 0, "draws": 0}), "{}", score.body);
    // The admin may switch it off too; then it is gone from /play.
    let off = switch(ann, false);
    assert_eq!(off.status, 200, "{}", off.body);
    assert_eq!(get(&format!("{}/play/new?opponent=bot:bobbot", server.url), None, None).status, 404);
}
