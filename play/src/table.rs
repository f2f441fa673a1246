//! One game with people in it: a page's game for each person's seat and one for watchers,
//! relayed to the judge, which runs on a thread of its own once the table is started.
//!
//! The pages may connect before the game starts (a friend not there yet): their games exist
//! from [`Table::new`]; [`Table::start`] starts the judge and the bot.

use bao_game::log::GameLog;
use bao_game::{GameConfig, GameResult, human};
use bao_rules::Side;
use tokio_util::sync::CancellationToken;

use crate::live::LiveGame;
use crate::observer::PageObserver;
use crate::server::PlayError;

/// A game with one or two people's seats.
#[derive(Debug)]
pub struct Table {
    /// The page's game of each side a person sits at (`None`: the bot's side).
    pub seats: [Option<LiveGame>; 2],
    /// The watchers' game: every ply and the result.
    pub watchers: LiveGame,
    /// Ends the game (recorded as aborted) if it is still being played.
    pub cancel: CancellationToken,
    config: GameConfig,
    humans: Option<[Option<human::HumanSeat>; 2]>,
    result: Option<tokio::sync::oneshot::Receiver<Result<GameResult, PlayError>>>,
}

impl Table {
    /// A table for `config` with a person named `people[side]` at each side that has one (the
    /// bot spec of `config` at that side is then not run), each person's moves credited their
    /// page's round trip up to [`crate::MAX_LAG_CREDIT`] (lag compensation). Must be called
    /// within a tokio runtime: the seats' relays start now.
    #[must_use]
    pub fn new(config: GameConfig, people: [Option<String>; 2]) -> Table {
        let mut seats = [None, None];
        let mut humans = [None, None];
        for side in [Side::South, Side::North] {
            if let Some(name) = &people[side.index()] {
                let (mut seat, relay) = human::human_seat(name);
                seat.max_lag_credit = crate::seats::MAX_LAG_CREDIT;
                let game = LiveGame::new(side, relay.to_judge.clone());
                tokio::spawn(crate::relay::relay(relay, name.clone(), game.clone()));
                seats[side.index()] = Some(game);
                humans[side.index()] = Some(seat);
            }
        }
        Table {
            seats,
            watchers: LiveGame::watcher(),
            cancel: CancellationToken::new(),
            config,
            humans: Some(humans),
            result: None,
        }
    }

    /// The game's configuration.
    #[must_use]
    pub fn config(&self) -> &GameConfig {
        &self.config
    }

    /// Whether [`Table::start`] has been called.
    #[must_use]
    pub fn started(&self) -> bool {
        self.humans.is_none()
    }

    /// Starts the judge (and the bot) on a thread of its own, writing `log`. A second call
    /// does nothing.
    ///
    /// # Errors
    /// No thread can be started.
    pub fn start(&mut self, log: GameLog) -> Result<(), PlayError> {
        let Some(humans) = self.humans.take() else { return Ok(()) };
        let (done, result) = tokio::sync::oneshot::channel();
        let mut games: Vec<LiveGame> = self.seats.iter().flatten().cloned().collect();
        games.push(self.watchers.clone());
        let (cancel, config) = (self.cancel.clone(), self.config.clone());
        std::thread::Builder::new()
            .name("bao-play-judge".to_owned())
            .spawn(move || {
                let _ = done.send(judge(&config, humans, log, games, &cancel));
            })
            .map_err(PlayError::Thread)?;
        self.result = Some(result);
        Ok(())
    }

    /// Waits for the game to end (the log is then complete) and returns its result. Safe to
    /// cancel (in a `select!`) and call again; after it has returned the result, or before
    /// the table is started, it says so.
    ///
    /// # Errors
    /// The judge's failure (the log could not be written, no runtime).
    pub async fn finished(&mut self) -> Result<GameResult, PlayError> {
        let Some(receiver) = self.result.as_mut() else {
            return Err(PlayError::Judge(
                "the game is not running (not started, or its result was taken)".into(),
            ));
        };
        let result = receiver.await;
        self.result = None;
        result
            .unwrap_or_else(|_| Err(PlayError::Judge("the judge's thread ended without a result".to_owned())))
    }
}

/// Plays the game on this thread's own runtime (the judge's observer is not `Send`).
fn judge(
    config: &GameConfig,
    humans: [Option<human::HumanSeat>; 2],
    mut log: GameLog,
    games: Vec<LiveGame>,
    cancel: &CancellationToken,
) -> Result<GameResult, PlayError> {
    let runtime = bao_game::runtime::build().map_err(|e| PlayError::Judge(format!("no runtime: {e}")))?;
    let mut observer = PageObserver { games, position: config.start };
    let result =
        runtime.block_on(bao_game::play_game_with_seats(config, humans, &mut log, &mut observer, cancel));
    let finished = log.finish();
    let result = result.map_err(|e| PlayError::Judge(e.to_string()))?;
    finished.map_err(|e| PlayError::Judge(e.to_string()))?;
    Ok(result)
}
