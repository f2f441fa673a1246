//! Building replay data from `bao-rules` positions and moves.

use bao_rules::{Move, Pit, Position, Row, Side};

use crate::replay_data::{BoardJson, PlyData, SideCode};

/// The absolute name of `side`'s `pit`: upper-case row for South (`A5`), lower case for North (`a5`).
#[must_use]
pub fn absolute_pit_name(side: Side, pit: Pit) -> String {
    let letter = match (side, pit.row()) {
        (Side::South, Row::Front) => 'A',
        (Side::South, Row::Back) => 'B',
        (Side::North, Row::Front) => 'a',
        (Side::North, Row::Back) => 'b',
    };
    format!("{letter}{}", pit.col())
}

/// A move in game-record form: the mover's notation with a lower-case row for North
/// (`A5<` by North is `a5<`); South's moves are unchanged.
#[must_use]
pub fn record_form(mover: SideCode, notation: &str) -> String {
    match mover {
        SideCode::South => notation.to_owned(),
        SideCode::North => {
            let mut chars = notation.chars();
            match chars.next() {
                Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        }
    }
}

impl BoardJson {
    /// The board of a rules-engine position, with its notation.
    #[must_use]
    pub fn from_position(position: &Position) -> BoardJson {
        let rows = [
            position.front_row(Side::South),
            position.back_row(Side::South),
            position.front_row(Side::North),
            position.back_row(Side::North),
        ];
        let to_move = position.side_to_move();
        BoardJson {
            to_move,
            stage: position.stage(to_move).into(),
            rows,
            hands: [position.hand(Side::South), position.hand(Side::North)],
            nyumba: [position.owns_nyumba(Side::South), position.owns_nyumba(Side::North)],
            takasia: position.takasia().map(|pit| absolute_pit_name(to_move, pit)),
            notation: Some(position.to_string()),
        }
    }
}

impl PlyData {
    /// The ply `number` (1-based) that plays `mv` in `before` and reaches `after`, with the seeds
    /// captured worked out from the two positions. Time, clocks, info and steps are left empty
    /// (0, null, none, none) for the caller to fill in from the game log.
    #[must_use]
    pub fn from_positions(number: u32, before: &Position, mv: Move, after: &Position) -> PlyData {
        let mover = before.side_to_move();
        let opponent_seeds = |p: &Position| -> u32 {
            let side = mover.opponent();
            p.front_row(side).iter().chain(p.back_row(side).iter()).map(|&c| u32::from(c)).sum()
        };
        let notation = mv.to_string();
        PlyData {
            number,
            side: mover,
            record: record_form(mover, &notation),
            mv: notation,
            stage: before.stage(mover).into(),
            time_us: 0,
            clock_ms: None,
            info: Vec::new(),
            // The opponent's pits only ever lose seeds during a move: by capture.
            captured: opponent_seeds(before).saturating_sub(opponent_seeds(after)),
            after: BoardJson::from_position(after),
            steps: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay_data::StageCode;
    use bao_rules::Variant;

    #[test]
    fn the_start_board_has_the_notation_order() {
        let board = BoardJson::from_position(&Position::start(Variant::Kiswahili));
        assert_eq!(board.rows[0], [0, 0, 0, 0, 6, 2, 2, 0]);
        assert_eq!(board.rows[2], [0, 0, 0, 0, 6, 2, 2, 0]);
        assert_eq!(board.count("A5"), Some(6));
        assert_eq!(board.count("a7"), Some(2));
        assert_eq!(board.count("b9"), None);
        assert_eq!(board.hands, [22, 22]);
        assert_eq!(board.nyumba, [true, true]);
        assert_eq!(board.to_move, SideCode::South);
    }

    #[test]
    fn pit_names_and_record_form() {
        assert_eq!(absolute_pit_name(Side::North, Pit::new(Row::Back, 3).unwrap()), "b3");
        assert_eq!(absolute_pit_name(Side::South, Pit::NYUMBA), "A5");
        assert_eq!(record_form(SideCode::North, "A5<"), "a5<");
        assert_eq!(record_form(SideCode::North, "B2>"), "b2>");
        assert_eq!(record_form(SideCode::South, "A5<"), "A5<");
    }

    fn play(position: &Position, notation: &str) -> (Move, Position) {
        let mv = position.legal_moves().iter().copied().find(|m| m.to_string() == notation).unwrap();
        (mv, position.play(mv).unwrap().0)
    }

    #[test]
    fn a_ply_counts_its_captures() {
        let start = Position::start(Variant::Kiswahili);
        let (mv1, after1) = play(&start, "A6<");
        let ply1 = PlyData::from_positions(1, &start, mv1, &after1);
        assert_eq!((ply1.captured, ply1.side, ply1.stage), (0, SideCode::South, StageCode::Namua));
        assert_eq!(ply1.after.count("A3"), Some(1));
        // North's seed into a5 (facing A4, which holds 1) captures that seed.
        let (mv2, after2) = play(&after1, "A5>");
        let ply2 = PlyData::from_positions(2, &after1, mv2, &after2);
        assert_eq!(ply2.record, "a5>");
        assert_eq!(ply2.side, SideCode::North);
        assert_eq!(ply2.captured, 1);
        assert_eq!(ply2.after.count("A4"), Some(0));
        assert_eq!(ply2.after.hands, [21, 21]);
        assert_eq!(ply2.after.to_move, SideCode::South);
    }
}
