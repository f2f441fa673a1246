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

#[cfg(test)]
mod tests {
    use super::*;

    /// A log of the bots `south` and `north` (by name) started at `second` past 09:00:00, whose
    /// South ran in process `pid` after `before` games, ending with `reason` (a verdict against
    /// South when `south_faulted`).
    fn log(south: &str, pid: u32, before: u32, second: u32, reason: &str, south_faulted: bool) -> String {
        let bot =
            |name: &str| format!(r#"{{"name":"{name}","command":["{name}"],"dir":null,"reported":null}}"#);
        let header = format!(
            r#"{{"type":"header","log_version":3,"rules_revision":2,"referee":"bao-referee 0.1.0","variant":"kiswahili","start":"x","south":{},"north":{},"time_control":{{"base":10000,"increment":100,"move_time":null,"startup":5000,"margin":100}},"max_plies":6,"seed":0,"limits":{{"max_memory_bytes":null,"max_cpu_secs":null,"max_processes":null,"max_output_bytes":null}},"started_at":"2026-12-01T09:00:{second:02}Z"}}"#,
            bot(south),
            bot("other")
        );
        let ready = format!(
            r#"{{"type":"ready","side":"S","name":"{south}","author":null,"version":null,"games":"many","process":{{"fresh":{},"games_before":{before},"pid":{pid},"spawned_at":"2026-12-01T09:00:00.000Z"}}}}"#,
            before == 0
        );
        let offense = if south_faulted { r#"{"side":"S","line":null,"move":null}"# } else { "null" };
        let winner = if south_faulted { r#""N""# } else { "null" };
        let result = format!(
            r#"{{"type":"result","result":"r","winner":{winner},"reason":"{reason}","detail":"","plies":6,"duration_ms":1,"final_position":"x","offense":{offense},"exits":["",""]}}"#
        );
        format!("{header}\n{ready}\n{result}\n")
    }

    fn logs(texts: &[String]) -> Vec<(String, String)> {
        texts.iter().enumerate().map(|(i, t)| (format!("{i:05}.jsonl"), t.clone())).collect()
    }

    #[test]
    fn a_chain_of_one_process_is_consistent_and_counted() {
        let chain = logs(&[
            log("a", 7, 0, 1, "max_plies", false),
            log("a", 7, 1, 2, "max_plies", false),
            log("a", 7, 2, 3, "max_plies", false),
        ]);
        assert_eq!(check(&chain, true), Ok(Chains { processes: 1, kept_games: 2 }));
    }

    #[test]
    fn two_games_claiming_the_same_place_in_a_process_are_rejected() {
        let forged = logs(&[log("a", 7, 0, 1, "max_plies", false), log("a", 7, 0, 2, "max_plies", false)]);
        let error = check(&forged, false).unwrap_err();
        assert!(error.contains("both claim to be game 1 of process 7") && error.contains("fresh"), "{error}");
    }

    #[test]
    fn a_gap_is_rejected_only_when_the_logs_are_the_whole_run() {
        let gap = logs(&[log("a", 7, 0, 1, "max_plies", false), log("a", 7, 2, 3, "max_plies", false)]);
        assert!(check(&gap, false).is_ok());
        let error = check(&gap, true).unwrap_err();
        assert!(error.contains("no log shows game 2 of process 7"), "{error}");
        let headless = logs(&[log("a", 7, 1, 1, "max_plies", false)]);
        assert!(check(&headless, true).unwrap_err().contains("no log shows its first game"));
    }

    #[test]
    fn a_process_cannot_go_on_after_a_fault_of_its_bot_or_an_abort() {
        for (reason, faulted) in [("bot_exited", true), ("aborted", false)] {
            let after = logs(&[log("a", 7, 0, 1, reason, faulted), log("a", 7, 1, 2, "max_plies", false)]);
            let error = check(&after, true).unwrap_err();
            assert!(error.contains("cannot have been kept"), "{reason}: {error}");
        }
        // The opponent's fault does not end the process.
        let opponent = logs(&[log("a", 7, 0, 1, "timeout", false), log("a", 7, 1, 2, "max_plies", false)]);
        assert!(check(&opponent, true).is_ok());
    }

    #[test]
    fn one_process_runs_one_bot_in_the_order_played() {
        let two_bots = logs(&[log("a", 7, 0, 1, "max_plies", false), log("b", 7, 1, 2, "max_plies", false)]);
        assert!(check(&two_bots, true).unwrap_err().contains("one process runs one bot"));
        let backwards = logs(&[log("a", 7, 0, 5, "max_plies", false), log("a", 7, 1, 2, "max_plies", false)]);
        assert!(check(&backwards, true).unwrap_err().contains("began before"));
    }
}
