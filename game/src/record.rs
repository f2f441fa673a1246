//! The game of a log as a readable record, in the conventional Bao notation: numbered move
//! pairs, South's move then North's, North's row in lower case as game records write it
//! (`1. A6< a6<  2. A5> a4<`), then the result ([`render`]); or the same as structured data
//! ([`GameRecord`], serialisable). `bao-referee record LOG` prints it for a log that verifies.

use std::fmt::Write as _;

use crate::log::{Header, LogRecord, PlyRecord, ResultRecord};
use bao_rules::Side;
use serde::Serialize;

/// One numbered move pair: South's move and North's reply (either may be absent at the start
/// of a game where North moves first, or at its end).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MovePair {
    /// 1 for the first pair.
    pub number: u32,
    /// South's move, upper case (`A6<`).
    pub south: Option<String>,
    /// North's move, row in lower case (`a6<`).
    pub north: Option<String>,
}

/// A game record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GameRecord {
    /// `kiswahili` or `kujifunza`.
    pub variant: String,
    /// The start position in notation.
    pub start: String,
    /// Whether the start is the variant's standard start.
    pub standard_start: bool,
    /// South's name (as it reported itself, else as given).
    pub south: String,
    /// North's name.
    pub north: String,
    /// When the game started (RFC 3339, UTC).
    pub date: String,
    /// The moves.
    pub moves: Vec<MovePair>,
    /// `S wins (front_row_empty)`, `draw (max_plies)`, or `*` for a log without a result.
    pub result: String,
    /// The reason of the result (`front_row_empty`, `timeout`...), if there is a result.
    pub reason: Option<String>,
    /// The referee's sentence about the ending, if any.
    pub detail: Option<String>,
    /// Plies played.
    pub plies: u32,
}

/// A move as game records write it: North's row letter in lower case.
#[must_use]
pub fn record_notation(side: Side, mv: &str) -> String {
    if side == Side::North { mv.to_ascii_lowercase() } else { mv.to_owned() }
}

/// The record of a log's records.
///
/// # Errors
/// When the records do not start with a header.
pub fn build(records: &[LogRecord]) -> Result<GameRecord, String> {
    let Some(LogRecord::Header(header)) = records.first() else {
        return Err("the first line is not a header record".to_owned());
    };
    let plies: Vec<&PlyRecord> =
        records.iter().filter_map(|r| if let LogRecord::Ply(p) = r { Some(p) } else { None }).collect();
    let result: Option<&ResultRecord> =
        records.iter().find_map(|r| if let LogRecord::Result(x) = r { Some(x) } else { None });
    Ok(GameRecord {
        variant: header.variant.clone(),
        standard_start: is_standard_start(header),
        start: header.start.clone(),
        south: name(&header.south),
        north: name(&header.north),
        date: header.started_at.clone(),
        moves: pairs(&plies),
        result: result.map_or_else(|| "*".to_owned(), |r| r.result.clone()),
        reason: result.map(|r| r.reason.name().to_owned()),
        detail: result.map(|r| r.detail.clone()).filter(|d| !d.is_empty()),
        plies: u32::try_from(plies.len()).unwrap_or(u32::MAX),
    })
}

fn name(bot: &crate::log::BotRecord) -> String {
    bot.reported.as_ref().map_or_else(|| bot.name.clone(), |r| r.name.clone())
}

fn is_standard_start(header: &Header) -> bool {
    header
        .variant
        .parse::<bao_rules::Variant>()
        .is_ok_and(|v| bao_rules::Position::start(v).to_string() == header.start)
}

/// The plies as numbered pairs; a pair starts at each South move (or at a first North move).
fn pairs(plies: &[&PlyRecord]) -> Vec<MovePair> {
    let mut pairs: Vec<MovePair> = Vec::new();
    for ply in plies {
        let text = record_notation(ply.side, &ply.mv);
        match pairs.last_mut() {
            Some(pair) if ply.side == Side::North && pair.north.is_none() => pair.north = Some(text),
            _ => {
                let number = u32::try_from(pairs.len() + 1).unwrap_or(u32::MAX);
                let (south, north) =
                    if ply.side == Side::North { (None, Some(text)) } else { (Some(text), None) };
                pairs.push(MovePair { number, south, north });
            }
        }
    }
    pairs
}

/// The longest line of moves in the text record.
const LINE_WIDTH: usize = 80;

/// The record as text: tag lines, the moves wrapped at [`LINE_WIDTH`], the result.
#[must_use]
pub fn render(record: &GameRecord) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "[Variant \"{}\"]", record.variant);
    let _ = writeln!(out, "[South \"{}\"]", record.south);
    let _ = writeln!(out, "[North \"{}\"]", record.north);
    let _ = writeln!(out, "[Date \"{}\"]", record.date);
    if !record.standard_start {
        let _ = writeln!(out, "[Start \"{}\"]", record.start);
    }
    let _ = writeln!(out, "[Plies \"{}\"]", record.plies);
    let _ = writeln!(out, "[Result \"{}\"]", record.result);
    out.push('\n');
    let mut line = String::new();
    for pair in &record.moves {
        let south = pair.south.as_deref().unwrap_or("...");
        let text = match &pair.north {
            Some(north) => format!("{}. {south} {north}", pair.number),
            None => format!("{}. {south}", pair.number),
        };
        if !line.is_empty() && line.len() + 1 + text.len() > LINE_WIDTH {
            let _ = writeln!(out, "{line}");
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&text);
    }
    if !line.is_empty() {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "{}", record.result);
    if let Some(detail) = &record.detail {
        let _ = writeln!(out, "{{{detail}}}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ply(n: u32, side: &str, mv: &str) -> PlyRecord {
        PlyRecord {
            ply: n,
            side: side.parse().expect("S or N"),
            mv: mv.to_owned(),
            time_us: 0,
            cpu_us: None,
            clock_ms: [0, 0],
            position: String::new(),
            lag_excused_us: None,
            lag_credit_us: None,
            info: Vec::new(),
        }
    }

    #[test]
    fn moves_pair_up_with_north_in_lower_case() {
        let plies = [ply(1, "S", "A6<"), ply(2, "N", "A6<"), ply(3, "S", "B2>+")];
        let refs: Vec<&PlyRecord> = plies.iter().collect();
        let pairs = pairs(&refs);
        assert_eq!(pairs.len(), 2);
        assert_eq!(pairs[0], MovePair { number: 1, south: Some("A6<".into()), north: Some("a6<".into()) });
        assert_eq!(pairs[1], MovePair { number: 2, south: Some("B2>+".into()), north: None });
    }

    #[test]
    fn a_game_where_north_moves_first_starts_with_an_ellipsis() {
        let plies = [ply(1, "N", "A1>"), ply(2, "S", "A3<"), ply(3, "N", "B5<")];
        let refs: Vec<&PlyRecord> = plies.iter().collect();
        let record = GameRecord {
            variant: "kiswahili".into(),
            start: "x".into(),
            standard_start: false,
            south: "a".into(),
            north: "b".into(),
            date: "2026-01-01T00:00:00Z".into(),
            moves: pairs(&refs),
            result: "S wins (timeout)".into(),
            reason: Some("timeout".into()),
            detail: None,
            plies: 3,
        };
        let text = render(&record);
        assert!(text.contains("[Start \"x\"]"), "{text}");
        assert!(text.contains("\n1. ... a1> 2. A3< b5<\nS wins (timeout)\n"), "{text}");
    }

    #[test]
    fn long_games_wrap() {
        let plies: Vec<PlyRecord> =
            (1..=60).map(|n| ply(n, if n % 2 == 1 { "S" } else { "N" }, "A6<")).collect();
        let refs: Vec<&PlyRecord> = plies.iter().collect();
        let record = GameRecord {
            variant: "kiswahili".into(),
            start: String::new(),
            standard_start: true,
            south: "a".into(),
            north: "b".into(),
            date: String::new(),
            moves: pairs(&refs),
            result: "*".into(),
            reason: None,
            detail: None,
            plies: 60,
        };
        let text = render(&record);
        assert!(text.lines().all(|l| l.len() <= LINE_WIDTH), "{text}");
        assert!(text.contains("30. A6< a6<"), "{text}");
    }
}
