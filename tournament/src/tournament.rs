//! A tournament folder opened for a plan, its games played and its results written: what
//! `bao-referee tournament` does between reading its words and printing, for any program.
//!
//! [`Tournament::open`] takes the folder under its lock, refuses one that holds another plan,
//! stores the plan of a new tournament and reads the journal (each entry checked against the
//! plan and folded into the running counts); [`Tournament::play`] plays the games not yet
//! journaled ([`crate::execute`]), then writes `results.json` and `index.html`.

use std::fs::File;
use std::io::Write as _;
use std::sync::Arc;

use nix::fcntl::Flock;

use crate::error::Error;
use crate::execute::{self, Progress, Quiet, Run, RunReport};
use crate::folder::{self, OutDir};
use crate::index_page::{self, RecentGames};
use crate::journal::{Journal, JournalEntry};
use crate::plan::Plan;
use crate::replay_pages::{self, ReplayPages};
use crate::results::{self, Results};
use crate::schedule::Schedule;
use crate::tally::Tally;
use crate::trace::TraceTarget;

/// A tournament folder, locked, with its plan stored and its journal read.
#[derive(Debug)]
pub struct Tournament {
    plan: Plan,
    out: OutDir,
    resumed: bool,
    torn_bytes: u64,
    journal: Journal,
    tally: Tally,
    recent: RecentGames,
    _lock: Flock<File>,
}

/// How to play: games at once, progress, traces, replay pages.
#[derive(Debug)]
pub struct RunOptions {
    /// Games played at once; `None`: [`default_concurrency`].
    pub concurrency: Option<usize>,
    /// Where progress is reported.
    pub progress: Box<dyn Progress>,
    /// Where the games' protocol lines go.
    pub trace: TraceTarget,
    /// The replay page each game gets.
    pub replays: ReplayPages,
    /// Whether bots that declared `"games":"many"` keep their processes between games.
    pub keep: bao_game::KeepPolicy,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            concurrency: None,
            progress: Box::new(Quiet),
            trace: TraceTarget::Off,
            replays: ReplayPages::default(),
            keep: bao_game::KeepPolicy::default(),
        }
    }
}

/// A run that ended: the results (also in `results.json`), how the run went, and what could
/// not be written but did not stop it (the index page, the replays' shared files).
#[derive(Debug)]
pub struct Finished {
    /// The statistics of every game journaled so far.
    pub results: Results,
    /// How the run ended (its own failure, if any, is in [`RunReport::error`]).
    pub report: RunReport,
    /// Files that could not be written, each a message naming it.
    pub warnings: Vec<String>,
}

/// Refuses a folder without `plan.json` that holds anything but an earlier start's leftovers
/// (call it before anything is written, before [`Tournament::open`]).
///
/// # Errors
/// [`Error::Input`] naming what the folder holds.
pub fn refuse_foreign_folder(out: &OutDir) -> Result<(), Error> {
    if out.plan().exists() {
        return Ok(());
    }
    let Ok(entries) = std::fs::read_dir(out.root()) else { return Ok(()) };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !folder::is_leftover_of_a_start(&name) {
            return Err(Error::Input(format!(
                "{} exists and is not a tournament folder (it holds {:?} but no plan.json); choose another --out",
                out.root().display(),
                name
            )));
        }
    }
    Ok(())
}

/// The games to play at once by default, and why: as many as the CPUs this process may use can
/// give every bot that may be thinking a full share (its CPU limit, one CPU without a limit):
/// one bot a game with `no_ponder`, both otherwise (a bot may ponder in its opponent's time).
/// At least one.
#[must_use]
pub fn default_concurrency(plan: &Plan) -> (usize, String) {
    let cpus = bao_supervise::allowed_cpus().len().max(1);
    let per_bot = plan.limits.cpus.map_or(1, |c| c.whole_cpus() as usize);
    let (thinking, how) = if plan.no_ponder {
        (1, "one bot a game thinks at a time (--no-ponder)")
    } else {
        (2, "both bots of a game may think at once (pondering; --no-ponder halves this)")
    };
    let n = (cpus / (per_bot * thinking)).max(1);
    (n, format!("{cpus} CPUs, {per_bot} CPU per thinking bot, {how}"))
}

impl Tournament {
    /// Opens the folder `out` (created if need be) for `plan`, or for the plan stored there
    /// when `plan` is `None` (a resume).
    ///
    /// # Errors
    /// The folder is in use, holds another tournament (its plan differs, or its journal holds
    /// a game of another plan), has no plan and none is given, or cannot be read or written.
    pub fn open(out: OutDir, plan: Option<Plan>) -> Result<Tournament, Error> {
        refuse_foreign_folder(&out)?;
        // The stored plan is read under the lock, so two processes never both start one folder.
        let lock = out.create_and_lock()?;
        let stored = if out.plan().exists() { Some(Plan::load(&out.plan())?) } else { None };
        let plan = match (plan, &stored) {
            (Some(plan), _) => plan,
            (None, Some(stored)) => stored.clone(),
            (None, None) => {
                return Err(Error::Input(format!(
                    "{} holds no tournament (no plan.json)",
                    out.root().display()
                )));
            }
        };
        if let Some(difference) = stored.as_ref().and_then(|stored| stored.difference(&plan)) {
            return Err(Error::Input(format!(
                "{} holds another tournament: its plan.json differs at {difference}. \
                 Use another --out, or delete the folder to start over.",
                out.root().display()
            )));
        }
        if stored.is_none() {
            plan.save(&out.plan()).map_err(Error::io(format!("cannot write {}", out.plan().display())))?;
        }
        // The journal is read as a stream: each entry is checked against the plan, folded into
        // the running counts and dropped (the newest are kept for the index page).
        let schedule = plan.schedule()?;
        let mut tally = Tally::new((0..plan.bots.len()).map(|i| plan.bot_name(i)).collect());
        let mut recent = RecentGames::default();
        let mut foreign = None;
        let (journal, found) = Journal::open(&out.journal(), |entry| {
            if foreign.is_some() {
                return;
            }
            match check_entry(&plan, &schedule, &entry) {
                Ok(()) => {
                    tally.add(&entry);
                    recent.push(entry);
                }
                Err(e) => foreign = Some(e),
            }
        })?;
        if let Some(error) = foreign {
            return Err(error);
        }
        Ok(Tournament {
            plan,
            out,
            resumed: stored.is_some(),
            torn_bytes: found.torn_bytes,
            journal,
            tally,
            recent,
            _lock: lock,
        })
    }

    /// The plan.
    #[must_use]
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The folder.
    #[must_use]
    pub fn out(&self) -> &OutDir {
        &self.out
    }

    /// Whether the folder held this tournament already.
    #[must_use]
    pub fn resumed(&self) -> bool {
        self.resumed
    }

    /// The bytes of a torn last journal line cut off on opening (a kill during a write).
    #[must_use]
    pub fn torn_bytes(&self) -> u64 {
        self.torn_bytes
    }

    /// The games of the plan (of its shard) to play in all.
    #[must_use]
    pub fn planned(&self) -> usize {
        self.plan.games_to_play().count()
    }

    /// The games already played and counted.
    #[must_use]
    pub fn done(&self) -> usize {
        self.tally.counted().len() as usize
    }

    /// Plays the games not yet counted (until all are, an SPRT decides, a signal stops the run,
    /// or the run fails), then writes `results.json` and the index page.
    ///
    /// # Errors
    /// The runtime or the signal handlers cannot be set up, or `results.json` cannot be
    /// written. A failure during the games stops them and is in [`RunReport::error`].
    pub fn play(self, options: RunOptions) -> Result<Finished, Error> {
        let mut warnings = Vec::new();
        if let Err(e) = replay_pages::write_shared_files(options.replays, &self.out.games()) {
            warnings.push(e.to_string());
        }
        let concurrency = options.concurrency.unwrap_or_else(|| default_concurrency(&self.plan).0);
        let plan = Arc::new(self.plan);
        let report = execute::execute(Run {
            plan: Arc::clone(&plan),
            out: self.out.clone(),
            concurrency,
            journal: self.journal,
            tally: self.tally,
            recent: self.recent,
            progress: options.progress,
            trace: options.trace,
            replays: options.replays,
            keep: options.keep,
        })?;
        let results = results::compute(&plan, &report.tally, Some(report.worst_lag));
        // Written through a buffer: the list of missing games of a large unfinished plan is long.
        folder::write_atomically_with(&self.out.results(), |file| {
            serde_json::to_writer_pretty(&mut *file, &results)?;
            file.write_all(b"\n")
        })
        .map_err(Error::io(format!("cannot write {}", self.out.results().display())))?;
        if let Err(e) =
            index_page::write_index(&self.out, &results, &report.tally, &report.recent, options.replays)
        {
            warnings.push(e.to_string());
        }
        Ok(Finished { results, report, warnings })
    }
}

/// A journal entry must be a game of this plan and shard, between the bots the plan puts there.
fn check_entry(plan: &Plan, schedule: &Schedule, entry: &JournalEntry) -> Result<(), Error> {
    let fits = schedule.game(entry.game).is_some_and(|g| {
        g.south == entry.south_bot
            && g.north == entry.north_bot
            && g.pair == entry.pair
            && plan.shard.is_none_or(|s| s.holds_pair(g.pair))
    });
    if !fits {
        return Err(Error::Input(format!(
            "the journal holds game {} ({} vs {}), which is not a game of this plan{}",
            entry.game,
            entry.south,
            entry.north,
            plan.shard.map(|s| format!(" and shard {s}")).unwrap_or_default()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::LockError;
    use crate::schedule::Mode;

    fn plan(seed: u64) -> Plan {
        let bot = |name: &str| bao_supervise::BotSpec {
            name: Some(name.to_owned()),
            program: "bot".into(),
            args: Vec::new(),
            dir: None,
        };
        Plan { seed, ..Plan::new(vec![bot("a"), bot("b")], Mode::RoundRobin, 1, 2).unwrap() }
    }

    #[test]
    fn a_folder_is_opened_again_under_its_own_plan_only() {
        let dir = tempfile::tempdir().unwrap();
        let out = OutDir::new(dir.path().join("t"));
        let first = Tournament::open(out.clone(), Some(plan(1))).unwrap();
        assert!(!first.resumed());
        assert_eq!((first.planned(), first.done()), (2, 0));
        // The lock is held while it is open.
        assert!(matches!(Tournament::open(out.clone(), None), Err(Error::Lock(LockError::Busy(_)))));
        drop(first);
        let again = Tournament::open(out.clone(), None).unwrap();
        assert!(again.resumed());
        assert_eq!(again.plan(), &plan(1));
        drop(again);
        let other = Tournament::open(out.clone(), Some(plan(2))).unwrap_err();
        assert!(other.is_input() && other.to_string().contains("differs at seed"), "{other}");
        assert_eq!(Plan::load(&out.plan()).unwrap(), plan(1), "the stored plan is untouched");
    }

    #[test]
    fn a_folder_of_something_else_or_without_a_plan_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        let error = Tournament::open(OutDir::new(dir.path()), Some(plan(1))).unwrap_err();
        assert!(error.is_input() && error.to_string().contains("notes.txt"), "{error}");
        assert!(!dir.path().join("plan.json").exists());
        let empty = tempfile::tempdir().unwrap();
        let error = Tournament::open(OutDir::new(empty.path()), None).unwrap_err();
        assert!(error.is_input() && error.to_string().contains("no plan.json"), "{error}");
    }

    #[test]
    fn a_journal_entry_of_another_plan_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let out = OutDir::new(dir.path());
        drop(Tournament::open(out.clone(), Some(plan(1))).unwrap());
        // Game 7 of a plan of two games.
        let entry = crate::journal::tests::entry(7, 0, 1, None, bao_game::Reason::MaxPlies);
        let line = serde_json::to_string(&entry).unwrap();
        std::fs::write(out.journal(), format!("{line}\n")).unwrap();
        let error = Tournament::open(out, None).unwrap_err();
        assert!(error.is_input() && error.to_string().contains("game 7"), "{error}");
    }
}
