//! Playing the games of a plan: at most `concurrency` at once, each with its
//! own log, each verified and journaled (fsync) as it finishes. A finished game frees its
//! place for the next game before its files are synced (at most `concurrency` games are
//! being persisted at once), so the disk's latency is not paid between games.
//!
//! The end of a game, on the blocking pool: the log is fsynced (`fdatasync`) and so is the
//! games folder (its new entry), the log is read back once and that one text is verified and
//! turned into the replay page (not fsynced: it is derived, see
//! [`crate::replay_pages`]), then the journal line is appended and fsynced. Three
//! fsyncs a game, in that order: a journal line is never durable before its log is.
//!
//! The games run as tasks on one event loop (a current-thread runtime and a
//! `LocalSet`): the referee's own work per move is small next to the bots',
//! and one loop means one [`LagMonitor`] measures every delay the games can
//! suffer from the referee. Blocking work (fsync, reading and verifying a
//! finished log) runs on tokio's blocking pool so it never stalls the loop.
//!
//! Each of the `concurrency` places is a worker slot ([`Slot`]) that keeps the processes of
//! bots that declared `"games":"many"` (protocol 1.1) between its games, when the run allows it
//! ([`Run::keep`], `--restart on-fault`): a game goes to the free slot holding the most of its
//! bots' processes, and each bot plays in its kept process there, whichever side and opponent.
//! A slot keeps at most [`MAX_KEPT_PER_SLOT`] idle processes (the longest idle are sent `quit`
//! first); the rest are sent `quit` at the end of the run.
//!
//! Memory is bounded by the games in flight, not by the games played: the games to play are
//! derived from the plan one at a time, and a finished game is folded into the running counts
//! ([`Tally`]) and the index's [`RecentGames`], then dropped.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::error::Error;
use crate::folder::OutDir;
use crate::index_page::RecentGames;
use crate::index_rewrites::IndexRewrites;
use crate::journal::{Journal, JournalEntry};
use crate::plan::Plan;
use crate::replay_pages::{self, ReplayPages};
use crate::schedule::ScheduledGame;
use crate::signals::{self, StopTokens};
use crate::sprt;
use crate::tally::Tally;
use crate::trace::TraceObserver;
use bao_game::lag::LagMonitor;
use bao_game::{GameResult, KeepPolicy, KeptProcess};

use crate::executor::{self, Played};

/// The most idle processes a worker slot keeps for the bots' next games: those of its last
/// game, and two more (a third bot of a round robin).
pub const MAX_KEPT_PER_SLOT: usize = 4;

/// How often the running games' worst lag is brought up to date (the lag
/// monitor keeps about 20 s of samples).
const LAG_POLL: Duration = Duration::from_secs(1);

/// Where a run reports its progress: the CLI draws a bar or prints a line per game; a
/// program may ignore it ([`Quiet`]). Called on the games' thread: keep it quick.
pub trait Progress: std::fmt::Debug {
    /// A game finished (counted, or aborted: [`JournalEntry::counts`]); `score` is the
    /// current score line.
    fn game_finished(&mut self, entry: &JournalEntry, score: &str);
    /// Something the user should know (an SPRT decision, a stop, an error).
    fn note(&self, message: &str);
    /// The run is over.
    fn finish(&self);
}

/// Progress that reports nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct Quiet;

impl Progress for Quiet {
    fn game_finished(&mut self, _entry: &JournalEntry, _score: &str) {}
    fn note(&self, _message: &str) {}
    fn finish(&self) {}
}

/// What a run needs.
#[derive(Debug)]
pub struct Run {
    /// The plan.
    pub plan: Arc<Plan>,
    /// The output folder.
    pub out: OutDir,
    /// Games at once.
    pub concurrency: usize,
    /// The journal, open for appending.
    pub journal: Journal,
    /// The running counts of the entries already in the journal.
    pub tally: Tally,
    /// The newest entries already in the journal.
    pub recent: RecentGames,
    /// Where progress is reported (the CLI draws it on stderr).
    pub progress: Box<dyn Progress>,
    /// Where the games' protocol lines go (`--debug`, `--trace DIR`).
    pub trace: crate::trace::TraceTarget,
    /// The replay page each game gets.
    pub replays: ReplayPages,
    /// Whether bots that declared `"games":"many"` keep their processes between games
    /// (`--restart`, `--max-games-per-process`).
    pub keep: KeepPolicy,
}

/// How a run ended.
#[derive(Debug)]
pub struct RunReport {
    /// The running counts of every journal entry: the previous ones, then this run's.
    pub tally: Tally,
    /// The newest journal entries.
    pub recent: RecentGames,
    /// Games played to an end in this run.
    pub played: u32,
    /// Games aborted in this run (not counted).
    pub aborted: u32,
    /// Stopped by a signal.
    pub interrupted: bool,
    /// The worst event-loop lag of this run.
    pub worst_lag: Duration,
    /// The referee's own failure, if any (the run stopped).
    pub error: Option<Error>,
}

/// State shared by the game tasks (all on one thread).
struct Shared {
    recent: RecentGames,
    tally: Tally,
    played: u32,
    aborted: u32,
    progress: Box<dyn Progress>,
    error: Option<Error>,
    /// The worst lag seen by each running game so far.
    running_lag: BTreeMap<u32, Duration>,
    /// When `index.html` is rewritten during the run: one rewrite at a time.
    index_rewrites: IndexRewrites,
}

/// What every game task needs.
struct RunContext {
    /// Games being persisted (log synced, verified, journaled): at most `concurrency`, so
    /// that a game's seat is free for the next game while its files are written, and the
    /// finished games waiting for the disk stay bounded.
    finishing: Arc<Semaphore>,
    plan: Arc<Plan>,
    out: OutDir,
    lag: LagMonitor,
    stop: StopTokens,
    journal: Arc<Mutex<Journal>>,
    shared: RefCell<Shared>,
    trace: crate::trace::TraceTarget,
    replays: ReplayPages,
    keep: KeepPolicy,
    /// The free worker slots (one is taken with each game's seat, and given back with it).
    slots: RefCell<Vec<Slot>>,
    /// Kept processes being sent `quit` (a slot had too many, or the run is over).
    retiring: RefCell<JoinSet<()>>,
}

/// One of the places where games are played, with the processes it keeps for their bots' next
/// games: (the bot's index in the plan, its process), the longest idle first.
#[derive(Debug, Default)]
struct Slot {
    kept: Vec<(usize, KeptProcess)>,
}

impl Slot {
    /// How many of the game's two bots have a process here.
    fn holds(&self, game: &ScheduledGame) -> usize {
        let has = |bot: usize| self.kept.iter().any(|(b, _)| *b == bot);
        if game.south == game.north {
            self.kept.iter().filter(|(b, _)| *b == game.south).count().min(2)
        } else {
            usize::from(has(game.south)) + usize::from(has(game.north))
        }
    }

    /// Takes the kept process of `bot`, if any.
    fn take(&mut self, bot: usize) -> Option<KeptProcess> {
        let at = self.kept.iter().position(|(b, _)| *b == bot)?;
        Some(self.kept.remove(at).1)
    }
}

impl RunContext {
    /// The free slot holding the most of `game`'s bots' processes (a new one if none is free,
    /// which happens only after a game failed before giving its slot back).
    fn take_slot(&self, game: &ScheduledGame) -> Slot {
        let mut slots = self.slots.borrow_mut();
        let best = (0..slots.len()).max_by_key(|&i| slots[i].holds(game));
        best.map(|i| slots.swap_remove(i)).unwrap_or_default()
    }

    /// Gives `slot` back with the processes of the game just played, sending `quit` to the
    /// longest idle beyond [`MAX_KEPT_PER_SLOT`].
    fn give_back(&self, mut slot: Slot, game: &ScheduledGame, kept: [Option<KeptProcess>; 2]) {
        for (bot, process) in [game.south, game.north].into_iter().zip(kept) {
            if let Some(process) = process {
                slot.kept.push((bot, process));
            }
        }
        let excess = slot.kept.len().saturating_sub(MAX_KEPT_PER_SLOT);
        for (_, process) in slot.kept.drain(..excess) {
            self.retire(process);
        }
        self.slots.borrow_mut().push(slot);
    }

    /// Sends `quit` to a kept process and ends it, in the background.
    fn retire(&self, process: KeptProcess) {
        self.retiring.borrow_mut().spawn_local(async move {
            process.retire(bao_game::defaults::QUIT_GRACE).await;
        });
    }
}

/// Plays the games of `run.plan` not yet counted in the journal.
///
/// # Errors
/// When the runtime or the signal handlers cannot be set up (a failure
/// during the games is returned in [`RunReport::error`] instead).
pub fn execute(run: Run) -> Result<RunReport, Error> {
    // The bots' private directories are emptied and reused from game to game, not made and
    // removed for every bot; declared first, so dropped last: after the runtime, whose drop
    // waits for the bots' cleanups, it removes the directories kept.
    let _tmp_reuse = bao_supervise::PrivateTmpReuse::start();
    let runtime = bao_game::runtime::build().map_err(Error::Runtime)?;
    let local = tokio::task::LocalSet::new();
    runtime.block_on(local.run_until(execute_async(run)))
}

async fn execute_async(run: Run) -> Result<RunReport, Error> {
    let stop = StopTokens::default();
    signals::install_stop_tokens(&stop).map_err(Error::Signals)?;
    let lag = LagMonitor::start();
    // One bit per game: the games counted before this run, which are not played again.
    let counted = run.tally.counted().clone();
    let pending = run.plan.games_to_play().filter(move |g| !counted.contains(g.game));
    let context = Rc::new(RunContext {
        finishing: Arc::new(Semaphore::new(run.concurrency.max(1))),
        plan: Arc::clone(&run.plan),
        out: run.out,
        lag: lag.clone(),
        stop: stop.clone(),
        journal: Arc::new(Mutex::new(run.journal)),
        trace: run.trace,
        replays: run.replays,
        keep: run.keep,
        slots: RefCell::new((0..run.concurrency.max(1)).map(|_| Slot::default()).collect()),
        retiring: RefCell::new(JoinSet::new()),
        shared: RefCell::new(Shared {
            tally: run.tally,
            recent: run.recent,
            played: 0,
            aborted: 0,
            progress: run.progress,
            error: None,
            running_lag: BTreeMap::new(),
            index_rewrites: IndexRewrites::default(),
        }),
    });
    if let Some(decision) = sprt::decide(&context.plan, &context.shared.borrow().tally) {
        context.shared.borrow().progress.note(&format!("SPRT already decided: {decision}"));
        stop.no_new_games.cancel();
    }
    let announcer = tokio::task::spawn_local(announce_stops(Rc::clone(&context)));
    let lag_poller = tokio::task::spawn_local(poll_lag(Rc::clone(&context)));

    let semaphore = Arc::new(Semaphore::new(run.concurrency.max(1)));
    let mut tasks = JoinSet::new();
    for game in pending {
        let permit = tokio::select! {
            biased;
            () = stop.no_new_games.cancelled() => break,
            permit = Arc::clone(&semaphore).acquire_owned() => permit.map_err(|_| Error::Internal("the game semaphore closed".into()))?,
        };
        while let Some(done) = tasks.try_join_next() {
            reap(&context, done);
        }
        if stop.no_new_games.is_cancelled() {
            break;
        }
        let slot = context.take_slot(&game);
        let context = Rc::clone(&context);
        tasks.spawn_local(async move { play_scheduled(&context, game, permit, slot).await });
    }
    while let Some(done) = tasks.join_next().await {
        reap(&context, done);
    }
    // The processes still kept have no game left: `quit` to each, and wait for them to end.
    for slot in context.slots.take() {
        for (_, process) in slot.kept {
            context.retire(process);
        }
    }
    let mut retiring = context.retiring.take();
    while retiring.join_next().await.is_some() {}
    announcer.abort();
    lag_poller.abort();

    let mut shared = context.shared.borrow_mut();
    shared.progress.finish();
    Ok(RunReport {
        tally: std::mem::take(&mut shared.tally),
        recent: std::mem::take(&mut shared.recent),
        played: shared.played,
        aborted: shared.aborted,
        interrupted: stop.interrupted.is_cancelled(),
        worst_lag: lag.worst(),
        error: shared.error.take(),
    })
}

/// Records the outcome of a finished game task; a failure stops the run.
fn reap(context: &RunContext, done: Result<Result<(), Error>, tokio::task::JoinError>) {
    let failure = match done {
        Ok(Ok(())) => return,
        Ok(Err(e)) => e,
        Err(e) => Error::Internal(format!("a game task failed: {e}")),
    };
    let mut shared = context.shared.borrow_mut();
    shared.progress.note(&format!("error: {failure}; stopping the tournament"));
    if shared.error.is_none() {
        shared.error = Some(failure);
    }
    context.stop.abort();
}

/// Tells the user what a Ctrl-C did.
async fn announce_stops(context: Rc<RunContext>) {
    let stop = &context.stop;
    tokio::select! {
        biased;
        () = stop.interrupted.cancelled() => {}
        () = stop.abort_running.cancelled() => return,
    }
    if !stop.abort_running.is_cancelled() {
        context
            .shared
            .borrow()
            .progress
            .note("interrupted: no new games; the running games will finish (Ctrl-C again to abort them)");
        stop.abort_running.cancelled().await;
    }
    context
        .shared
        .borrow()
        .progress
        .note("aborting the running games (they will be played again on --resume)");
}

/// Folds the monitor's recent lag into every running game's worst lag.
async fn poll_lag(context: Rc<RunContext>) {
    let mut since = Instant::now();
    loop {
        tokio::time::sleep(LAG_POLL).await;
        let now = Instant::now();
        let lag = context.lag.worst_since(since);
        since = now;
        for worst in context.shared.borrow_mut().running_lag.values_mut() {
            *worst = (*worst).max(lag);
        }
    }
}

/// Plays one game of the schedule on `seat` (one of the `concurrency` places of the games
/// being played), frees the seat once the game is over, then verifies its log and journals it.
async fn play_scheduled(
    context: &RunContext,
    game: ScheduledGame,
    seat: tokio::sync::OwnedSemaphorePermit,
    mut slot: Slot,
) -> Result<(), Error> {
    let mut config =
        context.plan.game_config(&game).map_err(|e| Error::Internal(format!("game {}: {e}", game.game)))?;
    config.keep = context.keep;
    let kept = [slot.take(game.south), slot.take(game.north)];
    let path = context.out.log(game.game);
    let started = Instant::now();
    context.shared.borrow_mut().running_lag.insert(game.game, Duration::ZERO);
    let names = [config.south.display_name(), config.north.display_name()];
    let mut observer = TraceObserver(context.trace.open(game.game, names).unwrap_or_else(|e| {
        tracing::warn!("{e}");
        None
    }));
    // A log left by a killed run is overwritten from scratch.
    let outcome =
        executor::play_keeping(&config, kept, &path, &mut observer, &context.stop.abort_running).await;
    if let Err(e) = observer.finish() {
        tracing::warn!("game {}: cannot write its trace: {e}", game.game);
    }
    let seen = context.shared.borrow_mut().running_lag.remove(&game.game).unwrap_or_default();
    let (played, kept) = outcome.map_err(|source| Error::Game { game: game.game, source })?;
    let result = &played.result;
    if let Some(bao_game::AbortCause::RefereeFault(why)) = &result.aborted {
        context.shared.borrow().progress.note(&format!(
            "game {}: aborted by the referee's own failure (not counted, played again on --resume): {why}",
            game.game
        ));
    }
    let worst_lag = seen.max(context.lag.worst_since(started));
    let entry = journal_entry(&context.plan, &game, result, worst_lag);
    // The bots are gone: the seat goes to the next game once this game holds a place among
    // the games being persisted (waiting for one keeps the seat, which bounds them).
    let finishing = Arc::clone(&context.finishing)
        .acquire_owned()
        .await
        .map_err(|_| Error::Internal("the finishing semaphore closed".into()))?;
    // The slot goes back with its processes before the seat: the next game takes both.
    context.give_back(slot, &game, kept);
    drop(seat);
    let journal = Arc::clone(&context.journal);
    let plan = Arc::clone(&context.plan);
    let pages = context.replays;
    let entry =
        tokio::task::spawn_blocking(move || finish_game(&plan, &game, played, pages, entry, &journal))
            .await
            .map_err(|e| Error::Internal(format!("the journal writer panicked: {e}")))??;
    drop(finishing);

    let mut shared = context.shared.borrow_mut();
    if entry.counts() {
        shared.played += 1;
    } else {
        shared.aborted += 1;
    }
    shared.tally.add(&entry);
    let score = shared.tally.score_line();
    shared.progress.game_finished(&entry, &score);
    shared.recent.push(entry);
    let now = Instant::now();
    if shared.index_rewrites.due(now) {
        // On the index's own thread: the page is rebuilt from a copy of the counts and the
        // newest games, one rewrite at a time (crate::index_rewrites).
        let (plan, out) = (Arc::clone(&context.plan), context.out.clone());
        let (tally, recent, pages) = (shared.tally.clone(), shared.recent.clone(), context.replays);
        shared.index_rewrites.start(
            now,
            Box::new(move || {
                let results = crate::results::compute(&plan, &tally, None);
                if let Err(e) = crate::index_page::write_index(&out, &results, &tally, &recent, pages) {
                    tracing::warn!("{e}");
                }
            }),
        );
    }
    let Shared { progress, tally, .. } = &mut *shared;
    let decision =
        if context.stop.no_new_games.is_cancelled() { None } else { sprt::decide(&context.plan, tally) };
    if let Some(decision) = decision {
        progress.note(&format!("SPRT: {decision}; no new games"));
        context.stop.no_new_games.cancel();
    }
    Ok(())
}

/// The journal line of a finished game (not yet verified).
fn journal_entry(
    plan: &Plan,
    game: &ScheduledGame,
    result: &GameResult,
    worst_lag: Duration,
) -> JournalEntry {
    JournalEntry {
        game: game.game,
        pair: game.pair,
        round: game.round,
        pairing: game.pairing,
        south_bot: game.south,
        north_bot: game.north,
        south: plan.bot_name(game.south),
        north: plan.bot_name(game.north),
        opening: game.opening,
        result: result.summary(),
        winner: result.winner,
        reason: result.reason,
        plies: result.plies,
        duration_ms: u64::try_from(result.duration.as_millis()).unwrap_or(u64::MAX),
        log: OutDir::relative_log(game.game),
        verified: false,
        verify_error: None,
        worst_lag_us: u64::try_from(worst_lag.as_micros()).unwrap_or(u64::MAX),
        finished_at: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
    }
}

/// Syncs the log and its folder ([`Played::persist`]), reads it back once, verifies that text
/// (and its header against the plan) and writes the replay page from it, then appends the
/// entry to the journal (fsync).
fn finish_game(
    plan: &Plan,
    game: &ScheduledGame,
    played: Played,
    pages: ReplayPages,
    mut entry: JournalEntry,
    journal: &Mutex<Journal>,
) -> Result<JournalEntry, Error> {
    let path = played.path().to_path_buf();
    played.persist().map_err(|source| Error::Game { game: game.game, source })?;
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read the log: {e}"));
    let verdict = text.as_deref().map_err(Clone::clone).and_then(|text| plan.check_log(game, text)).and_then(
        |verified| {
            if verified.result == entry.result && verified.plies == entry.plies {
                Ok(())
            } else {
                Err(format!(
                    "the log says {} after {} plies, the referee reported {} after {}",
                    verified.result, verified.plies, entry.result, entry.plies
                ))
            }
        },
    );
    entry.verified = verdict.is_ok();
    entry.verify_error = verdict.err();
    if let Ok(text) = &text
        && let Err(e) = replay_pages::write_page(pages, &path, text)
    {
        tracing::warn!("no replay page: {e}");
    }
    let mut journal = journal.lock().map_err(|_| Error::Internal("the journal lock is poisoned".into()))?;
    journal.append(&entry)?;
    Ok(entry)
}
