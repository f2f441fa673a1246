//! Executing a move: sowing, relays, captures, nyumba stops and safari,
//! counted in laps (RULES.md sections 4, 6, 7 and 9).

use crate::sow_step::{Observer, SowStep};
use crate::{BoardPit, Direction, Pit, Position, Side};

/// The number of laps after which a move that would still go on is infinite
/// (RULES.md section 9). A move of this many laps or fewer is never infinite.
pub const MAX_LAPS: u32 = 10_000;

/// Which of the five kinds of move (RULES.md section 5) is being played.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MoveKind {
    /// 5.1: a seed into a front pit that captures.
    NamuaCapture,
    /// 5.2: a seed into a front pit, then lift it and sow.
    NamuaTakasa,
    /// 5.2: a seed into the functional nyumba, then lift exactly 2 from it.
    NamuaTax,
    /// 5.3: lift a pit of 2..15 whose first lap captures.
    MtajiCapture,
    /// 5.4: lift a pit of 2 or more; nothing is captured.
    MtajiTakasa,
}

impl MoveKind {
    const fn is_capture(self) -> bool {
        matches!(self, MoveKind::NamuaCapture | MoveKind::MtajiCapture)
    }

    const fn is_namua(self) -> bool {
        matches!(self, MoveKind::NamuaCapture | MoveKind::NamuaTakasa | MoveKind::NamuaTax)
    }
}

/// How a move's execution ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MoveEnd {
    /// The move ended (a lap ended in an empty pit, at a nyumba stop, at the
    /// takasia pit, or by emptying the opponent's front row).
    Finished,
    /// The move would go on past [`MAX_LAPS`] laps: it is illegal.
    Infinite,
}

/// The result of executing a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Execution {
    pub(crate) end: MoveEnd,
    /// Whether a lap ended in the functional nyumba during a namua capture
    /// move, so that the mover could choose safari (rule 7.4).
    pub(crate) safari_offered: bool,
}

/// `side_index`'s pit at ring index `index`, named absolutely.
fn board_pit(side_index: usize, index: usize) -> BoardPit {
    BoardPit::new(Side::ALL[side_index & 1], Pit::from_ring(index))
}

/// Sows `n` seeds into `ring` (side `me`'s), starting with the pit after
/// `from`, stepping by `step` (1 or 15 modulo 16). Returns the pit of the last
/// seed. Reports one [`SowStep::Drop`] per seed, in sowing order.
#[inline]
fn sow<O: Observer>(ring: &mut [u8; 16], me: usize, from: usize, n: u8, step: usize, obs: &mut O) -> usize {
    let n = usize::from(n);
    if n >= 16 {
        // Whole rounds: every pit, the lifted one included, gets one seed each.
        #[expect(clippy::cast_possible_truncation, reason = "n <= 255, so n / 16 <= 15")]
        let rounds = (n / 16) as u8;
        for pit in ring.iter_mut() {
            *pit += rounds;
        }
    }
    let mut p = from;
    for _ in 0..n % 16 {
        p = (p + step) & 15;
        ring[p] += 1;
    }
    if O::ACTIVE {
        // The same seeds one by one (the rounds above included).
        let mut p = from;
        for _ in 0..n {
            p = (p + step) & 15;
            obs.step(SowStep::Drop { pit: board_pit(me, p) });
        }
    }
    (from + n * step) & 15
}

impl Position {
    /// Reports that side `side`'s nyumba is no longer owned, if it is owned
    /// (the caller then ends ownership).
    #[inline]
    fn report_nyumba_lost<O: Observer>(&self, side: usize, obs: &mut O) {
        if O::ACTIVE && self.nyumba[side] {
            obs.step(SowStep::NyumbaLost { pit: board_pit(side, Pit::NYUMBA.index()) });
        }
    }

    /// Lifts all seeds of the mover's `pit` (ending nyumba ownership if it is
    /// the nyumba) and sows them; returns the lap's last pit.
    #[inline]
    fn lift_and_sow<O: Observer>(&mut self, me: usize, pit: usize, dir: Direction, obs: &mut O) -> usize {
        let n = self.pits[me][pit];
        self.pits[me][pit] = 0;
        if O::ACTIVE {
            obs.step(SowStep::Pick { pit: board_pit(me, pit), seeds: n });
        }
        if pit == 4 {
            self.report_nyumba_lost(me, obs);
            self.nyumba[me] = false;
        }
        sow(&mut self.pits[me], me, pit, n, dir.step(), obs)
    }

    /// Takes the opponent pit facing the mover's front pit `p` and sows the
    /// seeds from a kichwa (section 6); returns the lap's last pit.
    ///
    /// For a central `p`, the kichwa is the one that keeps the current
    /// direction; for a namua move's first capture the current direction is
    /// the one the player chose (the notation's), so one rule covers both.
    #[inline]
    fn capture<O: Observer>(
        &mut self,
        me: usize,
        p: usize,
        dir: &mut Direction,
        namua: bool,
        obs: &mut O,
    ) -> usize {
        let opp = 1 - me;
        let facing = 7 - p;
        let n = self.pits[opp][facing];
        self.pits[opp][facing] = 0;
        if O::ACTIVE {
            obs.step(SowStep::Capture { pit: board_pit(opp, facing), seeds: n });
            if facing == 4 || !namua {
                self.report_nyumba_lost(opp, obs);
            }
            if !namua {
                self.report_nyumba_lost(me, obs);
            }
        }
        if facing == 4 {
            self.nyumba[opp] = false;
        }
        if !namua {
            // The first capture in the mtaji stage ends both houses.
            self.nyumba = [false, false];
        }
        match p {
            0 | 1 => *dir = Direction::Clockwise,
            6 | 7 => *dir = Direction::AntiClockwise,
            _ => {}
        }
        let kichwa = match dir {
            Direction::Clockwise => 0,
            Direction::AntiClockwise => 7,
        };
        if O::ACTIVE {
            obs.step(SowStep::Kichwa { pit: board_pit(me, kichwa) });
        }
        // The first seed goes into the kichwa itself.
        let step = dir.step();
        let before = (kichwa + 16 - step) & 15;
        sow(&mut self.pits[me], me, before, n, step, obs)
    }

    /// Executes the mover's move on the board and nyumba flags of `self`,
    /// reporting each step to `obs`.
    ///
    /// The caller has checked the start conditions of `kind`; this does not
    /// touch the hands, the player to move or takasia (see `movegen`), but
    /// reports the seed taken from hand.
    /// `dir` is the notation's direction: for a namua capture, the kichwa
    /// chosen for a central first capture; otherwise the first lap's direction.
    pub(crate) fn execute<O: Observer>(
        &mut self,
        kind: MoveKind,
        pit: usize,
        mut dir: Direction,
        safari: bool,
        obs: &mut O,
    ) -> Execution {
        let me = self.to_move.index();
        let opp = 1 - me;
        let namua = kind.is_namua();
        let capture = kind.is_capture();
        let takasia = self.takasia.map(crate::Pit::index);
        let mut safari_offered = false;

        if O::ACTIVE && namua {
            obs.step(SowStep::Hand);
            obs.step(SowStep::Drop { pit: board_pit(me, pit) });
        }
        // The first lap.
        let mut end = match kind {
            MoveKind::NamuaCapture => {
                self.pits[me][pit] += 1;
                self.capture(me, pit, &mut dir, namua, obs)
            }
            MoveKind::NamuaTakasa => {
                self.pits[me][pit] += 1;
                self.lift_and_sow(me, pit, dir, obs)
            }
            MoveKind::NamuaTax => {
                // Put the seed in and lift exactly 2: ownership is kept.
                self.pits[me][4] -= 1;
                if O::ACTIVE {
                    obs.step(SowStep::Pick { pit: board_pit(me, 4), seeds: 2 });
                }
                sow(&mut self.pits[me], me, 4, 2, dir.step(), obs)
            }
            MoveKind::MtajiCapture | MoveKind::MtajiTakasa => self.lift_and_sow(me, pit, dir, obs),
        };
        let mut laps: u32 = 1;

        // Rule 7 at the end of each lap.
        loop {
            // 7.1
            if self.pits[opp][..8].iter().all(|&c| c == 0) {
                return Execution { end: MoveEnd::Finished, safari_offered };
            }
            // 7.2
            if self.pits[me][end] == 1 {
                return Execution { end: MoveEnd::Finished, safari_offered };
            }
            let capture_here = capture && end < 8 && self.pits[opp][7 - end] > 0;
            if !capture_here {
                if namua && end == 4 && self.nyumba[me] && self.pits[me][4] >= 6 {
                    // 7.4: a takasa stops; a capture move stops or goes on safari.
                    if !capture {
                        return Execution { end: MoveEnd::Finished, safari_offered };
                    }
                    safari_offered = true;
                    if !safari {
                        return Execution { end: MoveEnd::Finished, safari_offered };
                    }
                } else if kind == MoveKind::MtajiTakasa && takasia == Some(end) {
                    // 7.5
                    return Execution { end: MoveEnd::Finished, safari_offered };
                }
            }
            // 7.3 capture, 7.4 safari or 7.6 relay: the move goes on.
            if laps >= MAX_LAPS {
                return Execution { end: MoveEnd::Infinite, safari_offered };
            }
            end = if capture_here {
                self.capture(me, end, &mut dir, namua, obs)
            } else {
                // Not a capture, so the move goes on past the functional nyumba
                // only on safari (the test of 7.4 above).
                if O::ACTIVE && namua && end == 4 && self.nyumba[me] && self.pits[me][4] >= 6 {
                    obs.step(SowStep::Safari { pit: board_pit(me, 4) });
                }
                // A relay, or the safari (lifting the nyumba ends ownership).
                self.lift_and_sow(me, end, dir, obs)
            };
            laps += 1;
        }
    }
}
