//! `bao-referee rules`: rules tooling (being written).

use clap::Subcommand;

/// The `rules` subcommands.
#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Prints the start position of a variant.
    Start {
        /// `kiswahili` or `kujifunza`.
        variant: String,
    },
}

/// Runs a `rules` subcommand; returns the exit code.
pub fn run(cmd: RulesCommand) -> u8 {
    match cmd {
        RulesCommand::Start { variant } => match variant.parse::<bao_rules::Variant>() {
            Ok(v) => {
                println!("{}", bao_rules::Position::start(v));
                crate::exit::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                crate::exit::MALFORMED
            }
        },
    }
}
