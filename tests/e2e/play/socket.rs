//! The game's WebSocket: a whole game, reconnection, stale and duplicate moves, hostile frames.

use serde_json::{Value, json};

use crate::server::{Client, Play, event, is_result, is_turn, verify};

/// The version of an event frame.
fn version(frame: &Value) -> u64 {
    frame["v"].as_u64().unwrap_or_else(|| panic!("no version: {frame}"))
}

/// The game's version now, as a new page learns it.
async fn version_now(url: &str) -> u64 {
    let mut client = Client::hello(url, 0).await;
    let (caught_up, _) = client.until(|f| f["frame"] == "caught_up").await;
    version(&caught_up)
}

/// Plays the first legal move of the turn `turn`.
async fn play_first(client: &mut Client, turn: &Value) -> String {
    let turn = event(turn, "your_turn").expect("a turn");
    let mv = turn["legal"][0].as_str().expect("a legal move").to_owned();
    client.send(&json!({"type": "move", "ply": turn["ply"], "move": mv})).await;
    mv
}

/// The count of ply records in the log.
fn logged_plies(play: &Play) -> usize {
    std::fs::read_to_string(&play.log)
        .expect("the log")
        .lines()
        .filter(|l| l.contains(r#""type":"ply""#))
        .count()
}

#[tokio::test]
async fn a_whole_game_through_the_socket_is_judged_and_logged_and_verifies() {
    // The opponent given as a command line (the greedy reference bot run as a program).
    let command = format!("{} sample-bot greedy", crate::server::referee().display());
    let mut play =
        Play::start(&["--bot", &command, "--side", "north", "--exit-when-over", "--max-plies", "60"]);
    let mut client = Client::hello(&play.socket_url(), 0).await;
    let (caught_up, _) = client.until(|f| f["frame"] == "caught_up").await;
    assert_eq!(caught_up["you"], "N");
    let mut versions = Vec::new();
    let mut moves = 0;
    loop {
        let frame = client.next().await.expect("the game goes on to its result");
        if frame["frame"] == "event" {
            versions.push(version(&frame));
        }
        if is_turn(&frame) {
            play_first(&mut client, &frame).await;
            moves += 1;
        }
        if is_result(&frame) {
            break;
        }
    }
    assert!(moves > 3, "the person moved {moves} times");
    let expected: Vec<u64> = (1..=versions.len() as u64).collect();
    assert_eq!(versions, expected, "every event once, in order");
    assert_eq!(play.wait_exit(std::time::Duration::from_secs(20)), Some(0), "--exit-when-over exits 0");
    let verified = verify(&play.log);
    let log = std::fs::read_to_string(&play.log).expect("the log");
    let header: Value = serde_json::from_str(log.lines().next().expect("a header")).expect("JSON");
    assert_eq!(header["north"]["name"], "you", "{header}");
    assert_eq!(header["north"]["command"], json!(["(a person)"]), "the person is named as such: {header}");
    assert_eq!(header["south"]["command"][1], "sample-bot", "{header}");
    assert_eq!(header["south"]["command"][2], "greedy", "{header}");
    eprintln!("{verified}");
}

#[tokio::test]
async fn a_reconnecting_client_gets_exactly_what_it_missed_or_a_resync() {
    // A clock for both: the person's time is counted and sent.
    let play = Play::start(&["--bot", "random", "--tc", "60+1"]);
    let url = play.socket_url();
    let mut first = Client::hello(&url, 0).await;
    // Three moves, then the connection drops without a close.
    let mut seen = Vec::new();
    let mut moves = 0;
    while moves < 3 {
        let frame = first.next().await.expect("frames");
        if frame["frame"] == "event" {
            seen.push(frame.clone());
        }
        if is_turn(&frame) {
            let you_ms = frame["event"]["clock_ms"][0].as_u64().expect("the person's clock");
            assert!(you_ms > 50_000 && you_ms <= 62_000, "{frame}");
            play_first(&mut first, &frame).await;
            moves += 1;
        }
    }
    let last_seen = version(seen.last().expect("events"));
    drop(first);
    // Meanwhile the game goes on: the third move, the bot's answer, the next request.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while version_now(&url).await < last_seen + 3 {
        assert!(std::time::Instant::now() < deadline, "the game did not go on");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }

    let mut again = Client::hello(&url, last_seen).await;
    let (caught_up, missed) = again.until(|f| f["frame"] == "caught_up").await;
    let now = version(&caught_up);
    assert!(now > last_seen, "the game moved on while away ({last_seen} -> {now})");
    let missed_versions: Vec<u64> = missed.iter().map(version).collect();
    assert_eq!(missed_versions, (last_seen + 1..=now).collect::<Vec<_>>(), "exactly the missed events");

    // A fresh page (a reload) gets everything, the same events with the same versions.
    let mut reload = Client::hello(&url, 0).await;
    let (_, all) = reload.until(|f| f["frame"] == "caught_up").await;
    assert_eq!(&all[..seen.len()], &seen[..], "the history does not change");
    assert_eq!(&all[seen.len()..], &missed[..]);
    // The resumed socket plays on: its turn is the last event it caught up with.
    let turn = missed.iter().rev().find(|f| is_turn(f)).expect("the person's turn is waiting").clone();
    let mv = play_first(&mut again, &turn).await;
    let (ply, _) = again.until(|f| event(f, "ply").is_some()).await;
    assert_eq!(event(&ply, "ply").expect("a ply")["ply"]["mv"], mv.as_str());

    // A client claiming more than the server has is told to start again.
    let mut ahead = Client::hello(&url, 1_000_000).await;
    let frame = ahead.next().await.expect("a frame");
    assert_eq!(frame["frame"], "resync", "{frame}");
}

#[tokio::test]
async fn stale_duplicate_and_unlisted_moves_are_refused_and_change_nothing() {
    let play = Play::start(&["--bot", "random"]);
    let mut client = Client::hello(&play.socket_url(), 0).await;
    let (turn, _) = client.until(is_turn).await;
    let mv = play_first(&mut client, &turn).await;
    // The same move again (a double click): the request was answered already.
    client.send(&json!({"type": "move", "ply": 0, "move": mv})).await;
    let (refused, mut before) = client.until(|f| f["frame"] == "refused").await;
    let why = refused["why"].as_str().expect("why");
    assert!(why.contains("not your turn") || why.contains("for ply 0"), "{refused}");
    let (next_turn, after) = client.until(is_turn).await;
    before.extend(after);
    let plies: Vec<&Value> = before.iter().filter_map(|f| event(f, "ply")).collect();
    assert_eq!(plies.len(), 2, "one ply for the person's move, one for the bot's: {before:?}");
    let ply = event(&next_turn, "your_turn").expect("a turn")["ply"].as_u64().expect("ply");
    assert_eq!(ply, 2);
    let legal = event(&next_turn, "your_turn").expect("turn")["legal"].clone();
    // A stale move (for ply 0), a move not in the list, a move for a future ply.
    for (frame, says) in [
        (json!({"type": "move", "ply": 0, "move": legal[0]}), "ply 0"),
        (json!({"type": "move", "ply": 2, "move": "H9>"}), "legal"),
        (json!({"type": "move", "ply": 3, "move": legal[0]}), "ply 3"),
    ] {
        client.send(&frame).await;
        let (refused, _) = client.until(|f| f["frame"] == "refused").await;
        assert!(refused["why"].as_str().expect("why").contains(says), "{frame} -> {refused}");
    }
    // Nothing changed: two plies in the log, the same request still waits and takes a move.
    assert_eq!(logged_plies(&play), 2);
    client.send(&json!({"type": "move", "ply": 2, "move": legal[0]})).await;
    let (ply, _) = client.until(|f| event(f, "ply").is_some()).await;
    assert_eq!(event(&ply, "ply").expect("ply")["ply"]["number"], 3);
    assert_eq!(event(&ply, "ply").expect("ply")["ply"]["mv"], legal[0]);
}

#[tokio::test]
async fn hostile_frames_close_that_socket_only() {
    use futures_util::SinkExt;
    use tokio_tungstenite::tungstenite::Message;

    let play = Play::start(&["--bot", "random"]);
    let url = play.socket_url();
    let mut player = Client::hello(&url, 0).await;
    let (turn, _) = player.until(is_turn).await;

    let huge = "x".repeat(1 << 20);
    let attacks: Vec<(&str, Vec<Message>)> = vec![
        ("a huge text frame", vec![Message::text(format!(r#"{{"type":"hello","since":0,"pad":"{huge}"}}"#))]),
        ("a binary frame", vec![Message::binary(vec![0u8, 1, 2, 3])]),
        ("garbage", vec![Message::text("\u{0}not json at all {")]),
        ("a move before hello", vec![Message::text(r#"{"type":"move","ply":0,"move":"A6<"}"#)]),
        ("a flood", (0..500).map(|_| Message::text(r#"{"type":"hello","since":0}"#)).collect()),
    ];
    for (what, frames) in attacks {
        let mut attacker = Client::connect(&url).await;
        if what == "a flood" {
            attacker.send(&json!({"type": "hello", "since": 0})).await;
        }
        for frame in frames {
            if attacker.ws.send(frame).await.is_err() {
                break; // already closed by the server
            }
        }
        assert!(attacker.closed_by_server().await, "{what}: the server keeps the socket open");
    }
    // The game and the player's socket are untouched: the same turn takes a move.
    let mv = play_first(&mut player, &turn).await;
    let (ply, _) = player.until(|f| event(f, "ply").is_some()).await;
    assert_eq!(event(&ply, "ply").expect("ply")["ply"]["mv"], mv.as_str());
    // And the page is still served.
    let page = ureq::get(&play.url).call().expect("the page").into_body().read_to_string().expect("text");
    assert!(page.contains("bao-play-config"));
    // A wrong secret finds nothing.
    let wrong = format!("{}0", play.url);
    assert!(ureq::get(&wrong).call().is_err(), "a wrong secret must not find the game");
}

#[tokio::test]
async fn a_resignation_ends_the_game_and_a_move_after_it_is_refused() {
    let mut play = Play::start(&["--bot", "random", "--exit-when-over"]);
    let mut client = Client::hello(&play.socket_url(), 0).await;
    let (turn, _) = client.until(is_turn).await;
    client.send(&json!({"type": "resign"})).await;
    let (result, _) = client.until(is_result).await;
    let result = event(&result, "result").expect("the result");
    assert_eq!(result["result"]["winner"], "N", "{result}");
    assert_eq!(result["words"], "North wins: South resigned", "{result}");
    // The game is over: the old turn's move changes nothing.
    let mv = event(&turn, "your_turn").expect("turn")["legal"][0].clone();
    client.send(&json!({"type": "move", "ply": 0, "move": mv})).await;
    let (refused, _) = client.until(|f| f["frame"] == "refused").await;
    assert!(refused["why"].as_str().expect("why").contains("over"), "{refused}");
    assert_eq!(play.wait_exit(std::time::Duration::from_secs(20)), Some(0));
    assert_eq!(logged_plies(&play), 0);
    let log = std::fs::read_to_string(&play.log).expect("the log");
    assert!(log.contains("the person resigned"), "{log}");
    verify(&play.log);
}
