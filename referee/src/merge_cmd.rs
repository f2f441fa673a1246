//! `bao-referee merge DIR... [--out DIR]`: combines the folders of a tournament's shards into
//! one result ([`bao_tournament::merge`] does the work; this is its command line and exit code).

use std::path::PathBuf;

use bao_tournament::Error;
use bao_tournament::merge;
use bao_tournament::results;

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

/// Runs `bao-referee merge`; returns the exit code (0 exact cover, 1 missing or duplicate games
/// or a log that did not verify, 2 bad input, 3 I/O failure writing --out).
#[must_use]
pub fn run(args: &MergeArgs) -> u8 {
    let malformed = |e: &Error| {
        eprintln!("error: {}", crate::exit::describe_error(e));
        crate::exit::MALFORMED
    };
    // Everything is checked (the plans, every journal line) before anything is written.
    let plans = match merge::plans(&args.dirs) {
        Ok(plans) => plans,
        Err(e) => return malformed(&e),
    };
    let duplicated = match merge::check_journals(&args.dirs, &plans.1) {
        Ok(duplicated) => duplicated,
        Err(e) => return malformed(&e),
    };
    // A taken --out is the operator's mistake (exit 2), found before anything is written.
    if let Some(out) = &args.out
        && let Some(problem) = merge::taken(out)
    {
        eprintln!("error: --out {}: {problem}; choose a new folder", out.display());
        return crate::exit::MALFORMED;
    }
    let mut target = match args.out.as_ref().map(|out| merge::MergedFolder::start(out, &plans.0)).transpose()
    {
        Ok(target) => target,
        Err(e) => {
            eprintln!("error: {}", crate::exit::describe_error(&e));
            return crate::exit::INTERNAL;
        }
    };
    let merged = merge::merge(&args.dirs, plans, &duplicated, |source, entry| match &mut target {
        Some(target) => target.add(&args.dirs[source], entry),
        None => Ok(()),
    });
    let merged = match merged {
        Ok(merged) => merged,
        Err(e) => {
            eprintln!("error: {}", crate::exit::describe_error(&e));
            return if target.is_some() { crate::exit::INTERNAL } else { crate::exit::MALFORMED };
        }
    };
    let mut results = results::compute(&merged.plan, &merged.tally, None);
    results.duplicates = merged.duplicates.keys().copied().collect();
    if let Some(target) = target
        && let Err(e) = target.finish(&results)
    {
        eprintln!("error: {}", crate::exit::describe_error(&e));
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
