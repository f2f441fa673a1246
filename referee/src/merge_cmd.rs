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

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Context;

use crate::tournament::folder::{self, OutDir};
use crate::tournament::journal::{self, JournalEntry};
use crate::tournament::plan::Plan;
use crate::tournament::results;
use crate::tournament::tally::Tally;

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

/// The games of the shards, merged.
#[derive(Debug)]
pub struct Merged {
    /// The shared plan, without a shard.
    pub plan: Plan,
    /// Every counted game once (the first folder's copy of a duplicate), by game number.
    pub entries: BTreeMap<u32, (usize, JournalEntry)>,
    /// Games counted more than once, with the folders (indices into the inputs) that hold them.
    pub duplicates: BTreeMap<u32, Vec<usize>>,
}

/// Reads the folders and merges their journals.
///
/// # Errors
/// An unreadable folder, plans that differ, or journal entries that are not games of the plan.
pub fn merge(dirs: &[PathBuf]) -> anyhow::Result<Merged> {
    let mut base: Option<(Plan, &PathBuf)> = None;
    let mut entries: BTreeMap<u32, (usize, JournalEntry)> = BTreeMap::new();
    let mut holders: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (index, dir) in dirs.iter().enumerate() {
        let out = OutDir::new(dir);
        let plan = Plan::load(&out.plan())?;
        match &base {
            None => base = Some((plan.unsharded(), dir)),
            Some((first, first_dir)) => {
                if let Some(difference) = first.difference(&plan.unsharded()) {
                    anyhow::bail!(
                        "{} and {} hold different tournaments: their plans differ at {difference}",
                        first_dir.display(),
                        dir.display()
                    );
                }
            }
        }
        let parsed = journal::read(&out.journal())?;
        let schedule = plan.schedule()?;
        for entry in parsed.entries.into_iter().filter(JournalEntry::counts) {
            let fits = schedule.game(entry.game).is_some_and(|g| {
                g.south == entry.south_bot
                    && g.north == entry.north_bot
                    && plan.shard.is_none_or(|s| s.holds_pair(g.pair))
            });
            if !fits {
                anyhow::bail!(
                    "{}: the journal holds game {}, which is not a game of its plan{}",
                    dir.display(),
                    entry.game,
                    plan.shard.map(|s| format!(" and shard {s}")).unwrap_or_default()
                );
            }
            holders.entry(entry.game).or_default().push(index);
            if !entries.contains_key(&entry.game) {
                let entry = reverify(&plan, dir, entry);
                entries.insert(entry.game, (index, entry));
            }
        }
    }
    let (plan, _) = base.context("no folders to merge")?;
    let duplicates = holders.into_iter().filter(|(_, dirs)| dirs.len() > 1).collect();
    Ok(Merged { plan, entries, duplicates })
}

/// The entry with `verified` and `verify_error` as the log in `dir` says now.
fn reverify(plan: &Plan, dir: &std::path::Path, mut entry: JournalEntry) -> JournalEntry {
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
    let merged = match merge(&args.dirs) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {}", crate::exit::describe(&e));
            return crate::exit::MALFORMED;
        }
    };
    let names = (0..merged.plan.bots.len()).map(|i| merged.plan.bot_name(i)).collect();
    let mut tally = Tally::new(names);
    for (_, entry) in merged.entries.values() {
        tally.add(entry);
    }
    let mut results = results::compute(&merged.plan, &tally, None);
    results.duplicates = merged.duplicates.keys().copied().collect();
    // A taken --out is the operator's mistake (exit 2), found before anything is written.
    if let Some(out) = &args.out
        && let Some(problem) = taken(out)
    {
        eprintln!("error: --out {}: {problem}; choose a new folder", out.display());
        return crate::exit::MALFORMED;
    }
    if let Some(out) = &args.out
        && let Err(e) = write_merged(&args.dirs, &merged, &results, out)
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
    for (_, entry) in merged.entries.values() {
        if let Some(error) = &entry.verify_error {
            eprintln!("does not verify: game {}: {error}", entry.game);
        }
    }
    if !results.missing.is_empty() {
        eprintln!("missing: {} game(s): {}", results.missing.len(), results::list_games(&results.missing));
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

/// Writes the merged folder: the unsharded plan, one journal line per game in
/// game order, the logs, and the results.
fn write_merged(
    dirs: &[PathBuf],
    merged: &Merged,
    results: &results::Results,
    out: &PathBuf,
) -> anyhow::Result<()> {
    let target = OutDir::new(out);
    if target.plan().exists() || target.journal().exists() {
        anyhow::bail!("--out {}: the folder already holds a tournament; choose a new folder", out.display());
    }
    let _lock = target.create_and_lock()?;
    merged.plan.save(&target.plan()).with_context(|| format!("cannot write {}", target.plan().display()))?;
    let mut lines = Vec::new();
    for (source, entry) in merged.entries.values() {
        let from = dirs[*source].join(&entry.log);
        let to = target.root().join(&entry.log);
        std::fs::copy(&from, &to)
            .and_then(|_| std::fs::File::open(&to)?.sync_all())
            .with_context(|| format!("cannot copy {} to {}", from.display(), to.display()))?;
        lines.extend(serde_json::to_vec(entry)?);
        lines.push(b'\n');
    }
    folder::sync_dir(&target.games()).with_context(|| format!("cannot sync {}", target.games().display()))?;
    folder::write_atomically(&target.journal(), &lines)
        .with_context(|| format!("cannot write {}", target.journal().display()))?;
    let mut text = serde_json::to_string_pretty(results)?;
    text.push('\n');
    folder::write_atomically(&target.results(), text.as_bytes())
        .with_context(|| format!("cannot write {}", target.results().display()))?;
    Ok(())
}
