//! The data a replay shows: the contract between whoever reads a game log and the viewer.
//!
//! Every struct here is serialisable; the HTML replay embeds a [`ReplayData`] as JSON and
//! its script reads exactly these field names (docs/viewer.md lists them).
//!
//! Pits are named **absolutely**, as a spectator sitting at South sees them: `A1`…`A8`,
//! `B1`…`B8` for South's pits and `a1`…`a8`, `b1`…`b8` for North's (each in its owner's
//! numbering, as in the position notation of docs/rules.md).

use serde::{Deserialize, Serialize};

/// One of the two players, written `"S"` or `"N"`: the rules engine's [`bao_rules::Side`]
/// (one side type for the whole project), under the name the replay data has always used.
pub use bao_rules::Side as SideCode;

/// A player's stage, written `"namua"` or `"mtaji"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StageCode {
    /// Seeds in hand.
    Namua,
    /// No seeds in hand.
    Mtaji,
}

impl StageCode {
    /// `namua` or `mtaji`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            StageCode::Namua => "namua",
            StageCode::Mtaji => "mtaji",
        }
    }
}

impl From<bao_rules::Stage> for StageCode {
    fn from(stage: bao_rules::Stage) -> StageCode {
        match stage {
            bao_rules::Stage::Namua => StageCode::Namua,
            bao_rules::Stage::Mtaji => StageCode::Mtaji,
        }
    }
}

/// A whole position: every pit's count, the hands, who moves, the stage, nyumba and takasia.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardJson {
    /// The player to move.
    pub to_move: SideCode,
    /// The stage of the player to move.
    pub stage: StageCode,
    /// The counts, in the order of the position notation: `rows[0]` is A1..A8, `rows[1]`
    /// B1..B8, `rows[2]` a1..a8, `rows[3]` b1..b8 (each row in its owner's numbering).
    pub rows: [[u8; 8]; 4],
    /// Seeds in hand, South then North.
    pub hands: [u8; 2],
    /// Whether South, then North, still owns their nyumba (A5, a5).
    pub nyumba: [bool; 2],
    /// The pit under takasia, absolute name (`A6` or `a3`), or null.
    #[serde(default)]
    pub takasia: Option<String>,
    /// The position in notation (docs/rules.md), shown as text; optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notation: Option<String>,
}

impl BoardJson {
    /// The count of the pit with absolute name `name` (`A1`…`b8`); `None` for another name.
    #[must_use]
    pub fn count(&self, name: &str) -> Option<u8> {
        let (row, col) = parse_pit_name(name)?;
        Some(self.rows[row][col])
    }

    /// The seeds on `side`'s 16 pits.
    #[must_use]
    pub fn seeds_on_board(&self, side: SideCode) -> u32 {
        let first = 2 * side.index();
        self.rows[first..first + 2].iter().flatten().map(|&c| u32::from(c)).sum()
    }
}

/// The row letters in the order of [`BoardJson::rows`].
pub const ROW_LETTERS: [char; 4] = ['A', 'B', 'a', 'b'];

/// The absolute name of the pit at `rows[row][col]` (`row` 0..4, `col` 0..8): `A1`…`b8`.
/// Returns `None` outside the board.
#[must_use]
pub fn pit_name(row: usize, col: usize) -> Option<String> {
    let letter = ROW_LETTERS.get(row)?;
    if col >= 8 {
        return None;
    }
    Some(format!("{letter}{}", col + 1))
}

/// The (`row`, `col`) index into [`BoardJson::rows`] of an absolute pit name.
#[must_use]
pub fn parse_pit_name(name: &str) -> Option<(usize, usize)> {
    let mut chars = name.chars();
    let letter = chars.next()?;
    let digit = chars.next()?;
    if chars.next().is_some() {
        return None;
    }
    let row = ROW_LETTERS.iter().position(|&l| l == letter)?;
    let col = digit.to_digit(10)?;
    if !(1..=8).contains(&col) {
        return None;
    }
    Some((row, col as usize - 1))
}

/// One `info` message a bot sent while thinking about a move (PROTOCOL.md).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InfoData {
    /// Search depth reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u64>,
    /// The bot's evaluation, from its own point of view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<i64>,
    /// Nodes searched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// The principal variation, if the bot gave one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pv: Vec<String>,
    /// Free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}

/// One step of a ply's sowing, for the animation. The page only replays these; it never
/// applies Bao rules itself.
///
/// Serialised with an `op` tag: `{"op":"hand"}`, `{"op":"pick","pit":"A5","seeds":3}`,
/// `{"op":"drop","pit":"A6"}`, `{"op":"capture","pit":"b5","seeds":4}`, and the markers
/// `{"op":"kichwa","pit":"A1"}`, `{"op":"safari","pit":"A5"}`, `{"op":"nyumba_lost","pit":"a5"}`
/// (the same steps, with the same names, as the rules crate's sowing steps). Unknown ops read as
/// [`Step::Other`] and are skipped by the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Step {
    /// The mover takes one seed from hand (namua); a `drop` of it follows.
    Hand,
    /// The mover lifts `seeds` from `pit` (usually all of them).
    Pick {
        /// Absolute pit name.
        pit: String,
        /// The seeds lifted.
        seeds: u32,
    },
    /// One seed being sown goes into `pit`.
    Drop {
        /// Absolute pit name.
        pit: String,
    },
    /// The `seeds` of the opponent's `pit` are captured, to be sown by the mover.
    Capture {
        /// Absolute pit name.
        pit: String,
        /// The seeds taken.
        seeds: u32,
    },
    /// Marker: captured seeds are sown from the mover's kichwa `pit`.
    Kichwa {
        /// Absolute pit name (A1, A8, a1 or a8).
        pit: String,
    },
    /// Marker: the lap ended in the functional nyumba `pit`, which is lifted next (safari).
    Safari {
        /// Absolute pit name (A5 or a5).
        pit: String,
    },
    /// Marker: the nyumba `pit` is no longer owned.
    NyumbaLost {
        /// Absolute pit name (A5 or a5).
        pit: String,
    },
    /// An op this version does not know; ignored.
    #[serde(other)]
    Other,
}

/// One ply: the move, who made it, its cost, what it captured and the position after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlyData {
    /// 1 for the first move, as in the game log.
    pub number: u32,
    /// The mover.
    pub side: SideCode,
    /// The move in the mover's own notation, upper case (`A5<`).
    pub mv: String,
    /// The move in game-record form: lower-case row for North (`a5<`).
    pub record: String,
    /// The mover's stage during this move.
    pub stage: StageCode,
    /// Wall time the bot used, µs.
    pub time_us: u64,
    /// Both clocks after the move, South then North, ms; null when not known.
    #[serde(default)]
    pub clock_ms: Option<[u64; 2]>,
    /// The bot's `info` messages for this move, in order.
    #[serde(default)]
    pub info: Vec<InfoData>,
    /// Seeds the move captured from the opponent.
    pub captured: u32,
    /// The position after the move: authoritative, shown at the end of the animation.
    pub after: BoardJson,
    /// The sowing, step by step; may be empty (no animation then).
    #[serde(default)]
    pub steps: Vec<Step>,
}

/// How the game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultData {
    /// The winner, or null for a draw or an aborted game.
    pub winner: Option<SideCode>,
    /// The reason, as in the game log (`front_row_empty`, `illegal_move`, `max_plies`, …).
    pub reason: String,
    /// What happened, for people.
    #[serde(default)]
    pub detail: String,
}

/// Everything a replay shows: one game from start to result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayData {
    /// `kiswahili` or `kujifunza`.
    pub variant: String,
    /// South's bot.
    pub south_name: String,
    /// North's bot.
    pub north_name: String,
    /// The position before the first ply.
    pub start: BoardJson,
    /// Every ply, in order.
    pub plies: Vec<PlyData>,
    /// How the game ended; null for a game still being played.
    pub result: Option<ResultData>,
    /// A heading such as `game 12 of round-robin`; optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A relative link back, e.g. to the tournament index (`../index.html`); optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub back_href: Option<String>,
}

impl ReplayData {
    /// The bot playing `side`.
    #[must_use]
    pub fn name(&self, side: SideCode) -> &str {
        match side {
            SideCode::South => &self.south_name,
            SideCode::North => &self.north_name,
        }
    }

    /// The position after `ply` plies (0: the start); `None` past the last ply.
    #[must_use]
    pub fn board_after(&self, ply: usize) -> Option<&BoardJson> {
        if ply == 0 { Some(&self.start) } else { self.plies.get(ply - 1).map(|p| &p.after) }
    }
}
