//! The atomic steps of executing a move, for replaying it seed by seed
//! ([`crate::Position::sowing_steps`]), and the observer through which the
//! sowing code reports them.

use crate::{BoardPit, IllegalMove, Move, Position};

/// One atomic step of executing a move.
///
/// A move's steps move seeds between the board, the mover's hand and the seeds
/// *in transit* (held by the mover between lifting and sowing): `Hand`, `Pick`
/// and `Capture` put seeds in transit, each `Drop` sows one of them. Transit
/// is empty before the first step and after the last one, and `Pick` and
/// `Capture` happen only when it is empty (each starts a lap). The other
/// variants are markers: they move no seed.
///
/// Pits are absolute ([`BoardPit`]). With serde a step is an object tagged by
/// `"op"`, the JSON the replay viewer's `bao_viewer::Step` reads:
/// `{"op":"hand"}`, `{"op":"pick","pit":"A5","seeds":6}`,
/// `{"op":"drop","pit":"a3"}`, `{"op":"capture","pit":"a4","seeds":2}`,
/// `{"op":"kichwa","pit":"A1"}`, `{"op":"safari","pit":"A5"}`,
/// `{"op":"nyumba_lost","pit":"a5"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum SowStep {
    /// One seed taken from the mover's hand into transit: the first step of
    /// every namua move (always followed by the `Drop` of that seed into the
    /// move's pit).
    Hand,
    /// `seeds` seeds lifted from the mover's `pit` into transit: the start of a
    /// lap (the first lap of a takasa or mtaji move, a relay, or the safari).
    /// Usually every seed of the pit; the namua tax lifts exactly 2 from the
    /// nyumba, which keeps the rest.
    Pick {
        /// The pit lifted from (the mover's).
        pit: BoardPit,
        /// How many seeds were lifted.
        seeds: u8,
    },
    /// One seed from transit into `pit` (always the mover's).
    Drop {
        /// The pit sown into.
        pit: BoardPit,
    },
    /// All `seeds` seeds of the opponent's `pit` captured into transit: the
    /// start of a lap that sows them from a kichwa (a [`SowStep::Kichwa`]
    /// follows, after any [`SowStep::NyumbaLost`]).
    Capture {
        /// The opponent's pit emptied.
        pit: BoardPit,
        /// How many seeds it held.
        seeds: u8,
    },
    /// Marker after a capture: the captured seeds are sown from the mover's
    /// kichwa `pit` (A1 or A8 of the mover); the next `Drop` goes into it.
    Kichwa {
        /// The kichwa sown from.
        pit: BoardPit,
    },
    /// Marker: the lap ended in the mover's functional nyumba `pit` and the
    /// move goes on safari; the next step is the `Pick` of all its seeds.
    Safari {
        /// The mover's nyumba.
        pit: BoardPit,
    },
    /// Marker: the nyumba `pit` is no longer owned (it is now an ordinary pit).
    /// Comes right after the step that ends ownership: the `Pick` of the
    /// owner's nyumba, the `Capture` of it, or the first capture of a mtaji
    /// move, which ends both houses (then the opponent's comes first).
    NyumbaLost {
        /// The nyumba (A5 or a5) that lost its status.
        pit: BoardPit,
    },
}

/// Receives the steps of a move as the sowing code executes it.
///
/// The fast path uses [`Unobserved`], whose `ACTIVE` is false: every report is
/// guarded by `if O::ACTIVE`, so it compiles to nothing there.
pub(crate) trait Observer {
    /// Whether steps are reported at all.
    const ACTIVE: bool;
    /// Reports one step.
    fn step(&mut self, step: SowStep);
}

/// The observer of the fast path: reports nothing.
pub(crate) struct Unobserved;

impl Observer for Unobserved {
    const ACTIVE: bool = false;
    #[inline(always)]
    fn step(&mut self, _: SowStep) {}
}

/// Records every step.
impl Observer for Vec<SowStep> {
    const ACTIVE: bool = true;
    fn step(&mut self, step: SowStep) {
        self.push(step);
    }
}

impl Position {
    /// The atomic steps of playing the legal move `m` here, in order: what an
    /// animated replay shows, seed by seed.
    ///
    /// The steps come from the same execution code as [`Position::play`]:
    /// applying them to this position's pit counts and the mover's hand (and
    /// the nyumba flags, by [`SowStep::NyumbaLost`]) gives exactly the board
    /// and hands of `play`'s position. They do not show what `play` changes
    /// besides: the player to move and takasia.
    ///
    /// # Errors
    /// [`IllegalMove`] when `m` is not legal here, as for `play` (an infinite
    /// move included: it is illegal, and never recorded).
    pub fn sowing_steps(&self, m: Move) -> Result<Vec<SowStep>, IllegalMove> {
        let (kind, _) = self.legal_kind(m)?;
        let mut steps = Vec::new();
        let mut board = *self;
        board.execute(kind, m.pit().index(), m.direction(), m.safari(), &mut steps);
        Ok(steps)
    }
}
