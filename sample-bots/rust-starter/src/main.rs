//! `bao-rust-starter`: the smallest useful bao-referee bot, on the typed SDK (`bao-sdk`).
//!
//! It plays a random legal move. Replace the body of `choose_move` with your own idea:
//! `position` is a full `bao_rules::Position` (try `position.successors()` to look one
//! move ahead), `legal` is never empty, and `deadline` says how long you may think.

use bao_sdk::{Bot, Deadline, Identity, Info, Move, MoveList, NewGame, Position};
use rand::seq::IndexedRandom;

/// The bot's state: here only its random generator and the info lines it wants to send.
struct Starter {
    rng: rand::rngs::ThreadRng,
    info: Vec<Info>,
}

impl Bot for Starter {
    /// The name shown in results and logs.
    fn identity(&self) -> Identity {
        Identity::new("rust-starter").with_version(env!("CARGO_PKG_VERSION"))
    }

    /// Called when a game starts (on `hello`), before the bot answers `ready`. One process
    /// may play many games (`Identity::new` says `"games":"many"`): reset per-game state here.
    /// Tables may be kept across games; the side, the variant and the opponent may change.
    fn new_game(&mut self, game: &NewGame) {
        eprintln!("rust-starter: playing {:?} in {}", game.side, game.variant);
    }

    /// The move: any entry of `legal` (the runner refuses anything else).
    fn choose_move(&mut self, _position: &Position, legal: &MoveList, _deadline: &Deadline) -> Move {
        self.info.push(Info::comment(format!("{} legal moves", legal.len())));
        *legal.choose(&mut self.rng).expect("the SDK never passes an empty list")
    }

    /// Info lines sent with the move (optional; the referee logs them).
    fn take_info(&mut self) -> Vec<Info> {
        std::mem::take(&mut self.info)
    }
}

fn main() -> std::process::ExitCode {
    // `run` speaks the protocol on stdin/stdout until the referee says quit.
    match bao_sdk::run(Starter { rng: rand::rng(), info: Vec::new() }) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rust-starter: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
