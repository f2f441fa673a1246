//! Checking the bot processes kept across games, over several logs (`bao-referee verify LOG...`,
//! a tournament's `games/` folder).
//!
//! Each `ready` record of a run that may keep processes says which process played
//! (`process.pid` and `process.spawned_at`, its identity) and how many games it had played
//! before (`games_before`; `fresh` when none). One log alone can only be consistent
//! ([`crate::verify::verify_log`] checks that); across the logs of a run, the games of one
//! process must form a chain: one game for each `games_before`, the same bot in all, in the
//! order they were played, and none after a game in which the process's bot faulted or the
//! game was aborted (a process is never kept after either).
//!
//! What this cannot tell: a log that invents a new process (a pid and a start time no other
//! log names) for a game that was really played by a kept one, or a game of a chain missing
//! from the logs given (a chain with a gap is only reported when the logs given are the whole
//! run: the caller says so).

use std::collections::BTreeMap;

use bao_rules::Side;

use crate::Reason;
use crate::log::{BotRecord, LogRecord};

/// One game of a process, as a log says.
#[derive(Debug, Clone)]
struct Appearance {
    log: String,
    side: Side,
    bot: (String, Vec<String>, Option<String>),
    games_before: u32,
    started_at: String,
    /// The game ended with a verdict against this side, or was aborted: the process cannot
    /// have been kept after it.
    ended_badly: bool,
}

/// What the logs' kept processes amount to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Chains {
    /// Distinct processes named.
    pub processes: usize,
    /// Games played in a kept process (`games_before` > 0).
    pub kept_games: usize,
}

/// Checks the chains of processes named by `logs` (a label, for messages, and the log's text).
/// With `complete` (the logs are every game of a run), a chain must also have no gap: a kept
/// process's earlier games must all be there.
///
/// # Errors
/// The first inconsistency found, naming the logs involved.
pub fn check(logs: &[(String, String)], complete: bool) -> Result<Chains, String> {
    let mut by_process: BTreeMap<(u32, String), Vec<Appearance>> = BTreeMap::new();
    for (label, text) in logs {
        for (key, appearance) in appearances(label, text) {
            by_process.entry(key).or_default().push(appearance);
        }
    }
    let mut chains = Chains { processes: by_process.len(), kept_games: 0 };
    for ((pid, spawned_at), mut games) in by_process {
        games.sort_by_key(|a| a.games_before);
        let process = format!("process {pid} started at {spawned_at}");
        chains.kept_games += games.iter().filter(|a| a.games_before > 0).count();
        if complete && games[0].games_before != 0 {
            return Err(format!(
                "{}: {process} is said to have played {} games before, but no log shows its first game",
                games[0].log, games[0].games_before
            ));
        }
        for pair in games.windows(2) {
            let (earlier, later) = (&pair[0], &pair[1]);
            let what =
                |a: &Appearance| format!("{} ({}, game {} of {process})", a.log, a.side, a.games_before + 1);
            if earlier.games_before == later.games_before {
                return Err(format!(
                    "{} and {} both claim to be game {} of {process}{}",
                    earlier.log,
                    later.log,
                    later.games_before + 1,
                    if later.games_before == 0 { " (both call it fresh)" } else { "" }
                ));
            }
            if complete && later.games_before != earlier.games_before + 1 {
                return Err(format!(
                    "{}: no log shows game {} of {process}, between {} and this one",
                    later.log,
                    earlier.games_before + 2,
                    what(earlier)
                ));
            }
            if earlier.bot != later.bot {
                return Err(format!(
                    "{} is played by {:?}, but {} by {:?}: one process runs one bot",
                    what(later),
                    later.bot.0,
                    what(earlier),
                    earlier.bot.0
                ));
            }
            if later.started_at < earlier.started_at {
                return Err(format!("{} began before {}", what(later), what(earlier)));
            }
            if earlier.ended_badly {
                return Err(format!(
                    "{} follows {}, which ended with a fault of that bot or an abort: its process cannot \
                     have been kept",
                    what(later),
                    what(earlier)
                ));
            }
        }
    }
    Ok(chains)
}

/// The processes a log's `ready` records name, with what the log says of each.
fn appearances(label: &str, text: &str) -> Vec<((u32, String), Appearance)> {
    let mut header = None;
    let mut found = Vec::new();
    let mut result = None;
    for line in text.lines() {
        if line.starts_with(r#"{"type":"ply""#) {
            continue;
        }
        match serde_json::from_str::<LogRecord>(line) {
            Ok(LogRecord::Header(h)) => header = Some(h),
            Ok(LogRecord::Ready(r)) => found.push(r),
            Ok(LogRecord::Result(r)) => result = Some(r),
            _ => {}
        }
    }
    let Some(header) = header else { return Vec::new() };
    let identity = |b: &BotRecord| (b.name.clone(), b.command.clone(), b.dir.clone());
    found
        .into_iter()
        .filter_map(|ready| {
            let process = ready.process?;
            let side = ready.side;
            let ended_badly = result.as_ref().is_none_or(|r| {
                r.reason == Reason::Aborted
                    || r.offense.as_ref().is_some_and(|o| o.side == side)
                    || (r.winner.is_none() && r.reason == Reason::HandshakeFailed)
            });
            let bot = identity(if side == Side::South { &header.south } else { &header.north });
            let appearance = Appearance {
                log: label.to_owned(),
                side,
                bot,
                games_before: process.games_before,
                started_at: header.started_at.clone(),
                ended_badly,
            };
            Some(((process.pid, process.spawned_at), appearance))
        })
        .collect()
}
