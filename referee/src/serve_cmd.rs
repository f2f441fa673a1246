//! `bao-referee serve` (the competition server, crate `bao-server`) and `bao-referee submit`
//! (its client, for a bot author's own CI): their arguments and work are the server crate's
//! ([`bao_server::cli`]); this prints the output and turns the outcome into the exit code.
//! Without the `server` feature (the README's first build) both say how to get them.
//! See docs/server.md.

#[cfg(feature = "server")]
pub use bao_server::cli::{ServeArgs, SubmitArgs, WorkerArgs};

/// Runs `bao-referee serve`; returns the exit code.
#[cfg(feature = "server")]
#[must_use]
pub fn run_serve(args: &ServeArgs) -> u8 {
    finish(bao_server::cli::run_serve(args))
}

/// Runs `bao-referee worker`; returns the exit code.
#[cfg(feature = "server")]
#[must_use]
pub fn run_worker(args: &WorkerArgs) -> u8 {
    finish(bao_server::cli::run_worker(args))
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

/// `serve` in a build without the `server` feature.
#[cfg(not(feature = "server"))]
pub type ServeArgs = crate::not_built::NotBuiltArgs;

/// `worker` in a build without the `server` feature.
#[cfg(not(feature = "server"))]
pub type WorkerArgs = crate::not_built::NotBuiltArgs;

/// `worker` in a build without the server: says how to build it; exit 2.
#[cfg(not(feature = "server"))]
#[must_use]
pub fn run_worker(_: &WorkerArgs) -> u8 {
    crate::not_built::run("worker", "server")
}

/// `submit` in a build without the `server` feature.
#[cfg(not(feature = "server"))]
pub type SubmitArgs = crate::not_built::NotBuiltArgs;

/// `serve` in a build without the server: says how to build it; exit 2.
#[cfg(not(feature = "server"))]
#[must_use]
pub fn run_serve(_: &ServeArgs) -> u8 {
    crate::not_built::run("serve", "server")
}

/// `submit` in a build without the server: says how to build it; exit 2.
#[cfg(not(feature = "server"))]
#[must_use]
pub fn run_submit(_: &SubmitArgs) -> u8 {
    crate::not_built::run("submit", "server")
}
