//! `bao-referee serve` (the competition server, crate `bao-server`) and `bao-referee submit`
//! (its client, for a bot author's own CI): their arguments and work are the server crate's
//! ([`bao_server::cli`]); this prints the output and turns the outcome into the exit code.
//! Without the `server` feature (the README's first build) both say how to get them.
//! See docs/server.md.

#[cfg(feature = "server")]
pub use bao_server::cli::{ServeArgs, SubmitArgs};

/// Runs `bao-referee serve`; returns the exit code.
#[cfg(feature = "server")]
#[must_use]
pub fn run_serve(args: &ServeArgs) -> u8 {
    finish(bao_server::cli::run_serve(args))
}

/// Runs `bao-referee submit`; returns the exit code.
#[cfg(feature = "server")]
#[must_use]
pub fn run_submit(args: &SubmitArgs) -> u8 {
    finish(bao_server::cli::run_submit(args))
}

/// Prints what the command printed, or its error; the exit code of README's "Exit codes".
#[cfg(feature = "server")]
fn finish(result: Result<bao_server::cli::Done, bao_server::ServerError>) -> u8 {
    match &result {
        Ok(bao_server::cli::Done::Printed(line)) => crate::out::line(line),
        Ok(bao_server::cli::Done::Stopped) => {}
        Err(e) => eprintln!("error: {e}"),
    }
    bao_server::cli::exit_code(&result)
}

/// `serve` and `submit` in a build without the `server` feature: whatever follows them.
#[cfg(not(feature = "server"))]
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The command's arguments (not read: this build has no server).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
}

/// The same for `submit`.
#[cfg(not(feature = "server"))]
pub type SubmitArgs = ServeArgs;

/// `serve` in a build without the server: says how to build it; exit 2.
#[cfg(not(feature = "server"))]
#[must_use]
pub fn run_serve(_: &ServeArgs) -> u8 {
    without_server("serve")
}

/// `submit` in a build without the server: says how to build it; exit 2.
#[cfg(not(feature = "server"))]
#[must_use]
pub fn run_submit(_: &SubmitArgs) -> u8 {
    without_server("submit")
}

#[cfg(not(feature = "server"))]
fn without_server(command: &str) -> u8 {
    eprintln!(
        "error: `{command}` is not in this build of bao-referee (built without the `server` \
         feature, as the README's first command does); build the whole tool with \
         `cargo build --release -p bao-referee` or install it with `cargo install --path referee`"
    );
    crate::exit::MALFORMED
}
