//! `bao-referee show LOG`: a game log drawn as boards in the terminal (every ply, or the one
//! asked for; `--follow` for a game still being written), or written as a self-contained HTML
//! replay (`--html OUT.html`), through `bao-viewer`.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use bao_viewer::{ReplayData, TerminalStyle, render_ply, render_result, replay_from_log, replay_html};

/// When to colour the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColourChoice {
    /// When stdout is a terminal and `NO_COLOR` is not set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// The arguments of `bao-referee show`.
#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The game log (JSON Lines), complete or still being written.
    pub log: PathBuf,
    /// Draw only the board after this ply (0: the start position).
    #[arg(long, value_name = "N")]
    pub ply: Option<usize>,
    /// Write a self-contained HTML replay to this file instead of drawing.
    #[arg(long, value_name = "OUT.html", conflicts_with_all = ["ply", "follow"])]
    pub html: Option<PathBuf>,
    /// Keep drawing plies as the log grows, until its result line (a running game).
    #[arg(long, conflicts_with = "ply")]
    pub follow: bool,
    /// Colour: auto, always or never.
    #[arg(long, value_enum, default_value_t = ColourChoice::Auto)]
    pub colour: ColourChoice,
}

/// How often `--follow` looks at the log.
const FOLLOW_POLL: Duration = Duration::from_millis(200);

/// Runs `bao-referee show`; returns the exit code.
#[must_use]
pub fn run(args: &ShowArgs) -> u8 {
    match show(args) {
        Ok(()) => crate::exit::SUCCESS,
        Err(Failure::Closed) => crate::exit::SUCCESS,
        Err(Failure::Input(message)) => {
            eprintln!("error: {message}");
            crate::exit::MALFORMED
        }
        Err(Failure::Output(message)) => {
            eprintln!("error: {message}");
            crate::exit::INTERNAL
        }
    }
}

enum Failure {
    /// Stdout was closed (`| head`): stop quietly.
    Closed,
    /// The log cannot be read or shown.
    Input(String),
    /// The output cannot be written.
    Output(String),
}

fn read(path: &Path) -> Result<ReplayData, Failure> {
    let text =
        std::fs::read(path).map_err(|e| Failure::Input(format!("cannot read {}: {e}", path.display())))?;
    let text = String::from_utf8_lossy(&text);
    replay_from_log(&text).map_err(|e| Failure::Input(format!("{}: {e}", path.display())))
}

fn print(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(Failure::Closed),
        Err(e) => Err(Failure::Output(format!("cannot write to stdout: {e}"))),
    }
}

fn style(choice: ColourChoice) -> TerminalStyle {
    let colour = match choice {
        ColourChoice::Always => true,
        ColourChoice::Never => false,
        ColourChoice::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    TerminalStyle { colour }
}

fn show(args: &ShowArgs) -> Result<(), Failure> {
    let replay = read(&args.log)?;
    if let Some(out) = &args.html {
        let html = replay_html(&replay);
        return std::fs::write(out, html)
            .map_err(|e| Failure::Output(format!("cannot write {}: {e}", out.display())));
    }
    let style = style(args.colour);
    if let Some(ply) = args.ply {
        let Some(text) = render_ply(&replay, ply, style) else {
            return Err(Failure::Input(format!(
                "--ply {ply}: the log has {} plies (0 is the start position)",
                replay.plies.len()
            )));
        };
        return print(&text);
    }
    let mut shown = 0;
    let mut replay = replay;
    loop {
        while let Some(text) = render_ply(&replay, shown, style) {
            print(&if shown == 0 { text } else { format!("\n{text}") })?;
            shown += 1;
        }
        if let Some(result) = &replay.result {
            return print(&format!(
                "\n{}",
                render_result(result, &replay.south_name, &replay.north_name, style)
            ));
        }
        if !args.follow {
            return Ok(());
        }
        std::thread::sleep(FOLLOW_POLL);
        replay = read(&args.log)?;
    }
}
