//! The replay page of every game, `games/NNNNN.html` next to its log (`--replays`):
//!
//! - `log` (the default): a **log page**, the game log embedded as written (one escaping pass, no
//!   parsing), with the viewer's script and stylesheet shared by every page of the folder
//!   (`games/replay.js`, `games/replay.css`, written when a run starts). It shows every position,
//!   move, clock, info and the result, without animating the sowing (a log holds no sowing
//!   steps); about the size of the log.
//! - `full`: the self-contained, animated page of `bao-referee show LOG --html` (the rules engine
//!   replays the log for the sowing steps; about 5× the log's size).
//! - `none`: no page; the index links the logs only.
//!
//! A page is derived from its log, so it is not fsynced: it is replaced at once (a temporary file
//! and a rename) for a reader, and after a power loss the newest pages may be missing or empty
//! while their logs and journal lines are intact; `bao-referee show LOG --html PAGE` writes one
//! again.

use std::path::{Path, PathBuf};

pub use crate::error::PageError;
use bao_viewer::{REPLAY_ASSETS, replay_from_log, replay_html, replay_html_of_log};

/// Which replay page each game gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReplayPages {
    /// A log page: the log embedded, the viewer's script and style shared; no sowing animation.
    #[default]
    Log,
    /// The self-contained, animated page (`bao-referee show LOG --html`), built by replaying the log.
    Full,
    /// No page.
    None,
}

impl ReplayPages {
    /// Every kind, in the order a help text lists them.
    pub const ALL: [ReplayPages; 3] = [ReplayPages::Log, ReplayPages::Full, ReplayPages::None];

    /// The name used on the command line (`--replays log`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            ReplayPages::Log => "log",
            ReplayPages::Full => "full",
            ReplayPages::None => "none",
        }
    }

    /// Whether a game gets a page (and the index links it).
    #[must_use]
    pub fn any(self) -> bool {
        self != ReplayPages::None
    }
}

impl std::str::FromStr for ReplayPages {
    type Err = String;

    fn from_str(s: &str) -> Result<ReplayPages, String> {
        ReplayPages::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("{s:?} is not a kind of replay page: log, full or none"))
    }
}

/// Writes the files the log pages in `games` share (each run: they follow the referee's
/// version), when `pages` are log pages.
///
/// # Errors
/// A file cannot be written; the message names it.
pub fn write_shared_files(pages: ReplayPages, games: &Path) -> Result<(), PageError> {
    if pages != ReplayPages::Log {
        return Ok(());
    }
    for (name, content) in REPLAY_ASSETS {
        let path = games.join(name);
        replace(&path, content.as_bytes()).map_err(|reason| PageError::Write { path, reason })?;
    }
    Ok(())
}

/// Writes the replay page of the game log at `log`, whose text is `text`, next to it
/// (`NNNNN.html`), with a link back to the folder's index.
///
/// # Errors
/// For a full page, a log that cannot be shown; a page that cannot be written. The message
/// names the path.
pub fn write_page(pages: ReplayPages, log: &Path, text: &str) -> Result<(), PageError> {
    let title = log.file_stem().map(|stem| format!("game {}", stem.to_string_lossy()));
    let back = "../index.html";
    let page = match pages {
        ReplayPages::None => return Ok(()),
        ReplayPages::Log => replay_html_of_log(text, title.as_deref(), Some(back)),
        ReplayPages::Full => {
            let mut replay =
                replay_from_log(text).map_err(|reason| PageError::Log { log: log.to_path_buf(), reason })?;
            replay.back_href = Some(back.to_owned());
            replay.title = title;
            replay_html(&replay)
        }
    };
    let path = log.with_extension("html");
    replace(&path, page.as_bytes()).map_err(|reason| PageError::Write { path, reason })
}

/// Replaces `path` with `bytes` at once for a reader (a temporary file, then a rename), without
/// an fsync: for files derived from others.
fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = concat!(
        r#"{"type":"header","log_version":3,"rules_revision":2,"referee":"bao-referee 0.1.0","variant":"kiswahili","#,
        r#""start":"kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 SN -","#,
        r#""south":{"name":"a<b>","command":["x"],"dir":null,"reported":null},"#,
        r#""north":{"name":"b","command":["x"],"dir":null,"reported":null},"#,
        r#""time_control":{"base":10000,"increment":100,"move_time":null,"startup":5000,"margin":100},"#,
        r#""max_plies":null,"seed":0,"limits":{"max_memory_bytes":null,"max_cpu_secs":null,"#,
        r#""max_processes":null,"max_output_bytes":null},"started_at":"2026-12-01T15:20:11Z"}"#,
        "\n"
    );

    #[test]
    fn each_mode_writes_its_page() {
        let dir = std::env::temp_dir().join(format!("bao-replay-pages-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a folder");
        let log = dir.join("00007.jsonl");
        let page = dir.join("00007.html");

        write_shared_files(ReplayPages::Full, &dir).expect("nothing to write");
        assert!(!dir.join("replay.js").exists(), "full pages share nothing");
        write_page(ReplayPages::None, &log, LOG).expect("nothing to write");
        assert!(!page.exists());

        write_shared_files(ReplayPages::Log, &dir).expect("written");
        for (name, content) in REPLAY_ASSETS {
            assert_eq!(std::fs::read_to_string(dir.join(name)).expect("a shared file"), content);
        }
        write_page(ReplayPages::Log, &log, LOG).expect("written");
        let text = std::fs::read_to_string(&page).expect("a log page");
        assert!(text.contains(r#"<script src="replay.js"></script>"#), "{text}");
        assert!(text.contains(r#""name":"a\u003cb\u003e""#), "the log, escaped: {text}");
        assert!(text.contains(r#""title":"game 00007","back_href":"../index.html""#), "{text}");
        assert!(!dir.join("00007.html.tmp").exists());

        write_page(ReplayPages::Full, &log, LOG).expect("written");
        let text = std::fs::read_to_string(&page).expect("a full page");
        assert!(text.contains(r#"id="bao-replay-data""#) && !text.contains(r#"src="replay.js""#), "{text}");
        let err = write_page(ReplayPages::Full, &log, "not a log\n").expect_err("not a log");
        assert!(err.to_string().starts_with(&log.display().to_string()), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
