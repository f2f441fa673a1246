//! The board and the plies as text for a terminal, with or without ANSI colour.
//!
//! North is on top, as a spectator at South's seat sees the board (docs/rules.md): North's rows
//! run `b8`…`b1` and `a8`…`a1` from the left, South's `A1`…`A8` and `B1`…`B8`. An owned nyumba
//! is shown `[ 6]`, the pit under takasia `< 2>`.

use std::fmt::Write as _;

use crate::replay_data::{BoardJson, InfoData, PlyData, ReplayData, ResultData, SideCode};

/// How to draw: the caller decides colour (typically: stdout is a terminal and `NO_COLOR` unset).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TerminalStyle {
    /// Use ANSI colour and bold; plain text otherwise.
    pub colour: bool,
}

impl TerminalStyle {
    /// Plain text.
    pub const PLAIN: TerminalStyle = TerminalStyle { colour: false };
    /// ANSI colour.
    pub const COLOUR: TerminalStyle = TerminalStyle { colour: true };

    fn paint(self, code: &str, text: &str) -> String {
        if self.colour { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    }
}

const NORTH_COLOUR: &str = "35";
const SOUTH_COLOUR: &str = "36";
const NYUMBA_COLOUR: &str = "1;33";
const TAKASIA_COLOUR: &str = "1;31";
const EMPTY_COLOUR: &str = "2";
const BOLD: &str = "1";

fn side_colour(side: SideCode) -> &'static str {
    match side {
        SideCode::South => SOUTH_COLOUR,
        SideCode::North => NORTH_COLOUR,
    }
}

/// The board, North on top, both sides labelled with their bot's name and hand, the player to
/// move marked, followed by a key line. Ends with a newline.
#[must_use]
pub fn render_board(board: &BoardJson, south_name: &str, north_name: &str, style: TerminalStyle) -> String {
    let mut out = String::new();
    let side_line = |side: SideCode, name: &str| -> String {
        let hand = board.hands[side.index()];
        let mut line = format!(
            "  {} {}  hand {hand}",
            style.paint(side_colour(side), &format!("{}:", side.name())),
            style.paint(BOLD, name)
        );
        if board.to_move == side {
            let _ = write!(line, "  {}", style.paint(BOLD, &format!("<- to move ({})", board.stage.name())));
        }
        line.push('\n');
        line
    };
    let header = |columns: [usize; 8]| -> String {
        let mut line = String::from("    ");
        for col in columns {
            let _ = write!(line, " {col:>3} ");
        }
        line.trim_end().to_owned() + "\n"
    };
    const DESCENDING: [usize; 8] = [8, 7, 6, 5, 4, 3, 2, 1];
    const ASCENDING: [usize; 8] = [1, 2, 3, 4, 5, 6, 7, 8];

    out += &side_line(SideCode::North, north_name);
    out += &header(DESCENDING);
    // (row index in BoardJson::rows, letter, owner, columns left to right)
    let rows: [(usize, char, SideCode, [usize; 8]); 4] = [
        (3, 'b', SideCode::North, DESCENDING),
        (2, 'a', SideCode::North, DESCENDING),
        (0, 'A', SideCode::South, ASCENDING),
        (1, 'B', SideCode::South, ASCENDING),
    ];
    for (i, (row, letter, owner, columns)) in rows.into_iter().enumerate() {
        if i == 2 {
            out += &format!("    {}\n", "-".repeat(40));
        }
        let mut line = format!("  {} ", style.paint(side_colour(owner), &letter.to_string()));
        for col in columns {
            let count = board.rows[row][col - 1];
            let name = format!("{letter}{col}");
            let is_nyumba = col == 5 && (row == 0 || row == 2) && board.nyumba[owner.index()];
            let is_takasia = board.takasia.as_deref() == Some(name.as_str());
            let cell = if is_takasia {
                style.paint(TAKASIA_COLOUR, &format!("<{count:>3}>"))
            } else if is_nyumba {
                style.paint(NYUMBA_COLOUR, &format!("[{count:>3}]"))
            } else if count == 0 {
                format!(" {} ", style.paint(EMPTY_COLOUR, &format!("{count:>3}")))
            } else {
                format!(" {count:>3} ")
            };
            line += &cell;
        }
        out += line.trim_end();
        out.push('\n');
    }
    out += &header(ASCENDING);
    out += &side_line(SideCode::South, south_name);
    let mut key = String::from("  key: [n] nyumba");
    if let Some(pit) = &board.takasia {
        let _ = write!(key, ", <n> takasia ({pit})");
    }
    out += &key;
    out.push('\n');
    out
}

/// A duration in µs for people: `812 µs`, `12.3 ms`, `2.50 s`.
#[must_use]
pub fn format_micros(us: u64) -> String {
    if us < 1_000 {
        format!("{us} µs")
    } else if us < 1_000_000 {
        format!("{:.1} ms", us as f64 / 1e3)
    } else {
        format!("{:.2} s", us as f64 / 1e6)
    }
}

/// A clock in ms for people: `9.87 s`, `1:05.20`.
#[must_use]
pub fn format_clock_ms(ms: u64) -> String {
    if ms < 60_000 {
        format!("{:.2} s", ms as f64 / 1e3)
    } else {
        format!("{}:{:05.2}", ms / 60_000, (ms % 60_000) as f64 / 1e3)
    }
}

/// One `info` message as `depth 3, score 12, nodes 1000, pv A5< a4>, "comment"`.
#[must_use]
pub fn format_info(info: &InfoData) -> String {
    let mut parts = Vec::new();
    if let Some(depth) = info.depth {
        parts.push(format!("depth {depth}"));
    }
    if let Some(score) = info.score {
        parts.push(format!("score {score}"));
    }
    if let Some(nodes) = info.nodes {
        parts.push(format!("nodes {nodes}"));
    }
    if !info.pv.is_empty() {
        parts.push(format!("pv {}", info.pv.join(" ")));
    }
    if let Some(comment) = &info.comment {
        parts.push(format!("{comment:?}"));
    }
    if parts.is_empty() { "(empty)".to_owned() } else { parts.join(", ") }
}

/// The heading of one ply: number, mover and bot, the move in the mover's notation and in
/// game-record form, the stage, seeds captured, time used and both clocks, and the bot's last
/// `info`. Ends with a newline.
#[must_use]
pub fn render_ply_header(ply: &PlyData, south_name: &str, north_name: &str, style: TerminalStyle) -> String {
    let name = match ply.side {
        SideCode::South => south_name,
        SideCode::North => north_name,
    };
    let mut out = format!(
        "{} {} ({}) played {} (record {}), {}\n",
        style.paint(BOLD, &format!("Ply {}:", ply.number)),
        style.paint(side_colour(ply.side), ply.side.name()),
        name,
        style.paint(BOLD, &ply.mv),
        ply.record,
        ply.stage.name()
    );
    let _ = write!(out, "  captured {} · time {}", ply.captured, format_micros(ply.time_us));
    if let Some([south, north]) = ply.clock_ms {
        let _ = write!(out, " · clocks S {} N {}", format_clock_ms(south), format_clock_ms(north));
    }
    out.push('\n');
    if let Some(info) = ply.info.last() {
        let _ = writeln!(out, "  info: {}", format_info(info));
    }
    out
}

/// The result line: `Result: North (bot) wins, front_row_empty: detail`.
#[must_use]
pub fn render_result(
    result: &ResultData,
    south_name: &str,
    north_name: &str,
    style: TerminalStyle,
) -> String {
    let head = match result.winner {
        Some(side) => {
            let name = if side == SideCode::South { south_name } else { north_name };
            format!("{} ({name}) wins", style.paint(side_colour(side), side.name()))
        }
        None if result.reason == "max_plies" => "draw".to_owned(),
        None => "no winner".to_owned(),
    };
    let mut out = format!("{} {head}, {}", style.paint(BOLD, "Result:"), result.reason);
    if !result.detail.is_empty() {
        let _ = write!(out, ": {}", result.detail);
    }
    out.push('\n');
    out
}

/// Ply `ply` of a game (0: the start position): its heading and the board after it.
/// Returns `None` past the last ply.
#[must_use]
pub fn render_ply(data: &ReplayData, ply: usize, style: TerminalStyle) -> Option<String> {
    let board = data.board_after(ply)?;
    let mut out = match ply.checked_sub(1).and_then(|i| data.plies.get(i)) {
        Some(p) => render_ply_header(p, &data.south_name, &data.north_name, style),
        None => format!("{} {} start position\n", style.paint(BOLD, "Ply 0:"), data.variant),
    };
    out += &render_board(board, &data.south_name, &data.north_name, style);
    Some(out)
}

/// A whole game: the start, every ply and the result, separated by blank lines.
#[must_use]
pub fn render_game(data: &ReplayData, style: TerminalStyle) -> String {
    let mut parts: Vec<String> = (0..=data.plies.len()).filter_map(|i| render_ply(data, i, style)).collect();
    if let Some(result) = &data.result {
        parts.push(render_result(result, &data.south_name, &data.north_name, style));
    }
    parts.join("\n")
}
