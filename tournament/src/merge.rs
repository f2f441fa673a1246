//! `bao-referee merge DIR... [--out DIR]`: combines the folders of a
//! tournament's shards into one result.
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

use anyhow::Context;

use crate::tournament::folder::{self, OutDir};
use crate::tournament::journal::{JournalEntry, JournalError};
use crate::tournament::journal_stream;
use crate::tournament::plan::Plan;
use crate::tournament::results;
use crate::tournament::tally::{GameSet, Tally};

/// The arguments of `bao-referee merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The shard folders (each written by `bao-referee tournament --shard I/N --out DIR`).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Write the merged tournament to this new folder: plan.json, journal.jsonl, games/, results.json.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print the results as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

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
pub fn plans(dirs: &[PathBuf]) -> anyhow::Result<(Plan, Vec<Plan>)> {
    let mut each = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let plan = Plan::load(&OutDir::new(dir).plan())?;
        if let Some(first) = each.first() {
            let first: &Plan = first;
            if let Some(difference) = first.unsharded().difference(&plan.unsharded()) {
                anyhow::bail!(
                    "{} and {} hold different tournaments: their plans differ at {difference}",
                    dirs[0].display(),
                    dir.display()
                );
            }
        }
        each.push(plan);
    }
    let shared = each.first().context("no folders to merge")?.unsharded();
    Ok((shared, each))
}

/// Streams the counted entries of the journal of `dir` (one line in memory at a time), stopping
/// at the first one that is not a game of `plan` (and of its shard).
fn counted_entries(dir: &Path, plan: &Plan, mut each: impl FnMut(JournalEntry)) -> anyhow::Result<()> {
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
    })
    .map_err(|e: JournalError| anyhow::anyhow!(e))?;
    match foreign {
        Some(game) => anyhow::bail!(
            "{}: the journal holds game {game}, which is not a game of its plan{}",
            dir.display(),
            plan.shard.map(|s| format!(" and shard {s}")).unwrap_or_default()
        ),
        None => Ok(()),
    }
}

/// The first pass: every counted entry of every journal is a game of its folder's plan; the
/// games counted more than once. Nothing is kept but one bit per game.
///
/// # Errors
/// An unreadable journal, or an entry that is not a game of its plan.
pub fn check_journals(dirs: &[PathBuf], plans: &[Plan]) -> anyhow::Result<BTreeSet<u32>> {
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
    mut take: impl FnMut(usize, &JournalEntry) -> anyhow::Result<()>,
) -> anyhow::Result<Merged> {
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

/// Runs `bao-referee merge`; returns the exit code (0 exact cover, 1 missing or duplicate games
/// or a log that did not verify, 2 bad input, 3 I/O failure writing --out).
#[must_use]
pub fn run(args: &MergeArgs) -> u8 {
    let malformed = |e: &anyhow::Error| {
        eprintln!("error: {}", crate::exit::describe(e));
        crate::exit::MALFORMED
    };
    // Everything is checked (the plans, every journal line) before anything is written.
    let plans = match plans(&args.dirs) {
        Ok(plans) => plans,
        Err(e) => return malformed(&e),
    };
    let duplicated = match check_journals(&args.dirs, &plans.1) {
        Ok(duplicated) => duplicated,
        Err(e) => return malformed(&e),
    };
    // A taken --out is the operator's mistake (exit 2), found before anything is written.
    if let Some(out) = &args.out
        && let Some(problem) = taken(out)
    {
        eprintln!("error: --out {}: {problem}; choose a new folder", out.display());
        return crate::exit::MALFORMED;
    }
    let mut target = match args.out.as_ref().map(|out| MergedFolder::start(out, &plans.0)).transpose() {
        Ok(target) => target,
        Err(e) => {
            eprintln!("error: {}", crate::exit::describe(&e));
            return crate::exit::INTERNAL;
        }
    };
    let merged = merge(&args.dirs, plans, &duplicated, |source, entry| match &mut target {
        Some(target) => target.add(&args.dirs[source], entry),
        None => Ok(()),
    });
    let merged = match merged {
        Ok(merged) => merged,
        Err(e) => {
            eprintln!("error: {}", crate::exit::describe(&e));
            return if target.is_some() { crate::exit::INTERNAL } else { crate::exit::MALFORMED };
        }
    };
    let mut results = results::compute(&merged.plan, &merged.tally, None);
    results.duplicates = merged.duplicates.keys().copied().collect();
    if let Some(target) = target
        && let Err(e) = target.finish(&results)
    {
        eprintln!("error: {}", crate::exit::describe(&e));
        return crate::exit::INTERNAL;
    }
    if args.json {
        match serde_json::to_string(&results) {
            Ok(line) => crate::out::outln!("{line}"),
            Err(e) => {
                eprintln!("error: {e}");
                return crate::exit::INTERNAL;
            }
        }
    } else {
        crate::out::text(&results::render(&results));
    }
    for (game, holders) in &merged.duplicates {
        let names: Vec<String> = holders.iter().map(|&i| args.dirs[i].display().to_string()).collect();
        eprintln!("duplicate: game {game} is in {}", names.join(" and "));
    }
    for (game, error) in &merged.not_verifying {
        eprintln!("does not verify: game {game}: {error}");
    }
    if !results.missing.is_empty() {
        eprintln!("missing: {} game(s): {}", results.missing.count, results.missing.text());
    }
    if results.missing.is_empty() && merged.duplicates.is_empty() && results.unverified.is_empty() {
        crate::exit::SUCCESS
    } else {
        crate::exit::REJECTED
    }
}

/// Why `out` cannot receive a merge: it is not a folder, or a folder that is not empty.
fn taken(out: &std::path::Path) -> Option<&'static str> {
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
struct MergedFolder {
    target: OutDir,
    journal: BufWriter<File>,
    journal_tmp: PathBuf,
    _lock: nix::fcntl::Flock<File>,
}

impl MergedFolder {
    /// Creates and locks the folder and writes the plan.
    fn start(out: &Path, plan: &Plan) -> anyhow::Result<MergedFolder> {
        let target = OutDir::new(out);
        if target.plan().exists() || target.journal().exists() {
            anyhow::bail!(
                "--out {}: the folder already holds a tournament; choose a new folder",
                out.display()
            );
        }
        let lock = target.create_and_lock()?;
        plan.save(&target.plan()).with_context(|| format!("cannot write {}", target.plan().display()))?;
        let mut journal_tmp = target.journal().into_os_string();
        journal_tmp.push(".tmp");
        let journal_tmp = PathBuf::from(journal_tmp);
        let file =
            File::create(&journal_tmp).with_context(|| format!("cannot write {}", journal_tmp.display()))?;
        Ok(MergedFolder {
            target,
            journal: BufWriter::with_capacity(64 * 1024, file),
            journal_tmp,
            _lock: lock,
        })
    }

    /// Copies the log of `entry` from `source` and writes its journal line.
    fn add(&mut self, source: &Path, entry: &JournalEntry) -> anyhow::Result<()> {
        let from = source.join(&entry.log);
        let to = self.target.root().join(&entry.log);
        std::fs::copy(&from, &to)
            .and_then(|_| File::open(&to)?.sync_all())
            .with_context(|| format!("cannot copy {} to {}", from.display(), to.display()))?;
        serde_json::to_writer(&mut self.journal, entry)?;
        self.journal.write_all(b"\n").with_context(|| format!("cannot write {}", self.journal_tmp.display()))
    }

    /// Makes the logs and the journal durable, puts the journal in place, writes the results.
    fn finish(self, results: &results::Results) -> anyhow::Result<()> {
        let MergedFolder { target, journal, journal_tmp, _lock } = self;
        let games = target.games();
        folder::sync_dir(&games).with_context(|| format!("cannot sync {}", games.display()))?;
        let file = journal.into_inner().map_err(std::io::IntoInnerError::into_error);
        file.and_then(|file| file.sync_all())
            .and_then(|()| std::fs::rename(&journal_tmp, target.journal()))
            .and_then(|()| folder::sync_dir(target.root()))
            .with_context(|| format!("cannot write {}", target.journal().display()))?;
        let mut text = serde_json::to_string_pretty(results)?;
        text.push('\n');
        folder::write_atomically(&target.results(), text.as_bytes())
            .with_context(|| format!("cannot write {}", target.results().display()))?;
        Ok(())
    }
}
