//! Which revision of the rules this crate plays, for records that must be judged by the
//! rules they were played under (the game log's header).

/// The revision of the rules (docs/rules.md) that this crate implements.
///
/// It changes whenever a position's legal moves or a move's result change. A game log
/// records it, and `bao-referee verify` refuses a log of another revision instead of judging
/// it by rules it was not played under.
///
/// - **1**: a namua takasa could start from a singleton (while a front pit held 2 or more)
///   only while the nyumba was functional: owned and holding 6 or more seeds.
/// - **2**: Donkers' rule 2.4c (docs/rules.md, "Readings"): while the nyumba is owned,
///   whatever its seeds, any non-empty front pit may start a namua takasa, singletons
///   included.
pub const RULES_REVISION: u32 = 2;
