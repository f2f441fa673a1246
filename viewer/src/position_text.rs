//! A position drawn for a person, with its whole state: `bao-referee rules show` and the end of
//! a `match`.
//!
//! North sits at the top, South at the bottom. Each row is printed left to
//! right as seen from South's chair, and labelled in its owner's own
//! numbering: North's rows read b8..b1 and a8..a1 (North's left is South's
//! right), South's rows read A1..A8 and B1..B8. So `A_k` sits below `a_(9-k)`,
//! the pit it faces.

use std::fmt::Write as _;

use bao_rules::{Outcome, Pit, Position, Side};

/// Width of the row labels at the left (`North b `).
const LABEL: usize = 8;
/// Width of one pit: a count of up to 3 digits right-aligned in 4, then a marker.
const CELL: usize = 5;
/// Marks the owned nyumba.
const NYUMBA_MARK: char = '*';
/// Marks the pit under takasia.
const TAKASIA_MARK: char = '!';

/// The drawing: lines separated by `\n` (none after the last), no trailing spaces; the last
/// lines say each player's hand, stage and nyumba, the takasia, the player to move, the
/// position's result and the marks.
#[must_use]
pub fn render_position(position: &Position) -> String {
    let mut lines: Vec<String> = Vec::with_capacity(20);
    let mut line = |s: String| lines.push(s.trim_end().to_owned());
    line(format!("Position: {position}"));
    line(format!("Variant:  {}", position.variant()));
    line(String::new());

    // North's rows: columns 8..1 from South's left to right.
    let north_cols: Vec<u8> = (1..=8).rev().collect();
    let south_cols: Vec<u8> = (1..=8).collect();
    line(format!("{:LABEL$}{}  North's columns", "", column_numbers(&north_cols)));
    line(row_line(position, Side::North, 'b', "North", &north_cols));
    line(row_line(position, Side::North, 'a', "", &north_cols));
    line(format!("{:LABEL$}{}", "", "-".repeat(8 * CELL - 1)));
    line(row_line(position, Side::South, 'A', "South", &south_cols));
    line(row_line(position, Side::South, 'B', "", &south_cols));
    line(format!("{:LABEL$}{}  South's columns", "", column_numbers(&south_cols)));
    line(String::new());

    for side in [Side::North, Side::South] {
        line(player_line(position, side));
    }
    let mover = position.side_to_move();
    let takasia = match position.takasia() {
        Some(pit) => format!("{} ({} may not lift it this move)", pit_name(mover, pit), side_name(mover)),
        None => "none".to_owned(),
    };
    line(format!("Takasia: {takasia}"));
    line(format!("To move: {}", side_name(mover)));
    let result = match position.outcome() {
        Outcome::Ongoing => "ongoing".to_owned(),
        over @ Outcome::Win { .. } => format!("{over} (game over)"),
    };
    line(format!("Result:  {result}"));
    line(format!("Marks:   {NYUMBA_MARK} owned nyumba, {TAKASIA_MARK} under takasia"));
    lines.join("\n")
}

/// The column numbers, aligned with the counts.
fn column_numbers(cols: &[u8]) -> String {
    cols.iter().map(|c| format!("{c:>4} ")).collect()
}

/// One row: its label, then each pit's count and marker.
fn row_line(position: &Position, side: Side, letter: char, who: &str, cols: &[u8]) -> String {
    let row = if letter.eq_ignore_ascii_case(&'a') { bao_rules::Row::Front } else { bao_rules::Row::Back };
    let mut s = format!("{who:<6}{letter} ");
    for &col in cols {
        let Some(pit) = Pit::new(row, col) else { continue };
        let mark = if side == position.side_to_move() && position.takasia() == Some(pit) {
            TAKASIA_MARK
        } else if pit == Pit::NYUMBA && position.owns_nyumba(side) {
            NYUMBA_MARK
        } else {
            ' '
        };
        let _ = write!(s, "{:>4}{mark}", position.count(side, pit));
    }
    s
}

/// `North: 22 in hand, namua stage, owns nyumba a5`.
fn player_line(position: &Position, side: Side) -> String {
    let nyumba = if position.owns_nyumba(side) {
        format!("owns nyumba {}", pit_name(side, Pit::NYUMBA))
    } else {
        "no nyumba".to_owned()
    };
    format!(
        "{}: {} in hand, {} stage, {nyumba}",
        side_name(side),
        position.hand(side),
        position.stage(side).name()
    )
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::South => "South",
        Side::North => "North",
    }
}

/// A pit in the board's labels: upper case for South, lower case for North.
fn pit_name(side: Side, pit: Pit) -> String {
    let name = pit.to_string();
    match side {
        Side::South => name,
        Side::North => name.to_ascii_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board_lines(text: &str) -> Vec<&str> {
        text.lines().skip(3).take(7).collect()
    }

    #[test]
    fn three_digit_counts_stay_aligned() {
        let position: Position =
            "kiswahili S 255,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 0,0 -- -"
                .parse()
                .unwrap_or_else(|e| panic!("{e}"));
        let big: Position =
            "kujifunza N 100,0,0,0,0,0,0,7/10,0,0,0,0,0,0,0/9,0,0,0,0,0,0,99/0,0,0,0,0,0,0,20 0,0 -- -"
                .parse()
                .unwrap_or_else(|e| panic!("{e}"));
        for p in [position, big] {
            let text = render_position(&p);
            // Every digit of every count ends at the same column as its column number.
            let lines = board_lines(&text);
            let ends = |l: &str| -> Vec<usize> {
                let b = l.as_bytes();
                (0..b.len())
                    .filter(|&i| {
                        i >= LABEL
                            && b[i].is_ascii_digit()
                            && b.get(i + 1).is_none_or(|c| !c.is_ascii_digit())
                    })
                    .collect()
            };
            let want = ends(lines[0]);
            assert_eq!(want.len(), 8, "{text}");
            for l in [lines[1], lines[2], lines[4], lines[5], lines[6]] {
                assert_eq!(ends(l), want, "misaligned line {l:?} in\n{text}");
            }
        }
    }

    #[test]
    fn north_row_is_mirrored_so_facing_pits_line_up() {
        let p: Position =
            "kiswahili S 1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,42/0,0,0,0,0,0,0,0 0,0 -- -"
                .parse()
                .unwrap_or_else(|e| panic!("{e}"));
        let text = render_position(&p);
        let lines = board_lines(&text);
        // a8 (42) is leftmost in North's front row, right above A1 (1), which it faces.
        assert!(lines[2].starts_with("      a   42"), "{text}");
        assert!(lines[4].starts_with("South A    1"), "{text}");
    }
}
