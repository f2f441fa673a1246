//! Every line of the rules cases in tests/data/*.jsonl must agree with the engine: the
//! independently computed ones (copied from the project's shared rules cases) and
//! `owned-nyumba.jsonl`, worked out by hand from RULES.md section 5.2 (Donkers' rule 2.4c;
//! the working, pit by pit, is in tests/data/README.md).

use bao_rules::{MoveText, Position};
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    position: String,
    legal: Vec<String>,
    #[serde(rename = "move")]
    mv: String,
    next: String,
    result: String,
}

fn check_file(name: &str, text: &str) {
    let mut failures = Vec::new();
    let mut count = 0;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        count += 1;
        let case: Case = serde_json::from_str(line).unwrap_or_else(|e| panic!("{name}:{}: {e}", i + 1));
        let position: Position = case.position.parse().unwrap_or_else(|e| panic!("{name}:{}: {e}", i + 1));
        assert_eq!(position.to_string(), case.position, "{name}:{}: format(parse(x)) != x", i + 1);
        let legal: Vec<String> = position.legal_moves().iter().map(ToString::to_string).collect();
        if legal != case.legal {
            failures.push(format!(
                "{name}:{}: {}\n  legal: engine {legal:?}\n         case   {:?}",
                i + 1,
                case.position,
                case.legal
            ));
            continue;
        }
        if case.mv.is_empty() {
            continue;
        }
        let text: MoveText = case.mv.parse().unwrap();
        let m = text.to_move(&position).unwrap();
        let (next, outcome) = position.play(m).unwrap();
        if next.to_string() != case.next || outcome.to_string() != case.result {
            failures.push(format!(
                "{name}:{}: {} {}\n  engine {} {}\n  case   {} {}",
                i + 1,
                case.position,
                case.mv,
                next,
                outcome,
                case.next,
                case.result
            ));
        }
    }
    assert!(count > 0, "{name} holds no cases");
    assert!(failures.is_empty(), "{} of {count} cases disagree:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn special_cases() {
    check_file("special.jsonl", include_str!("data/special.jsonl"));
}

#[test]
fn random_kiswahili_games() {
    check_file("random-kiswahili.jsonl", include_str!("data/random-kiswahili.jsonl"));
}

#[test]
fn random_kujifunza_games() {
    check_file("random-kujifunza.jsonl", include_str!("data/random-kujifunza.jsonl"));
}

/// RULES.md 5.2: singleton starts while the nyumba is owned with fewer than 6 seeds (the
/// position of issue 29), refused without a nyumba, the owned nyumba below 6 as the start,
/// and a nyumba taxed to 5 whose singletons start two plies later. Worked by hand: the
/// derivations are in tests/data/README.md, "owned-nyumba.jsonl".
#[test]
fn owned_nyumba_cases() {
    check_file("owned-nyumba.jsonl", include_str!("data/owned-nyumba.jsonl"));
}
