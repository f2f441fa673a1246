//! `bao-referee serve` (the competition server of `bao-server`) and `bao-referee submit` (its
//! client, for a bot author's own CI). See docs/server.md.

use std::net::SocketAddr;
use std::path::PathBuf;

/// The arguments of `bao-referee serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The arena directory (database, bots, games, arena.toml).
    #[arg(long, default_value = "arena", global = true)]
    pub data: PathBuf,
    /// Listen on this address instead of arena.toml's (default 127.0.0.1:8080).
    #[arg(long)]
    pub listen: Option<SocketAddr>,
    /// Administration instead of serving.
    #[command(subcommand)]
    pub command: Option<ServeCommand>,
}

/// `bao-referee serve user|export`.
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

/// `bao-referee serve user ...`.
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

/// The arguments of `bao-referee submit`.
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

/// Runs `bao-referee serve`; returns the exit code.
#[must_use]
pub fn run_serve(args: &ServeArgs) -> u8 {
    let result = match &args.command {
        // The server runs until a signal stops it: README's 130 when it stopped cleanly.
        None => {
            return match tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .map_err(|e| bao_server::ServerError::io("cannot start the server's runtime", e))
                .and_then(|rt| {
                    rt.block_on(bao_server::serve(bao_server::ServeOptions {
                        data_dir: args.data.clone(),
                        listen: args.listen,
                    }))
                }) {
                Ok(()) => crate::exit::INTERRUPTED,
                Err(e) => finish(Err(e)),
            };
        }
        Some(ServeCommand::User(UserCommand::Add { name, admin })) => {
            bao_server::user_add(&args.data, name, *admin).map(|token| crate::out::line(&token))
        }
        Some(ServeCommand::User(UserCommand::Revoke { name })) => bao_server::user_revoke(&args.data, name)
            .map(|r| {
                crate::out::line(&format!(
                    "revoked {} tokens and {} sessions of {name}",
                    r.tokens, r.sessions
                ))
            }),
        Some(ServeCommand::User(UserCommand::Token { name })) => {
            bao_server::user_token(&args.data, name).map(|token| crate::out::line(&token))
        }
        Some(ServeCommand::Export { dir }) => bao_server::export(&args.data, dir).map(|s| {
            crate::out::line(&format!(
                "exported {} games and {} standings to {}",
                s.games,
                s.standings,
                dir.display()
            ));
        }),
    };
    finish(result)
}

/// The token: `--token`, else `--token-file`, else `BAO_TOKEN`.
fn submit_token(args: &SubmitArgs) -> Result<String, String> {
    if let Some(token) = &args.token {
        return Ok(token.clone());
    }
    if let Some(path) = &args.token_file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the token file {}: {e}", path.display()))?;
        let token = text.lines().next().unwrap_or("").trim().to_owned();
        if token.is_empty() {
            return Err(format!("the token file {} is empty", path.display()));
        }
        return Ok(token);
    }
    match std::env::var("BAO_TOKEN") {
        Ok(token) if !token.trim().is_empty() => Ok(token.trim().to_owned()),
        _ => Err("no API token: set BAO_TOKEN, or give --token-file FILE (or --token)".to_owned()),
    }
}

/// Runs `bao-referee submit`; returns the exit code.
#[must_use]
pub fn run_submit(args: &SubmitArgs) -> u8 {
    let token = match submit_token(args) {
        Ok(token) => token,
        Err(e) => {
            eprintln!("error: {e}");
            return crate::exit::MALFORMED;
        }
    };
    let options = bao_server::SubmitOptions {
        server: args.server.clone(),
        token,
        file: args.file.clone(),
        bot: args.bot.clone(),
        language: args.language.clone(),
        candidate: args.candidate,
        auto_promote: args.auto_promote,
    };
    finish(bao_server::submit_client(&options).map(|answer| crate::out::line(&answer.to_string())))
}

/// The exit code of an error (README, "Exit codes"): the operator's (a taken or invalid name,
/// a bad configuration, something missing) 2, a submission the server refused 1, anything
/// else (the server or the network failed) 3.
fn finish(result: Result<(), bao_server::ServerError>) -> u8 {
    use bao_server::ServerError;
    match result {
        Ok(()) => crate::exit::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            match e {
                ServerError::Invalid(_)
                | ServerError::Conflict(_)
                | ServerError::NotFound(_)
                | ServerError::Config { .. } => crate::exit::MALFORMED,
                ServerError::Refused(_) | ServerError::RateLimited(_) => crate::exit::REJECTED,
                _ => crate::exit::INTERNAL,
            }
        }
    }
}
