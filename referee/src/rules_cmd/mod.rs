//! `bao-referee rules`: rules tooling for bot authors and scripts.
//!
//! Every subcommand prints plain lines meant to be parsed by other programs;
//! the formats and exit codes are documented in `docs/cli-rules.md`
//! ("Rules tooling"). Errors go to stderr as `error: ...` lines naming what
//! was wrong; nothing here panics on any input.

mod failure;
mod input;
mod legal;
mod lines;
mod perft;
mod play;
mod show;
mod start;

use std::io::{self, BufWriter, Write};

use clap::Subcommand;

pub(crate) use failure::Failure;

/// The `rules` subcommands.
#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Prints the start position of a variant.
    Start {
        /// `kiswahili` or `kujifunza`.
        variant: String,
    },
    /// Prints the legal moves of a position on one line, sorted, separated by spaces.
    ///
    /// Without POSITION, reads positions from stdin, one per line, and prints one
    /// line of moves for each.
    Legal {
        /// A position in notation, as one (quoted) argument.
        position: Option<String>,
    },
    /// Plays moves from a position; prints the resulting position and `result: ...`.
    ///
    /// Without arguments, reads lines `POSITION<TAB>MOVE` from stdin and prints
    /// `NEXT_POSITION<TAB>RESULT` for each.
    Play {
        /// A position in notation, as one (quoted) argument.
        position: Option<String>,
        /// Moves to play in order, e.g. `A7<` `a5<` (lower case accepted for North).
        moves: Vec<String>,
    },
    /// Counts the move sequences of a given length from a position.
    Perft {
        /// A position in notation, as one (quoted) argument.
        position: String,
        /// The number of plies, 0 or more.
        #[arg(allow_negative_numbers = true)]
        depth: String,
    },
    /// Draws a position for a person: the board from both sides, hands, stages,
    /// nyumba, takasia, the player to move and the result.
    Show {
        /// A position in notation, as one (quoted) argument.
        position: String,
    },
}

/// The board drawing of `rules show`, for other subcommands (e.g. the end of
/// a match): several lines separated by `\n`, without a final newline, and without the
/// position's own `Result:` line (the caller prints the game's result, which a forfeit or an
/// adjudication decides, not the position).
#[must_use]
pub fn render_board(position: &bao_rules::Position) -> String {
    bao_viewer::render_position(position)
        .lines()
        .filter(|l| !l.starts_with("Result:"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs a `rules` subcommand; returns the exit code (see [`crate::exit`]).
pub fn run(cmd: RulesCommand) -> u8 {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = dispatch(cmd, &mut out);
    // Whatever happened, what was printed so far reaches stdout before the
    // error reaches stderr.
    let flushed = out.flush().map_err(Failure::Output);
    match result.and(flushed) {
        Ok(()) => crate::exit::SUCCESS,
        Err(failure) => failure.report(),
    }
}

fn dispatch(cmd: RulesCommand, out: &mut impl Write) -> Result<(), Failure> {
    match cmd {
        RulesCommand::Start { variant } => start::run(&variant, out),
        RulesCommand::Legal { position: Some(position) } => legal::run_one(&position, out),
        RulesCommand::Legal { position: None } => legal::run_batch(io::stdin().lock(), out),
        RulesCommand::Play { position: Some(position), moves } => play::run_args(&position, &moves, out),
        RulesCommand::Play { position: None, .. } => play::run_batch(io::stdin().lock(), out),
        RulesCommand::Perft { position, depth } => perft::run(&position, &depth, out),
        RulesCommand::Show { position } => show::run(&position, out),
    }
}
