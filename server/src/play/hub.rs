//! The games with people being played: their tables, seats and secrets, the limits on how
//! many run and how often one may be started, and each game's life from its start (or the
//! friend's arrival) to its record.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use bao_game::log::GameLog;
use bao_play::{LiveGame, Table};
use bao_rules::{Position, Side};
use tokio::sync::oneshot;

use crate::arena::Arena;
use crate::domain::GameResult;
use crate::error::ServerError;
use crate::play::records::{self, Ending, NewHumanGame};

/// How long a finished game's pages stay live (then its page is the replay of its log).
const KEEP_FINISHED: Duration = Duration::from_secs(600);

/// How often a running game is looked at for an absent person.
const WATCH_EVERY: Duration = Duration::from_secs(1);

/// What a page is to a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// The person at this side (their seat's secret matched, or they just took the seat).
    Seat(Side),
    /// A watcher.
    Watcher,
}

/// One game with people in it.
#[derive(Debug)]
pub struct HumanTable {
    /// Its public id.
    pub token: String,
    /// The address that started it (for the per-address limit).
    pub address: IpAddr,
    /// The start position.
    pub start: Position,
    /// The seats' names (South's, North's), as the page shows them.
    pub names: [String; 2],
    /// Where a rematch starts (`/play/new?...`: the same choices, the sides swapped).
    pub rematch: String,
    /// The side of the person who started it.
    pub person_side: Side,
    /// Whether the people have clocks.
    pub timed: bool,
    /// A game between friends (both seats people).
    pub friends: bool,
    /// The page's games: each person's seat, the watchers'.
    pub seats: [Option<LiveGame>; 2],
    /// The watchers' game.
    pub watchers: LiveGame,
    /// Each people's seat's secret (`None`: not taken yet, or a bot's seat).
    secrets: Mutex<[Option<String>; 2]>,
    /// Told when the friend takes their seat.
    friend_came: Mutex<Option<oneshot::Sender<()>>>,
    /// Set when the game is over (its pages keep serving until dropped).
    over: std::sync::atomic::AtomicBool,
}

impl HumanTable {
    fn secrets(&self) -> MutexGuard<'_, [Option<String>; 2]> {
        self.secrets.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The role of a page holding `secret` (the seat cookie's value, if any). In a game between
    /// friends, a page without a seat takes the free one (and gets its secret to keep); later
    /// pages watch.
    pub fn role(&self, secret: Option<&str>) -> (Role, Option<String>) {
        let mut secrets = self.secrets();
        if let Some(secret) = secret {
            for side in [Side::South, Side::North] {
                if secrets[side.index()].as_deref() == Some(secret) {
                    return (Role::Seat(side), None);
                }
            }
        }
        if self.friends && !self.over() {
            let free = self.person_side.opponent();
            if secrets[free.index()].is_none() {
                let new = new_secret();
                secrets[free.index()] = Some(new.clone());
                if let Some(came) =
                    self.friend_came.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take()
                {
                    let _ = came.send(());
                }
                return (Role::Seat(free), Some(new));
            }
        }
        (Role::Watcher, None)
    }

    /// The page's game for `role`.
    #[must_use]
    pub fn live(&self, role: &Role) -> LiveGame {
        match role {
            Role::Seat(side) => self.seats[side.index()].clone().unwrap_or_else(|| self.watchers.clone()),
            Role::Watcher => self.watchers.clone(),
        }
    }

    /// Whether the game is over.
    #[must_use]
    pub fn over(&self) -> bool {
        self.over.load(std::sync::atomic::Ordering::Acquire)
    }
}

/// A fresh secret: 128 random bits in hex.
#[must_use]
pub fn new_secret() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// Why a game could not be started.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// The server plays as many games with people as it may.
    #[error("the server is playing as many games with people as it may ({0}): try again in a few minutes")]
    Full(usize),
    /// This address plays as many as it may.
    #[error("you are playing {0} games already, the most one address may: finish one first")]
    AddressFull(usize),
    /// This address started too many games in the last minute.
    #[error("too many new games from your address in the last minute (at most {0}): wait a moment")]
    TooFast(u32),
}

#[derive(Debug, Default)]
struct HubState {
    games: HashMap<String, Arc<HumanTable>>,
    starts: HashMap<IpAddr, VecDeque<Instant>>,
    /// Open game sockets per client address (an upgraded socket leaves the connection caps).
    sockets: HashMap<IpAddr, usize>,
}

/// The most game sockets one client address may hold open (pages of its games, watchers).
pub const SOCKETS_PER_ADDRESS: usize = 16;

/// One open game socket's place in its address's count, given back when dropped.
pub struct SocketSlot {
    hub: Arc<Arena>,
    address: IpAddr,
}

impl Drop for SocketSlot {
    fn drop(&mut self) {
        let mut state = self.hub.play.lock();
        if let Some(n) = state.sockets.get_mut(&self.address) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                state.sockets.remove(&self.address);
            }
        }
    }
}

/// The games with people, by token.
#[derive(Debug, Default)]
pub struct PlayHub {
    state: Mutex<HubState>,
}

/// A game to open: its table (not started) and what the hub keeps of it.
pub struct Opening {
    /// The table.
    pub table: Table,
    /// Its public id.
    pub token: String,
    /// The seats' names.
    pub names: [String; 2],
    /// Where a rematch starts.
    pub rematch: String,
    /// The side of the person who starts it.
    pub person_side: Side,
    /// Whether the people have clocks.
    pub timed: bool,
    /// A game between friends.
    pub friends: bool,
    /// What is recorded of it when it starts.
    pub record: NewHumanGame,
}

impl PlayHub {
    fn lock(&self) -> MutexGuard<'_, HubState> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The game `token`, if its pages are live.
    #[must_use]
    pub fn game(&self, token: &str) -> Option<Arc<HumanTable>> {
        self.lock().games.get(token).cloned()
    }

    /// Takes a place for a new game from `address` under `config`'s limits (the place is the
    /// game's once [`PlayHub::open`] is called; counted from now).
    ///
    /// # Errors
    /// The limit reached.
    pub fn admit(&self, address: IpAddr, config: &crate::play::settings::PlayConfig) -> Result<(), Refused> {
        let mut state = self.lock();
        let running: Vec<&Arc<HumanTable>> = state.games.values().filter(|g| !g.over()).collect();
        if running.len() >= config.max_human_games {
            return Err(Refused::Full(config.max_human_games));
        }
        let mine = running.iter().filter(|g| g.address == address).count();
        if mine >= config.max_human_games_per_address {
            return Err(Refused::AddressFull(config.max_human_games_per_address));
        }
        let now = Instant::now();
        // Starts older than a minute count no more, for any address.
        let minute = Duration::from_secs(60);
        state.starts.retain(|_, starts| {
            while starts.front().is_some_and(|t| now.duration_since(*t) > minute) {
                starts.pop_front();
            }
            !starts.is_empty()
        });
        let starts = state.starts.entry(address).or_default();
        if starts.len() >= config.starts_per_minute as usize {
            return Err(Refused::TooFast(config.starts_per_minute));
        }
        starts.push_back(now);
        Ok(())
    }

    /// Opens a game started from `address`: its pages are live at once; the judge starts now,
    /// or when the friend comes. Returns the secret of the starter's seat.
    pub fn open(&self, arena: &Arc<Arena>, address: IpAddr, opening: Opening) -> String {
        let secret = new_secret();
        let mut secrets = [None, None];
        secrets[opening.person_side.index()] = Some(secret.clone());
        let (came, friend_came) = oneshot::channel();
        let table = Arc::new(HumanTable {
            token: opening.token.clone(),
            address,
            start: opening.table.config().start,
            names: opening.names,
            rematch: opening.rematch,
            person_side: opening.person_side,
            timed: opening.timed,
            friends: opening.friends,
            seats: opening.table.seats.clone(),
            watchers: opening.table.watchers.clone(),
            secrets: Mutex::new(secrets),
            friend_came: Mutex::new(opening.friends.then_some(came)),
            over: std::sync::atomic::AtomicBool::new(false),
        });
        self.lock().games.insert(opening.token.clone(), table.clone());
        let arena = arena.clone();
        let friends = opening.friends;
        tokio::spawn(async move {
            let waited = if friends { Some(friend_came) } else { None };
            run_game(&arena, &table, opening.table, opening.record, waited).await;
            table.over.store(true, std::sync::atomic::Ordering::Release);
            // The pages stay live a while (a reload shows the end), then the replay serves.
            tokio::select! {
                () = tokio::time::sleep(KEEP_FINISHED) => {}
                () = arena.shutdown.cancelled() => {}
            }
            arena.play.lock().games.remove(&table.token);
        });
        secret
    }

    /// A place for one more game socket from `address`, if it holds fewer than
    /// [`SOCKETS_PER_ADDRESS`].
    #[must_use]
    pub fn socket_slot(arena: &Arc<Arena>, address: IpAddr) -> Option<SocketSlot> {
        let mut state = arena.play.lock();
        let n = state.sockets.entry(address).or_insert(0);
        if *n >= SOCKETS_PER_ADDRESS {
            return None;
        }
        *n += 1;
        Some(SocketSlot { hub: arena.clone(), address })
    }

    /// Running games (for the metrics and tests).
    #[must_use]
    pub fn running(&self) -> usize {
        self.lock().games.values().filter(|g| !g.over()).count()
    }
}

/// A game's life: waits for the friend (if any), records the game as running, plays it,
/// abandons it if its person stays away (no clock), records its end.
async fn run_game(
    arena: &Arena,
    game: &HumanTable,
    mut table: Table,
    record: NewHumanGame,
    friend: Option<oneshot::Receiver<()>>,
) {
    let abandon_after = arena.config.play.abandon_after();
    if let Some(friend) = friend {
        tokio::select! {
            came = friend => if came.is_err() { return },
            () = tokio::time::sleep(abandon_after) => {
                tracing::info!(token = %game.token, "a friend game's friend never came: dropped");
                return;
            }
            () = arena.shutdown.cancelled() => return,
        }
    }
    let token = record.token.clone();
    let path = std::path::PathBuf::from(&record.log_path);
    let log = match GameLog::create(&path) {
        Ok(log) => log,
        Err(e) => {
            tracing::error!(token = %token, error = %e, "cannot create a play game's log");
            return;
        }
    };
    let inserted = arena.db.write(move |c| records::insert_running(c, &record)).await;
    if let Err(e) = inserted {
        tracing::error!(token = %token, error = %e, "cannot record a play game");
        return;
    }
    if let Err(e) = table.start(log) {
        let why = format!("the server could not start the game: {e}");
        let _ = finish(arena, &token, Ending::Aborted, why, 0).await;
        return;
    }
    let mut abandoned = false;
    let mut watch = tokio::time::interval(WATCH_EVERY);
    let result = loop {
        tokio::select! {
            result = table.finished() => break result,
            () = arena.shutdown.cancelled(), if !table.cancel.is_cancelled() => table.cancel.cancel(),
            _ = watch.tick(), if !game.timed && !table.cancel.is_cancelled() => {
                let away = game.seats.iter().flatten().filter_map(LiveGame::waiting_since).any(|t| t.elapsed() >= abandon_after);
                if away {
                    tracing::info!(token = %token, "an unclocked game left too long: abandoned");
                    abandoned = true;
                    table.cancel.cancel();
                }
            }
        }
    };
    if let Err(e) = sync_log(&path).await {
        tracing::error!(token = %token, error = %e, "cannot sync a play game's log");
    }
    let (ending, reason, plies) = match result {
        Ok(r) if r.aborted.is_some() && abandoned => {
            (Ending::Abandoned, "abandoned: the person did not move for too long".to_owned(), r.plies)
        }
        Ok(r) if r.aborted.is_some() => (Ending::Aborted, format!("aborted: {}", r.detail), r.plies),
        Ok(r) => {
            let reason = if r.detail.is_empty() {
                r.reason.to_string()
            } else {
                format!("{}: {}", r.reason, r.detail)
            };
            let scrubbed = crate::http::log_privacy::scrub_text(
                &reason,
                &crate::http::log_privacy::arena_prefixes(&arena.dir),
            );
            (Ending::Finished(GameResult::of_winner(r.winner)), scrubbed, r.plies)
        }
        Err(e) => (Ending::Aborted, format!("the server failed to play the game: {e}"), 0),
    };
    if let Err(e) = finish(arena, &token, ending, reason, plies).await {
        tracing::error!(token = %token, error = %e, "cannot record the end of a play game");
    }
}

async fn finish(
    arena: &Arena,
    token: &str,
    ending: Ending,
    reason: String,
    plies: u32,
) -> Result<(), ServerError> {
    let token = token.to_owned();
    arena.db.write(move |c| records::finish(c, &token, ending, &reason, plies)).await
}

/// The log and its folder on disk.
async fn sync_log(path: &std::path::Path) -> std::io::Result<()> {
    let path = path.to_path_buf();
    tokio::task::spawn_blocking(move || {
        std::fs::File::open(&path)?.sync_all()?;
        if let Some(dir) = path.parent() {
            std::fs::File::open(dir)?.sync_all()?;
        }
        Ok(())
    })
    .await
    .map_err(std::io::Error::other)?
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::settings::PlayConfig;

    #[test]
    fn starts_per_minute_are_counted_per_address() {
        let hub = PlayHub::default();
        let config = PlayConfig { starts_per_minute: 2, ..PlayConfig::default() };
        let (a, b): (IpAddr, IpAddr) = ("192.0.2.1".parse().expect("ip"), "192.0.2.2".parse().expect("ip"));
        assert_eq!(hub.admit(a, &config), Ok(()));
        assert_eq!(hub.admit(a, &config), Ok(()));
        assert_eq!(hub.admit(a, &config), Err(Refused::TooFast(2)));
        assert_eq!(hub.admit(b, &config), Ok(()), "another address has its own count");
        let none = PlayConfig { max_human_games: 0, ..PlayConfig::default() };
        assert_eq!(hub.admit(b, &none), Err(Refused::Full(0)));
        assert_eq!(hub.running(), 0);
    }
}
