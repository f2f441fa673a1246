//! `bao-server`: a thin command line over the `bao_server` library, for tests
//! and for running the server without the referee's CLI.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// The Bao competition server.
#[derive(Debug, Parser)]
#[command(name = "bao-server", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the server.
    Serve {
        /// The arena directory.
        #[arg(long, default_value = "arena")]
        data: PathBuf,
        /// Listen on this address instead of arena.toml's.
        #[arg(long)]
        listen: Option<SocketAddr>,
    },
    /// Add a user and print its API token.
    UserAdd {
        /// The arena directory.
        #[arg(long, default_value = "arena")]
        data: PathBuf,
        /// The user's name.
        name: String,
        /// Make the user an administrator.
        #[arg(long)]
        admin: bool,
    },
    /// Revoke every API token and web session of a user.
    UserRevoke {
        /// The arena directory.
        #[arg(long, default_value = "arena")]
        data: PathBuf,
        /// The user's name.
        name: String,
    },
    /// Give a user a new API token and print it.
    UserToken {
        /// The arena directory.
        #[arg(long, default_value = "arena")]
        data: PathBuf,
        /// The user's name.
        name: String,
    },
    /// Write every finished game's log and the standings into DIR.
    Export {
        /// The arena directory.
        #[arg(long, default_value = "arena")]
        data: PathBuf,
        /// Where to write.
        dir: PathBuf,
    },
    /// Submit a bot to a server.
    Submit {
        /// The server's URL.
        #[arg(long)]
        server: String,
        /// The API token (else the `BAO_TOKEN` environment variable).
        #[arg(long)]
        token: Option<String>,
        /// The bot's name.
        #[arg(long)]
        bot: String,
        /// The language.
        #[arg(long)]
        language: String,
        /// Submit as a candidate against the active version.
        #[arg(long)]
        candidate: bool,
        /// Promote the candidate automatically if it passes.
        #[arg(long)]
        auto_promote: bool,
        /// The file to upload.
        file: PathBuf,
    },
}

/// The exit code after a stop by SIGTERM, SIGINT or SIGHUP.
const STOPPED: u8 = 130;

fn main() -> ExitCode {
    // The bots' re-exec stub (limits, namespaces) runs from this executable.
    bao_supervise::exec_stub::run_if_requested();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let mut return_code = 0;
    let result = match cli.command {
        Command::Serve { data, listen } => tokio::runtime::Runtime::new()
            .map_err(|e| bao_server::ServerError::io("cannot start the runtime", e))
            .and_then(|rt| {
                rt.block_on(bao_server::serve(bao_server::ServeOptions { data_dir: data, listen }))
            })
            // Stopped by a signal, as `bao-referee serve` (README, "Exit codes").
            .map(|()| return_code = STOPPED),
        Command::UserAdd { data, name, admin } => bao_server::user_add(&data, &name, admin).map(|token| {
            println!("{token}");
        }),
        Command::UserRevoke { data, name } => bao_server::user_revoke(&data, &name).map(|r| {
            println!("revoked {} tokens and {} sessions of {name}", r.tokens, r.sessions);
        }),
        Command::UserToken { data, name } => bao_server::user_token(&data, &name).map(|token| {
            println!("{token}");
        }),
        Command::Export { data, dir } => bao_server::export(&data, &dir).map(|s| {
            println!("exported {} games and {} standings to {}", s.games, s.standings, dir.display());
        }),
        Command::Submit { server, token, bot, language, candidate, auto_promote, file } => {
            let Some(token) = token.or_else(|| std::env::var("BAO_TOKEN").ok()) else {
                eprintln!("error: no API token: set BAO_TOKEN or give --token");
                return ExitCode::from(2);
            };
            let opts =
                bao_server::SubmitOptions { server, token, file, bot, language, candidate, auto_promote };
            bao_server::submit_client(&opts).map(|v| println!("{v}"))
        }
    };
    match result {
        Ok(()) => ExitCode::from(return_code),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(match e {
                bao_server::ServerError::Invalid(_)
                | bao_server::ServerError::Conflict(_)
                | bao_server::ServerError::NotFound(_)
                | bao_server::ServerError::Config { .. } => 2,
                bao_server::ServerError::Refused(_) | bao_server::ServerError::RateLimited(_) => 1,
                _ => 3,
            })
        }
    }
}
