//! Why a move is not legal in a position, in words a bot author can act on.

use crate::{Direction, Move, MoveText, Outcome, Pit, Position, Side, Stage};

/// Why a move is illegal in a position. The message names the rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum IllegalMove {
    /// The game is over: no move is legal.
    #[error("the game is over ({0}): no move is legal")]
    GameOver(Outcome),
    /// A lower-case row was written for South.
    #[error("{0}: a lower-case row is accepted only for North's moves")]
    LowerCaseForSouth(MoveText),
    /// A namua move names a back pit.
    #[error("{0}: in namua the seed from hand goes into a front pit (row A), not the back row")]
    NamuaBackRow(Move),
    /// The pit is empty.
    #[error("{0}: pit {p} is empty", p = .0.pit())]
    EmptyPit(Move),
    /// A capture exists but this move does not capture.
    #[error("{0}: captures are mandatory and this move does not start with a capture")]
    CaptureRequired(Move),
    /// A namua capture at a kimbi pit written with the wrong direction.
    #[error("{0}: a capture from {p} sows from the {side} kichwa; write {p}{d}", p = .0.pit(), side = if *.1 == Direction::Clockwise { "left" } else { "right" }, d = .1)]
    ForcedDirection(Move, Direction),
    /// A namua takasa from the functional nyumba while other front pits hold seeds.
    #[error("{0}: the functional nyumba may be sown (taxed) only when it is the only non-empty front pit")]
    NyumbaProtected(Move),
    /// A namua takasa from a singleton while the nyumba is not owned and a
    /// front pit of 2 or more exists.
    #[error("{0}: pit {p} holds 1 seed; without a nyumba, a takasa starts from a pit of 2 or more while one exists", p = .0.pit())]
    Singleton(Move),
    /// A lone kichwa sown outwards.
    #[error("{0}: {p} is the only non-empty front pit, so it must be sown towards the centre", p = .0.pit())]
    LoneKichwa(Move),
    /// A move from the pit under takasia.
    #[error("{0}: pit {p} is under takasia for this move", p = .0.pit())]
    UnderTakasia(Move),
    /// A mtaji move from a pit of fewer than 2 seeds.
    #[error("{0}: pit {p} holds fewer than 2 seeds; a mtaji move lifts 2 or more", p = .0.pit())]
    TooFewSeeds(Move),
    /// A mtaji takasa from the back row while a front pit holds 2 or more.
    #[error("{0}: a takasa starts from the front row while a front pit holds 2 or more seeds")]
    FrontRowFirst(Move),
    /// `+` on a move that never reaches the functional nyumba with a choice.
    #[error("{0}: safari ('+') is only for a namua capture whose lap ends in the functional nyumba")]
    SafariNotOffered(Move),
    /// The move never ends (section 9).
    #[error("{0}: the move is infinite (it would go on past {max} laps)", max = crate::MAX_LAPS)]
    Infinite(Move),
    /// Any other reason (the move meets no start condition).
    #[error("{0}: not a legal move in this position")]
    NotLegal(Move),
}

impl MoveText {
    /// The legal move this text names in `position`.
    ///
    /// # Errors
    /// [`IllegalMove`] says why the move is not legal there.
    pub fn to_move(&self, position: &Position) -> Result<Move, IllegalMove> {
        if self.lower_case() && position.side_to_move() == Side::South {
            return Err(IllegalMove::LowerCaseForSouth(*self));
        }
        let m = self.to_move_unchecked();
        if position.legal_moves().contains(&m) {
            return Ok(m);
        }
        match position.play(m) {
            Err(e) => Err(e),
            Ok(_) => Ok(m),
        }
    }
}

impl Position {
    /// Why `m` is not a candidate here (called when it is not).
    pub(crate) fn explain_illegal(&self, m: Move) -> IllegalMove {
        if let Some(outcome) = self.front_row_outcome() {
            return IllegalMove::GameOver(outcome);
        }
        let me = self.side_to_move();
        let p = m.pit().index();
        let count = self.count(me, m.pit());
        let front = &self.front_row(me);
        let lone_kichwa = front.iter().filter(|&&c| c > 0).count() == 1
            && ((p == 0 && front[0] > 0 && m.direction() == Direction::AntiClockwise)
                || (p == 7 && front[7] > 0 && m.direction() == Direction::Clockwise));
        match self.stage(me) {
            Stage::Namua => {
                if !m.pit().is_front() {
                    return IllegalMove::NamuaBackRow(m);
                }
                if count == 0 {
                    return IllegalMove::EmptyPit(m);
                }
                if self.capture_exists() {
                    if !self.is_namua_capture_start(p) {
                        return IllegalMove::CaptureRequired(m);
                    }
                    let forced = match p {
                        0 | 1 => Some(Direction::Clockwise),
                        6 | 7 => Some(Direction::AntiClockwise),
                        _ => None,
                    };
                    if let Some(d) = forced.filter(|&d| d != m.direction()) {
                        return IllegalMove::ForcedDirection(m, d);
                    }
                    return IllegalMove::NotLegal(m);
                }
                if m.safari() {
                    return IllegalMove::SafariNotOffered(m);
                }
                let functional = self.owns_nyumba(me) && front[4] >= 6;
                if functional && m.pit() == Pit::NYUMBA {
                    return IllegalMove::NyumbaProtected(m);
                }
                if !self.owns_nyumba(me) && count == 1 && front.iter().any(|&c| c >= 2) {
                    return IllegalMove::Singleton(m);
                }
                if lone_kichwa {
                    return IllegalMove::LoneKichwa(m);
                }
                IllegalMove::NotLegal(m)
            }
            Stage::Mtaji => {
                if m.safari() {
                    return IllegalMove::SafariNotOffered(m);
                }
                if self.takasia() == Some(m.pit()) {
                    return IllegalMove::UnderTakasia(m);
                }
                if count == 0 {
                    return IllegalMove::EmptyPit(m);
                }
                if count < 2 {
                    return IllegalMove::TooFewSeeds(m);
                }
                if self.capture_exists() {
                    return IllegalMove::CaptureRequired(m);
                }
                if !m.pit().is_front() && front.iter().any(|&c| c >= 2) {
                    return IllegalMove::FrontRowFirst(m);
                }
                if lone_kichwa {
                    return IllegalMove::LoneKichwa(m);
                }
                IllegalMove::NotLegal(m)
            }
        }
    }
}
