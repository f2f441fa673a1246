//! The transposition table: one entry per slot, replaced when the new search is deeper
//! or the slot holds another position.

/// What a stored score means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// The exact score.
    Exact,
    /// A lower bound (the search failed high).
    Lower,
    /// An upper bound (the search failed low).
    Upper,
}

/// One stored search result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// The position's key.
    pub key: u64,
    /// The score, mate scores relative to this node.
    pub score: i32,
    /// The depth searched.
    pub depth: i16,
    /// The best move's index ([`super::search::move_index`]), if any.
    pub best: Option<u8>,
    /// What `score` is.
    pub bound: Bound,
}

/// A fixed-size table of entries, indexed by the low bits of the key.
#[derive(Debug, Clone)]
pub struct Table {
    slots: Vec<Option<Entry>>,
    mask: usize,
}

impl Table {
    /// A table of `2^bits` slots.
    #[must_use]
    pub fn new(bits: u32) -> Table {
        Table { slots: vec![None; 1 << bits], mask: (1 << bits) - 1 }
    }

    /// Empties the table.
    pub fn clear(&mut self) {
        self.slots.fill(None);
    }

    fn slot(&self, key: u64) -> usize {
        #[expect(clippy::cast_possible_truncation, reason = "only the low bits index the table")]
        let low = key as usize;
        low & self.mask
    }

    /// The entry for `key`, if stored.
    #[must_use]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.slots[self.slot(key)].filter(|e| e.key == key)
    }

    /// Stores `entry`, unless its slot holds a deeper result for the same position.
    pub fn store(&mut self, entry: Entry) {
        let i = self.slot(entry.key);
        let keep = self.slots[i].is_some_and(|old| old.key == entry.key && old.depth > entry.depth);
        if !keep {
            self.slots[i] = Some(entry);
        }
    }
}
