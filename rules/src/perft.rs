use crate::Position;

/// The number of move sequences of length `depth` from `position`.
///
/// A move that ends the game (the opponent's front row emptied, or the
/// opponent left without a legal move) ends its sequence and counts as one
/// leaf, whatever depth remains. A finished position has no sequences of
/// length 1 or more.
#[must_use]
pub fn perft(position: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    position.for_each_legal(|_, next| {
        total += if depth == 1 || next.front_row_empty(next.side_to_move()) {
            1
        } else {
            let below = perft(next, depth - 1);
            // A position with no legal move ends the game: one leaf.
            if below == 0 { 1 } else { below }
        };
    });
    total
}
