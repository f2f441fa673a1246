//! One game being played: its events with their versions, the request the person may answer,
//! and the way to the judge.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use bao_game::human::HumanInput;
use bao_protocol::{BotMessage, MoveReply};
use bao_rules::Side;
use tokio::sync::{mpsc, watch};

use crate::events::Event;

/// The request the person has not answered yet.
#[derive(Debug, Clone)]
struct Pending {
    /// The request's id (the judge's).
    id: u64,
    /// Plies played when it was asked.
    ply: u32,
    /// The legal list it carried.
    legal: Vec<String>,
    /// When it was asked.
    since: Instant,
}

/// The state behind the lock.
#[derive(Debug, Default)]
struct State {
    events: Vec<Event>,
    pending: Option<Pending>,
    finished: bool,
}

/// A move or a resignation that was refused, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// No request is waiting for the person (the opponent is to move, or the game is over).
    #[error("it is not your turn")]
    NotYourTurn,
    /// The move answers an older (or a future) request: a stale or duplicate move.
    #[error("that move was for ply {got}, but the referee asks for ply {asked}")]
    Stale {
        /// The ply the move was for.
        got: u32,
        /// The ply asked for.
        asked: u32,
    },
    /// The move is not in the referee's legal list.
    #[error("{0:?} is not in the referee's list of legal moves")]
    NotLegal(String),
    /// The game is over.
    #[error("the game is over")]
    Over,
    /// This page watches the game: it has no seat.
    #[error("you are watching this game: you have no seat in it")]
    Watching,
}

/// One live game, shared by the judge's side and every socket of its page.
#[derive(Debug, Clone)]
pub struct LiveGame {
    state: Arc<Mutex<State>>,
    /// The version now (the count of events), for sockets to wait on.
    version: watch::Sender<u64>,
    /// The person's side (for a watcher: the side shown at the bottom).
    you: Side,
    /// A watcher's game: no seat, every move and resignation refused.
    watching: bool,
    to_judge: mpsc::UnboundedSender<HumanInput>,
}

impl LiveGame {
    /// A game with no events yet; the person plays `you`, their lines go to `to_judge`.
    #[must_use]
    pub fn new(you: Side, to_judge: mpsc::UnboundedSender<HumanInput>) -> LiveGame {
        LiveGame { state: Arc::default(), version: watch::Sender::new(0), you, watching: false, to_judge }
    }

    /// The game as a watcher sees it: every ply and the result, no turn; a move or a
    /// resignation from a watcher is refused ([`Refusal::Watching`]).
    #[must_use]
    pub fn watcher() -> LiveGame {
        let (to_judge, _) = mpsc::unbounded_channel();
        LiveGame {
            state: Arc::default(),
            version: watch::Sender::new(0),
            you: Side::South,
            watching: true,
            to_judge,
        }
    }

    /// Whether this is a watcher's game (no seat).
    #[must_use]
    pub fn watching(&self) -> bool {
        self.watching
    }

    /// Since when the person's move has been awaited (`None`: it is not their turn).
    #[must_use]
    pub fn waiting_since(&self) -> Option<Instant> {
        self.lock().pending.as_ref().map(|p| p.since)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the state half-changed (every change is
        // one push or one assignment): the data is still good.
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The person's side.
    #[must_use]
    pub fn you(&self) -> Side {
        self.you
    }

    /// The version now: the number of events.
    #[must_use]
    pub fn version(&self) -> u64 {
        *self.version.borrow()
    }

    /// A receiver told of every new version.
    #[must_use]
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.version.subscribe()
    }

    /// The events after version `since`, with their versions; `None` when `since` is past the
    /// last version (the client must resync).
    #[must_use]
    pub fn events_since(&self, since: u64) -> Option<Vec<(u64, Event)>> {
        let state = self.lock();
        let from = usize::try_from(since).ok().filter(|&from| from <= state.events.len())?;
        Some(state.events[from..].iter().cloned().zip(since + 1..).map(|(e, v)| (v, e)).collect())
    }

    /// Whether the game is over.
    #[must_use]
    pub fn finished(&self) -> bool {
        self.lock().finished
    }

    /// Appends an event and tells the sockets.
    pub(crate) fn push(&self, event: Event) {
        let version = {
            let mut state = self.lock();
            if matches!(event, Event::Result { .. }) {
                state.finished = true;
                state.pending = None;
            }
            state.events.push(event);
            state.events.len() as u64
        };
        self.version.send_replace(version);
    }

    /// The judge asks the person to move: keeps the request and announces it.
    pub(crate) fn ask(&self, id: u64, ply: u32, legal: Vec<String>, clock_ms: [u64; 2]) {
        self.lock().pending = Some(Pending { id, ply, legal: legal.clone(), since: Instant::now() });
        self.push(Event::YourTurn { ply, legal, clock_ms });
    }

    /// The person plays `mv` in answer to the request at `ply`: passed to the judge as the
    /// protocol's `move` line when it answers the waiting request with a move of its list,
    /// with the moment it `arrived` from the page and the round trip to the page measured
    /// then (`lag`, zero if none: the judge credits it up to the seat's cap).
    ///
    /// # Errors
    /// The [`Refusal`]: nothing was passed on and nothing changed.
    pub fn play(&self, ply: u32, mv: &str, arrived: Instant, lag: Duration) -> Result<(), Refusal> {
        if self.watching {
            return Err(Refusal::Watching);
        }
        let mut state = self.lock();
        if state.finished {
            return Err(Refusal::Over);
        }
        let Some(pending) = &state.pending else { return Err(Refusal::NotYourTurn) };
        if pending.ply != ply {
            return Err(Refusal::Stale { got: ply, asked: pending.ply });
        }
        if !pending.legal.iter().any(|m| m == mv) {
            return Err(Refusal::NotLegal(mv.chars().take(16).collect()));
        }
        let line = BotMessage::Move(MoveReply { id: pending.id, move_text: mv.to_owned() }).to_line();
        // The judge has gone only when the game is over; then the move changes nothing.
        self.to_judge.send(HumanInput::Line { text: line, at: arrived, lag }).map_err(|_| Refusal::Over)?;
        state.pending = None;
        Ok(())
    }

    /// The person resigns.
    ///
    /// # Errors
    /// [`Refusal::Over`] when the game is already over; [`Refusal::Watching`] for a watcher.
    pub fn resign(&self) -> Result<(), Refusal> {
        if self.watching {
            return Err(Refusal::Watching);
        }
        let mut state = self.lock();
        if state.finished {
            return Err(Refusal::Over);
        }
        self.to_judge.send(HumanInput::Resign).map_err(|_| Refusal::Over)?;
        state.pending = None;
        Ok(())
    }

    /// Answers the judge's `hello` for the person (the seat's `ready`).
    pub(crate) fn ready(&self, line: String) {
        // The judge waits for it; if it has gone, the game is over anyway.
        let _ = self.to_judge.send(HumanInput::Line { text: line, at: Instant::now(), lag: Duration::ZERO });
    }
}
