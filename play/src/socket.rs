//! One WebSocket of a game's page: the catch-up on (re)connection, live events, the person's
//! moves, the round trip to the page (pinged every [`PING_EVERY`], see [`crate::round_trip`]:
//! each move goes to the judge with its arrival and the round trip measured, for lag
//! compensation), and the limits that close a hostile socket (and only it).

use std::time::{Duration, Instant};

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, close_code};
use bao_viewer::SideCode;

use crate::events::{ClientFrame, ServerFrame};
use crate::live::LiveGame;
use crate::round_trip::{PING_EVERY, RoundTrip};

/// The largest frame or message a page may send, in bytes: a move frame is under 100.
pub const MAX_CLIENT_MESSAGE_BYTES: usize = 4096;

/// At most this many frames from a page within [`FLOOD_WINDOW`]; more closes the socket.
pub const MAX_FRAMES_PER_WINDOW: u32 = 40;

/// The window of [`MAX_FRAMES_PER_WINDOW`].
pub const FLOOD_WINDOW: Duration = Duration::from_secs(1);

/// How long a new socket may take to send its `hello`.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a socket was closed by the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Closing {
    /// The page's socket ended (it closed, or the connection broke).
    Gone,
    /// The page sent what a page never sends.
    Hostile(u16, &'static str),
}

/// Serves one socket of `game` until it closes.
pub async fn serve(mut socket: WebSocket, game: LiveGame) {
    if let Err(Closing::Hostile(code, why)) = run(&mut socket, &game).await {
        tracing::info!("closing a play socket: {why}");
        let frame = CloseFrame { code, reason: Utf8Bytes::from_static(why) };
        let _ = socket.send(Message::Close(Some(frame))).await;
    }
}

/// The frames a page sent within the current window.
struct FloodGate {
    window_start: Instant,
    frames: u32,
}

impl FloodGate {
    fn admit(&mut self) -> bool {
        let now = Instant::now();
        if now.duration_since(self.window_start) > FLOOD_WINDOW {
            self.window_start = now;
            self.frames = 0;
        }
        self.frames += 1;
        self.frames <= MAX_FRAMES_PER_WINDOW
    }
}

async fn send(socket: &mut WebSocket, frame: &ServerFrame) -> Result<(), Closing> {
    let text = serde_json::to_string(frame).map_err(|_| Closing::Gone)?;
    socket.send(Message::Text(text.into())).await.map_err(|_| Closing::Gone)
}

/// Sends the events after `sent`; returns the version sent up to, or asks for a resync.
async fn catch_up(socket: &mut WebSocket, game: &LiveGame, sent: u64) -> Result<u64, Closing> {
    let Some(events) = game.events_since(sent) else {
        // The page must reload: nothing more is sent to it before it says hello again.
        let now = game.version();
        send(socket, &ServerFrame::Resync { v: now }).await?;
        return Ok(now);
    };
    let mut last = sent;
    for (v, event) in events {
        send(socket, &ServerFrame::Event { v, event }).await?;
        last = v;
    }
    Ok(last)
}

/// The next frame from the page, parsed; hostile frames end the socket.
fn parse(message: Message, gate: &mut FloodGate) -> Result<Option<ClientFrame>, Closing> {
    if !gate.admit() {
        return Err(Closing::Hostile(close_code::POLICY, "too many frames"));
    }
    match message {
        Message::Text(text) => serde_json::from_str(text.as_str())
            .map(Some)
            .map_err(|_| Closing::Hostile(close_code::POLICY, "not a frame of the play protocol")),
        Message::Binary(_) => {
            Err(Closing::Hostile(close_code::UNSUPPORTED, "binary frames are not accepted"))
        }
        Message::Ping(_) | Message::Pong(_) => Ok(None),
        Message::Close(_) => Err(Closing::Gone),
    }
}

async fn run(socket: &mut WebSocket, game: &LiveGame) -> Result<(), Closing> {
    let mut gate = FloodGate { window_start: Instant::now(), frames: 0 };
    let mut versions = game.subscribe();
    // The first frame says what the page has.
    let first = match tokio::time::timeout(HELLO_TIMEOUT, socket.recv()).await {
        Ok(Some(Ok(message))) => parse(message, &mut gate)?,
        Ok(_) => return Err(Closing::Gone),
        Err(_) => return Err(Closing::Hostile(close_code::POLICY, "no hello")),
    };
    let Some(ClientFrame::Hello { since }) = first else {
        return Err(Closing::Hostile(close_code::POLICY, "the first frame must be a hello"));
    };
    let mut sent = catch_up(socket, game, since).await?;
    let you = if game.you() == bao_rules::Side::South { SideCode::South } else { SideCode::North };
    send(socket, &ServerFrame::CaughtUp { v: sent, you }).await?;
    versions.mark_unchanged();
    let mut round_trip = RoundTrip::new();
    // The first tick is at once: the round trip is known after the page's first Pong.
    let mut pings = tokio::time::interval(PING_EVERY);
    pings.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = pings.tick() => {
                let payload = round_trip.ping(Instant::now());
                socket.send(Message::Ping(payload.to_vec().into())).await.map_err(|_| Closing::Gone)?;
            }
            changed = versions.changed() => {
                if changed.is_err() {
                    // The game and its server are going away.
                    return Err(Closing::Gone);
                }
                sent = catch_up(socket, game, sent).await?;
            }
            message = socket.recv() => {
                let Some(Ok(message)) = message else { return Err(Closing::Gone) };
                // Stamped as it is read: a move's arrival, a Pong's.
                let arrived = Instant::now();
                if let Message::Pong(payload) = &message {
                    round_trip.pong(payload, arrived);
                }
                match parse(message, &mut gate)? {
                    None => {}
                    Some(ClientFrame::Hello { since }) => {
                        sent = catch_up(socket, game, since).await?;
                        send(socket, &ServerFrame::CaughtUp { v: sent, you }).await?;
                    }
                    Some(ClientFrame::Move { ply, mv }) => {
                        if let Err(refusal) = game.play(ply, &mv, arrived, round_trip.estimate()) {
                            send(socket, &ServerFrame::Refused { why: refusal.to_string() }).await?;
                        }
                    }
                    Some(ClientFrame::Resign) => {
                        if let Err(refusal) = game.resign() {
                            send(socket, &ServerFrame::Refused { why: refusal.to_string() }).await?;
                        }
                    }
                }
            }
        }
    }
}
