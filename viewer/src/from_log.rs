//! A [`ReplayData`] from a game log (the JSON Lines of `bao-game`'s log writer): every ply with
//! its time, clocks, `info`, captures, the position after it, and its sowing steps from the
//! rules engine ([`Position::sowing_steps`]).
//!
//! A log that is still being written may end in a partial line; it is ignored, so a running
//! game can be shown (and re-read as it grows).

use bao_game::log::{Header, LogRecord, PlyRecord, ResultRecord};
use bao_rules::{MoveText, Position, Side, SowStep};

use crate::replay_data::BoardJson;
use crate::{InfoData, PlyData, ReplayData, ResultData, Step};

/// Why a log cannot be shown: the 1-based line and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct FromLogError {
    /// The line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

fn error(line: usize, message: impl Into<String>) -> FromLogError {
    FromLogError { line, message: message.into() }
}

/// The replay of the game log `text` (complete, or still being written).
///
/// # Errors
/// A line that is not a log record, a first line that is not the header, a move that is not
/// legal where it was played, or a position that is not valid notation.
pub fn replay_from_log(text: &str) -> Result<ReplayData, FromLogError> {
    let mut records = Vec::new();
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if !line.ends_with('\n') {
            break; // the line being written
        }
        let line = line.trim_end();
        if line.is_empty() {
            continue;
        }
        let record: LogRecord =
            serde_json::from_str(line).map_err(|e| error(i + 1, format!("not a log record: {e}")))?;
        records.push((i + 1, record));
    }
    let mut records = records.into_iter();
    let Some((_, LogRecord::Header(header))) = records.next() else {
        return Err(error(1, "the first line is not a header record"));
    };
    let mut replay = start(&header).map_err(|m| error(1, m))?;
    let mut position: Position =
        header.start.parse().map_err(|e| error(1, format!("start position: {e}")))?;
    for (line, record) in records {
        match record {
            LogRecord::Ply(ply) => {
                let (data, after) = ply_data(&position, &ply).map_err(|m| error(line, m))?;
                replay.plies.push(data);
                position = after;
            }
            LogRecord::Result(result) => replay.result = Some(result_data(&result)),
            LogRecord::Ready(ready) => match ready.side {
                Side::South => replay.south_name = ready.reported.name,
                Side::North => replay.north_name = ready.reported.name,
            },
            LogRecord::Header(_) => return Err(error(line, "a second header record")),
            LogRecord::Stderr(_) => {}
        }
    }
    Ok(replay)
}

/// The replay's fixed part, from the header.
fn start(header: &Header) -> Result<ReplayData, String> {
    let position: Position = header.start.parse().map_err(|e| format!("start position: {e}"))?;
    let name = |bot: &bao_game::log::BotRecord| {
        bot.reported.as_ref().map_or_else(|| bot.name.clone(), |r| r.name.clone())
    };
    Ok(ReplayData {
        variant: header.variant.clone(),
        south_name: name(&header.south),
        north_name: name(&header.north),
        start: BoardJson::from_position(&position),
        plies: Vec::new(),
        result: None,
        title: None,
        back_href: None,
    })
}

/// One ply of the log, played from `before`: its data (with the sowing steps) and the
/// position after it. For a server that follows a game record by record.
pub fn ply_data(before: &Position, ply: &PlyRecord) -> Result<(PlyData, Position), String> {
    let text: MoveText = ply.mv.parse().map_err(|e| format!("move {:?}: {e}", ply.mv))?;
    let mv = text.to_move(before).map_err(|e| format!("move {:?}: {e}", ply.mv))?;
    let after: Position = ply.position.parse().map_err(|e| format!("position after ply {}: {e}", ply.ply))?;
    let steps = before.sowing_steps(mv).map_err(|e| format!("move {:?}: {e}", ply.mv))?;
    let mut data = PlyData::from_positions(ply.ply, before, mv, &after);
    data.time_us = ply.time_us;
    data.clock_ms = Some(ply.clock_ms);
    data.info = ply
        .info
        .iter()
        .map(|i| InfoData {
            depth: i.depth.map(u64::from),
            score: i.score,
            nodes: i.nodes,
            pv: Vec::new(),
            comment: i.comment.clone(),
        })
        .collect();
    data.steps = steps.into_iter().map(Step::from).collect();
    Ok((data, after))
}

/// A sowing step of the rules engine as the page's step (the same names; pits by name).
impl From<SowStep> for Step {
    fn from(s: SowStep) -> Step {
        match s {
            SowStep::Hand => Step::Hand,
            SowStep::Pick { pit, seeds } => Step::Pick { pit: pit.to_string(), seeds: u32::from(seeds) },
            SowStep::Drop { pit } => Step::Drop { pit: pit.to_string() },
            SowStep::Capture { pit, seeds } => {
                Step::Capture { pit: pit.to_string(), seeds: u32::from(seeds) }
            }
            SowStep::Kichwa { pit } => Step::Kichwa { pit: pit.to_string() },
            SowStep::Safari { pit } => Step::Safari { pit: pit.to_string() },
            SowStep::NyumbaLost { pit } => Step::NyumbaLost { pit: pit.to_string() },
        }
    }
}

/// The result record as the page shows it.
#[must_use]
pub fn result_data(result: &ResultRecord) -> ResultData {
    ResultData {
        winner: result.winner,
        reason: result.reason.name().to_owned(),
        detail: result.detail.clone(),
    }
}
