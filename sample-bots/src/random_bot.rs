//! A bot that plays a uniformly random legal move.

use bao_protocol::MoveRequest;
use bao_protocol::sdk::{Bot, Identity, InfoSink};
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

/// The seed used when none is given.
pub const DEFAULT_SEED: u64 = 0;

/// Picks uniformly among the referee's `legal` list, with a seeded ChaCha8 generator:
/// the same seed and the same requests give the same moves.
#[derive(Debug, Clone)]
pub struct RandomBot {
    rng: ChaCha8Rng,
}

impl RandomBot {
    /// A random bot seeded with `seed`.
    #[must_use]
    pub fn new(seed: u64) -> RandomBot {
        RandomBot { rng: ChaCha8Rng::seed_from_u64(seed) }
    }
}

impl Bot for RandomBot {
    fn identity(&self) -> Identity {
        Identity::new("random").with_author("bao-referee").with_version(env!("CARGO_PKG_VERSION"))
    }

    /// A random entry of `legal`. The referee never sends an empty list; if it did, the
    /// empty answer would be judged an illegal move.
    fn choose_move(&mut self, request: &MoveRequest, _info: &mut InfoSink<'_>) -> String {
        request.legal.choose(&mut self.rng).cloned().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use bao_protocol::sdk::run_with_io;
    use bao_protocol::{BotMessage, Clock, PerSide, PositionJson, RefereeMessage, Rows, Side};

    use super::*;

    fn request(id: u64, legal: &[&str]) -> RefereeMessage {
        RefereeMessage::MoveRequest(MoveRequest {
            id,
            ply: 0,
            position: PositionJson {
                notation: String::new(),
                variant: "kiswahili".into(),
                to_move: Side::South,
                rows: Rows::default(),
                hands: PerSide::default(),
                stage: "namua".into(),
                nyumba: PerSide::default(),
                takasia: None,
            },
            legal: legal.iter().map(|m| (*m).to_owned()).collect(),
            opponent_move: None,
            clock: Clock { you_ms: 100, opponent_ms: 100, increment_ms: 0, move_time_ms: None },
        })
    }

    const LEGAL: [&str; 4] = ["A5<", "A5>", "A6<", "A6>"];

    /// The moves the bot seeded with `seed` plays for 200 identical requests.
    fn moves_with_seed(seed: u64) -> Vec<String> {
        let input: String = (1..=200).map(|id| format!("{}\n", request(id, &LEGAL).to_line())).collect();
        let mut output = Vec::new();
        run_with_io(RandomBot::new(seed), Cursor::new(input.into_bytes()), &mut output).expect("clean run");
        String::from_utf8(output)
            .expect("UTF-8")
            .lines()
            .enumerate()
            .map(|(i, line)| match BotMessage::parse(line) {
                Ok(BotMessage::Move(reply)) => {
                    assert_eq!(reply.id, i as u64 + 1, "ids answered in order");
                    reply.move_text
                }
                other => panic!("expected a move line, got {other:?}"),
            })
            .collect()
    }

    #[test]
    fn plays_only_listed_moves_reproducibly_and_uses_them_all() {
        let moves = moves_with_seed(DEFAULT_SEED);
        assert_eq!(moves.len(), 200);
        assert!(moves.iter().all(|m| LEGAL.contains(&m.as_str())));
        for legal in LEGAL {
            let count = moves.iter().filter(|m| *m == legal).count();
            // Uniform: expected 50 of 200; 20..80 fails with probability far below 1e-6.
            assert!((20..=80).contains(&count), "{legal} played {count} times of 200");
        }
        assert_eq!(moves, moves_with_seed(DEFAULT_SEED), "same seed, same moves");
        assert_ne!(moves, moves_with_seed(DEFAULT_SEED + 1), "another seed, other moves");
    }

    #[test]
    fn a_single_legal_move_is_played_and_an_empty_list_gives_an_empty_answer() {
        let mut bot = RandomBot::new(3);
        let input = format!("{}\n{}\n", request(1, &["B2>"]).to_line(), request(2, &[]).to_line());
        let mut output = Vec::new();
        run_with_io(&mut bot, Cursor::new(input.into_bytes()), &mut output).expect("clean run");
        assert_eq!(
            String::from_utf8(output).expect("UTF-8"),
            "{\"type\":\"move\",\"id\":1,\"move\":\"B2>\"}\n{\"type\":\"move\",\"id\":2,\"move\":\"\"}\n"
        );
    }
}
