//! The live event hub: running games publish their records, the live pages'
//! server-sent event streams follow them.
//!
//! Every running game keeps its whole feed here (its start, each ply as the
//! viewer's `PlyData`, its end), and the feeds of the last [`ENDED_KEPT`]
//! games that ended, so that a stream can start **from any ply**: a page that
//! has plies 1..=n asks for the rest and gets every ply after n, then the live
//! ones, with nothing lost and nothing twice (the backlog is read and the live
//! subscription taken under one lock, the same one publishing holds). A stream
//! that falls behind the broadcast channel reads the missed plies again from
//! the feed. Each ply's event id is its number, so a browser that reconnects
//! resumes with `Last-Event-ID` by itself.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use bao_game::log::LogRecord;
use bao_rules::Position;
use bao_viewer::ResultData;
use serde::Serialize;
use tokio::sync::broadcast;

/// Ended games whose feeds are kept for streams that connect late.
pub const ENDED_KEPT: usize = 16;

/// One event of a game.
#[derive(Debug, Clone, Serialize)]
pub struct LiveEvent {
    /// The game.
    pub game_id: i64,
    /// `start`, `move` or `end`.
    pub kind: &'static str,
    /// The ply's number (moves), the plies played (end), or 0 (start).
    pub ply: u32,
    /// The move in record notation (North's row in lower case, `a6>`), the
    /// players (`bot v1 - other v2`), or the result.
    pub text: String,
    /// The ply as the viewer draws it (moves), the result (end), the game (start).
    pub data: serde_json::Value,
}

/// What a start event says of a game.
#[derive(Debug, Clone, Serialize)]
pub struct GameStart {
    /// South's arena name (`bot v1`).
    pub south: String,
    /// North's arena name.
    pub north: String,
    /// Why it is played.
    pub purpose: crate::domain::Purpose,
}

/// One game's feed.
#[derive(Debug, Default)]
struct Feed {
    start: Option<Arc<LiveEvent>>,
    /// The position after the last ply (or the start).
    position: Option<Position>,
    plies: Vec<Arc<LiveEvent>>,
    end: Option<Arc<LiveEvent>>,
}

#[derive(Debug, Default)]
struct Feeds {
    games: HashMap<i64, Feed>,
    ended: VecDeque<i64>,
}

/// The hub: a broadcast channel of every event plus the feeds.
#[derive(Clone)]
pub struct LiveHub {
    sender: broadcast::Sender<Arc<LiveEvent>>,
    feeds: Arc<Mutex<Feeds>>,
}

impl Default for LiveHub {
    fn default() -> Self {
        LiveHub::new()
    }
}

/// A stream's start: the events it missed, then its subscription.
pub struct Follow {
    /// The events after the requested ply, in order (the end last, if the game ended).
    pub backlog: Vec<Arc<LiveEvent>>,
    /// Events from now on (`None` when the game has ended or is unknown).
    pub receiver: Option<broadcast::Receiver<Arc<LiveEvent>>>,
    /// Whether the hub knows the game (else read its log).
    pub known: bool,
}

/// A running game as the live index lists it.
#[derive(Debug, Clone, Serialize)]
pub struct RunningGame {
    /// The game.
    pub game_id: i64,
    /// The players and purpose.
    #[serde(flatten)]
    pub start: serde_json::Value,
    /// Plies played so far.
    pub plies: usize,
}

impl LiveHub {
    /// A hub whose channel keeps the last 1024 events for slow subscribers.
    #[must_use]
    pub fn new() -> LiveHub {
        LiveHub { sender: broadcast::channel(1024).0, feeds: Arc::default() }
    }

    fn lock(&self) -> MutexGuard<'_, Feeds> {
        // A panic while holding the lock leaves the feeds usable: take them anyway.
        self.feeds.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Publishes an event and keeps it in its game's feed.
    fn publish(&self, feeds: &mut Feeds, event: LiveEvent) {
        let event = Arc::new(event);
        let id = event.game_id;
        let feed = feeds.games.entry(id).or_default();
        match event.kind {
            "start" => feed.start = Some(event.clone()),
            "move" => feed.plies.push(event.clone()),
            _ => {
                feed.end = Some(event.clone());
                feeds.ended.push_back(id);
                while feeds.ended.len() > ENDED_KEPT {
                    if let Some(old) = feeds.ended.pop_front() {
                        feeds.games.remove(&old);
                    }
                }
            }
        }
        // Sent under the lock: a follower sees each event in its backlog or its channel, once.
        let _ = self.sender.send(event);
    }

    /// A game starts (before its bots do).
    pub fn start(&self, game_id: i64, start: &GameStart) {
        let mut feeds = self.lock();
        let event = LiveEvent {
            game_id,
            kind: "start",
            ply: 0,
            text: format!("{} - {}", start.south, start.north),
            data: serde_json::to_value(start).unwrap_or_default(),
        };
        self.publish(&mut feeds, event);
    }

    /// A record of a game's log, as the referee writes it.
    pub fn record(&self, game_id: i64, record: &LogRecord) {
        let mut feeds = self.lock();
        if feeds.games.get(&game_id).is_some_and(|f| f.end.is_some()) {
            return;
        }
        match record {
            LogRecord::Header(h) => {
                let position = h.start.parse::<Position>().ok();
                feeds.games.entry(game_id).or_default().position = position;
            }
            LogRecord::Ply(p) => {
                let feed = feeds.games.entry(game_id).or_default();
                let ply = feed.position.as_ref().and_then(|before| bao_viewer::ply_data(before, p).ok());
                let data = match ply {
                    Some((data, after)) => {
                        feed.position = Some(after);
                        data
                    }
                    None => {
                        // Not replayable (cannot happen with the referee's own log): the move
                        // and the clocks still show, without a board.
                        feed.position = p.position.parse().ok();
                        return self.publish(
                            &mut feeds,
                            LiveEvent {
                                game_id,
                                kind: "move",
                                ply: p.ply,
                                text: bao_viewer::record_form(p.side, &p.mv),
                                data: serde_json::json!({ "clock_ms": p.clock_ms }),
                            },
                        );
                    }
                };
                let event = LiveEvent {
                    game_id,
                    kind: "move",
                    ply: p.ply,
                    text: data.record.clone(),
                    data: serde_json::to_value(&data).unwrap_or_default(),
                };
                self.publish(&mut feeds, event);
            }
            LogRecord::Result(r) => {
                let data: ResultData = bao_viewer::result_data(r);
                let event = LiveEvent {
                    game_id,
                    kind: "end",
                    ply: r.plies,
                    text: crate::result_words::result_in_words(
                        data.winner,
                        &data.reason,
                        &data.detail,
                        false,
                    ),
                    data: crate::result_words::result_json(&data),
                };
                self.publish(&mut feeds, event);
            }
            LogRecord::Ready(_) | LogRecord::Stderr(_) => {}
        }
    }

    /// A game is over as the database records it: ends its feed if its log did
    /// not (a game the server could not play has no result record).
    pub fn finish(&self, game_id: i64, text: &str) {
        let mut feeds = self.lock();
        let Some(feed) = feeds.games.get(&game_id) else { return };
        if feed.end.is_some() {
            return;
        }
        let plies = u32::try_from(feed.plies.len()).unwrap_or(u32::MAX);
        let data = ResultData { winner: None, reason: "aborted".into(), detail: text.to_owned() };
        let event = LiveEvent {
            game_id,
            kind: "end",
            ply: plies,
            text: text.to_owned(),
            data: crate::result_words::result_json(&data),
        };
        self.publish(&mut feeds, event);
    }

    /// Follows one game from after ply `after`.
    #[must_use]
    pub fn follow(&self, game_id: i64, after: u32) -> Follow {
        let feeds = self.lock();
        let Some(feed) = feeds.games.get(&game_id) else {
            return Follow { backlog: Vec::new(), receiver: None, known: false };
        };
        let mut backlog: Vec<Arc<LiveEvent>> = feed.plies.iter().filter(|e| e.ply > after).cloned().collect();
        let receiver = match &feed.end {
            Some(end) => {
                backlog.push(end.clone());
                None
            }
            None => Some(self.sender.subscribe()),
        };
        Follow { backlog, receiver, known: true }
    }

    /// The moves of a game after ply `after` (for a stream that fell behind).
    #[must_use]
    pub fn plies_after(&self, game_id: i64, after: u32) -> Vec<Arc<LiveEvent>> {
        let feeds = self.lock();
        feeds.games.get(&game_id).map_or_else(Vec::new, |f| {
            let mut v: Vec<Arc<LiveEvent>> = f.plies.iter().filter(|e| e.ply > after).cloned().collect();
            v.extend(f.end.clone());
            v
        })
    }

    /// The games running now, and a subscription to every event from now on.
    #[must_use]
    pub fn follow_all(&self) -> (Vec<RunningGame>, broadcast::Receiver<Arc<LiveEvent>>) {
        let feeds = self.lock();
        (running(&feeds), self.sender.subscribe())
    }

    /// The games running now, oldest first (for the live index's pages).
    #[must_use]
    pub fn running(&self) -> Vec<RunningGame> {
        running(&self.lock())
    }
}

/// The games of `feeds` that have started and not ended, oldest first.
fn running(feeds: &Feeds) -> Vec<RunningGame> {
    let mut running: Vec<RunningGame> = feeds
        .games
        .iter()
        .filter(|(_, f)| f.end.is_none())
        .filter_map(|(&id, f)| {
            Some(RunningGame { game_id: id, start: f.start.as_ref()?.data.clone(), plies: f.plies.len() })
        })
        .collect();
    running.sort_by_key(|g| g.game_id);
    running
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real game log of four plies (the game crate's test data).
    fn records() -> Vec<LogRecord> {
        include_str!("../../game/tests/data/genuine.jsonl")
            .lines()
            .map(|l| serde_json::from_str(l).expect("a log record"))
            .collect()
    }

    #[test]
    fn a_follower_from_any_ply_gets_every_later_ply_once() {
        let hub = LiveHub::new();
        let records = records();
        let plies: Vec<&LogRecord> = records.iter().filter(|r| matches!(r, LogRecord::Ply(_))).collect();
        assert!(plies.len() >= 4, "{} plies", plies.len());
        let plies = &plies[..4];
        hub.start(
            7,
            &GameStart {
                south: "a v1".into(),
                north: "b v1".into(),
                purpose: crate::domain::Purpose::Ladder,
            },
        );
        hub.record(7, &records[0]);
        for r in &plies[..3] {
            hub.record(7, r);
        }
        // A page that rendered 1 ply connects after 2 more were played.
        let mut follow = hub.follow(7, 1);
        assert_eq!(follow.backlog.iter().map(|e| e.ply).collect::<Vec<_>>(), vec![2, 3]);
        assert!(follow.backlog.iter().all(|e| e.kind == "move" && e.data.get("after").is_some()));
        assert!(
            follow.backlog.iter().all(|e| e.data["steps"].as_array().is_some_and(|s| !s.is_empty())),
            "animated"
        );
        hub.record(7, plies[3]);
        let rx = follow.receiver.as_mut().expect("running");
        let live: Vec<u32> = std::iter::from_fn(|| rx.try_recv().ok()).map(|e| e.ply).collect();
        assert_eq!(live, vec![4], "the live ones follow with no gap and no repeat");
        // North's moves in record notation (`a6<`, not `N A6<`).
        let north = hub.plies_after(7, 0).into_iter().find(|e| e.data["side"] == "N").expect("a North move");
        assert!(north.text.starts_with(|c: char| c.is_ascii_lowercase()), "{}", north.text);
        let (running, _) = hub.follow_all();
        assert_eq!(running.len(), 1);
        assert_eq!(running[0].plies, 4);
        assert_eq!(running[0].start["south"], "a v1");
        hub.finish(7, "stopped");
        for r in records.iter().filter(|r| matches!(r, LogRecord::Result(_))) {
            hub.record(7, r);
        }
        let after_end = hub.follow(7, 3);
        let seen: Vec<(&str, u32)> = after_end.backlog.iter().map(|e| (e.kind, e.ply)).collect();
        assert_eq!(seen, vec![("move", 4), ("end", 4)], "one end, nothing after it");
        assert!(after_end.receiver.is_none());
        assert!(!hub.follow(8, 0).known);
        let (running, _) = hub.follow_all();
        assert!(running.is_empty(), "the ended game is not listed as running");
    }
}
