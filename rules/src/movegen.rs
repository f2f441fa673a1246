//! Legal moves (RULES.md sections 5, 8 and 9) and playing them.

use arrayvec::ArrayVec;

use crate::sow_step::Unobserved;
use crate::sowing::{MoveEnd, MoveKind};
use crate::{Direction, IllegalMove, Move, MoveList, Outcome, Pit, Position, Side, Variant, WinReason};

/// A move that meets the start conditions of its kind; it is legal unless infinite.
pub(crate) type Candidates = ArrayVec<(MoveKind, Move), 32>;

/// Pits in notation byte order: A1..A8, then B1..B8 (ring indices 15 down to 8).
const NOTATION_ORDER: [usize; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 15, 14, 13, 12, 11, 10, 9, 8];

fn pit(index: usize) -> Pit {
    #[expect(clippy::cast_possible_truncation, reason = "ring indices are < 16")]
    Pit::from_index(index as u8).unwrap_or(Pit::LEFT_KICHWA)
}

impl Position {
    /// Bit `e` is set for each front pit `e` of `side` where the first lap of
    /// a mtaji capture move would end (5.3), ignoring pit `excluded`.
    fn mtaji_capture_ends(&self, side: Side, excluded: Option<usize>) -> u8 {
        let me = &self.pits[side.index()];
        let opp = &self.pits[side.opponent().index()];
        let mut ends = 0u8;
        for (s, &n) in me.iter().enumerate() {
            if !(2..=15).contains(&n) || excluded == Some(s) {
                continue;
            }
            for dir in Direction::ALL {
                let e = (s + usize::from(n) * dir.step()) & 15;
                if e < 8 && me[e] > 0 && opp[7 - e] > 0 {
                    ends |= 1 << e;
                }
            }
        }
        ends
    }

    /// Whether a mtaji capture move starts from `s` in `dir` (5.3).
    pub(crate) fn is_mtaji_capture_start(&self, s: usize, dir: Direction) -> bool {
        let me = &self.pits[self.to_move.index()];
        let opp = &self.pits[self.to_move.opponent().index()];
        let n = me[s];
        if !(2..=15).contains(&n) || self.takasia.map(Pit::index) == Some(s) {
            return false;
        }
        let e = (s + usize::from(n) * dir.step()) & 15;
        e < 8 && me[e] > 0 && opp[7 - e] > 0
    }

    /// Whether front pit `p` is a namua capture start (5.1).
    pub(crate) fn is_namua_capture_start(&self, p: usize) -> bool {
        let me = self.to_move.index();
        p < 8 && self.pits[me][p] > 0 && self.pits[1 - me][7 - p] > 0
    }

    /// Whether the player to move has a capture move by the start conditions
    /// of 5.1 or 5.3 (infinite moves included, as section 9 decides).
    pub(crate) fn capture_exists(&self) -> bool {
        match self.stage(self.to_move) {
            crate::Stage::Namua => (0..8).any(|p| self.is_namua_capture_start(p)),
            crate::Stage::Mtaji => self.mtaji_capture_ends(self.to_move, self.takasia.map(Pit::index)) != 0,
        }
    }

    /// The single front pit of `side` that is non-empty, if exactly one is.
    fn lone_front_pit(&self, side: Side) -> Option<usize> {
        let front = &self.pits[side.index()][..8];
        let mut nonempty = front.iter().enumerate().filter(|&(_, &c)| c > 0).map(|(i, _)| i);
        match (nonempty.next(), nonempty.next()) {
            (Some(p), None) => Some(p),
            _ => None,
        }
    }

    /// The directions allowed for a takasa lap from front pit `p`: a lone
    /// non-empty kichwa must be sown towards the centre.
    fn takasa_directions(&self, p: usize) -> &'static [Direction] {
        match (p, self.lone_front_pit(self.to_move)) {
            (0, Some(0)) => &[Direction::Clockwise],
            (7, Some(7)) => &[Direction::AntiClockwise],
            _ => &Direction::ALL,
        }
    }

    /// Every move that meets the start conditions of its kind, in notation
    /// byte order, without safari variants. Empty in a finished position.
    pub(crate) fn candidates(&self) -> Candidates {
        let mut out = Candidates::new();
        if self.front_row_empty(Side::South) || self.front_row_empty(Side::North) {
            return out;
        }
        let me = self.to_move.index();
        let ring = &self.pits[me];
        let mut push = |kind: MoveKind, s: usize, dir: Direction| {
            out.push((kind, Move::new(pit(s), dir, false)));
        };
        match self.stage(self.to_move) {
            crate::Stage::Namua => {
                if self.capture_exists() {
                    for p in 0..8 {
                        if self.is_namua_capture_start(p) {
                            match p {
                                0 | 1 => push(MoveKind::NamuaCapture, p, Direction::Clockwise),
                                6 | 7 => push(MoveKind::NamuaCapture, p, Direction::AntiClockwise),
                                _ => {
                                    for dir in Direction::ALL {
                                        push(MoveKind::NamuaCapture, p, dir);
                                    }
                                }
                            }
                        }
                    }
                    return out;
                }
                let functional = self.nyumba[me] && ring[4] >= 6;
                if functional {
                    let others = (0..8).any(|p| p != 4 && ring[p] > 0);
                    if !others {
                        for dir in Direction::ALL {
                            push(MoveKind::NamuaTax, 4, dir);
                        }
                        return out;
                    }
                }
                // 5.2 (Donkers' rule 2.4c): while the nyumba is owned, whatever
                // its seeds, singletons may start; only a functional nyumba is
                // itself kept back (an owned nyumba below 6 is an ordinary pit).
                let owned = self.nyumba[me];
                let all_singletons = ring[..8].iter().all(|&c| c <= 1);
                for (p, &count) in ring[..8].iter().enumerate() {
                    let allowed = if owned {
                        count > 0 && !(functional && p == 4)
                    } else {
                        count >= 2 || (count == 1 && all_singletons)
                    };
                    if allowed {
                        for &dir in self.takasa_directions(p) {
                            push(MoveKind::NamuaTakasa, p, dir);
                        }
                    }
                }
            }
            crate::Stage::Mtaji => {
                let takasia = self.takasia.map(Pit::index);
                if self.capture_exists() {
                    for s in NOTATION_ORDER {
                        for dir in Direction::ALL {
                            if self.is_mtaji_capture_start(s, dir) {
                                push(MoveKind::MtajiCapture, s, dir);
                            }
                        }
                    }
                    return out;
                }
                let front_has_two = ring[..8].iter().any(|&c| c >= 2);
                for s in NOTATION_ORDER {
                    if ring[s] < 2 || takasia == Some(s) || (s < 8) != front_has_two {
                        continue;
                    }
                    let dirs = if s < 8 { self.takasa_directions(s) } else { &Direction::ALL };
                    for &dir in dirs {
                        push(MoveKind::MtajiTakasa, s, dir);
                    }
                }
            }
        }
        out
    }

    /// Plays a candidate on a copy: the position after it, with the hands,
    /// the player to move and takasia updated, and how it ended.
    pub(crate) fn after(&self, kind: MoveKind, m: Move) -> (Position, MoveEnd, bool) {
        let mut next = *self;
        let execution = next.execute(kind, m.pit().index(), m.direction(), m.safari(), &mut Unobserved);
        let me = self.to_move;
        if kind == MoveKind::NamuaCapture || kind == MoveKind::NamuaTakasa || kind == MoveKind::NamuaTax {
            next.hands[me.index()] -= 1;
        }
        next.to_move = me.opponent();
        next.takasia = None;
        if kind == MoveKind::MtajiTakasa && self.variant == Variant::Kiswahili {
            next.takasia = next.takasia_for_side_to_move();
        }
        (next, execution.end, execution.safari_offered)
    }

    /// Section 8: after a mtaji takasa by X, the pit of Y (now to move) that
    /// is under takasia, if any.
    fn takasia_for_side_to_move(&self) -> Option<Pit> {
        let y = self.to_move;
        let x = y.opponent();
        if self.hands[y.index()] != 0 || self.mtaji_capture_ends(y, None) != 0 {
            return None;
        }
        // X's first-lap capture ends e threaten Y's pits 7 - e.
        let ends = self.mtaji_capture_ends(x, None);
        if ends.count_ones() != 1 {
            return None;
        }
        let t = 7 - ends.trailing_zeros() as usize;
        let front = &self.pits[y.index()][..8];
        let owned_nyumba = t == 4 && self.nyumba[y.index()];
        let only_nonempty = self.lone_front_pit(y) == Some(t);
        let only_two_or_more = front[t] >= 2 && front.iter().filter(|&&c| c >= 2).count() == 1;
        if owned_nyumba || only_nonempty || only_two_or_more {
            return None;
        }
        Some(pit(t))
    }

    /// Calls `f` with each legal move and the position after it, in notation
    /// byte order (a safari move right after the same move without `+`).
    pub(crate) fn for_each_legal(&self, mut f: impl FnMut(Move, &Position)) {
        for (kind, m) in self.candidates() {
            let (next, end, safari_offered) = self.after(kind, m);
            if end == MoveEnd::Finished {
                f(m, &next);
            }
            if safari_offered {
                let with_safari = Move::new(m.pit(), m.direction(), true);
                let (next, end, _) = self.after(kind, with_safari);
                if end == MoveEnd::Finished {
                    f(with_safari, &next);
                }
            }
        }
    }

    /// All legal moves, in byte order of their notation. Empty when the game is over.
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        let mut moves = MoveList::new();
        self.for_each_legal(|m, _| moves.push(m));
        moves
    }

    /// Every legal move with the position after it, in byte order of the moves.
    #[must_use]
    pub fn successors(&self) -> ArrayVec<(Move, Position), 32> {
        let mut out = ArrayVec::new();
        self.for_each_legal(|m, next| out.push((m, *next)));
        out
    }

    /// Whether the player to move has at least one legal move.
    #[must_use]
    pub fn has_legal_move(&self) -> bool {
        for (kind, m) in self.candidates() {
            let (_, end, safari_offered) = self.after(kind, m);
            if end == MoveEnd::Finished {
                return true;
            }
            if safari_offered {
                let (_, end, _) = self.after(kind, Move::new(m.pit(), m.direction(), true));
                if end == MoveEnd::Finished {
                    return true;
                }
            }
        }
        false
    }

    /// The kind of `m` here, if it meets the start conditions of a candidate.
    pub(crate) fn candidate_kind(&self, m: Move) -> Option<MoveKind> {
        let plain = m.without_safari();
        self.candidates().into_iter().find(|&(_, c)| c == plain).map(|(kind, _)| kind)
    }

    /// The kind of `m` here and the position after it, if `m` is legal.
    pub(crate) fn legal_kind(&self, m: Move) -> Result<(MoveKind, Position), IllegalMove> {
        let Some(kind) = self.candidate_kind(m) else {
            return Err(self.explain_illegal(m));
        };
        let (next, end, safari_offered) = self.after(kind, m);
        if m.safari() && !safari_offered {
            return Err(IllegalMove::SafariNotOffered(m));
        }
        if end == MoveEnd::Infinite {
            return Err(IllegalMove::Infinite(m));
        }
        Ok((kind, next))
    }

    /// Plays `m` if it is legal: the new position and its outcome.
    ///
    /// Computing the outcome means looking for a legal move of the opponent
    /// (running their candidate moves until one ends); a search that does not
    /// need it at every node should use [`Position::play_without_outcome`].
    ///
    /// # Errors
    /// [`IllegalMove`] says why `m` is not legal here.
    pub fn play(&self, m: Move) -> Result<(Position, Outcome), IllegalMove> {
        // The checks of `legal_kind`, written out: this is the referee's and
        // random play's hot path, and returning the kind through a `Result`
        // cost 1 % more instructions there.
        let Some(kind) = self.candidate_kind(m) else {
            return Err(self.explain_illegal(m));
        };
        let (next, end, safari_offered) = self.after(kind, m);
        if m.safari() && !safari_offered {
            return Err(IllegalMove::SafariNotOffered(m));
        }
        if end == MoveEnd::Infinite {
            return Err(IllegalMove::Infinite(m));
        }
        let outcome = if next.front_row_empty(next.to_move) {
            Outcome::Win { winner: self.to_move, reason: WinReason::FrontRowEmpty }
        } else if !next.has_legal_move() {
            Outcome::Win { winner: self.to_move, reason: WinReason::NoLegalMoves }
        } else {
            Outcome::Ongoing
        };
        Ok((next, outcome))
    }

    /// Plays `m` if it is legal, like [`Position::play`], but does not compute
    /// the outcome of the new position (which costs a search for the
    /// opponent's first legal move): the checked fast path for search.
    ///
    /// The result is exactly `play`'s position. The game is over there exactly
    /// when it has no legal move ([`Position::legal_moves`] is empty, which a
    /// search finds out when it lists them; an emptied front row included),
    /// and then the player who made `m` has won: that is `play`'s outcome.
    ///
    /// # Errors
    /// [`IllegalMove`] says why `m` is not legal here.
    #[inline]
    pub fn play_without_outcome(&self, m: Move) -> Result<Position, IllegalMove> {
        self.legal_kind(m).map(|(_, next)| next)
    }

    /// Plays a move known to be legal, without checking it and without
    /// computing the outcome: the fast path for search.
    ///
    /// For a move that is not legal the result is unspecified (but this
    /// never panics): check with [`Position::legal_moves`] first.
    #[must_use]
    pub fn play_unchecked(&self, m: Move) -> Position {
        let kind = match self.stage(self.to_move) {
            crate::Stage::Namua if self.is_namua_capture_start(m.pit().index()) => MoveKind::NamuaCapture,
            crate::Stage::Namua if m.pit() == Pit::NYUMBA && self.is_tax_position() => MoveKind::NamuaTax,
            crate::Stage::Namua => MoveKind::NamuaTakasa,
            crate::Stage::Mtaji if self.is_mtaji_capture_start(m.pit().index(), m.direction()) => {
                MoveKind::MtajiCapture
            }
            crate::Stage::Mtaji => MoveKind::MtajiTakasa,
        };
        if kind == MoveKind::NamuaTakasa && self.pits[self.to_move.index()][m.pit().index()] == 0 {
            // Not a legal move; avoid lifting from a pit the seed did not go into.
            return *self;
        }
        self.after(kind, m).0
    }

    /// Whether a namua takasa here is the tax: the functional nyumba is the
    /// only non-empty front pit.
    pub(crate) fn is_tax_position(&self) -> bool {
        let me = self.to_move.index();
        self.nyumba[me] && self.pits[me][4] >= 6 && self.lone_front_pit(self.to_move) == Some(4)
    }
}
