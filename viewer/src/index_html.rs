//! The tournament index page: standings, cross table, SPRT and the list of games with links
//! to their replays. Plain HTML written here (every text escaped), with the stylesheet inlined;
//! no script, so it reads the same from `file://` and over HTTP.

use std::fmt::Write as _;

use crate::html_text::{escape_html, relative_href};
use crate::index_data::{CrossTable, IndexData, SprtState, StandingRow, signed};
use crate::replay_data::SideCode;

const CSS: &str = include_str!("../assets/index.css");

/// The index page of `data`: one HTML file, no external resources.
#[must_use]
pub fn tournament_index_html(data: &IndexData) -> String {
    let mut out = String::with_capacity(8 * 1024 + 200 * data.games.len());
    let title = escape_html(&data.title);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n<meta name=\"generator\" content=\"bao-viewer\">\n\
         <title>{title} \u{2014} Bao tournament</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n<header>\n<h1>{title}</h1>\n"
    );
    let finished = data.games.iter().filter(|g| !g.reason.is_empty()).count();
    let progress = match data.games_planned {
        Some(planned) => format!("{finished} of {planned} games"),
        None => format!("{finished} games"),
    };
    let state = if data.complete {
        "Tournament complete".to_owned()
    } else {
        "In progress \u{2014} reload the page for newer results".to_owned()
    };
    let _ = writeln!(
        out,
        "<p class=\"written\" data-complete=\"{}\">{} \u{b7} {} \u{b7} written <time>{}</time></p>",
        data.complete,
        escape_html(&state),
        escape_html(&progress),
        escape_html(&data.written_at)
    );
    for note in &data.notes {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", escape_html(note));
    }
    out.push_str("</header>\n<main>\n");
    standings(&mut out, &data.standings);
    if let Some(sprt) = &data.sprt {
        sprt_section(&mut out, sprt);
    }
    if let Some(table) = &data.cross_table {
        cross_table(&mut out, table);
    }
    games(&mut out, data);
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

fn points_text(points: f64) -> String {
    if points.fract() == 0.0 { format!("{points:.0}") } else { format!("{points:.1}") }
}

fn standings(out: &mut String, rows: &[StandingRow]) {
    out.push_str(
        "<section>\n<h2>Standings</h2>\n<div class=\"scroll\"><table class=\"standings\">\n<thead><tr>\
         <th>#</th><th>bot</th><th>points</th><th>games</th><th>W</th><th>L</th><th>D</th>\
         <th>Elo [95%]</th><th title=\"complete pairs by pair score 0, \u{bd}, 1, 1\u{bd}, 2\">pairs [0, \u{bd}, 1, 1\u{bd}, 2]</th>\
         </tr></thead>\n<tbody>\n",
    );
    for (i, row) in rows.iter().enumerate() {
        let elo = row.elo.map_or_else(|| "\u{2014}".to_owned(), |e| e.text());
        let penta = row.pentanomial.map_or_else(
            || "\u{2014}".to_owned(),
            |p| format!("{}, {}, {}, {}, {}", p[0], p[1], p[2], p[3], p[4]),
        );
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"name\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num elo\">{}</td><td class=\"num\">{}</td></tr>",
            i + 1,
            escape_html(&row.name),
            points_text(row.points),
            row.games,
            row.wins,
            row.losses,
            row.draws,
            escape_html(&elo),
            penta
        );
    }
    if rows.is_empty() {
        out.push_str("<tr><td colspan=\"9\">no games finished yet</td></tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n</section>\n");
}

fn sprt_section(out: &mut String, sprt: &SprtState) {
    let llr = sprt.llr.map_or_else(|| "n/a".to_owned(), |l| format!("{l:.2}"));
    let _ = writeln!(
        out,
        "<section>\n<h2>SPRT</h2>\n<p class=\"sprt\">H0 Elo {} vs H1 Elo {} (\u{3b1} {}, \u{3b2} {}): \
         LLR <b>{}</b> in [{:.2}, {:.2}] \u{2014} <b>{}</b></p>\n</section>",
        signed(sprt.elo0),
        signed(sprt.elo1),
        sprt.alpha,
        sprt.beta,
        escape_html(&llr),
        sprt.lower_bound,
        sprt.upper_bound,
        escape_html(&sprt.decision)
    );
}

fn cross_table(out: &mut String, table: &CrossTable) {
    out.push_str("<section>\n<h2>Cross table</h2>\n<div class=\"scroll\"><table class=\"cross\">\n<thead><tr><th></th>");
    for (i, name) in table.names.iter().enumerate() {
        let _ = write!(out, "<th title=\"{}\">{}</th>", escape_html(name), i + 1);
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (r, name) in table.names.iter().enumerate() {
        let _ = write!(out, "<tr><th class=\"name\">{}. {}</th>", r + 1, escape_html(name));
        for c in 0..table.names.len() {
            let cell = table.cells.get(r).and_then(|row| row.get(c)).copied().flatten();
            match cell {
                _ if r == c => out.push_str("<td class=\"diag\"></td>"),
                Some(cell) => {
                    let games = cell.wins + cell.losses + cell.draws;
                    let points = cell.wins as f64 + cell.draws as f64 / 2.0;
                    let _ = write!(
                        out,
                        "<td class=\"num\" title=\"+{} -{} ={}\">{}/{}</td>",
                        cell.wins,
                        cell.losses,
                        cell.draws,
                        points_text(points),
                        games
                    );
                }
                None => out.push_str("<td class=\"num\">\u{b7}</td>"),
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n</section>\n");
}

fn games(out: &mut String, data: &IndexData) {
    out.push_str(
        "<section>\n<h2>Games</h2>\n<div class=\"scroll\"><table class=\"games\">\n<thead><tr>\
         <th>game</th><th>South</th><th>North</th><th>result</th><th>reason</th><th>plies</th><th>files</th>\
         </tr></thead>\n<tbody>\n",
    );
    for game in &data.games {
        let class = match game.winner {
            Some(SideCode::South) => " class=\"won-S\"",
            Some(SideCode::North) => " class=\"won-N\"",
            None => "",
        };
        let mut files = String::new();
        if let Some(href) = game.replay_href.as_deref().and_then(relative_href) {
            let _ = write!(files, "<a href=\"{href}\" data-replay=\"{}\">replay</a>", escape_html(&game.id));
        }
        if let Some(href) = game.log_href.as_deref().and_then(relative_href) {
            if !files.is_empty() {
                files.push_str(" \u{b7} ");
            }
            let _ = write!(files, "<a href=\"{href}\">log</a>");
        }
        let _ = writeln!(
            out,
            "<tr{class}><td class=\"num\">{}</td><td class=\"south\">{}</td><td class=\"north\">{}</td>\
             <td>{}</td><td>{}</td><td class=\"num\">{}</td><td>{files}</td></tr>",
            escape_html(&game.id),
            escape_html(&game.south),
            escape_html(&game.north),
            escape_html(&game.result),
            escape_html(&game.reason),
            game.plies
        );
    }
    if data.games.is_empty() {
        out.push_str("<tr><td colspan=\"7\">no games yet</td></tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n</section>\n");
}
