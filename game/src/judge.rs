//! The one judge of a bot's replies: the handshake, a move request and its answer, the clock,
//! the legality of the move. `play_game` and `bao-check` both call these functions, so a bot
//! that passes `check` is judged the same way in `match`, and the reverse.
//!
//! Each verdict is a [`Fault`]: the side, the [`Reason`], a sentence for the log, and the
//! structured [`Cause`] from which a caller (the checker) can word its own report.

use std::time::{Duration, Instant};

use bao_protocol::{BotMessage, Info, ProtocolError, Ready};
use bao_rules::{Move, MoveText, Position, Side};
use bao_supervise::{BotFault, BotProcess};

use crate::lag::{ExcuseLimits, LagMonitor, micros};
use crate::{Clock, Reason};

/// The most a deadline is pushed back for a referee stall in progress when it passed.
const MAX_EXTENSION: Duration = Duration::from_secs(1);

/// The longest excerpt of a bot's line kept in a verdict.
const OFFENSE_EXCERPT_BYTES: usize = 512;

/// Which way a protocol line went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineDirection {
    /// From the referee to the bot.
    Sent,
    /// From the bot to the referee.
    Received,
}

/// Receives every line exchanged with a bot, as it is written or read (for `--debug` traces
/// and the checker's transcripts).
pub trait LineSink {
    /// One line, without its `'\n'`.
    fn line(&mut self, direction: LineDirection, line: &str);
}

/// A sink that keeps nothing.
#[derive(Debug, Default)]
pub struct NoLines;

impl LineSink for NoLines {
    fn line(&mut self, _direction: LineDirection, _line: &str) {}
}

/// What exactly went wrong, for callers that word their own report.
#[derive(Debug, Clone)]
pub enum Cause {
    /// The process layer: the bot exited, closed stdout, broke a limit, or did not read or
    /// write in time (`BotFault::Timeout`).
    Process(BotFault),
    /// No complete answer before the deadline (time left plus margin, plus any excused lag).
    NoAnswer {
        /// The time the bot had.
        allowed: Duration,
    },
    /// The answer came, but later than allowed (by the clock's arithmetic).
    Late {
        /// The time the bot took.
        used: Duration,
        /// The time it had.
        allowed: Duration,
    },
    /// A line that is not a valid message.
    Malformed(ProtocolError),
    /// A valid message of the wrong type (its type).
    Unexpected(&'static str),
    /// A move with another request's id.
    WrongId {
        /// The id the bot sent.
        got: u64,
        /// The id of the request.
        expected: u64,
    },
    /// A move that is not notation, or not legal here.
    Illegal {
        /// The move text.
        text: String,
        /// Why, in words (from the rules engine).
        why: String,
    },
}

/// A verdict against one bot.
#[derive(Debug, Clone)]
pub struct Fault {
    /// The bot at fault.
    pub side: Side,
    /// The verdict.
    pub reason: Reason,
    /// A sentence for the log and the console.
    pub detail: String,
    /// The offending line (an excerpt), if there was one.
    pub line: Option<String>,
    /// The move it sent, if it was illegal.
    pub mv: Option<String>,
    /// What went wrong, structured (boxed: verdicts are rare, results are passed often).
    pub cause: Box<Cause>,
    /// For a `timeout`: the time the bot had been given when the verdict came, µs from the
    /// request's write (to the reply's arrival, or to the deadline).
    pub time_us: Option<u64>,
}

impl Fault {
    /// A verdict with its sentence and cause.
    #[must_use]
    pub fn new(side: Side, reason: Reason, detail: impl Into<String>, cause: Cause) -> Fault {
        Fault {
            side,
            reason,
            detail: detail.into(),
            line: None,
            mv: None,
            cause: Box::new(cause),
            time_us: None,
        }
    }

    fn with_line(mut self, line: &str) -> Fault {
        self.line = Some(excerpt(line));
        self
    }

    /// A fault from the process layer, during play or (if `handshake`) the handshake.
    #[must_use]
    pub fn from_bot(side: Side, fault: BotFault, handshake: bool) -> Fault {
        let reason = if handshake { Reason::HandshakeFailed } else { crate::reason::for_fault(&fault) };
        let detail = if handshake { format!("during the handshake: {fault}") } else { fault.to_string() };
        Fault::new(side, reason, detail, Cause::Process(fault))
    }
}

/// The first bytes of a line, cut at a character boundary.
#[must_use]
pub fn excerpt(line: &str) -> String {
    if line.len() <= OFFENSE_EXCERPT_BYTES {
        return line.to_owned();
    }
    let mut end = OFFENSE_EXCERPT_BYTES;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &line[..end], line.len())
}

/// Sends `hello` and reads lines until `ready` (skipping `info`), before `deadline`.
///
/// # Errors
/// A `handshake_failed` verdict: no `ready` in time, another message, an invalid line, or the
/// process ended.
pub async fn handshake(
    process: &mut BotProcess,
    side: Side,
    hello: &str,
    deadline: tokio::time::Instant,
    lines: &mut dyn LineSink,
) -> Result<Ready, Fault> {
    lines.line(LineDirection::Sent, hello);
    process.send_line(hello, deadline).await.map_err(|f| Fault::from_bot(side, f, true))?;
    loop {
        let line = process.recv_line(deadline).await.map_err(|f| Fault::from_bot(side, f, true))?;
        lines.line(LineDirection::Received, &line);
        match BotMessage::parse(&line) {
            Ok(BotMessage::Ready(ready)) => return Ok(ready),
            Ok(BotMessage::Info(_)) => {}
            Ok(other) => {
                let kind = other.message_type();
                return Err(Fault::new(
                    side,
                    Reason::HandshakeFailed,
                    format!("expected a ready message, got a {kind} message"),
                    Cause::Unexpected(kind),
                )
                .with_line(&line));
            }
            Err(e) => {
                return Err(Fault::new(
                    side,
                    Reason::HandshakeFailed,
                    format!("instead of ready: {e}"),
                    Cause::Malformed(e),
                )
                .with_line(&line));
            }
        }
    }
}

/// A bot's answer to a move request, read but not yet charged or judged.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The `move` line.
    pub line: String,
    /// Its move text.
    pub move_text: String,
    /// The `info` lines before it (at most [`bao_protocol::MAX_INFO_PER_MOVE`], truncated).
    pub info: Vec<Info>,
    /// Wall time from the request's write to the moment the answer's line arrived (read from
    /// the pipe by the bot's supervisor), in whole microseconds.
    pub used: Duration,
    /// The referee stall in progress when the answer arrived, after the request was written:
    /// the most by which the referee may have delayed reading it (zero without a monitor).
    pub lag: Duration,
}

/// The lag a bot may still be excused in one game, and what it was excused so far.
#[derive(Debug, Clone, Copy, Default)]
pub struct Excuses {
    /// The caps; `None`: nothing is excused.
    pub limits: Option<ExcuseLimits>,
    /// Excused so far in this game, µs.
    pub used_us: u64,
}

impl Excuses {
    /// No excuse at all (every late move is a timeout).
    #[must_use]
    pub fn none() -> Excuses {
        Excuses::default()
    }

    /// Up to `limits`.
    #[must_use]
    pub fn within(limits: ExcuseLimits) -> Excuses {
        Excuses { limits: Some(limits), used_us: 0 }
    }

    /// The most that may be excused of the next move.
    #[must_use]
    pub fn available_us(&self) -> u64 {
        self.limits.map_or(0, |l| l.per_move_us.min(l.per_game_us.saturating_sub(self.used_us)))
    }
}

/// Sends the `move_request` line `request` (with id `id`) and reads the answer: `info` lines
/// are kept, the `move` must come within `allowed` and carry `id`.
///
/// The bot's time runs from just before the request is written (a bot that does not read its
/// stdin uses its own time) to the arrival of its reply line. When the deadline passes while
/// the referee itself is stalled (seen by the monitor, if one is given), it is pushed back by
/// the stall (at most [`MAX_EXTENSION`]), so that a reply already in the pipe is read and
/// judged by its arrival; [`charge_within`] decides whether that lateness is excused.
///
/// # Errors
/// The verdict: timeout, wrong id, a malformed line, an unexpected message, or the process
/// layer's fault.
pub async fn ask_move(
    process: &mut BotProcess,
    side: Side,
    request: &str,
    id: u64,
    allowed: Duration,
    lag: Option<&LagMonitor>,
    lines: &mut dyn LineSink,
) -> Result<Answer, Fault> {
    lines.line(LineDirection::Sent, request);
    let sent = Instant::now();
    let mut deadline = tokio::time::Instant::from_std(sent + allowed);
    process.send_line(request, deadline).await.map_err(|f| {
        // A bot that does not read its stdin until the deadline is out of time.
        let timed_out = f == BotFault::Timeout;
        let mut fault = Fault::from_bot(side, f, false);
        if timed_out {
            fault.time_us = Some(micros(sent.elapsed()));
        }
        fault
    })?;
    let mut info = Vec::new();
    let mut extended = Duration::ZERO;
    loop {
        let (line, arrived) = match process.recv_line_timed(deadline).await {
            Ok(timed) => timed,
            Err(BotFault::Timeout) => {
                // A reply may be waiting in the pipe, unread because the referee was stalled.
                let now = Instant::now();
                let seen = lag.map_or(Duration::ZERO, |l| l.stall_at(sent, now)).min(MAX_EXTENSION);
                if seen > extended {
                    deadline += seen - extended;
                    extended = seen;
                    continue;
                }
                let mut fault = Fault::new(
                    side,
                    Reason::Timeout,
                    format!("no move within {} ms (time left plus margin)", allowed.as_millis()),
                    Cause::NoAnswer { allowed },
                );
                fault.time_us = Some(micros(now.saturating_duration_since(sent)));
                return Err(fault);
            }
            Err(f) => return Err(Fault::from_bot(side, f, false)),
        };
        lines.line(LineDirection::Received, &line);
        match BotMessage::parse(&line) {
            Ok(BotMessage::Info(value)) => {
                if info.len() < bao_protocol::MAX_INFO_PER_MOVE {
                    info.push(value.truncated());
                }
            }
            Ok(BotMessage::Move(reply)) if reply.id == id => {
                // Whole microseconds, as the log records it: `verify` replays the same sums.
                let used = Duration::from_micros(micros(arrived.saturating_duration_since(sent)));
                let lag = lag.map_or(Duration::ZERO, |l| l.stall_at(sent, arrived));
                return Ok(Answer { line, move_text: reply.move_text, info, used, lag });
            }
            Ok(BotMessage::Move(reply)) => {
                let got = reply.id;
                return Err(Fault::new(
                    side,
                    Reason::WrongId,
                    format!("replied with id {got}, expected {id}"),
                    Cause::WrongId { got, expected: id },
                )
                .with_line(&line));
            }
            Ok(other) => {
                let kind = other.message_type();
                return Err(Fault::new(
                    side,
                    Reason::UnexpectedMessage,
                    format!("expected a move message, got a {kind} message"),
                    Cause::Unexpected(kind),
                )
                .with_line(&line));
            }
            Err(e) => {
                return Err(
                    Fault::new(side, e.verdict_reason(), e.to_string(), Cause::Malformed(e)).with_line(&line)
                );
            }
        }
    }
}

/// Charges `answer.used` to `clock`, excusing nothing: a late move is a timeout.
///
/// # Errors
/// A `timeout` verdict when the bot was late.
pub fn charge(clock: &mut Clock, side: Side, answer: &Answer) -> Result<Option<Duration>, Fault> {
    charge_within(clock, side, answer, &mut Excuses::none())
}

/// Charges `answer.used` to `clock`. A move late by no more than the referee stall in progress
/// when its reply arrived (`answer.lag`), and no more than `excuses` still allows, is excused:
/// the allowed time is charged instead, and the overrun (what was excused) is returned and
/// counted in `excuses`.
///
/// # Errors
/// A `timeout` verdict when the bot was late by more than that.
pub fn charge_within(
    clock: &mut Clock,
    side: Side,
    answer: &Answer,
    excuses: &mut Excuses,
) -> Result<Option<Duration>, Fault> {
    let Err(o) = clock.charge(answer.used) else { return Ok(None) };
    let over = o.used.saturating_sub(o.allowed);
    let excusable = answer.lag.min(Duration::from_micros(excuses.available_us()));
    if over > excusable {
        let mut fault = Fault::new(
            side,
            Reason::Timeout,
            format!(
                "the move took {} ms, {} ms allowed ({} ms over; referee stall at the reply {} ms, \
                 {} ms excusable)",
                o.used.as_millis(),
                o.allowed.as_millis(),
                over.as_millis(),
                answer.lag.as_millis(),
                excusable.as_millis()
            ),
            Cause::Late { used: o.used, allowed: o.allowed },
        )
        .with_line(&answer.line);
        fault.time_us = Some(micros(o.used));
        return Err(fault);
    }
    // Late only by the referee's own delay: charge the allowed time.
    let _ = clock.charge(o.allowed);
    excuses.used_us += micros(over);
    Ok(Some(over))
}

/// Judges the move text of `answer` in `position`, whose legal moves and their results are
/// `successors` (as [`Position::successors`] gives them).
///
/// # Errors
/// An `illegal_move` verdict, with the rules engine's reason.
pub fn judge_move(
    side: Side,
    position: &Position,
    successors: &[(Move, Position)],
    answer: &Answer,
) -> Result<(Move, Position), Fault> {
    let text = &answer.move_text;
    let illegal = |why: String, detail: String| {
        let mut f = Fault::new(side, Reason::IllegalMove, detail, Cause::Illegal { text: text.clone(), why })
            .with_line(&answer.line);
        f.mv = Some(text.clone());
        f
    };
    let parsed: MoveText = text.parse().map_err(|e: bao_rules::ParseMoveError| {
        let why = e.to_string();
        illegal(why.clone(), format!("{text:?} is not a move: {why}"))
    })?;
    let candidate = parsed.to_move_unchecked();
    match successors.iter().find(|(m, _)| *m == candidate) {
        Some(&(mv, next)) if !(parsed.lower_case && position.side_to_move() == Side::South) => Ok((mv, next)),
        // Not legal: let the rules say why.
        _ => {
            let why = match parsed.to_move(position) {
                Err(e) => e.to_string(),
                Ok(m) => format!("{m}: not a legal move here"),
            };
            Err(illegal(why.clone(), format!("illegal move {why}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TimeControl;

    const MS: Duration = Duration::from_millis(1);

    fn answer(used_ms: u32, stall_ms: u32) -> Answer {
        Answer {
            line: r#"{"type":"move","id":1,"move":"A6<"}"#.to_owned(),
            move_text: "A6<".to_owned(),
            info: Vec::new(),
            used: MS * used_ms,
            lag: MS * stall_ms,
        }
    }

    fn move_time_clock() -> Clock {
        Clock::new(TimeControl {
            base: None,
            increment: Duration::ZERO,
            move_time: Some(MS * 100),
            startup: Duration::from_secs(1),
            margin: Duration::ZERO,
        })
    }

    #[test]
    fn an_overrun_within_the_stall_is_excused_until_the_game_budget_is_spent() {
        let limits = ExcuseLimits { per_move_us: 150_000, per_game_us: 250_000 };
        let mut excuses = Excuses::within(limits);
        let mut clock = move_time_clock();
        // On time: nothing excused.
        assert_eq!(charge_within(&mut clock, Side::South, &answer(90, 500), &mut excuses).unwrap(), None);
        // 120 ms late, the referee stalled 200 ms at the reply: excused, exactly the overrun.
        let excused = charge_within(&mut clock, Side::South, &answer(220, 200), &mut excuses).unwrap();
        assert_eq!(excused, Some(MS * 120));
        // 100 ms more: 220 ms of 250 ms.
        assert_eq!(
            charge_within(&mut clock, Side::South, &answer(200, 200), &mut excuses).unwrap(),
            Some(MS * 100)
        );
        assert_eq!(excuses.used_us, 220_000);
        // 40 ms late: only 30 ms of the budget is left.
        let fault = charge_within(&mut clock, Side::South, &answer(140, 200), &mut excuses).unwrap_err();
        assert_eq!(fault.reason, Reason::Timeout);
        assert_eq!(fault.time_us, Some(140_000));
    }

    #[test]
    fn an_overrun_past_the_stall_or_the_move_cap_is_a_timeout() {
        let limits = ExcuseLimits { per_move_us: 150_000, per_game_us: 1_000_000 };
        let mut clock = move_time_clock();
        // 30 ms late, but the stall at the reply was 20 ms: the bot was late by its own clock.
        let fault = charge_within(&mut clock, Side::North, &answer(130, 20), &mut Excuses::within(limits));
        assert_eq!(fault.unwrap_err().reason, Reason::Timeout);
        // 160 ms late under a 500 ms stall: more than a move may be excused.
        let fault = charge_within(&mut clock, Side::North, &answer(260, 500), &mut Excuses::within(limits));
        assert_eq!(fault.unwrap_err().reason, Reason::Timeout);
        // Without excuses (check, or no monitor), any lateness is a timeout.
        let fault = charge(&mut clock, Side::North, &answer(101, 500));
        assert!(matches!(*fault.unwrap_err().cause, Cause::Late { .. }));
    }
}
