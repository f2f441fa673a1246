//! Lag compensation over real sockets: two people play through `bao_play::socket`, each page
//! behind a slow link (every byte from the server reaches it late, so the Pongs its client
//! library answers at once come back late too, and the measured round trip is large). Each
//! person's moves are credited the measured round trip, up to the cap; the log records the
//! credits and verifies.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, State, WebSocketUpgrade};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bao_game::GameConfig;
use bao_game::log::GameLog;
use bao_play::{LiveGame, MAX_LAG_CREDIT, Table, person_clock};
use bao_rules::Variant;
use bao_supervise::BotSpec;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

const MS: Duration = Duration::from_millis(1);

/// South's link: a round trip of 300 ms, under the cap.
const SOUTH_DELAY: Duration = Duration::from_millis(300);
/// North's link: a round trip of 1.5 s, over the cap.
const NORTH_DELAY: Duration = Duration::from_millis(1500);
/// How long each person thinks, from the request's arrival at their page.
const THINK: Duration = Duration::from_millis(200);

fn person(name: &str) -> BotSpec {
    BotSpec {
        name: Some(name.to_owned()),
        program: bao_game::runner::HUMAN_COMMAND.to_owned(),
        args: Vec::new(),
        dir: None,
    }
}

async fn socket(
    State(seats): State<Arc<[LiveGame; 2]>>,
    Path(side): Path<usize>,
    upgrade: WebSocketUpgrade,
) -> Response {
    let game = seats[side].clone();
    upgrade.on_upgrade(move |ws| bao_play::socket::serve(ws, game)).into_response()
}

/// Forwards one connection to `target`: the client's bytes at once, the server's `delay` late.
async fn slow_link(target: SocketAddr, delay: Duration) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind the link");
    let addr = listener.local_addr().expect("its address");
    tokio::spawn(async move {
        let (client, _) = listener.accept().await.expect("the page connects");
        let server = TcpStream::connect(target).await.expect("connect the server");
        let (mut client_read, mut client_write) = client.into_split();
        let (mut server_read, mut server_write) = server.into_split();
        tokio::spawn(async move { tokio::io::copy(&mut client_read, &mut server_write).await });
        let (late, mut due) = tokio::sync::mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
        tokio::spawn(async move {
            while let Some((read_at, bytes)) = due.recv().await {
                tokio::time::sleep_until(read_at + delay).await;
                if client_write.write_all(&bytes).await.is_err() {
                    return;
                }
            }
        });
        let mut buffer = vec![0; 1 << 16];
        while let Ok(n @ 1..) = server_read.read(&mut buffer).await {
            if late.send((Instant::now(), buffer[..n].to_vec())).is_err() {
                return;
            }
        }
    });
    addr
}

/// A page: says hello, and answers every request with its first legal move [`THINK`] after it
/// arrived, until the result. The client library answers the server's Pings by itself while
/// it reads. Returns the plies it played.
async fn page(url: String) -> u32 {
    let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.expect("connect the socket");
    ws.send(Message::text(json!({"type": "hello", "since": 0}).to_string())).await.expect("hello");
    let mut due: Option<(Instant, Value)> = None;
    let mut played = 0;
    loop {
        let answer_at =
            due.as_ref().map_or_else(|| Instant::now() + Duration::from_secs(3600), |(at, _)| *at);
        tokio::select! {
            message = tokio::time::timeout(Duration::from_secs(30), ws.next()) => {
                let frame: Value = match message.expect("a frame in time") {
                    Some(Ok(Message::Text(text))) => serde_json::from_str(&text).expect("JSON"),
                    Some(Ok(_)) => continue,
                    other => panic!("the socket ended: {other:?}"),
                };
                match frame["event"]["type"].as_str() {
                    Some("your_turn") => {
                        let event = &frame["event"];
                        let mv = json!({"type": "move", "ply": event["ply"], "move": event["legal"][0]});
                        due = Some((Instant::now() + THINK, mv));
                    }
                    Some("result") => return played,
                    _ => {}
                }
                assert_ne!(frame["frame"], "refused", "{frame}");
            }
            () = tokio::time::sleep_until(answer_at) => {
                if let Some((_, mv)) = due.take() {
                    ws.send(Message::text(mv.to_string())).await.expect("send the move");
                    played += 1;
                }
            }
        }
    }
}

#[tokio::test]
async fn each_move_is_credited_the_measured_round_trip_up_to_the_cap() {
    let mut config = GameConfig::new(person("ann"), person("bob"), Variant::Kiswahili);
    config.time = person_clock(Some((Duration::from_secs(60), Duration::ZERO)));
    config.max_plies = Some(4);
    let mut table = Table::new(config, [Some("ann".to_owned()), Some("bob".to_owned())]);
    let seats =
        Arc::new([table.seats[0].clone().expect("ann's seat"), table.seats[1].clone().expect("bob's seat")]);
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let server = listener.local_addr().expect("address");
    let app = Router::new().route("/ws/{side}", get(socket)).with_state(seats);
    tokio::spawn(async move { axum::serve(listener, app).await });

    let south = slow_link(server, SOUTH_DELAY).await;
    let north = slow_link(server, NORTH_DELAY).await;
    let pages =
        [tokio::spawn(page(format!("ws://{south}/ws/0"))), tokio::spawn(page(format!("ws://{north}/ws/1")))];
    // Both sockets measure a first round trip (a Ping at once, its Pong after the link's delay)
    // before the first request.
    tokio::time::sleep(NORTH_DELAY + MS * 700).await;
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("play-lag-compensation.jsonl");
    table.start(GameLog::create(&path).expect("the log")).expect("start");
    let result = tokio::time::timeout(Duration::from_secs(60), table.finished())
        .await
        .expect("the game ends in time")
        .expect("the judge's result");
    assert_eq!(result.plies, 4, "{result:?}");
    for page in pages {
        assert_eq!(page.await.expect("the page's task"), 2);
    }

    let log = std::fs::read_to_string(&path).expect("read the log");
    let _ = std::fs::remove_file(&path);
    let verified = bao_game::verify::verify_log(&log).unwrap_or_else(|e| panic!("{e}\n{log}"));
    assert_eq!(verified.plies, 4);
    let records: Vec<Value> = log.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    let cap = u64::try_from(MAX_LAG_CREDIT.as_micros()).expect("small");
    assert_eq!(records[0]["max_lag_credit_us"], json!([cap, cap]), "the cap is in the header");
    let mut left_us = [60_000_000_u64; 2];
    for ply in records.iter().filter(|r| r["type"] == "ply") {
        let north = ply["side"] == "N";
        let time = ply["time_us"].as_u64().expect("time_us");
        let credit = ply["lag_credit_us"].as_u64().expect("lag_credit_us");
        let delay = if north { NORTH_DELAY } else { SOUTH_DELAY };
        let delay_us = u64::try_from(delay.as_micros()).expect("small");
        // The move's time holds the link's delay and the thinking.
        assert!(time >= delay_us + 200_000, "{ply}");
        if north {
            // A 1.5 s round trip: credited the cap, no more.
            assert_eq!(credit, cap, "{ply}");
        } else {
            // A 300 ms round trip: credited (at least the delay, which every Pong took), uncapped.
            assert!((delay_us..cap).contains(&credit), "{ply}");
        }
        // The clock is charged the time less the credit.
        let side = usize::from(north);
        left_us[side] -= time - credit;
        assert_eq!(ply["clock_ms"][side].as_u64(), Some(left_us[side] / 1000), "{ply}");
    }
}
