//! The engine: one thread with its own single-threaded runtime (the one the
//! game crate is built and measured for) that plays games and runs
//! conformance checks, so that bots' clocks never depend on how busy the web
//! server is. Jobs arrive over a channel and answer on a oneshot.

mod check_job;
mod game_job;
pub mod opening;

use std::path::PathBuf;
use std::thread::JoinHandle;

use bao_game::{GameConfig, GameResult};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::build::gate::{BoxFuture, BuiltBot, ConformanceGate, GateReport};
use crate::error::ServerError;
use crate::live::LiveHub;

pub use check_job::CheckLimits;

/// One job for the engine thread.
enum Job {
    Game {
        config: Box<GameConfig>,
        log_path: PathBuf,
        game_id: i64,
        /// Stops this game alone (the engine's own token stops them all).
        stop: CancellationToken,
        reply: oneshot::Sender<Result<GameResult, String>>,
    },
    Check {
        bot: BuiltBot,
        limits: Box<CheckLimits>,
        reply: oneshot::Sender<GateReport>,
    },
}

/// A handle on the engine thread.
pub struct Engine {
    jobs: mpsc::UnboundedSender<Job>,
    thread: Option<JoinHandle<()>>,
    check_limits: CheckLimits,
}

impl Engine {
    /// Starts the engine thread. Games stop (recorded aborted) when `cancel` fires.
    pub fn start(
        live: LiveHub,
        cancel: CancellationToken,
        check_limits: CheckLimits,
    ) -> Result<Engine, ServerError> {
        let runtime =
            bao_game::runtime::build().map_err(|e| ServerError::io("cannot start the game runtime", e))?;
        let (tx, mut rx) = mpsc::unbounded_channel::<Job>();
        let thread = std::thread::Builder::new()
            .name("bao-engine".into())
            .spawn(move || {
                let local = tokio::task::LocalSet::new();
                local.block_on(&runtime, async move {
                    while let Some(job) = rx.recv().await {
                        match job {
                            Job::Game { config, log_path, game_id, stop, reply } => {
                                let (live, cancel) = (live.clone(), cancel.child_token());
                                tokio::task::spawn_local(async move {
                                    let play = game_job::play(&config, &log_path, game_id, &live, &cancel);
                                    // `stop` aborts this game as the engine's token would.
                                    let watch = async {
                                        stop.cancelled().await;
                                        cancel.cancel();
                                        std::future::pending::<()>().await;
                                    };
                                    let r = tokio::select! {
                                        r = play => r,
                                        () = watch => unreachable!("the watch never ends"),
                                    };
                                    let _ = reply.send(r);
                                });
                            }
                            Job::Check { bot, limits, reply } => {
                                tokio::task::spawn_local(async move {
                                    let _ = reply.send(check_job::run(&bot, &limits).await);
                                });
                            }
                        }
                    }
                });
                // Let the tasks still running finish (they end fast once cancelled).
                runtime.block_on(local);
            })
            .map_err(|e| ServerError::io("cannot start the engine thread", e))?;
        Ok(Engine { jobs: tx, thread: Some(thread), check_limits })
    }

    /// Plays one game, writing its log to `log_path`.
    pub async fn play(
        &self,
        config: GameConfig,
        log_path: PathBuf,
        game_id: i64,
    ) -> Result<GameResult, ServerError> {
        self.play_until(config, log_path, game_id, CancellationToken::new()).await
    }

    /// Plays one game like [`Engine::play`]; cancelling `stop` aborts it (a worker that lost
    /// its lease, or hands the game back).
    pub async fn play_until(
        &self,
        config: GameConfig,
        log_path: PathBuf,
        game_id: i64,
        stop: CancellationToken,
    ) -> Result<GameResult, ServerError> {
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(Job::Game { config: Box::new(config), log_path, game_id, stop, reply })
            .map_err(|_| ServerError::Internal("the engine has stopped".into()))?;
        answer
            .await
            .map_err(|_| ServerError::Internal("the engine dropped a game".into()))?
            .map_err(ServerError::Internal)
    }

    /// Stops taking jobs and waits for the running ones to end.
    pub fn stop(mut self) {
        let (tx, _) = mpsc::unbounded_channel();
        drop(std::mem::replace(&mut self.jobs, tx));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl ConformanceGate for Engine {
    fn check<'a>(&'a self, bot: &'a BuiltBot) -> BoxFuture<'a, GateReport> {
        Box::pin(async move {
            let (reply, answer) = oneshot::channel();
            let job = Job::Check { bot: bot.clone(), limits: Box::new(self.check_limits.clone()), reply };
            if self.jobs.send(job).is_err() {
                return GateReport { passed: false, report: "the server is stopping: not checked".into() };
            }
            answer.await.unwrap_or_else(|_| GateReport {
                passed: false,
                report: "the conformance check was interrupted (the server is stopping)".into(),
            })
        })
    }
}
