//! The server's command line: `bao-referee serve [user add|revoke|token | export]`,
//! `bao-referee worker` and `bao-referee submit`. The arguments and what each command does live here, once; the
//! referee's CLI mounts them (behind its `server` feature) and the server's end-to-end tests
//! run them from their own test binary. The crate has no binary of its own: one command line.

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::ServerError;

/// The arguments of `serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The arena directory (database, bots, games, arena.toml).
    #[arg(long, default_value = "arena", global = true)]
    pub data: PathBuf,
    /// The database: a `postgres://USER:PASSWORD@HOST/NAME` URL, shared by every server of a
    /// competition (docs/scale-out.md). Without it, the SQLite file in the arena directory.
    /// An argument is visible to other users in `ps`: prefer `BAO_DATABASE` for a password.
    #[arg(long, env = "BAO_DATABASE", global = true, hide_env_values = true, value_name = "URL")]
    pub database: Option<String>,
    /// Listen on this address instead of arena.toml's (default 127.0.0.1:8080).
    #[arg(long)]
    pub listen: Option<SocketAddr>,
    /// Administration instead of serving.
    #[command(subcommand)]
    pub command: Option<ServeCommand>,
}

/// `serve user|export`.
#[derive(Debug, clap::Subcommand)]
pub enum ServeCommand {
    /// Users: `serve user add NAME [--admin]` prints the new user's API token;
    /// `serve user revoke NAME` ends all of a user's tokens and sessions; `serve user token
    /// NAME` prints a new token for a user.
    #[command(subcommand)]
    User(UserCommand),
    /// Writes every finished game's log (verifiable with `bao-referee verify`) and the
    /// standings as JSON into DIR.
    Export {
        /// Where to write.
        dir: PathBuf,
    },
}

/// `serve user ...`.
#[derive(Debug, clap::Subcommand)]
pub enum UserCommand {
    /// Adds a user and prints its API token (stored hashed; shown once).
    Add {
        /// The user's name.
        name: String,
        /// Make the user an administrator.
        #[arg(long)]
        admin: bool,
    },
    /// Revokes every API token and web session of a user.
    Revoke {
        /// The user's name.
        name: String,
    },
    /// Gives a user a new API token and prints it (shown once).
    Token {
        /// The user's name.
        name: String,
    },
}

/// The arguments of `submit`.
#[derive(Debug, clap::Args)]
pub struct SubmitArgs {
    /// The server's URL, e.g. http://127.0.0.1:8080 or https://bao.example.org.
    #[arg(long)]
    pub server: String,
    /// Your API token (from `bao-referee serve user add`). Visible to other users in `ps`:
    /// prefer `BAO_TOKEN` or `--token-file`.
    #[arg(long, conflicts_with = "token_file")]
    pub token: Option<String>,
    /// A file holding your API token (its first line).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// The bot's name (a new version of it when it exists).
    #[arg(long)]
    pub bot: String,
    /// The language, from the server's table (python, node, cpp, java, rust, executable).
    #[arg(long)]
    pub language: String,
    /// Submit as a candidate against your active version (an SPRT decides).
    #[arg(long)]
    pub candidate: bool,
    /// Promote the candidate automatically when it passes.
    #[arg(long, requires = "candidate")]
    pub auto_promote: bool,
    /// The file to upload: one source file, an executable, or a tar/zip archive.
    pub file: PathBuf,
}

/// The arguments of `worker` (docs/worker.md).
#[derive(Debug, clap::Args)]
pub struct WorkerArgs {
    /// The servers' shared database: a `postgres://USER:PASSWORD@HOST/NAME` URL (visible to
    /// other users in `ps` as an argument: prefer `BAO_DATABASE` for a password).
    #[arg(long, env = "BAO_DATABASE", hide_env_values = true, value_name = "URL")]
    pub database: String,
    /// Games played at once (each runs two bot processes).
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Where the bots' built folders are kept (by hash) and the running games' logs.
    #[arg(long, default_value = "bao-worker-cache", value_name = "DIR")]
    pub cache: PathBuf,
    /// How long a claimed game stays this worker's without renewal (renewed every third of
    /// it); a killed worker's games are played again after at most this long.
    #[arg(long, default_value_t = 30, value_name = "SECONDS")]
    pub lease_secs: u64,
}

/// What a command did, for the caller to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Done {
    /// `serve` ran until SIGINT, SIGTERM or SIGHUP stopped it, cleanly.
    Stopped,
    /// The command finished; this is its output line (a token, a summary, the server's answer).
    Printed(String),
}

/// Runs `serve` (until a signal stops it) or one of its administration commands.
///
/// # Errors
/// The server's, the database's or the operator's (a taken name, a bad `arena.toml`).
pub fn run_serve(args: &ServeArgs) -> Result<Done, ServerError> {
    let data = &crate::ArenaPlace { dir: args.data.clone(), database: args.database.clone() };
    match &args.command {
        None => {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .map_err(|e| ServerError::io("cannot start the server's runtime", e))?;
            runtime.block_on(crate::serve(crate::ServeOptions {
                data_dir: data.dir.clone(),
                database: data.database.clone(),
                listen: args.listen,
            }))?;
            Ok(Done::Stopped)
        }
        Some(ServeCommand::User(UserCommand::Add { name, admin })) => {
            crate::user_add(data.clone(), name, *admin).map(Done::Printed)
        }
        Some(ServeCommand::User(UserCommand::Revoke { name })) => {
            crate::user_revoke(data.clone(), name).map(|r| {
                Done::Printed(format!("revoked {} tokens and {} sessions of {name}", r.tokens, r.sessions))
            })
        }
        Some(ServeCommand::User(UserCommand::Token { name })) => {
            crate::user_token(data.clone(), name).map(Done::Printed)
        }
        Some(ServeCommand::Export { dir }) => crate::export(data.clone(), dir).map(|s| {
            Done::Printed(format!(
                "exported {} games and {} standings to {}",
                s.games,
                s.standings,
                dir.display()
            ))
        }),
    }
}

/// Runs `worker` until a signal stops it.
///
/// # Errors
/// The operator's (a bad URL, option or arena setting) or the database's.
pub fn run_worker(args: &WorkerArgs) -> Result<Done, ServerError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| ServerError::io("cannot start the worker's runtime", e))?;
    runtime.block_on(crate::worker::run(crate::worker::WorkerOptions {
        database: args.database.clone(),
        concurrency: args.concurrency,
        cache: args.cache.clone(),
        lease: std::time::Duration::from_secs(args.lease_secs),
    }))?;
    Ok(Done::Stopped)
}

/// Runs `submit`: one upload, the server's answer printed.
///
/// # Errors
/// [`ServerError::Invalid`] without a token; the client's or the server's refusal.
pub fn run_submit(args: &SubmitArgs) -> Result<Done, ServerError> {
    let options = crate::SubmitOptions {
        server: args.server.clone(),
        token: submit_token(args)?,
        file: args.file.clone(),
        bot: args.bot.clone(),
        language: args.language.clone(),
        candidate: args.candidate,
        auto_promote: args.auto_promote,
    };
    crate::submit_client(&options).map(|answer| Done::Printed(answer.to_string()))
}

/// The token: `--token`, else `--token-file`, else `BAO_TOKEN`.
fn submit_token(args: &SubmitArgs) -> Result<String, ServerError> {
    if let Some(token) = &args.token {
        return Ok(token.clone());
    }
    if let Some(path) = &args.token_file {
        let text = std::fs::read_to_string(path).map_err(|e| {
            ServerError::Invalid(format!("cannot read the token file {}: {e}", path.display()))
        })?;
        let token = text.lines().next().unwrap_or("").trim().to_owned();
        if token.is_empty() {
            return Err(ServerError::Invalid(format!("the token file {} is empty", path.display())));
        }
        return Ok(token);
    }
    match std::env::var("BAO_TOKEN") {
        Ok(token) if !token.trim().is_empty() => Ok(token.trim().to_owned()),
        _ => Err(ServerError::Invalid(
            "no API token: set BAO_TOKEN, or give --token-file FILE (or --token)".to_owned(),
        )),
    }
}

/// The exit code of a command (README, "Exit codes"): 0 done, 130 stopped by a signal; for an
/// error, the operator's (a taken or invalid name, a bad configuration, something missing) 2,
/// a submission the server refused 1, anything else (the server or the network failed) 3.
#[must_use]
pub fn exit_code(result: &Result<Done, ServerError>) -> u8 {
    match result {
        Ok(Done::Printed(_)) => 0,
        Ok(Done::Stopped) => 130,
        Err(
            ServerError::Invalid(_)
            | ServerError::Conflict(_)
            | ServerError::NotFound(_)
            | ServerError::Config { .. },
        ) => 2,
        Err(ServerError::Refused(_) | ServerError::RateLimited(_)) => 1,
        Err(_) => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_outcome_has_the_readmes_exit_code() {
        assert_eq!(exit_code(&Ok(Done::Printed("t".into()))), 0);
        assert_eq!(exit_code(&Ok(Done::Stopped)), 130);
        assert_eq!(exit_code(&Err(ServerError::Conflict("taken".into()))), 2);
        assert_eq!(exit_code(&Err(ServerError::Refused("no".into()))), 1);
        assert_eq!(exit_code(&Err(ServerError::Client("down".into()))), 3);
    }

    #[test]
    fn a_token_file_that_is_empty_or_missing_is_the_operators_error() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty");
        std::fs::write(&empty, "\n").unwrap();
        let args = |token_file: PathBuf| SubmitArgs {
            server: "http://127.0.0.1:9".into(),
            token: None,
            token_file: Some(token_file),
            bot: "b".into(),
            language: "python".into(),
            candidate: false,
            auto_promote: false,
            file: "bot.py".into(),
        };
        for (file, says) in [(empty, "is empty"), (dir.path().join("absent"), "cannot read the token file")] {
            let result = run_submit(&args(file));
            assert_eq!(exit_code(&result), 2);
            let message = result.unwrap_err().to_string();
            assert!(message.contains(says), "{message}");
        }
    }
}
