//! Verifying a game log (`bao-referee verify LOG`): replays a game log with the rules engine and
//! the clock arithmetic of its time control, and checks every move, every position, every
//! clock and the result.
//!
//! The clocks are exact: the referee charges whole microseconds (`time_us`, to the reply's
//! arrival), so a replay of the header's time control gives the very `clock_ms` the referee
//! wrote. No move may be slower than its time plus margin; a `timeout` verdict must name a time
//! no shorter than the bot's. A person's move may carry a lag credit (`lag_credit_us`, lag
//! compensation): it is taken off the move's time before the clock is charged, and it may
//! exceed neither the header's cap for that side (`max_lag_credit_us`; a bot's cap is zero)
//! nor the move's time.

use bao_rules::{IllegalMove, MoveText, Outcome, Position, RULES_REVISION, Side, WinReason};

use crate::Reason;
use crate::log::{Header, LOG_VERSION, LOG_VERSION_2_RULES_REVISION, LogRecord, PlyRecord, ResultRecord};

/// Why a log does not verify: the 1-based line and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct VerifyError {
    /// The first line that is wrong (1-based); for a missing line, one past the last.
    pub line: usize,
    /// What is wrong.
    pub message: String,
    /// Whether the line is unreadable (not a log record) rather than wrong.
    pub malformed: bool,
    /// Whether the log is only incomplete: every line is right, but it ends before the result
    /// (empty, cut off in the middle of a line, or without a result line: the referee was
    /// killed).
    pub incomplete: bool,
}

/// What a verified log holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// Plies replayed.
    pub plies: u32,
    /// The result line's summary, e.g. `S wins (front_row_empty)`.
    pub result: String,
}

fn wrong(line: usize, message: impl Into<String>) -> VerifyError {
    VerifyError { line, message: message.into(), malformed: false, incomplete: false }
}

fn malformed(line: usize, message: impl Into<String>) -> VerifyError {
    VerifyError { line, message: message.into(), malformed: true, incomplete: false }
}

fn incomplete(line: usize, message: impl Into<String>) -> VerifyError {
    VerifyError { line, message: message.into(), malformed: false, incomplete: true }
}

/// Both clocks replayed from the header's time control, in µs.
struct Clocks {
    left_us: [u64; 2],
    /// The most lag credit one move may carry (the header's `max_lag_credit_us`; 0: none).
    max_credit_us: [u64; 2],
    margin_us: [u64; 2],
    increment_us: [u64; 2],
    fischer: [bool; 2],
}

impl Clocks {
    /// Each side's clock from its own time control (`time_controls` when the bots' clocks
    /// differ, the shared `time_control` otherwise).
    fn new(header: &Header) -> Clocks {
        let tcs = header.time_controls.unwrap_or([header.time_control; 2]);
        let micros = crate::lag::micros;
        Clocks {
            left_us: tcs.map(|tc| micros(tc.move_time.or(tc.base).unwrap_or_default())),
            max_credit_us: header.max_lag_credit_us.unwrap_or_default(),
            margin_us: tcs.map(|tc| micros(tc.margin)),
            increment_us: tcs.map(|tc| micros(tc.increment)),
            fischer: tcs.map(|tc| tc.move_time.is_none()),
        }
    }

    fn allowed_us(&self, side: Side) -> u64 {
        self.left_us[side.index()].saturating_add(self.margin_us[side.index()])
    }

    /// Charges ply `p` (line `n`) to `side` as the referee does, and checks its clocks.
    fn charge(&mut self, n: usize, side: Side, p: &PlyRecord) -> Result<(), VerifyError> {
        let ply = p.ply;
        let allowed = self.allowed_us(side);
        if let Some(excused) = p.lag_excused_us {
            return Err(wrong(
                n,
                format!(
                    "ply {ply}: lag_excused_us {excused}, but a version {LOG_VERSION} referee excuses no \
                     lag (it charges each move to its reply's arrival)"
                ),
            ));
        }
        let credit = p.lag_credit_us.unwrap_or(0);
        let cap = self.max_credit_us[side.index()];
        if credit > cap {
            return Err(wrong(
                n,
                format!(
                    "ply {ply}: lag_credit_us {credit}, but the header's max_lag_credit_us allows {side} \
                     {cap} µs a move"
                ),
            ));
        }
        if credit > p.time_us {
            return Err(wrong(
                n,
                format!(
                    "ply {ply}: lag_credit_us {credit} is more than the move's time_us {}: the referee \
                     never credits more lag than the time it measured",
                    p.time_us
                ),
            ));
        }
        let charged = p.time_us - credit;
        if charged > allowed {
            let credited =
                if credit > 0 { format!(" ({credit} µs of it credited as lag)") } else { String::new() };
            return Err(wrong(
                n,
                format!(
                    "ply {ply}: {side} took {} µs{credited} with {allowed} µs allowed (time left plus \
                     margin): the referee would have forfeited it on time",
                    p.time_us
                ),
            ));
        }
        if self.fischer[side.index()] {
            let left = &mut self.left_us[side.index()];
            *left = left.saturating_sub(charged).saturating_add(self.increment_us[side.index()]);
        }
        let expected = self.left_us.map(|us| us / 1000);
        if p.clock_ms != expected {
            return Err(wrong(
                n,
                format!(
                    "ply {ply}: clock_ms is {:?}, but the time control replayed over the moves' \
                     time_us gives {expected:?}",
                    p.clock_ms
                ),
            ));
        }
        Ok(())
    }
}

/// Refuses a log of another format version or rules revision, naming both: a game is judged
/// only by the rules it was played under (docs/game-log.md, "Versions").
fn check_versions(header: &Header) -> Result<(), VerifyError> {
    let revision = match (header.log_version, header.rules_revision) {
        (LOG_VERSION, Some(revision)) => revision,
        (LOG_VERSION, None) => {
            return Err(wrong(1, format!("log_version {LOG_VERSION}, but the header has no rules_revision")));
        }
        (2, _) => LOG_VERSION_2_RULES_REVISION,
        (version, _) => {
            return Err(wrong(
                1,
                format!(
                    "log_version {version} is not {LOG_VERSION}, the version this referee writes and verifies"
                ),
            ));
        }
    };
    if revision != RULES_REVISION || header.log_version != LOG_VERSION {
        return Err(wrong(
            1,
            format!(
                "the game was played under rules revision {revision} (log_version {}), but this \
                 referee judges by rules revision {RULES_REVISION} (log_version {LOG_VERSION}), and \
                 it does not judge a game by rules it was not played under; verify the log with a \
                 referee of rules revision {revision} (docs/game-log.md, \"Versions\")",
                header.log_version
            ),
        ));
    }
    Ok(())
}

/// Bots never get lag credit: a header that gives a seat whose command is not a person's a cap
/// is wrong.
fn check_lag_caps(header: &Header) -> Result<(), VerifyError> {
    let Some(caps) = header.max_lag_credit_us else { return Ok(()) };
    for (side, bot, cap) in [(Side::South, &header.south, caps[0]), (Side::North, &header.north, caps[1])] {
        let person = bot.command.len() == 1 && bot.command[0] == crate::runner::HUMAN_COMMAND;
        if cap > 0 && !person {
            return Err(wrong(
                1,
                format!(
                    "max_lag_credit_us gives {side} ({:?}) {cap} µs, but {side} is a bot, and bots never \
                     get lag credit",
                    bot.name
                ),
            ));
        }
    }
    Ok(())
}

/// Verifies the text of a game log.
///
/// # Errors
/// The first line that is wrong, and why.
pub fn verify_log(text: &str) -> Result<Verified, VerifyError> {
    let mut lines = text.split_inclusive('\n').enumerate().map(|(i, l)| (i + 1, l));
    let Some((_, first)) = lines.next() else {
        return Err(incomplete(
            1,
            "the log is empty: the referee was stopped before it wrote the header; the game is incomplete",
        ));
    };
    let header = match parse_record(1, first)? {
        LogRecord::Header(h) => h,
        _ => return Err(wrong(1, "the first line is not a header record")),
    };
    check_versions(&header)?;
    check_lag_caps(&header)?;
    let mut position = start_of(&header)?;
    let mut clocks = Clocks::new(&header);
    let mut ready = [false; 2];
    let mut plies: u32 = 0;
    let mut last_line = 1;
    // The notation of each position replayed, reused from ply to ply.
    let mut notation = String::new();
    for (n, raw) in lines {
        last_line = n;
        match parse_record(n, raw)? {
            LogRecord::Header(_) => return Err(wrong(n, "a second header record")),
            LogRecord::Ready(r) => {
                let side = r.side;
                if plies > 0 {
                    return Err(wrong(n, format!("a ready record of {side} after the first ply")));
                }
                if std::mem::replace(&mut ready[side.index()], true) {
                    return Err(wrong(n, format!("a second ready record of {side}")));
                }
                if let Some(process) = &r.process {
                    check_process(n, &header, side, process)?;
                }
            }
            LogRecord::Stderr(_) => {}
            LogRecord::Ply(p) => {
                plies += 1;
                if p.ply != plies {
                    return Err(wrong(n, format!("ply number {} where {plies} was expected", p.ply)));
                }
                if let Some(max) = header.max_plies
                    && plies > max
                {
                    return Err(wrong(
                        n,
                        format!("ply {plies}, but the game is adjudicated after {max} plies"),
                    ));
                }
                let side = p.side;
                if ready != [true; 2] {
                    return Err(wrong(n, format!("ply {plies} before both bots were ready")));
                }
                if side != position.side_to_move() {
                    return Err(wrong(
                        n,
                        format!(
                            "ply {plies} is played by {side}, but {} is to move",
                            position.side_to_move()
                        ),
                    ));
                }
                let text: MoveText = p.mv.parse().map_err(|e| wrong(n, format!("ply {plies}: {e}")))?;
                let illegal = |e: IllegalMove| wrong(n, format!("ply {plies}: illegal move {e}"));
                // `MoveText::to_move` then `Position::play`, without their extra work: the
                // move is accepted exactly when `play` accepts it (what `to_move` adds is the
                // list of every legal move, and `play` the outcome, which the result record's
                // check computes once), and `play_without_outcome` makes the same checks.
                if text.lower_case() && position.side_to_move() == Side::South {
                    return Err(illegal(IllegalMove::LowerCaseForSouth(text)));
                }
                let mv = text.to_move_unchecked();
                let next = position.play_without_outcome(mv).map_err(illegal)?;
                notation.clear();
                crate::wire::push_notation(&mut notation, &next);
                if notation != p.position {
                    return Err(wrong(
                        n,
                        format!(
                            "ply {plies}: the position after {mv} is\n  {next}\nbut the log says\n  {}",
                            p.position
                        ),
                    ));
                }
                clocks.charge(n, side, &p)?;
                position = next;
            }
            LogRecord::Result(r) => {
                check_result(n, &header, &position, plies, ready, &r)?;
                check_verdict_time(n, &clocks, &position, &r)?;
                if let Some((extra, _)) = text.split_inclusive('\n').enumerate().nth(n) {
                    return Err(wrong(extra + 1, "a line after the result record"));
                }
                return Ok(Verified { plies, result: r.result });
            }
        }
    }
    Err(incomplete(last_line + 1, "the log ends without a result record: the game is incomplete"))
}

/// A ready record's `process` must be consistent: fresh exactly when no game came before it in
/// the process, a fresh process started no earlier than the game (to the second: the header's
/// `started_at` is written first), a kept one no later. (Whether a process was kept from the
/// games named is checked across logs: [`crate::process_chains`].)
fn check_process(
    n: usize,
    header: &Header,
    side: Side,
    process: &crate::kept::ProcessRecord,
) -> Result<(), VerifyError> {
    let (fresh, before) = (process.fresh, process.games_before);
    if fresh != (before == 0) {
        return Err(wrong(
            n,
            format!("{side}'s process: fresh is {fresh}, but games_before is {before} (fresh means 0)"),
        ));
    }
    let second = |text: &str| {
        humantime::parse_rfc3339_weak(text)
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_secs())
    };
    let Some(spawned) = second(&process.spawned_at) else {
        return Err(wrong(n, format!("{side}'s process: spawned_at {:?} is not a time", process.spawned_at)));
    };
    let Some(game) = second(&header.started_at) else { return Ok(()) };
    if fresh && spawned < game {
        return Err(wrong(
            n,
            format!(
                "{side}'s process is called fresh, but it was started at {}, before the game ({})",
                process.spawned_at, header.started_at
            ),
        ));
    }
    if !fresh && spawned > game {
        return Err(wrong(
            n,
            format!(
                "{side}'s process is called kept from {before} games, but it was started at {}, after \
                 this game began ({})",
                process.spawned_at, header.started_at
            ),
        ));
    }
    Ok(())
}

/// A `timeout` verdict must name a time no shorter than the bot's time plus margin.
fn check_verdict_time(
    n: usize,
    clocks: &Clocks,
    position: &Position,
    r: &ResultRecord,
) -> Result<(), VerifyError> {
    if r.reason != Reason::Timeout {
        return Ok(());
    }
    let side = position.side_to_move();
    let allowed = clocks.allowed_us(side);
    match r.offense.as_ref().and_then(|o| o.time_us) {
        None => Err(wrong(n, "a timeout verdict without the time the bot took (offense.time_us)")),
        // The referee gives up at the deadline: a verdict at the very microsecond is right.
        Some(used) if used < allowed => Err(wrong(
            n,
            format!(
                "a timeout verdict against {side} after {used} µs, but {side} had {allowed} µs \
                 (time left plus margin)"
            ),
        )),
        Some(_) => Ok(()),
    }
}

fn parse_record(n: usize, raw: &str) -> Result<LogRecord, VerifyError> {
    if !raw.ends_with('\n') {
        return Err(incomplete(
            n,
            "the line has no newline: the log was cut off while it was written; the game is incomplete",
        ));
    }
    let line = raw.trim_end_matches('\n');
    if let Some(ply) = ply_record(line) {
        return Ok(LogRecord::Ply(ply));
    }
    serde_json::from_str(line).map_err(|e| malformed(n, format!("not a log record: {e}")))
}

/// A ply record (one per ply) read straight into its struct, without the buffering that a
/// tagged enum needs: the line starts with the tag `{"type":"ply",` and holds no other
/// `"type"` key (the struct ignores the tag as an unknown field, as the tagged enum does once
/// it has read it). Anything else, errors included, is left to the general reading.
fn ply_record(line: &str) -> Option<PlyRecord> {
    // The referee's own form first (no deserialiser; the same record serde reads from it).
    if let Some(record) = crate::ply_line::decode(line) {
        return Some(record);
    }
    const TAG: &str = r#"{"type":"ply","#;
    if !line.starts_with(TAG) || line[TAG.len()..].contains(r#""type""#) {
        return None;
    }
    serde_json::from_str(line).ok()
}

fn start_of(header: &Header) -> Result<Position, VerifyError> {
    let position: Position =
        header.start.parse().map_err(|e| wrong(1, format!("the start position is not valid: {e}")))?;
    if position.variant().name() != header.variant {
        return Err(wrong(
            1,
            format!("the start position is {} but the variant is {:?}", position.variant(), header.variant),
        ));
    }
    Ok(position)
}

fn check_result(
    n: usize,
    header: &Header,
    position: &Position,
    plies: u32,
    ready: [bool; 2],
    r: &ResultRecord,
) -> Result<(), VerifyError> {
    if r.plies != plies {
        return Err(wrong(n, format!("the result says {} plies, the log holds {plies}", r.plies)));
    }
    if r.final_position != crate::wire::notation(position) {
        return Err(wrong(
            n,
            format!("the final position is\n  {position}\nbut the result says\n  {}", r.final_position),
        ));
    }
    let winner = r.winner;
    let outcome = position.outcome();
    match r.reason {
        Reason::FrontRowEmpty | Reason::NoLegalMoves => {
            let expected_reason = if r.reason == Reason::FrontRowEmpty {
                WinReason::FrontRowEmpty
            } else {
                WinReason::NoLegalMoves
            };
            match outcome {
                Outcome::Win { winner: w, reason } if Some(w) == winner && reason == expected_reason => {}
                _ => {
                    return Err(wrong(
                        n,
                        format!("the result says {} but the final position is {outcome}", r.result),
                    ));
                }
            }
        }
        Reason::MaxPlies => {
            if outcome.is_over() {
                return Err(wrong(
                    n,
                    format!("adjudicated at max plies, but the game was already over: {outcome}"),
                ));
            }
            if header.max_plies != Some(plies) || winner.is_some() {
                return Err(wrong(
                    n,
                    format!("a max_plies draw needs {:?} plies and no winner", header.max_plies),
                ));
            }
        }
        Reason::Aborted => {
            if winner.is_some() {
                return Err(wrong(n, "an aborted game has no winner"));
            }
        }
        fault => {
            if outcome.is_over() {
                return Err(wrong(n, format!("a {fault} verdict, but the game was already over: {outcome}")));
            }
            if let Some(offense) = &r.offense {
                let offender = offense.side;
                // Before its `ready`, a bot can only fail the handshake or break a limit.
                let starting = !ready[offender.index()];
                if starting && fault != Reason::HandshakeFailed && !crate::reason::is_resource_limit(fault) {
                    return Err(wrong(
                        n,
                        format!("a {fault} verdict against {offender}, which had not answered ready"),
                    ));
                }
                if !starting && fault == Reason::HandshakeFailed {
                    return Err(wrong(
                        n,
                        format!("a {fault} verdict against {offender}, which had answered ready"),
                    ));
                }
                if !starting && offender != position.side_to_move() {
                    return Err(wrong(
                        n,
                        format!(
                            "a {fault} verdict against {offender}, but {} was to move",
                            position.side_to_move()
                        ),
                    ));
                }
                if winner != Some(offender.opponent()) {
                    return Err(wrong(
                        n,
                        format!("{offender} committed the {fault}, so {} must win", offender.opponent()),
                    ));
                }
                if fault == Reason::IllegalMove
                    && let Some(text) = &offense.mv
                {
                    let legal = text.parse::<MoveText>().ok().and_then(|t| t.to_move(position).ok());
                    if let Some(mv) = legal {
                        return Err(wrong(
                            n,
                            format!("the verdict calls {mv} illegal, but it is legal here"),
                        ));
                    }
                }
            } else if fault != Reason::HandshakeFailed || winner.is_some() {
                return Err(wrong(n, format!("a {fault} verdict without the offense it names")));
            }
            if fault == Reason::HandshakeFailed && plies != 0 {
                return Err(wrong(n, "a handshake failure after moves were played"));
            }
        }
    }
    let summary = match (winner, r.reason) {
        (_, Reason::Aborted) => "aborted".to_owned(),
        (Some(w), reason) => format!("{w} wins ({reason})"),
        (None, reason) => format!("draw ({reason})"),
    };
    if summary != r.result {
        return Err(wrong(
            n,
            format!("the result text is {:?}, but winner and reason say {summary:?}", r.result),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The general reading of a line: the tagged enum.
    fn general(line: &str) -> Option<LogRecord> {
        serde_json::from_str(line).ok()
    }

    #[test]
    fn a_ply_record_read_straight_is_the_one_the_tagged_enum_reads_and_others_are_left_to_it() {
        let read_straight = [
            r#"{"type":"ply","ply":1,"side":"S","move":"A6<","time_us":812,"cpu_us":640,"clock_ms":[10099,10000],"position":"kiswahili N 2,2,2,2,2,2,0,0/0,0,0,0,0,0,0,0/2,2,2,2,2,2,0,0/0,0,0,0,0,0,0,0 21,22 SN -"}"#,
            r#"{"type":"ply","ply":7,"side":"N","move":"a1>","time_us":0,"cpu_us":null,"clock_ms":[0,1],"position":"x","info":[{"depth":3,"comment":"é \"q\""}]}"#,
            r#"{"type":"ply","side":"N","ply":2,"move":"a1>","time_us":0,"cpu_us":null,"clock_ms":[0,1],"position":"x","unknown":{"a":[1]}}"#,
        ];
        for line in read_straight {
            let straight = ply_record(line);
            assert!(straight.is_some(), "{line}");
            assert_eq!(straight.map(LogRecord::Ply), general(line), "{line}");
        }
        let left_to_the_general_reading = [
            // A second tag: the tagged enum rejects it.
            r#"{"type":"ply","ply":1,"side":"S","move":"A6<","time_us":1,"cpu_us":null,"clock_ms":[0,0],"position":"x","type":"ply"}"#,
            r#"{"type":"ply","ply":1,"side":"s","move":"A6<","time_us":1,"cpu_us":null,"clock_ms":[0,0],"position":"x"}"#,
            r#"{"type":"ply","ply":1,"side":"S","move":"A6<","time_us":-1,"cpu_us":null,"clock_ms":[0,0],"position":"x"}"#,
            r#"{"type":"ply","ply":1}"#,
            r#"{"ply":1,"type":"ply","side":"S","move":"A6<","time_us":1,"cpu_us":null,"clock_ms":[0,0],"position":"x"}"#,
            r#"{"type":"result"}"#,
        ];
        for line in left_to_the_general_reading {
            assert_eq!(ply_record(line), None, "{line}");
        }
    }
}
