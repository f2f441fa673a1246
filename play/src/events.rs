//! What goes over a game's WebSocket: the versioned events of the game, the server's other
//! frames, and what the page may send.

use bao_viewer::{PlyData, ResultData, SideCode};
use serde::{Deserialize, Serialize};

/// One event of a game. The game's events are numbered from 1 (their *version*); a client
/// that has seen version `v` needs exactly the events after `v`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A move was played (by either side), with its sowing steps and both clocks after it.
    Ply {
        /// The ply, as the viewer draws it (boxed: it is the largest event by far).
        ply: Box<PlyData>,
    },
    /// The referee asks the person to move: the plies played so far, every legal move in
    /// canonical notation from the person's own side (the protocol's `legal` list), and the
    /// clocks (the person's, the opponent's; ms).
    YourTurn {
        /// Plies played so far: the move answers this request only.
        ply: u32,
        /// The legal moves, as the referee listed them.
        legal: Vec<String>,
        /// The person's time left and the opponent's, ms.
        clock_ms: [u64; 2],
    },
    /// The game is over; the log is complete.
    Result {
        /// The winner and why.
        result: ResultData,
        /// A sentence for people: `South wins: North's front row is empty`.
        words: String,
    },
}

/// A frame from the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "frame", rename_all = "snake_case")]
pub enum ServerFrame {
    /// An event and its version.
    Event {
        /// The event's version (1 for the game's first event).
        v: u64,
        /// The event.
        event: Event,
    },
    /// Every event up to `v` has been sent: what follows happens live.
    CaughtUp {
        /// The game's version now.
        v: u64,
        /// The person's side.
        you: SideCode,
    },
    /// The client claimed a version the server never had: it must start again from 0.
    Resync {
        /// The game's version now.
        v: u64,
    },
    /// A move or a resignation that was refused; nothing changed.
    Refused {
        /// Why, in words.
        why: String,
    },
}

/// A frame from the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientFrame {
    /// The first frame, and again to ask for what was missed: the last version the page has.
    Hello {
        /// The last version applied (0 for none).
        since: u64,
    },
    /// A move for the request at `ply`.
    Move {
        /// The request's `ply` (plies played when it was asked).
        ply: u32,
        /// The move, one of the request's legal list.
        #[serde(rename = "move")]
        mv: String,
    },
    /// The person resigns.
    Resign,
}
