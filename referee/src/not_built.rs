//! Subcommands left out of this build: a referee built with `--no-default-features` (the
//! README's first command) has no `serve`, `submit` (feature `server`) or `play` (feature
//! `play`). They still parse, whatever follows them, and say how to get them: exit 2.

/// Whatever follows a subcommand this build does not have.
#[derive(Debug, clap::Args)]
pub struct NotBuiltArgs {
    /// The command's arguments (not read: this build does not have the command).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
}

/// Says that `command` needs the cargo feature `feature` and how to build it; returns exit 2.
#[must_use]
pub fn run(command: &str, feature: &str) -> u8 {
    eprintln!(
        "error: `{command}` is not in this build of bao-referee (built without the `{feature}` \
         feature, as the README's first command does); build the whole tool with \
         `cargo build --release -p bao-referee` or install it with `cargo install --path referee`"
    );
    crate::exit::MALFORMED
}
