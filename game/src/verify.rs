//! Verifying a game log (`bao-referee verify LOG`): replays a game log with the rules engine and
//! checks every move, every position and the result.

use bao_rules::{MoveText, Outcome, Position, Side, WinReason};

use crate::Reason;
use crate::log::{Header, LogRecord, ResultRecord};

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
    VerifyError { line, message: message.into(), malformed: false }
}

fn malformed(line: usize, message: impl Into<String>) -> VerifyError {
    VerifyError { line, message: message.into(), malformed: true }
}

fn side_letter(text: &str, line: usize, field: &str) -> Result<Side, VerifyError> {
    match text {
        "S" => Ok(Side::South),
        "N" => Ok(Side::North),
        other => Err(wrong(line, format!("{field} is {other:?}, expected \"S\" or \"N\""))),
    }
}

/// Verifies the text of a game log.
///
/// # Errors
/// The first line that is wrong, and why.
pub fn verify_log(text: &str) -> Result<Verified, VerifyError> {
    let mut lines = text.split_inclusive('\n').enumerate().map(|(i, l)| (i + 1, l));
    let Some((_, first)) = lines.next() else {
        return Err(malformed(1, "the log is empty: expected a header line"));
    };
    let header = match parse_record(1, first)? {
        LogRecord::Header(h) => h,
        _ => return Err(wrong(1, "the first line is not a header record")),
    };
    let mut position = start_of(&header)?;
    let mut plies: u32 = 0;
    let mut last_line = 1;
    for (n, raw) in lines {
        last_line = n;
        match parse_record(n, raw)? {
            LogRecord::Header(_) => return Err(wrong(n, "a second header record")),
            LogRecord::Stderr(s) => {
                side_letter(&s.side, n, "side")?;
            }
            LogRecord::Ply(p) => {
                plies += 1;
                if p.ply != plies {
                    return Err(wrong(n, format!("ply number {} where {plies} was expected", p.ply)));
                }
                let side = side_letter(&p.side, n, "side")?;
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
                let mv = text
                    .to_move(&position)
                    .map_err(|e| wrong(n, format!("ply {plies}: illegal move {e}")))?;
                let (next, _) =
                    position.play(mv).map_err(|e| wrong(n, format!("ply {plies}: illegal move {e}")))?;
                if next.to_string() != p.position {
                    return Err(wrong(
                        n,
                        format!(
                            "ply {plies}: the position after {mv} is\n  {next}\nbut the log says\n  {}",
                            p.position
                        ),
                    ));
                }
                position = next;
            }
            LogRecord::Result(r) => {
                check_result(n, &header, &position, plies, &r)?;
                if let Some((extra, _)) = text.split_inclusive('\n').enumerate().nth(n) {
                    return Err(wrong(extra + 1, "a line after the result record"));
                }
                return Ok(Verified { plies, result: r.result });
            }
        }
    }
    Err(wrong(last_line + 1, "the log ends without a result record: the game is incomplete"))
}

fn parse_record(n: usize, raw: &str) -> Result<LogRecord, VerifyError> {
    if !raw.ends_with('\n') {
        return Err(malformed(n, "the line has no newline: the log was cut off while it was written"));
    }
    serde_json::from_str(raw.trim_end_matches('\n'))
        .map_err(|e| malformed(n, format!("not a log record: {e}")))
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
    r: &ResultRecord,
) -> Result<(), VerifyError> {
    if r.plies != plies {
        return Err(wrong(n, format!("the result says {} plies, the log holds {plies}", r.plies)));
    }
    if r.final_position != position.to_string() {
        return Err(wrong(
            n,
            format!("the final position is\n  {position}\nbut the result says\n  {}", r.final_position),
        ));
    }
    let winner = r.winner.as_deref().map(|w| side_letter(w, n, "winner")).transpose()?;
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
                let offender = side_letter(&offense.side, n, "offense.side")?;
                if winner != Some(offender.opponent()) {
                    return Err(wrong(
                        n,
                        format!("{offender} committed the {fault}, so {} must win", offender.opponent()),
                    ));
                }
                if fault == Reason::IllegalMove {
                    if offender != position.side_to_move() {
                        return Err(wrong(n, format!("an illegal move by {offender}, who is not to move")));
                    }
                    if let Some(text) = &offense.mv {
                        let legal = text.parse::<MoveText>().ok().and_then(|t| t.to_move(position).ok());
                        if let Some(mv) = legal {
                            return Err(wrong(
                                n,
                                format!("the verdict calls {mv} illegal, but it is legal here"),
                            ));
                        }
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
