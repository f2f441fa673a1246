//! The tournament folder's index page, `index.html` (standings with Elo intervals, the cross
//! table, the SPRT, the newest games with links to their replays and logs), through
//! `bao-viewer`. It works from `file://`; it is rewritten as games finish, so a running
//! tournament can be watched by reloading it. The replay pages are
//! [`crate::replay_pages`]'.

use std::collections::VecDeque;
use std::path::Path;

use crate::replay_pages::ReplayPages;

use bao_stats::IntervalSummary;
use bao_viewer::{
    CrossCell, CrossTable, EloInterval, GameRow, IndexData, SideCode, SprtState, StandingRow,
    tournament_index_html,
};

use crate::folder::{OutDir, write_atomically};
use crate::journal::JournalEntry;
use crate::results::Results;
use crate::tally::Tally;
use bao_rules::Side;

/// The most games listed on the index (the newest); the standings count every game.
pub const MAX_GAMES_LISTED: usize = 2_000;

/// The newest [`MAX_GAMES_LISTED`] journal entries, newest last, and how many there were in all:
/// what the index lists, in memory that does not grow with the tournament.
#[derive(Debug, Clone, Default)]
pub struct RecentGames {
    entries: VecDeque<JournalEntry>,
    seen: u64,
}

impl RecentGames {
    /// Adds the newest entry, dropping the oldest beyond [`MAX_GAMES_LISTED`].
    pub fn push(&mut self, entry: JournalEntry) {
        if self.entries.len() == MAX_GAMES_LISTED {
            self.entries.pop_front();
        }
        self.entries.push_back(entry);
        self.seen += 1;
    }

    /// The entries kept, oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &JournalEntry> {
        self.entries.iter()
    }

    /// Every entry pushed, kept or not.
    #[must_use]
    pub fn seen(&self) -> u64 {
        self.seen
    }
}

/// An interval of the statistics (undefined bounds are infinite) as the page shows it.
fn interval(summary: &IntervalSummary) -> Option<EloInterval> {
    let estimate = summary.estimate?;
    Some(EloInterval {
        estimate,
        lower: summary.lower.unwrap_or(f64::NEG_INFINITY),
        upper: summary.upper.unwrap_or(f64::INFINITY),
    })
}

fn side_code(winner: Option<Side>) -> Option<SideCode> {
    winner.map(|side| match side {
        Side::South => SideCode::South,
        Side::North => SideCode::North,
    })
}

/// The index page's data from the results, the running counts and the newest journal entries
/// (linked to their replay pages unless `pages` is [`ReplayPages::None`]).
#[must_use]
pub fn index_data(
    title: &str,
    results: &Results,
    tally: &Tally,
    recent: &RecentGames,
    written_at: String,
    pages: ReplayPages,
) -> IndexData {
    let standings = results
        .standings
        .iter()
        .map(|s| StandingRow {
            name: s.name.clone(),
            games: s.stats.games,
            wins: s.stats.wdl.wins,
            losses: s.stats.wdl.losses,
            draws: s.stats.wdl.draws,
            points: s.score,
            elo: s.stats.trinomial.as_ref().and_then(|e| interval(&e.elo)),
            pentanomial: s.stats.pentanomial.map(|p| [p.ll, p.ld, p.dd_or_wl, p.wd, p.ww]),
        })
        .collect();
    let n = results.bots.len();
    let cells = (0..n)
        .map(|a| {
            (0..n)
                .map(|b| {
                    (a != b).then(|| {
                        let wdl = tally.between(a, b).wdl;
                        CrossCell { wins: wdl.wins, losses: wdl.losses, draws: wdl.draws }
                    })
                })
                .collect()
        })
        .collect();
    let sprt = results.sprt.as_ref().map(|s| SprtState {
        elo0: s.elo0,
        elo1: s.elo1,
        alpha: s.alpha,
        beta: s.beta,
        llr: s.llr,
        lower_bound: s.lower_bound,
        upper_bound: s.upper_bound,
        decision: format!("{:?}", s.decision).to_lowercase(),
    });
    let mut notes = Vec::new();
    if recent.seen() > MAX_GAMES_LISTED as u64 {
        notes.push(format!(
            "The newest {MAX_GAMES_LISTED} of {} games are listed; the standings count them all.",
            recent.seen()
        ));
    }
    if !results.complete {
        notes.push("The tournament is not complete: reload this page to see new games.".to_owned());
    }
    let games = recent
        .iter()
        .rev()
        .map(|e| GameRow {
            id: format!("{}", e.game),
            south: e.south.clone(),
            north: e.north.clone(),
            winner: side_code(e.winner),
            result: e.result.clone(),
            reason: e.reason.name().to_owned(),
            plies: e.plies,
            replay_href: pages.any().then(|| Path::new(&e.log).with_extension("html").display().to_string()),
            log_href: Some(e.log.clone()),
        })
        .collect();
    IndexData {
        title: title.to_owned(),
        written_at,
        complete: results.complete,
        games_planned: Some(results.games_planned),
        notes,
        standings,
        cross_table: Some(CrossTable { names: results.bots.clone(), cells }),
        sprt,
        games,
    }
}

/// Writes `index.html` in the tournament folder.
///
/// # Errors
/// The page cannot be written; the message names the path.
pub fn write_index(
    out: &OutDir,
    results: &Results,
    tally: &Tally,
    recent: &RecentGames,
    pages: ReplayPages,
) -> Result<(), crate::error::PageError> {
    let title =
        out.root().file_name().map_or_else(|| "tournament".to_owned(), |n| n.to_string_lossy().into_owned());
    let written_at = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let page = tournament_index_html(&index_data(&title, results, tally, recent, written_at, pages));
    let path = out.root().join("index.html");
    write_atomically(&path, page.as_bytes()).map_err(|reason| crate::error::PageError::Write { path, reason })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::tests::entry;
    use bao_game::Reason;

    #[test]
    fn the_index_keeps_only_the_newest_games_but_counts_all() {
        let mut recent = RecentGames::default();
        for game in 0..(MAX_GAMES_LISTED as u32 + 5) {
            recent.push(entry(game, 0, 1, Some(Side::South), Reason::FrontRowEmpty));
        }
        assert_eq!(recent.seen(), MAX_GAMES_LISTED as u64 + 5);
        assert_eq!(recent.iter().count(), MAX_GAMES_LISTED);
        assert_eq!(recent.iter().next().map(|e| e.game), Some(5));
        assert_eq!(recent.iter().next_back().map(|e| e.game), Some(MAX_GAMES_LISTED as u32 + 4));
    }
}
