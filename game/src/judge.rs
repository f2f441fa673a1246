//! The one judge of a bot's replies: the handshake, a move request and its answer, the clock,
//! the legality of the move. `play_game` and `bao-check` both call these functions, so a bot
//! that passes `check` is judged the same way in `match`, and the reverse.
//!
//! Each verdict is a [`Fault`]: the side, the [`Reason`], a sentence for the log, and the
//! structured [`Cause`] from which a caller (the checker) can word its own report.

use std::time::{Duration, Instant};

use bao_protocol::{BotMessage, Info, ProtocolError, Ready};
use bao_rules::{Move, MoveText, Position, Side};
use bao_supervise::BotFault;

use crate::endpoint::LineEndpoint;

use crate::lag::micros;
use crate::{Clock, Reason};

/// After the deadline, how long the referee still takes delivery of lines that had arrived
/// (stamped) before it but were not yet passed on by a busy event loop. A line is judged by its
/// arrival, so this grace gives a bot no time.
const DELIVERY_GRACE: Duration = Duration::from_millis(20);

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
    /// No complete answer before the deadline (time left plus margin).
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

    /// A fault from the process layer, during play or (if `handshake`) the handshake. During
    /// the handshake a broken resource limit keeps its verdict (`memory_limit` for a bot
    /// killed while loading), anything else is `handshake_failed`.
    #[must_use]
    pub fn from_bot(side: Side, fault: BotFault, handshake: bool) -> Fault {
        let reason = if handshake {
            crate::reason::for_startup_fault(&fault)
        } else {
            crate::reason::for_fault(&fault)
        };
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
/// process ended; or the verdict of the resource limit the bot broke while starting
/// (`memory_limit`...).
pub async fn handshake(
    process: &mut impl LineEndpoint,
    side: Side,
    hello: &str,
    deadline: tokio::time::Instant,
    lines: &mut dyn LineSink,
) -> Result<Ready, Fault> {
    lines.line(LineDirection::Sent, hello);
    process.send_line(hello, deadline).await.map_err(|f| Fault::from_bot(side, f, true))?;
    loop {
        let (line, _) =
            process.recv_line_timed(deadline).await.map_err(|f| Fault::from_bot(side, f, true))?;
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
    /// the pipe by the bot's reader thread), in whole microseconds.
    pub used: Duration,
}

/// Sends the `move_request` line `request` (with id `id`) and reads the answer: `info` lines
/// are kept, the `move` must come within `allowed` and carry `id`.
///
/// The bot's time runs from just before the request is written (a bot that does not read its
/// stdin uses its own time) to the arrival of its reply line, stamped by the bot's reader
/// thread. When the deadline passes, lines that arrived before it but were not yet delivered
/// (the event loop was busy) are still taken for [`DELIVERY_GRACE`]; [`charge`] judges every
/// reply by its arrival.
///
/// # Errors
/// The verdict: timeout, wrong id, a malformed line, an unexpected message, or the process
/// layer's fault.
pub async fn ask_move(
    process: &mut impl LineEndpoint,
    side: Side,
    request: &str,
    id: u64,
    allowed: Duration,
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
    let mut graced = false;
    loop {
        let (line, arrived) = match process.recv_line_timed(deadline).await {
            Ok(timed) => timed,
            Err(BotFault::Timeout) => {
                let now = Instant::now();
                if !graced {
                    graced = true;
                    deadline = tokio::time::Instant::from_std(now + DELIVERY_GRACE);
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
                return Ok(Answer { line, move_text: reply.move_text, info, used });
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

/// Charges `answer.used` (to the reply's arrival) to `clock`.
///
/// # Errors
/// A `timeout` verdict when the bot was late: slower than its time left plus margin.
pub fn charge(clock: &mut Clock, side: Side, answer: &Answer) -> Result<(), Fault> {
    charge_with_credit(clock, side, answer, Duration::ZERO)
}

/// Charges `answer.used` less `credit` to `clock`: a person's move, whose time includes the
/// network's round trip to their page (the request's way there and the move's way back), is
/// credited that measured lag up to its seat's cap (lag compensation; the caller caps it, and
/// a bot's credit is always zero). The charge is never negative: a credit larger than the
/// move's time leaves nothing to charge.
///
/// # Errors
/// A `timeout` verdict when the move was late: slower, after the credit, than its time left
/// plus margin.
pub fn charge_with_credit(
    clock: &mut Clock,
    side: Side,
    answer: &Answer,
    credit: Duration,
) -> Result<(), Fault> {
    let Err(o) = clock.charge(answer.used.saturating_sub(credit)) else { return Ok(()) };
    let over = o.used.saturating_sub(o.allowed);
    let credited = if credit.is_zero() {
        String::new()
    } else {
        format!(" after a lag credit of {} ms", credit.as_millis())
    };
    let mut fault = Fault::new(
        side,
        Reason::Timeout,
        format!(
            "the move took {} ms{credited}, {} ms allowed ({} ms over)",
            o.used.as_millis(),
            o.allowed.as_millis(),
            over.as_millis()
        ),
        Cause::Late { used: o.used, allowed: o.allowed },
    )
    .with_line(&answer.line);
    fault.time_us = Some(micros(o.used));
    Err(fault)
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
        Some(&(mv, next)) if !(parsed.lower_case() && position.side_to_move() == Side::South) => {
            Ok((mv, next))
        }
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

    fn answer(used_ms: u32) -> Answer {
        Answer {
            line: r#"{"type":"move","id":1,"move":"A6<"}"#.to_owned(),
            move_text: "A6<".to_owned(),
            info: Vec::new(),
            used: MS * used_ms,
        }
    }

    #[test]
    fn a_reply_later_than_time_and_margin_is_a_timeout_with_its_time() {
        let mut clock = Clock::new(TimeControl {
            base: None,
            increment: Duration::ZERO,
            move_time: Some(MS * 100),
            startup: Duration::from_secs(1),
            margin: MS * 20,
        });
        charge(&mut clock, Side::South, &answer(120)).unwrap();
        let fault = charge(&mut clock, Side::North, &answer(121)).unwrap_err();
        assert_eq!(fault.reason, Reason::Timeout);
        assert_eq!(fault.time_us, Some(121_000));
        assert!(matches!(*fault.cause, Cause::Late { .. }));
    }

    #[test]
    fn a_credit_is_taken_off_the_charge_but_never_below_zero() {
        let tc = TimeControl {
            base: Some(MS * 1000),
            increment: Duration::ZERO,
            move_time: None,
            startup: Duration::from_secs(1),
            margin: MS * 20,
        };
        let mut clock = Clock::new(tc);
        charge_with_credit(&mut clock, Side::South, &answer(300), MS * 200).unwrap();
        assert_eq!(clock.left(), MS * 900);
        charge_with_credit(&mut clock, Side::South, &answer(100), MS * 250).unwrap();
        assert_eq!(clock.left(), MS * 900, "a credit above the move's time charges nothing");
        // 920 ms allowed: 1000 ms less 50 ms credit is late, less 100 ms is not.
        let fault = charge_with_credit(&mut clock.clone(), Side::South, &answer(1000), MS * 50).unwrap_err();
        assert_eq!(fault.time_us, Some(950_000));
        assert!(fault.detail.contains("after a lag credit of 50 ms"), "{}", fault.detail);
        charge_with_credit(&mut clock, Side::South, &answer(1000), MS * 100).unwrap();
        assert_eq!(clock.left(), Duration::ZERO);
    }
}
