//! The loop that runs one game: spawn, handshake, moves, verdicts, the end.

use std::time::{Duration, Instant, SystemTime};

use bao_rules::{MoveText, Position, Side, WinReason};
use tokio_util::sync::CancellationToken;

use crate::GameError;

use crate::log::{
    BotRecord, GameLog, Header, LOG_VERSION, LogRecord, Offense, PlyRecord, Reported, ResultRecord,
    StderrRecord,
};
use bao_protocol::BotMessage;
use bao_supervise::{BotFault, BotProcess, BotSpec, SpawnOptions};

use crate::wire;
use crate::{Clock, GameConfig, GameResult, Reason};

/// The longest excerpt of a bot's line kept in a verdict.
const OFFENSE_EXCERPT_BYTES: usize = 512;

/// A verdict against one bot.
#[derive(Debug)]
struct Fault {
    side: Side,
    reason: Reason,
    detail: String,
    line: Option<String>,
    mv: Option<String>,
}

impl Fault {
    fn new(side: Side, reason: Reason, detail: impl Into<String>) -> Fault {
        Fault { side, reason, detail: detail.into(), line: None, mv: None }
    }

    fn with_line(mut self, line: &str) -> Fault {
        self.line = Some(excerpt(line));
        self
    }

    /// A fault from the process layer, during play or (if `handshake`) the handshake.
    fn from_bot(side: Side, fault: BotFault, handshake: bool) -> Fault {
        let reason = if handshake { Reason::HandshakeFailed } else { crate::reason::for_fault(&fault) };
        let detail = if handshake { format!("during the handshake: {fault}") } else { fault.to_string() };
        Fault::new(side, reason, detail)
    }
}

/// The first bytes of a line, cut at a character boundary.
fn excerpt(line: &str) -> String {
    if line.len() <= OFFENSE_EXCERPT_BYTES {
        return line.to_owned();
    }
    let mut end = OFFENSE_EXCERPT_BYTES;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &line[..end], line.len())
}

/// One player's seat: the bot, its clock and what it told us.
struct Seat {
    side: Side,
    spec: BotSpec,
    process: Option<BotProcess>,
    reported: Option<Reported>,
    next_id: u64,
    clock: Clock,
    exit: String,
    stderr: Option<bao_supervise::StderrCapture>,
}

impl Seat {
    fn record(&self) -> BotRecord {
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
}

/// An observer that ignores everything.
#[derive(Debug, Default)]
pub struct Silent;

impl GameObserver for Silent {}

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
    let started = Instant::now();
    let started_at = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    let mut seats = [Side::South, Side::North].map(|side| Seat {
        side,
        spec: if side == Side::South { config.south.clone() } else { config.north.clone() },
        process: None,
        reported: None,
        next_id: 1,
        clock: Clock::new(config.time),
        exit: "not started".to_owned(),
        stderr: None,
    });
    let mut position = config.start;
    let mut plies: u32 = 0;
    let mut header_written = false;

    let ending = tokio::select! {
        biased;
        () = cancel.cancelled() => Ending::Aborted,
        ending = run(config, &mut seats, &mut position, &mut plies, &mut header_written, log, observer, &started_at) => ending?,
    };
    if !header_written {
        // Interrupted during start-up: the log still begins with its header.
        let [south, north] = &seats;
        let header = header_record(config, south, north, &started_at);
        log.write(&header)?;
        observer.on_record(&header);
    }

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
        Ending::Fault(f) => {
            let offense = Offense { side: f.side.to_string(), line: f.line, mv: f.mv };
            let detail = format!("{} ({}): {}", f.side, seats[f.side.index()].name(), f.detail);
            (Some(f.side.opponent()), f.reason, detail, Some(offense))
        }
        Ending::BothFailed(a, b) => {
            let detail = format!("both bots failed: S: {}; N: {}", a.detail, b.detail);
            (None, a.reason, detail, None)
        }
    };
    tracing::info!(reason = %reason, winner = ?winner, plies, detail = %detail, "game over");
    let result = GameResult {
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
    tokio::join!(finish(south, &game_over, grace), finish(north, &game_over, grace));

    for seat in &seats {
        if let Some(stderr) = &seat.stderr {
            let record = LogRecord::Stderr(StderrRecord {
                side: seat.side.to_string(),
                bytes_total: stderr.total_bytes,
                truncated: stderr.truncated,
                text: stderr.text(),
            });
            log.write(&record)?;
        }
    }
    let duration = started.elapsed();
    let record = LogRecord::Result(ResultRecord {
        result: summary,
        winner: winner.map(|w| w.to_string()),
        reason,
        detail,
        plies,
        duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
        final_position: position.to_string(),
        offense,
        exits: [seats[0].exit.clone(), seats[1].exit.clone()],
    });
    log.write(&record)?;
    observer.on_record(&record);
    Ok(GameResult { duration, ..result })
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
    Fault(Fault),
    BothFailed(Fault, Fault),
}

/// Sends game_over and quit (best effort) and ends the bot's process tree.
async fn finish(seat: &mut Seat, game_over: &str, grace: Duration) {
    let Some(mut process) = seat.process.take() else { return };
    let deadline = tokio::time::Instant::now() + grace;
    if process.send_line(game_over, deadline).await.is_ok() {
        let _ = process.send_line(&wire::quit_line(), deadline).await;
    }
    let (report, stderr) = process.shutdown_with_stderr(grace).await;
    seat.exit = report.to_string();
    seat.stderr = Some(stderr);
}

/// Spawns both bots, runs the handshake, writes the header, then plays.
#[expect(clippy::too_many_arguments, reason = "the game's state, shared with the abort path")]
async fn run(
    config: &GameConfig,
    seats: &mut [Seat; 2],
    position: &mut Position,
    plies: &mut u32,
    header_written: &mut bool,
    log: &mut GameLog,
    observer: &mut dyn GameObserver,
    started_at: &str,
) -> Result<Ending, GameError> {
    let [south, north] = seats;
    let (s, n) = tokio::join!(start_bot(south, config), start_bot(north, config));
    let header = header_record(config, south, north, started_at);
    log.write(&header)?;
    *header_written = true;
    observer.on_record(&header);
    match (s, n) {
        (Ok(()), Ok(())) => {}
        (Err(f), Ok(())) | (Ok(()), Err(f)) => return Ok(Ending::Fault(f)),
        (Err(a), Err(b)) => return Ok(Ending::BothFailed(a, b)),
    }

    let mut last_move: Option<String> = None;
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
        let turn = Turn { position, successors: &successors, ply: *plies, last_move: last_move.as_deref() };
        let played = match play_one(mover, other.clock.left(), config, &turn).await {
            Ok(played) => played,
            Err(fault) => return Ok(Ending::Fault(fault)),
        };
        *plies += 1;
        *position = played.next;
        let mv = played.mv.to_string();
        let clock_ms = [south.clock.left(), north.clock.left()]
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let record = LogRecord::Ply(PlyRecord {
            ply: *plies,
            side: side.to_string(),
            mv: mv.clone(),
            time_us: u64::try_from(played.used.as_micros()).unwrap_or(u64::MAX),
            cpu_us: played.cpu.map(|d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX)),
            clock_ms,
            position: position.to_string(),
            lag_excused_us: played.lag_excused.map(|d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX)),
            info: played.info,
        });
        log.write(&record)?;
        tracing::debug!(ply = *plies, side = %side, mv = %mv, used_us = played.used.as_micros(), "ply");
        observer.on_record(&record);
        last_move = Some(mv);
    }
}

/// The header record of the game's log.
fn header_record(config: &GameConfig, south: &Seat, north: &Seat, started_at: &str) -> LogRecord {
    LogRecord::Header(Header {
        log_version: LOG_VERSION,
        referee: format!("bao-referee {}", env!("CARGO_PKG_VERSION")),
        variant: config.start.variant().to_string(),
        start: config.start.to_string(),
        south: south.record(),
        north: north.record(),
        time_control: config.time,
        max_plies: config.max_plies,
        seed: config.seed,
        limits: config.limits,
        started_at: started_at.to_owned(),
    })
}

/// Spawns one bot and runs its handshake.
async fn start_bot(seat: &mut Seat, config: &GameConfig) -> Result<(), Fault> {
    let side = seat.side;
    let options = SpawnOptions {
        stderr_cap: config.stderr_cap,
        isolation: config.isolation,
        ..SpawnOptions::default()
    };
    let mut process = BotProcess::spawn_with(&seat.spec, &config.limits, &options).await.map_err(|e| {
        Fault::new(side, Reason::HandshakeFailed, format!("could not start {:?}: {e}", seat.spec.program))
    })?;
    let deadline = tokio::time::Instant::now() + config.time.startup;
    let hello = wire::hello_line(side, &config.start, &config.time);
    tracing::debug!(side = %side, pid = process.pid(), supervision = %process.supervision(), "bot started");
    let result = handshake(&mut process, side, &hello, deadline).await;
    match &result {
        Ok(r) => tracing::info!(side = %side, name = %r.name, "bot ready"),
        Err(f) => tracing::info!(side = %side, detail = %f.detail, "handshake failed"),
    }
    seat.process = Some(process);
    seat.reported = Some(result?);
    Ok(())
}

async fn handshake(
    process: &mut BotProcess,
    side: Side,
    hello: &str,
    deadline: tokio::time::Instant,
) -> Result<Reported, Fault> {
    process.send_line(hello, deadline).await.map_err(|f| Fault::from_bot(side, f, true))?;
    loop {
        let line = process.recv_line(deadline).await.map_err(|f| Fault::from_bot(side, f, true))?;
        match BotMessage::parse(&line) {
            Ok(BotMessage::Ready(r)) => {
                return Ok(Reported { name: r.name, author: r.author, version: r.version });
            }
            Ok(BotMessage::Info(_)) => {}
            Ok(other) => {
                return Err(Fault::new(
                    side,
                    Reason::HandshakeFailed,
                    format!("expected a ready message, got a {} message", other.message_type()),
                )
                .with_line(&line));
            }
            Err(e) => {
                return Err(Fault::new(side, Reason::HandshakeFailed, format!("instead of ready: {e}"))
                    .with_line(&line));
            }
        }
    }
}

/// A move that was played.
struct Played {
    mv: bao_rules::Move,
    next: Position,
    used: Duration,
    cpu: Option<Duration>,
    info: Vec<bao_protocol::Info>,
    lag_excused: Option<Duration>,
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
) -> Result<Played, Fault> {
    let position = turn.position;
    let side = seat.side;
    let Some(process) = seat.process.as_mut() else {
        return Err(Fault::new(side, Reason::BotExited, "the bot is not running"));
    };
    let id = seat.next_id;
    seat.next_id += 1;
    let legal = turn.successors.iter().map(|(m, _)| m.to_string()).collect();
    let request = wire::move_request_line(
        id,
        turn.ply,
        position,
        legal,
        turn.last_move,
        seat.clock.left(),
        opponent_left,
        &config.time,
    );
    let allowed = seat.clock.allowed();
    process
        .send_line(&request, tokio::time::Instant::now() + allowed)
        .await
        .map_err(|f| Fault::from_bot(side, f, false))?;
    let sent = Instant::now();
    let cpu_before = process.cpu_time();
    let deadline = tokio::time::Instant::from_std(sent + allowed);
    let mut info = Vec::new();
    let mut deadline = deadline;
    let mut extended = Duration::ZERO;
    let (line, text) = loop {
        let line = match process.recv_line(deadline).await {
            Ok(line) => line,
            Err(BotFault::Timeout) => {
                // Time the referee itself lost is not the bot's: extend the
                // deadline by the worst event-loop lag seen during the move.
                let lag = config.lag.as_ref().map_or(Duration::ZERO, |l| l.max_since(sent));
                if lag > extended {
                    deadline += lag - extended;
                    extended = lag;
                    continue;
                }
                return Err(Fault::new(
                    side,
                    Reason::Timeout,
                    format!("no move within {} ms (time left plus margin)", allowed.as_millis()),
                ));
            }
            Err(f) => return Err(Fault::from_bot(side, f, false)),
        };
        match BotMessage::parse(&line) {
            Ok(BotMessage::Info(value)) => {
                if info.len() < bao_protocol::MAX_INFO_PER_MOVE {
                    info.push(value.truncated());
                }
            }
            Ok(BotMessage::Move(reply)) if reply.id == id => break (line, reply.move_text),
            Ok(BotMessage::Move(reply)) => {
                let got = reply.id;
                return Err(Fault::new(
                    side,
                    Reason::WrongId,
                    format!("replied with id {got}, expected {id}"),
                )
                .with_line(&line));
            }
            Ok(other) => {
                return Err(Fault::new(
                    side,
                    Reason::UnexpectedMessage,
                    format!("expected a move message, got a {} message", other.message_type()),
                )
                .with_line(&line));
            }
            Err(e) => return Err(Fault::new(side, Reason::MalformedLine, e.to_string()).with_line(&line)),
        }
    };
    let used = sent.elapsed();
    let cpu = process.cpu_time().zip(cpu_before).map(|(after, before)| after.saturating_sub(before));
    let lag = config.lag.as_ref().map_or(Duration::ZERO, |l| l.max_since(sent));
    let mut lag_excused = None;
    if let Err(o) = seat.clock.charge(used) {
        let over = o.used.saturating_sub(o.allowed);
        if over > lag {
            return Err(Fault::new(
                side,
                Reason::Timeout,
                format!(
                    "the move took {} ms, {} ms allowed ({} ms over; referee lag {} ms)",
                    o.used.as_millis(),
                    o.allowed.as_millis(),
                    over.as_millis(),
                    lag.as_millis()
                ),
            )
            .with_line(&line));
        }
        // Late only by the referee's own delay: charge the allowed time.
        let _ = seat.clock.charge(o.allowed);
        lag_excused = Some(lag);
    }
    let illegal = |detail: String| {
        let mut f = Fault::new(side, Reason::IllegalMove, detail).with_line(&line);
        f.mv = Some(text.clone());
        f
    };
    let parsed: MoveText = text.parse().map_err(|e| illegal(format!("{text:?} is not a move: {e}")))?;
    let candidate = parsed.to_move_unchecked();
    let found = turn.successors.iter().find(|(m, _)| *m == candidate);
    let (mv, next) = match found {
        Some(&(mv, next)) if !(parsed.lower_case && position.side_to_move() == Side::South) => (mv, next),
        // Not legal: let the rules say why.
        _ => {
            let reason = match parsed.to_move(position) {
                Err(e) => e.to_string(),
                Ok(m) => format!("{m}: not a legal move here"),
            };
            return Err(illegal(format!("illegal move {reason}")));
        }
    };
    Ok(Played { mv, next, used, cpu, info, lag_excused })
}
