//! The positions the checks ask for moves from, copied from the rules' worked cases
//! (`rules/tests/data/*.jsonl`), each chosen for what a careless bot gets wrong there.

use bao_rules::Position;

use super::failure::Failure;

/// North to move in namua, mid-game (hands 16 and 17, both nyumba lost):
/// `A3< A3> A4< A4> A5< A5> A7< A8<` (`random-kiswahili.jsonl`, game 3, ply 11).
pub const NAMUA_MIDGAME: &str =
    "kiswahili N 1,3,0,7,2,2,1,4/1,0,0,0,0,0,0,1/0,0,1,3,1,0,1,1/1,1,0,0,0,0,0,0 16,17 -- -";

/// North to move in mtaji, with back-row moves: `A1> A5< A8< B1> B8<`
/// (`random-kiswahili.jsonl`, game 3, ply 55).
pub const MTAJI_KISWAHILI: &str =
    "kiswahili N 0,0,2,1,1,2,1,4/1,2,0,2,1,0,6,5/2,0,1,1,4,0,1,7/3,1,1,3,1,5,1,5 0,0 -- -";

/// North to move with exactly one legal move, from the back row: `B5<`
/// (`random-kiswahili.jsonl`, game 3, ply 51).
pub const ONE_LEGAL_MOVE: &str =
    "kiswahili N 6,1,2,8,1,6,1,0/1,2,0,2,1,4,5,4/0,0,2,0,0,0,0,1/1,2,0,2,4,4,0,4 0,0 -- -";

/// North to move with A4 (2 seeds) under takasia: `A1< A1> A7< A7>` (`special.jsonl`).
pub const TAKASIA: &str =
    "kiswahili N 0,0,2,0,1,1,0,0/6,6,6,6,6,6,5,5/2,0,0,2,0,0,2,0/1,1,1,1,1,1,1,1 0,0 -- A4";

/// South to move with a safari choice: `A2> A2>+` (`special.jsonl`).
pub const SAFARI_CHOICE: &str =
    "kiswahili S 0,1,0,0,6,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,5,0/0,0,0,0,0,0,0,0 22,22 SN -";

/// A position of this module as a [`Position`]. The constants are valid (the tests say so);
/// a parse error would be a bug of the checker, reported as a failure rather than a panic.
pub fn parse(notation: &str) -> Result<Position, Failure> {
    notation
        .parse()
        .map_err(|e| Failure::new(format!("internal error: the checker's position {notation:?}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pit under takasia in [`TAKASIA`].
    const TAKASIA_PIT: &str = "A4";

    fn legal(notation: &str) -> Vec<String> {
        let position = parse(notation).expect("valid position");
        assert_eq!(position.to_string(), notation, "notation round-trips");
        assert!(!position.outcome().is_over(), "{notation} is not finished");
        position.legal_moves().iter().map(ToString::to_string).collect()
    }

    #[test]
    fn the_positions_have_the_legal_moves_of_the_worked_cases() {
        assert_eq!(legal(NAMUA_MIDGAME), ["A3<", "A3>", "A4<", "A4>", "A5<", "A5>", "A7<", "A8<"]);
        assert_eq!(legal(MTAJI_KISWAHILI), ["A1>", "A5<", "A8<", "B1>", "B8<"]);
        assert_eq!(legal(ONE_LEGAL_MOVE), ["B5<"]);
        assert_eq!(legal(TAKASIA), ["A1<", "A1>", "A7<", "A7>"]);
        assert_eq!(legal(SAFARI_CHOICE), ["A2>", "A2>+"]);
    }

    #[test]
    fn each_position_has_the_feature_its_check_is_about() {
        use bao_rules::{Side, Stage};
        let namua = parse(NAMUA_MIDGAME).unwrap();
        assert_eq!(namua.side_to_move(), Side::North);
        assert_eq!(namua.stage(Side::North), Stage::Namua);
        let mtaji = parse(MTAJI_KISWAHILI).unwrap();
        assert_eq!(mtaji.stage(Side::North), Stage::Mtaji);
        assert!(mtaji.legal_moves().iter().any(|m| m.to_string().starts_with('B')));
        let takasia = parse(TAKASIA).unwrap();
        assert_eq!(takasia.takasia().map(|p| p.to_string()).as_deref(), Some(TAKASIA_PIT));
        // The pit under takasia holds seeds (a careless bot would move from it), yet no
        // legal move starts there.
        assert_eq!(takasia.front_row(Side::North)[3], 2);
        assert!(takasia.legal_moves().iter().all(|m| m.pit().to_string() != TAKASIA_PIT));
        assert!(parse("not a position").is_err());
    }
}
