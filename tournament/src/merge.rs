//! Merging the folders of a tournament's shards into one result (`bao-referee merge DIR...
//! [--out DIR]`).
//!
//! The folders must hold the same plan (all but the shard); together their
//! journals must cover the schedule exactly. Missing and duplicate games are
//! reported (and make the exit code 1); the statistics are computed from the
//! games that are there, each counted once.
//!
//! A journal's `verified` flag is not taken on trust: every log taken is
//! verified again, and its header checked against the plan
//! ([`Plan::check_log`]); a log that fails is listed as not verifying (exit 1).
//! Every file written to `--out` is fsynced.
//!
//! The journals are streamed, twice, holding one line at a time and one bit per game: a first
//! pass checks that every entry is a game of its plan and finds the duplicates (before anything
//! is written), a second verifies each game's first copy, counts it into the running counts
//! ([`Tally`]) and copies it to `--out`. Memory does not grow with the games merged; the merged
//! journal lists the games folder by folder, each in its journal's order.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::folder::{self, OutDir};
use crate::journal::JournalEntry;
use crate::journal_stream;
use crate::plan::Plan;
use crate::results;
use crate::tally::{GameSet, Tally};

/// The games of the shards, merged: running counts, not entries.
#[derive(Debug)]
pub struct Merged {
    /// The shared plan, without a shard.
    pub plan: Plan,
    /// The running counts of every counted game once (the first folder's copy of a duplicate).
    pub tally: Tally,
    /// Games counted more than once, with the folders (indices into the inputs) that hold them.
    pub duplicates: BTreeMap<u32, Vec<usize>>,
    /// The games taken whose log does not verify now, with why, in game order.
    pub not_verifying: Vec<(u32, String)>,
}

/// The folders' plans, read and checked to be one tournament: the shared plan without a shard,
/// and each folder's own.
///
/// # Errors
/// An unreadable plan, or plans that differ.
pub fn plans(dirs: &[PathBuf]) -> Result<(Plan, Vec<Plan>), Error> {
    let mut each = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let plan = Plan::load(&OutDir::new(dir).plan())?;
        if let Some(first) = each.first() {
            let first: &Plan = first;
            if let Some(difference) = first.unsharded().difference(&plan.unsharded()) {
                return Err(Error::Input(format!(
                    "{} and {} hold different tournaments: their plans differ at {difference}",
                    dirs[0].display(),
                    dir.display()
                )));
            }
        }
        each.push(plan);
    }
    let shared = each.first().ok_or_else(|| Error::Input("no folders to merge".into()))?.unsharded();
    Ok((shared, each))
}

/// Streams the counted entries of the journal of `dir` (one line in memory at a time), stopping
/// at the first one that is not a game of `plan` (and of its shard).
fn counted_entries(dir: &Path, plan: &Plan, mut each: impl FnMut(JournalEntry)) -> Result<(), Error> {
    let schedule = plan.schedule()?;
    let mut foreign = None;
    journal_stream::stream_file(&OutDir::new(dir).journal(), |entry| {
        if foreign.is_some() || !entry.counts() {
            return;
        }
        let fits = schedule.game(entry.game).is_some_and(|g| {
            g.south == entry.south_bot
                && g.north == entry.north_bot
                && plan.shard.is_none_or(|s| s.holds_pair(g.pair))
        });
        if fits {
            each(entry);
        } else {
            foreign = Some(entry.game);
        }
    })?;
    match foreign {
        Some(game) => Err(Error::Input(format!(
            "{}: the journal holds game {game}, which is not a game of its plan{}",
            dir.display(),
            plan.shard.map(|s| format!(" and shard {s}")).unwrap_or_default()
        ))),
        None => Ok(()),
    }
}

/// The first pass: every counted entry of every journal is a game of its folder's plan; the
/// games counted more than once. Nothing is kept but one bit per game.
///
/// # Errors
/// An unreadable journal, or an entry that is not a game of its plan.
pub fn check_journals(dirs: &[PathBuf], plans: &[Plan]) -> Result<BTreeSet<u32>, Error> {
    let mut seen = GameSet::default();
    let mut duplicates = BTreeSet::new();
    for (dir, plan) in dirs.iter().zip(plans) {
        counted_entries(dir, plan, |entry| {
            if !seen.insert(entry.game) {
                duplicates.insert(entry.game);
            }
        })?;
    }
    Ok(duplicates)
}

/// The second pass: the first copy of every counted game, in folder order and each journal's
/// order, verified again, counted, and handed to `take` with the index of its folder (to be
/// copied to `--out`).
///
/// # Errors
/// An unreadable journal, or `take`'s error.
pub fn merge(
    dirs: &[PathBuf],
    plans: (Plan, Vec<Plan>),
    duplicated: &BTreeSet<u32>,
    mut take: impl FnMut(usize, &JournalEntry) -> Result<(), Error>,
) -> Result<Merged, Error> {
    let (plan, each) = plans;
    let names = (0..plan.bots.len()).map(|i| plan.bot_name(i)).collect();
    let mut tally = Tally::new(names);
    let mut taken = GameSet::default();
    let mut duplicates: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    let mut not_verifying = Vec::new();
    for (index, (dir, folder_plan)) in dirs.iter().zip(&each).enumerate() {
        let mut failure = None;
        counted_entries(dir, folder_plan, |entry| {
            if failure.is_some() {
                return;
            }
            if duplicated.contains(&entry.game) {
                duplicates.entry(entry.game).or_default().push(index);
            }
            if !taken.insert(entry.game) {
                return;
            }
            let entry = reverify(folder_plan, dir, entry);
            if let Some(error) = &entry.verify_error {
                not_verifying.push((entry.game, error.clone()));
            }
            tally.add(&entry);
            if let Err(e) = take(index, &entry) {
                failure = Some(e);
            }
        })?;
        if let Some(e) = failure {
            return Err(e);
        }
    }
    not_verifying.sort_unstable_by_key(|(game, _)| *game);
    Ok(Merged { plan, tally, duplicates, not_verifying })
}

/// The entry with `verified` and `verify_error` as the log in `dir` says now.
fn reverify(plan: &Plan, dir: &Path, mut entry: JournalEntry) -> JournalEntry {
    let path = dir.join(&entry.log);
    let verdict = match plan.game(entry.game) {
        None => Err(format!("game {} is not in the plan", entry.game)),
        Some(game) => std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))
            .and_then(|text| plan.check_log(&game, &text).map_err(|e| format!("{}: {e}", path.display())))
            .and_then(|verified| {
                if verified.result == entry.result && verified.plies == entry.plies {
                    Ok(())
                } else {
                    Err(format!(
                        "{}: the log says {} after {} plies, the journal {} after {}",
                        path.display(),
                        verified.result,
                        verified.plies,
                        entry.result,
                        entry.plies
                    ))
                }
            }),
    };
    entry.verified = verdict.is_ok();
    entry.verify_error = verdict.err();
    entry
}

/// Why `out` cannot receive a merge: it is not a folder, or a folder that is not empty.
#[must_use]
pub fn taken(out: &std::path::Path) -> Option<&'static str> {
    if !out.exists() {
        return None;
    }
    match std::fs::read_dir(out) {
        Err(_) => Some("exists and is not a folder"),
        Ok(mut entries) => entries.next().is_some().then_some("the folder exists and is not empty"),
    }
}

/// The merged folder being written: the unsharded plan first, then each game's log copied
/// (fsynced) and its journal line written to `journal.jsonl.tmp` as the games stream by; at the
/// end the folder of logs is fsynced, the journal fsynced and renamed into place, and
/// `results.json` written. Until then the folder has no journal: a merge that fails leaves no
/// tournament there.
#[derive(Debug)]
pub struct MergedFolder {
    target: OutDir,
    journal: BufWriter<File>,
    journal_tmp: PathBuf,
    _lock: nix::fcntl::Flock<File>,
}

impl MergedFolder {
    /// Creates and locks the folder and writes the plan.
    ///
    /// # Errors
    /// The folder holds a tournament, is locked, or cannot be written.
    pub fn start(out: &Path, plan: &Plan) -> Result<MergedFolder, Error> {
        let target = OutDir::new(out);
        if target.plan().exists() || target.journal().exists() {
            return Err(Error::Input(format!(
                "--out {}: the folder already holds a tournament; choose a new folder",
                out.display()
            )));
        }
        let lock = target.create_and_lock()?;
        plan.save(&target.plan()).map_err(Error::io(format!("cannot write {}", target.plan().display())))?;
        let mut journal_tmp = target.journal().into_os_string();
        journal_tmp.push(".tmp");
        let journal_tmp = PathBuf::from(journal_tmp);
        let file = File::create(&journal_tmp)
            .map_err(Error::io(format!("cannot write {}", journal_tmp.display())))?;
        Ok(MergedFolder {
            target,
            journal: BufWriter::with_capacity(64 * 1024, file),
            journal_tmp,
            _lock: lock,
        })
    }

    /// Copies the log of `entry` from `source` and writes its journal line.
    ///
    /// # Errors
    /// The log cannot be copied or the line written.
    pub fn add(&mut self, source: &Path, entry: &JournalEntry) -> Result<(), Error> {
        let from = source.join(&entry.log);
        let to = self.target.root().join(&entry.log);
        std::fs::copy(&from, &to).and_then(|_| File::open(&to)?.sync_all()).map_err(Error::io(format!(
            "cannot copy {} to {}",
            from.display(),
            to.display()
        )))?;
        let what = || format!("cannot write {}", self.journal_tmp.display());
        serde_json::to_writer(&mut self.journal, entry).map_err(|e| Error::io(what())(e.into()))?;
        self.journal.write_all(b"\n").map_err(Error::io(what()))
    }

    /// Makes the logs and the journal durable, puts the journal in place, writes the results.
    ///
    /// # Errors
    /// A file cannot be synced, renamed or written.
    pub fn finish(self, results: &results::Results) -> Result<(), Error> {
        let MergedFolder { target, journal, journal_tmp, _lock } = self;
        let games = target.games();
        folder::sync_dir(&games).map_err(Error::io(format!("cannot sync {}", games.display())))?;
        let file = journal.into_inner().map_err(std::io::IntoInnerError::into_error);
        file.and_then(|file| file.sync_all())
            .and_then(|()| std::fs::rename(&journal_tmp, target.journal()))
            .and_then(|()| folder::sync_dir(target.root()))
            .map_err(Error::io(format!("cannot write {}", target.journal().display())))?;
        let what = format!("cannot write {}", target.results().display());
        let mut text =
            serde_json::to_string_pretty(results).map_err(|e| Error::io(what.clone())(e.into()))?;
        text.push('\n');
        folder::write_atomically(&target.results(), text.as_bytes()).map_err(Error::io(what))?;
        Ok(())
    }
}
