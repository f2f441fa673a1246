//! The live event hub: running games publish their moves, and the live pages'
//! server-sent event streams subscribe.

use serde::Serialize;
use tokio::sync::broadcast;

/// One event of a running game.
#[derive(Debug, Clone, Serialize)]
pub struct LiveEvent {
    /// The game.
    pub game_id: i64,
    /// `start`, `move` or `end`.
    pub kind: &'static str,
    /// The ply number (moves), or 0.
    pub ply: u32,
    /// The move text, the result, or the players.
    pub text: String,
}

/// A broadcast channel of [`LiveEvent`]s (slow subscribers lose old events).
#[derive(Clone)]
pub struct LiveHub {
    sender: broadcast::Sender<LiveEvent>,
}

impl Default for LiveHub {
    fn default() -> Self {
        LiveHub::new()
    }
}

impl LiveHub {
    /// A hub keeping the last 1024 events for slow subscribers.
    #[must_use]
    pub fn new() -> LiveHub {
        LiveHub { sender: broadcast::channel(1024).0 }
    }

    /// Publishes an event (dropped when nobody listens).
    pub fn publish(&self, event: LiveEvent) {
        let _ = self.sender.send(event);
    }

    /// A new subscription.
    #[must_use]
    pub fn subscribe(&self) -> broadcast::Receiver<LiveEvent> {
        self.sender.subscribe()
    }
}
