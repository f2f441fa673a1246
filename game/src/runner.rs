//! The loop that runs one game: spawn, handshake, moves, verdicts, the end.

use std::time::{Duration, Instant, SystemTime};

use bao_rules::{Position, Side, WinReason};
use tokio_util::sync::CancellationToken;

use crate::GameError;

use crate::lag::micros;
use crate::log::{
    BotRecord, CpuRecord, GameLog, Header, LOG_VERSION, LogRecord, Offense, PlyRecord, ReadyRecord, Reported,
    ResultRecord, StderrRecord,
};
use bao_supervise::{BotProcess, BotSpec, SpawnOptions};

use crate::endpoint::{LineEndpoint, SeatEndpoint};
use crate::human::{HumanSeat, RESIGNED};

use crate::judge::{self, Cause, Fault, LineDirection, LineSink};
use crate::kept::{KeptProcess, ProcessRecord};

use crate::wire;
use crate::{Clock, GameConfig, GameResult, Reason};

/// One player's seat: the bot, its clock and what it told us.
struct Seat {
    side: Side,
    spec: BotSpec,
    process: Option<SeatEndpoint>,
    /// A person's seat, until the game starts it (then it is the `process`).
    human: Option<HumanSeat>,
    /// The most lag credited to one move: a person's seat's cap, zero for a bot.
    lag_cap: Duration,
    reported: Option<Reported>,
    next_id: u64,
    clock: Clock,
    exit: String,
    stderr: Option<bao_supervise::StderrCapture>,
    /// The buffer the move requests are written into, reused from ply to ply.
    request: String,
    /// The bot's CPU counter (its cgroup's `cpu.stat`) at the last reading: after its
    /// handshake, then after each of its replies. A move's `cpu_us` runs from this reading to
    /// the one after its reply, so the counter is read once per ply, and CPU a bot uses
    /// between its moves is charged to its next move.
    cpu_mark: Option<Duration>,
    /// A process kept from the bot's earlier games, to be sent this game's `hello`.
    kept: Option<KeptProcess>,
    /// How the seat's process came to the game (fresh or kept), once it runs.
    process_record: Option<ProcessRecord>,
}

impl Seat {
    fn record(&self) -> BotRecord {
        if let Some(human) = &self.human {
            // A person: named as such, with no command.
            return BotRecord {
                name: human.name.clone(),
                command: vec![HUMAN_COMMAND.to_owned()],
                dir: None,
                reported: None,
            };
        }
        BotRecord {
            name: self.spec.display_name(),
            command: self.spec.command_line(),
            dir: self.spec.dir.as_ref().map(|d| d.display().to_string()),
            reported: self.reported.clone(),
        }
    }

    fn name(&self) -> String {
        self.reported.as_ref().map_or_else(|| self.spec.display_name(), |r| r.name.clone())
    }
}

/// What the game loop reports as it goes (for the console, progress bars).
pub trait GameObserver {
    /// A log record was written.
    fn on_record(&mut self, _record: &LogRecord) {}

    /// A protocol line was written to or read from `side`'s bot, at `at` (for `--debug`).
    fn on_line(&mut self, _side: Side, _direction: LineDirection, _line: &str, _at: Instant) {}
}

/// Keeps the lines of one handshake with their times.
#[derive(Default)]
struct BufferedLines(Vec<(LineDirection, String, Instant)>);

impl LineSink for BufferedLines {
    fn line(&mut self, direction: LineDirection, line: &str) {
        self.0.push((direction, line.to_owned(), Instant::now()));
    }
}

/// Passes one seat's lines to the observer.
struct SeatLines<'a> {
    side: Side,
    observer: &'a mut dyn GameObserver,
}

impl LineSink for SeatLines<'_> {
    fn line(&mut self, direction: LineDirection, line: &str) {
        self.observer.on_line(self.side, direction, line, Instant::now());
    }
}

/// An observer that ignores everything.
#[derive(Debug, Default)]
pub struct Silent;

impl GameObserver for Silent {}

/// What the log's header records as a human seat's command: a person, not a program.
pub const HUMAN_COMMAND: &str = "(a person)";

/// Plays one game as configured, writing the log as it goes.
///
/// A bot's misbehaviour is a verdict in the result, never an error. The
/// error case is the referee's own failure (the log could not be written).
/// When `cancel` fires the game stops at once and is recorded as aborted.
///
/// # Errors
/// I/O errors writing the log.
pub async fn play_game(
    config: &GameConfig,
    log: &mut GameLog,
    observer: &mut dyn GameObserver,
    cancel: &CancellationToken,
) -> Result<GameResult, GameError> {
    play_game_with_seats(config, [None, None], log, observer, cancel).await
}

/// A game's result, with the bots' processes that may play another game.
#[derive(Debug)]
pub struct GameOutcome {
    /// How the game ended.
    pub result: GameResult,
    /// South's and North's processes, still running, when they may be kept for their bot's
    /// next game ([`crate::kept`]); `None` where the process was ended.
    pub kept: [Option<KeptProcess>; 2],
}

/// Plays one game as [`play_game`] does, in the processes of `kept` (South's, North's) where
/// given and still able to play (a new process otherwise), and returns the processes that may
/// be kept for another game: those of bots that declared `"games":"many"` and did nothing
/// wrong, as `config.keep` allows ([`crate::kept`]).
///
/// # Errors
/// I/O errors writing the log.
pub async fn play_game_keeping(
    config: &GameConfig,
    kept: [Option<KeptProcess>; 2],
    log: &mut GameLog,
    observer: &mut dyn GameObserver,
    cancel: &CancellationToken,
) -> Result<GameOutcome, GameError> {
    play(config, [None, None], kept, log, observer, cancel).await
}

/// Plays one game as [`play_game`] does, with a person in each seat given in `humans` (South's,
/// North's) instead of the bot of `config` there: the same judge, clocks and log (see
/// [`crate::human`]).
///
/// # Errors
/// I/O errors writing the log.
pub async fn play_game_with_seats(
    config: &GameConfig,
    humans: [Option<HumanSeat>; 2],
    log: &mut GameLog,
    observer: &mut dyn GameObserver,
    cancel: &CancellationToken,
) -> Result<GameResult, GameError> {
    Ok(play(config, humans, [None, None], log, observer, cancel).await?.result)
}

/// The one game loop behind [`play_game`], [`play_game_with_seats`] and [`play_game_keeping`].
async fn play(
    config: &GameConfig,
    mut humans: [Option<HumanSeat>; 2],
    mut kept: [Option<KeptProcess>; 2],
    log: &mut GameLog,
    observer: &mut dyn GameObserver,
    cancel: &CancellationToken,
) -> Result<GameOutcome, GameError> {
    let started = Instant::now();
    let started_at = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    let mut seats = [Side::South, Side::North].map(|side| Seat {
        side,
        spec: if side == Side::South { config.south.clone() } else { config.north.clone() },
        process: None,
        lag_cap: humans[side.index()].as_ref().map_or(Duration::ZERO, |h| h.max_lag_credit),
        human: humans[side.index()].take(),
        reported: None,
        next_id: 1,
        clock: Clock::new(config.time_for(side)),
        exit: "not started".to_owned(),
        stderr: None,
        request: String::new(),
        cpu_mark: None,
        kept: kept[side.index()].take(),
        process_record: None,
    });
    let mut position = config.start;
    let mut plies: u32 = 0;

    // The header comes before the bots are started: a referee killed at any moment leaves a
    // log that `verify` calls incomplete, never unreadable.
    let [south, north] = &seats;
    let header = header_record(config, south, north, &started_at);
    log.write(&header)?;
    observer.on_record(&header);

    let ending = tokio::select! {
        biased;
        () = cancel.cancelled() => Ending::Aborted,
        ending = run(config, &mut seats, &mut position, &mut plies, log, observer) => ending?,
    };
    if config.no_ponder {
        // Both run again to read the end and quit by themselves.
        for seat in &seats {
            thaw(seat);
        }
    }

    // Which processes may play another game: never after an abort or a fault of their bot.
    let faulted = match &ending {
        Ending::Rules { .. } | Ending::MaxPlies => [false, false],
        Ending::Fault(f) => [f.side == Side::South, f.side == Side::North],
        Ending::Aborted | Ending::RefereeFault(_) | Ending::BothFailed(..) => [true, true],
    };
    let keep = [0, 1].map(|i| !faulted[i] && may_keep(config, &seats[i]));
    let ending_kind = match &ending {
        Ending::Aborted => EndingKind::Interrupted,
        Ending::RefereeFault(_) => EndingKind::RefereeFault,
        _ => EndingKind::Other,
    };
    // Announce the end, ask both to quit, and end both process trees.
    let (winner, reason, detail, offense) = match ending {
        Ending::Rules { winner, reason } => {
            let reason = match reason {
                WinReason::FrontRowEmpty => Reason::FrontRowEmpty,
                WinReason::NoLegalMoves => Reason::NoLegalMoves,
            };
            (Some(winner), reason, String::new(), None)
        }
        Ending::MaxPlies => (None, Reason::MaxPlies, format!("adjudicated a draw after {plies} plies"), None),
        Ending::Aborted => (None, Reason::Aborted, "the referee was interrupted".to_owned(), None),
        Ending::RefereeFault(why) => (
            None,
            Reason::Aborted,
            format!("the referee could not start a bot (not the bot's fault): {why}"),
            None,
        ),
        Ending::Fault(f) => {
            let offense = Offense { side: f.side, line: f.line, mv: f.mv, time_us: f.time_us };
            let detail = format!("{} ({}): {}", f.side, seats[f.side.index()].name(), f.detail);
            (Some(f.side.opponent()), f.reason, detail, Some(offense))
        }
        Ending::BothFailed(a, b) => {
            // Neither started: one verdict for both, whatever limit either broke.
            let detail = format!("both bots failed: S: {}; N: {}", a.detail, b.detail);
            (None, Reason::HandshakeFailed, detail, None)
        }
    };
    tracing::info!(reason = %reason, winner = ?winner, plies, detail = %detail, "game over");
    let aborted = match &ending_kind {
        EndingKind::Interrupted => Some(crate::reason::AbortCause::Interrupted),
        EndingKind::RefereeFault => Some(crate::reason::AbortCause::RefereeFault(detail.clone())),
        EndingKind::Other => None,
    };
    let result = GameResult {
        aborted,
        winner,
        reason,
        detail: detail.clone(),
        plies,
        duration: Duration::ZERO,
        names: [seats[0].name(), seats[1].name()],
        final_position: position,
    };
    let summary = result.summary();
    let game_over = wire::game_over_line(&summary, winner, reason, plies);
    let grace = config.quit_grace;
    let [south, north] = &mut seats;
    let ((south_sent, south_kept), (north_sent, north_kept)) =
        tokio::join!(finish(south, &game_over, grace, keep[0]), finish(north, &game_over, grace, keep[1]));
    let mut farewells: Vec<(Side, String, Instant)> = south_sent
        .into_iter()
        .map(|(line, at)| (Side::South, line, at))
        .chain(north_sent.into_iter().map(|(line, at)| (Side::North, line, at)))
        .collect();
    farewells.sort_by_key(|(_, _, at)| *at);
    for (side, line, at) in farewells {
        observer.on_line(side, LineDirection::Sent, &line, at);
    }

    for seat in &seats {
        if let Some(stderr) = &seat.stderr {
            // Bounded in the log's bytes, not the bot's: a NUL is six bytes there (`\u0000`).
            let (text, truncated) = stderr.log_text(config.stderr_cap);
            let record = LogRecord::Stderr(StderrRecord {
                side: seat.side,
                bytes_total: stderr.total_bytes,
                truncated,
                text,
            });
            log.write(&record)?;
        }
    }
    let duration = started.elapsed();
    let record = LogRecord::Result(ResultRecord {
        result: summary,
        winner,
        reason,
        detail,
        plies,
        duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
        final_position: wire::notation(&position),
        offense,
        exits: [seats[0].exit.clone(), seats[1].exit.clone()],
    });
    log.write(&record)?;
    observer.on_record(&record);
    Ok(GameOutcome { result: GameResult { duration, ..result }, kept: [south_kept, north_kept] })
}

/// Whether the seat's process may be kept for another game, its bot having done nothing wrong:
/// the run allows it, the bot declared it, the process runs and has room for another game.
fn may_keep(config: &GameConfig, seat: &Seat) -> bool {
    let declared = seat.reported.as_ref().is_some_and(|r| r.games == bao_protocol::GamesPerProcess::Many);
    let running = seat
        .process
        .as_ref()
        .and_then(SeatEndpoint::process)
        .is_some_and(|process| process.exit_report().is_none());
    let games_played = seat.process_record.as_ref().map_or(0, |r| r.games_before) + 1;
    declared && running && config.keep.allows(&config.limits) && config.keep.room_for_another(games_played)
}

/// How the game loop ended.
enum Ending {
    /// The rules ended the game.
    Rules {
        winner: Side,
        reason: WinReason,
    },
    MaxPlies,
    Aborted,
    /// The referee or the machine could not start a bot (the sentence says why).
    RefereeFault(String),
    Fault(Fault),
    BothFailed(Fault, Fault),
}

/// Which kind of ending, kept past the match that consumes it.
enum EndingKind {
    Interrupted,
    RefereeFault,
    Other,
}

/// Why a bot could not be started.
enum StartError {
    /// Its own fault: the verdict.
    Bot(Fault),
    /// The referee's or the machine's (no descriptors, memory, disk...): a sentence.
    Referee(String),
}

/// Sends game_over and quit (best effort) and ends the bot's process tree; or, if `keep`,
/// sends only game_over and returns the process, still running, for the bot's next game.
/// Returns the lines it wrote, with their times (for [`GameObserver::on_line`]).
async fn finish(
    seat: &mut Seat,
    game_over: &str,
    grace: Duration,
    keep: bool,
) -> (Vec<(String, Instant)>, Option<KeptProcess>) {
    let mut sent = Vec::new();
    let Some(mut endpoint) = seat.process.take() else { return (sent, None) };
    let deadline = tokio::time::Instant::now() + grace;
    let at = Instant::now();
    if endpoint.send_line(game_over, deadline).await.is_ok() {
        sent.push((game_over.to_owned(), at));
        if keep && let (SeatEndpoint::Bot(process), Some(record)) = (&endpoint, &seat.process_record) {
            let games_played = record.games_before + 1;
            seat.exit = format!("kept running for a next game ({games_played} games played in this process)");
            seat.stderr = Some(process.take_stderr());
            let SeatEndpoint::Bot(process) = endpoint else { return (sent, None) };
            let spawned_at = record.spawned_at.clone();
            return (sent, Some(KeptProcess { process, spec: seat.spec.clone(), games_played, spawned_at }));
        }
        let quit = wire::quit_line();
        let at = Instant::now();
        if endpoint.send_line(&quit, deadline).await.is_ok() {
            sent.push((quit, at));
        }
    }
    let process = match endpoint {
        SeatEndpoint::Bot(process) => *process,
        SeatEndpoint::Human(_) => {
            seat.exit = "a person: no process".to_owned();
            return (sent, None);
        }
    };
    let (report, stderr) = process.shutdown_with_stderr(grace).await;
    seat.exit = report.to_string();
    seat.stderr = Some(stderr);
    (sent, None)
}

/// Spawns both bots, runs the handshake, records what they reported, then plays.
async fn run(
    config: &GameConfig,
    seats: &mut [Seat; 2],
    position: &mut Position,
    plies: &mut u32,
    log: &mut GameLog,
    observer: &mut dyn GameObserver,
) -> Result<Ending, GameError> {
    let [south, north] = seats;
    // Both handshakes run at once: their lines are kept and passed on in time order.
    let mut south_lines = BufferedLines::default();
    let mut north_lines = BufferedLines::default();
    let (s, n) =
        tokio::join!(start_bot(south, config, &mut south_lines), start_bot(north, config, &mut north_lines));
    let mut handshake_lines: Vec<_> = south_lines
        .0
        .into_iter()
        .map(|l| (Side::South, l))
        .chain(north_lines.0.into_iter().map(|l| (Side::North, l)))
        .collect();
    handshake_lines.sort_by_key(|(_, (_, _, at))| *at);
    for (side, (direction, line, at)) in handshake_lines {
        observer.on_line(side, direction, &line, at);
    }
    for seat in [&*south, &*north] {
        if let Some(reported) = &seat.reported {
            let record = LogRecord::Ready(ReadyRecord {
                side: seat.side,
                reported: reported.clone(),
                process: seat.process_record.clone(),
            });
            log.write(&record)?;
            observer.on_record(&record);
        }
    }
    // The referee's own failure first: it says nothing of either bot.
    match (s, n) {
        (Ok(()), Ok(())) if config.no_ponder => {
            // Neither thinks before its first request.
            freeze_until_next_line(south);
            freeze_until_next_line(north);
        }
        (Ok(()), Ok(())) => {}
        (Err(StartError::Referee(a)), Err(StartError::Referee(b))) => {
            return Ok(Ending::RefereeFault(format!("{a}; {b}")));
        }
        (Err(StartError::Referee(why)), _) | (_, Err(StartError::Referee(why))) => {
            return Ok(Ending::RefereeFault(why));
        }
        (Err(StartError::Bot(f)), Ok(())) | (Ok(()), Err(StartError::Bot(f))) => return Ok(Ending::Fault(f)),
        (Err(StartError::Bot(a)), Err(StartError::Bot(b))) => return Ok(Ending::BothFailed(a, b)),
    }

    // The ply record, reused from ply to ply (its strings keep their buffers); its move is
    // the last move, which the next request names.
    let mut record = LogRecord::Ply(PlyRecord {
        ply: 0,
        side: Side::South,
        mv: String::new(),
        time_us: 0,
        cpu_us: None,
        clock_ms: [0, 0],
        position: String::new(),
        lag_excused_us: None,
        lag_credit_us: None,
        info: Vec::new(),
    });
    loop {
        // The rules' endings first, then adjudication.
        if let Some(loser) = Side::ALL.into_iter().find(|&s| position.front_row_empty(s)) {
            return Ok(Ending::Rules { winner: loser.opponent(), reason: WinReason::FrontRowEmpty });
        }
        // Every legal move with its result, computed once per ply.
        let successors = position.successors();
        if successors.is_empty() {
            let winner = position.side_to_move().opponent();
            return Ok(Ending::Rules { winner, reason: WinReason::NoLegalMoves });
        }
        if config.max_plies.is_some_and(|max| *plies >= max) {
            return Ok(Ending::MaxPlies);
        }
        let side = position.side_to_move();
        let (mover, other) =
            if side == Side::South { (&mut *south, &*north) } else { (&mut *north, &*south) };
        let last_move = match &record {
            LogRecord::Ply(last) if *plies > 0 => Some(last.mv.as_str()),
            _ => None,
        };
        let turn = Turn { position, successors: &successors, ply: *plies, last_move };
        let mut lines = SeatLines { side, observer: &mut *observer };
        let played = match play_one(mover, other.clock.left(), config, &turn, &mut lines).await {
            Ok(played) => played,
            Err(fault) => return Ok(Ending::Fault(fault)),
        };
        if config.no_ponder {
            // From the arrival of its move until its next request is in its pipe (thawed by
            // that write, inside the time of its next move: a bot runs only in its own time).
            freeze_until_next_line(mover);
        }
        *plies += 1;
        *position = played.next;
        if let LogRecord::Ply(ply) = &mut record {
            ply.ply = *plies;
            ply.side = side;
            ply.mv.clear();
            wire::push_move(&mut ply.mv, played.mv);
            ply.time_us = micros(played.used);
            ply.cpu_us = played.cpu.map(micros);
            ply.lag_credit_us = played.lag_credit.map(micros);
            ply.clock_ms = [south.clock.left(), north.clock.left()]
                .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
            ply.position.clear();
            wire::push_notation(&mut ply.position, position);
            ply.info = played.info;
            tracing::debug!(ply = *plies, side = %side, mv = %ply.mv, used_us = played.used.as_micros(), "ply");
        }
        log.write(&record)?;
        observer.on_record(&record);
    }
}

/// The header record of the game's log.
fn header_record(config: &GameConfig, south: &Seat, north: &Seat, started_at: &str) -> LogRecord {
    LogRecord::Header(Header {
        log_version: LOG_VERSION,
        rules_revision: Some(bao_rules::RULES_REVISION),
        referee: format!("bao-referee {}", env!("CARGO_PKG_VERSION")),
        variant: config.start.variant().to_string(),
        start: wire::notation(&config.start),
        south: south.record(),
        north: north.record(),
        time_control: config.time,
        time_controls: config.distinct_times(),
        max_plies: config.max_plies,
        seed: config.seed,
        limits: config.limits,
        started_at: started_at.to_owned(),
        cpu: Some(cpu_record(config)),
        max_lag_credit_us: (!south.lag_cap.is_zero() || !north.lag_cap.is_zero())
            .then(|| [micros(south.lag_cap), micros(north.lag_cap)]),
    })
}

/// How the bots' CPU is held in this game, for the header.
fn cpu_record(config: &GameConfig) -> CpuRecord {
    let machine = bao_supervise::cpu_confinement();
    let (confined, detail) = match (config.limits.cpus, &machine.limit) {
        (None, _) => (false, "no CPU limit was asked for".to_owned()),
        (Some(cpus), Ok(by)) => (true, format!("{cpus} CPU per bot by {by}")),
        (Some(_), Err(why)) => (false, why.clone()),
    };
    CpuRecord { confined, detail, no_ponder: config.no_ponder }
}

/// Freezes the seat's bot until its next line is written (`--no-ponder`). A failure is the
/// referee's, never the bot's: it is logged and the game goes on.
fn freeze_until_next_line(seat: &mut Seat) {
    let Some(process) = seat.process.as_mut().and_then(SeatEndpoint::process_mut) else { return };
    if let Err(e) = process.freeze_until_next_line() {
        tracing::warn!(side = %seat.side, "cannot freeze the bot: {e}");
    }
}

/// Thaws the seat's bot (a failure is logged).
fn thaw(seat: &Seat) {
    if let Some(process) = seat.process.as_ref().and_then(SeatEndpoint::process)
        && let Err(e) = process.thaw()
    {
        tracing::warn!(side = %seat.side, "cannot thaw the bot: {e}");
    }
}

/// Spawns one bot and runs its handshake.
async fn start_bot(seat: &mut Seat, config: &GameConfig, lines: &mut dyn LineSink) -> Result<(), StartError> {
    let side = seat.side;
    if let Some(human) = seat.human.take() {
        return start_human(seat, human, config, lines).await;
    }
    // A process kept from the bot's earlier games gets this game's hello; otherwise a new one.
    let (mut process, games_before, spawned_at) = match seat.kept.take() {
        Some(kept) if kept.spec == seat.spec => {
            seat.exit = "kept from its earlier games; killed when the referee was interrupted during the \
                         handshake"
                .to_owned();
            (kept.process, kept.games_played, kept.spawned_at)
        }
        _ => {
            let spawned_at = humantime::format_rfc3339_millis(SystemTime::now()).to_string();
            (Box::new(spawn(seat, config).await?), 0, spawned_at)
        }
    };
    if config.keep.allows(&config.limits) {
        let fresh = games_before == 0;
        seat.process_record = Some(ProcessRecord { fresh, games_before, pid: process.pid(), spawned_at });
    }
    let time = config.time_for(side);
    let deadline = tokio::time::Instant::now() + time.startup;
    let hello = wire::hello_line(side, &config.start, &time);
    tracing::debug!(side = %side, pid = process.pid(), supervision = %process.supervision(), games_before, "bot started");
    let result = judge::handshake(&mut *process, side, &hello, deadline, lines).await;
    match &result {
        Ok(r) => tracing::info!(side = %side, name = %r.name, "bot ready"),
        Err(f) => tracing::info!(side = %side, detail = %f.detail, "handshake failed"),
    }
    // The first move's CPU is counted from here (see `Seat::cpu_mark`).
    seat.cpu_mark = cpu_reading(&process);
    seat.process = Some(SeatEndpoint::Bot(process));
    let ready = result.map_err(StartError::Bot)?;
    seat.reported =
        Some(Reported { name: ready.name, author: ready.author, version: ready.version, games: ready.games });
    Ok(())
}

/// Spawns a new process for the seat's bot.
async fn spawn(seat: &mut Seat, config: &GameConfig) -> Result<BotProcess, StartError> {
    let side = seat.side;
    let options = SpawnOptions {
        stderr_cap: config.stderr_cap,
        isolation: config.isolation,
        sandbox: config.sandbox.clone(),
        // The protocol's limit: bao-supervise moves lines and knows no protocol.
        max_line_bytes: bao_protocol::MAX_LINE_BYTES,
        ..SpawnOptions::default()
    };
    let process = BotProcess::spawn_with(&seat.spec, &config.limits, &options).await.map_err(|e| {
        let detail = format!("could not start {:?}: {e}", seat.spec.program);
        if e.is_referee_fault() {
            tracing::warn!(side = %side, "{detail} (the referee's fault: the game is aborted)");
            return StartError::Referee(format!("{side}: {detail}"));
        }
        StartError::Bot(Fault::new(
            side,
            Reason::HandshakeFailed,
            detail,
            Cause::Process(bao_supervise::BotFault::Io(e.to_string())),
        ))
    })?;
    // Kept only if the game is aborted during the handshake (the process is then dropped,
    // which kills it); `finish` replaces it with how the bot ended otherwise.
    seat.exit = "started; killed when the referee was interrupted during the handshake".to_owned();
    Ok(process)
}

/// Runs a person's handshake: the same `hello` and `ready` as a bot's, within the startup time.
async fn start_human(
    seat: &mut Seat,
    human: HumanSeat,
    config: &GameConfig,
    lines: &mut dyn LineSink,
) -> Result<(), StartError> {
    let side = seat.side;
    let name = human.name.clone();
    let mut endpoint = SeatEndpoint::Human(human);
    seat.exit = "a person".to_owned();
    let time = config.time_for(side);
    let deadline = tokio::time::Instant::now() + time.startup;
    let hello = wire::hello_line(side, &config.start, &time);
    let result = judge::handshake(&mut endpoint, side, &hello, deadline, lines).await;
    seat.process = Some(endpoint);
    let ready = result.map_err(StartError::Bot)?;
    // The person's name is the one the seat was given, whatever the relay reported.
    seat.reported = Some(Reported { name, author: ready.author, version: ready.version, games: ready.games });
    Ok(())
}

/// The bot's CPU counter, from its cgroup's `cpu.stat` only: walking /proc for a bot with
/// many processes would stall the thread that times every other bot.
fn cpu_reading(process: &BotProcess) -> Option<Duration> {
    if process.supervision().cgroup.is_some() { process.cpu_time() } else { None }
}

/// A move that was played.
struct Played {
    mv: bao_rules::Move,
    next: Position,
    used: Duration,
    cpu: Option<Duration>,
    /// The lag credited to a person's move (`None`: a seat without lag compensation).
    lag_credit: Option<Duration>,
    info: Vec<bao_protocol::Info>,
}

/// What the mover is asked to move from.
struct Turn<'a> {
    position: &'a Position,
    successors: &'a [(bao_rules::Move, Position)],
    ply: u32,
    last_move: Option<&'a str>,
}

/// Asks the bot to move, judges its reply, charges its clock.
async fn play_one(
    seat: &mut Seat,
    opponent_left: Duration,
    config: &GameConfig,
    turn: &Turn<'_>,
    lines: &mut dyn LineSink,
) -> Result<Played, Fault> {
    let position = turn.position;
    let side = seat.side;
    let Some(process) = seat.process.as_mut() else {
        return Err(Fault::new(
            side,
            Reason::BotExited,
            "the bot is not running",
            Cause::Process(bao_supervise::BotFault::StdoutClosed),
        ));
    };
    let id = seat.next_id;
    seat.next_id += 1;
    let (you, opponent, ply, tc) = (seat.clock.left(), opponent_left, turn.ply, &config.time_for(side));
    let request =
        wire::MoveRequestLine { id, ply, position, opponent_move: turn.last_move, you, opponent, tc };
    request.write(turn.successors.iter().map(|(m, _)| m), &mut seat.request);
    // A person's move may arrive up to the lag cap later: its credit is known on arrival.
    let allowed = seat.clock.allowed() + seat.lag_cap;
    let answer =
        judge::ask_move(process, side, &seat.request, id, allowed, lines).await.map_err(|mut fault| {
            if matches!(&*fault.cause, Cause::Process(bao_supervise::BotFault::Io(why)) if why == RESIGNED) {
                RESIGNED.clone_into(&mut fault.detail);
            }
            if matches!(&*fault.cause, Cause::NoAnswer { .. }) && !seat.lag_cap.is_zero() {
                fault.detail = format!(
                    "no move within {} ms (time left plus margin, plus the {} ms a move's lag credit may \
                     reach)",
                    allowed.as_millis(),
                    seat.lag_cap.as_millis()
                );
            }
            fault
        })?;
    // One reading per ply: this move's "after" is the next one's "before".
    let cpu_after = process.process().and_then(cpu_reading);
    let cpu = cpu_after.zip(seat.cpu_mark).map(|(after, before)| after.saturating_sub(before));
    seat.cpu_mark = cpu_after;
    // Lag compensation: the round trip measured to a person's page when the move was sent,
    // up to the seat's cap and the move's time, in whole microseconds as the log records it.
    let lag_credit = (!seat.lag_cap.is_zero()).then(|| {
        let credit = process.measured_lag().min(seat.lag_cap).min(answer.used);
        Duration::from_micros(micros(credit))
    });
    judge::charge_with_credit(&mut seat.clock, side, &answer, lag_credit.unwrap_or_default())?;
    let (mv, next) = judge::judge_move(side, position, turn.successors, &answer)?;
    Ok(Played { mv, next, used: answer.used, cpu, lag_credit, info: answer.info })
}
