//! Perft: the number of move sequences of each length from both start positions,
//! compared with the checked-in table `tests/data/perft.csv`.
//!
//! The table's figures come from this engine (there is no independent perft
//! source for Bao); they guard against regressions. The shallow depths are
//! cross-checked here by a naive count through the checked `play` API, and depths
//! 1 and 2 of the Kiswahili start (depth 1 of Kujifunza) against the
//! independently computed rules cases.
//!
//! Rows marked `test` run in `cargo test`; rows marked `release` are too slow for
//! CI and run only on request, in a release build:
//! `cargo test --release -p bao-rules --test perft -- --ignored`.

use std::collections::HashMap;

use bao_rules::{Position, Variant, perft};
use serde::Deserialize;

struct Row {
    line: usize,
    variant: Variant,
    position: Position,
    depth: u32,
    count: u64,
    release_only: bool,
}

fn table() -> Vec<Row> {
    let text = include_str!("data/perft.csv");
    let mut lines = text.lines().enumerate();
    let (_, header) = lines.next().expect("a header");
    assert_eq!(header, "variant,position,depth,count,run");
    lines
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let fields: Vec<&str> = l.split(',').collect();
            // The position itself contains commas: variant, position…, depth, count, run.
            let n = fields.len();
            assert!(n >= 5, "perft.csv:{}: too few fields", i + 1);
            let variant: Variant = fields[0].parse().expect("variant");
            let position: Position = fields[1..n - 3].join(",").parse().expect("position");
            assert_eq!(position.variant(), variant, "perft.csv:{}", i + 1);
            let run = fields[n - 1];
            assert!(run == "test" || run == "release", "perft.csv:{}: run is test or release", i + 1);
            Row {
                line: i + 1,
                variant,
                position,
                depth: fields[n - 3].parse().expect("depth"),
                count: fields[n - 2].parse().expect("count"),
                release_only: run == "release",
            }
        })
        .collect()
}

fn check_rows(variant: Option<Variant>, release_only: bool) {
    let rows: Vec<Row> = table()
        .into_iter()
        .filter(|r| r.release_only == release_only && variant.is_none_or(|v| v == r.variant))
        .collect();
    assert!(!rows.is_empty());
    for row in rows {
        assert_eq!(
            perft(&row.position, row.depth),
            row.count,
            "perft.csv:{}: {} depth {}",
            row.line,
            row.variant,
            row.depth
        );
    }
}

#[test]
fn perft_table_kiswahili() {
    check_rows(Some(Variant::Kiswahili), false);
}

#[test]
fn perft_table_kujifunza() {
    check_rows(Some(Variant::Kujifunza), false);
}

/// The deeper rows: minutes in a release build. Not run in CI.
#[test]
#[ignore = "slow: run with `cargo test --release -p bao-rules --test perft -- --ignored`"]
fn perft_table_release_only() {
    check_rows(None, true);
}

#[test]
fn table_covers_both_starts_from_depth_one() {
    let rows = table();
    for variant in [Variant::Kiswahili, Variant::Kujifunza] {
        let depths: Vec<u32> = rows.iter().filter(|r| r.variant == variant).map(|r| r.depth).collect();
        let expected: Vec<u32> = (1..=*depths.iter().max().unwrap()).collect();
        assert_eq!(depths, expected, "{variant}: consecutive depths from 1");
        assert!(rows.iter().all(|r| r.position == Position::start(r.variant)));
    }
}

/// A second count through the public checked API: `legal_moves` and `play`, with
/// a sequence ending at the move whose outcome is a win.
fn naive_count(position: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    position
        .legal_moves()
        .iter()
        .map(|&m| {
            let (next, outcome) = position.play(m).expect("a listed move is legal");
            if depth == 1 || outcome.is_over() { 1 } else { naive_count(&next, depth - 1) }
        })
        .sum()
}

#[test]
fn naive_count_agrees_at_shallow_depths() {
    for row in table() {
        let max = match row.variant {
            Variant::Kiswahili => 10,
            Variant::Kujifunza => 8,
        };
        if row.depth <= max {
            assert_eq!(
                naive_count(&row.position, row.depth),
                row.count,
                "{} depth {}",
                row.variant,
                row.depth
            );
        }
    }
}

#[derive(Deserialize)]
struct Case {
    position: String,
    legal: Vec<String>,
    #[serde(rename = "move")]
    mv: String,
    next: String,
    result: String,
}

/// Depths 1 and 2 from the independently computed rules cases (tests/data), which
/// list the legal moves of the start and of every position after its first move.
#[test]
fn shallow_depths_agree_with_the_independent_cases() {
    let mut legal: HashMap<String, usize> = HashMap::new();
    let mut children: HashMap<String, Vec<(String, String)>> = HashMap::new();
    for text in [
        include_str!("data/special.jsonl"),
        include_str!("data/random-kiswahili.jsonl"),
        include_str!("data/random-kujifunza.jsonl"),
    ] {
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let case: Case = serde_json::from_str(line).expect("a case");
            legal.insert(case.position.clone(), case.legal.len());
            if !case.mv.is_empty() {
                children.entry(case.position).or_default().push((case.next, case.result));
            }
        }
    }
    let rows = table();
    let count = |variant: Variant, depth: u32| {
        rows.iter().find(|r| r.variant == variant && r.depth == depth).map(|r| r.count).expect("in table")
    };
    for variant in [Variant::Kiswahili, Variant::Kujifunza] {
        let start = Position::start(variant).to_string();
        assert_eq!(legal[&start] as u64, count(variant, 1), "{variant} depth 1");
    }
    // Kiswahili depth 2: the cases hold all 4 first moves and each next position's legal moves.
    let start = Position::start(Variant::Kiswahili).to_string();
    let mut next: Vec<(String, String)> = children[&start].clone();
    next.sort();
    next.dedup();
    assert_eq!(next.len(), legal[&start]);
    let depth_two: u64 =
        next.iter().map(|(p, result)| if result == "ongoing" { legal[p] as u64 } else { 1 }).sum();
    assert_eq!(depth_two, count(Variant::Kiswahili, 2));
}
