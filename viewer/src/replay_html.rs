//! The self-contained HTML replay of one game.
//!
//! One template (`assets/replay.html`) with its stylesheet and script inlined at compile time;
//! the game goes in as JSON in `<script type="application/json" id="bao-replay-data">`. The
//! page loads nothing from the network, so it works from `file://` and can equally be served
//! over HTTP by a server that embeds the data the same way.
//!
//! A **log page** ([`replay_html_of_log`]) is the cheap form a tournament writes for every game:
//! the same template, with the game log embedded as written (escaped by [`script_text`], no
//! parsing) and the stylesheet and script left in two shared files next to it
//! ([`REPLAY_ASSETS`]); the script reads the replay off the log's records. It shows the same
//! positions, moves, clocks, info and result, but does not animate the sowing (a log holds no
//! sowing steps).

use std::sync::LazyLock;

use serde::Serialize;

use crate::html_text::{script_json, script_text};
use crate::replay_data::ReplayData;

const TEMPLATE: &str = include_str!("../assets/replay.html");
const CSS: &str = include_str!("../assets/replay.css");
const JS: &str = include_str!("../assets/replay.js");

const CSS_MARK: &str = "/*@BAO_CSS@*/";
const DATA_MARK: &str = "/*@BAO_DATA@*/";
const JS_MARK: &str = "/*@BAO_JS@*/";

/// The replay page of `data`: one HTML file with everything inlined.
#[must_use]
pub fn replay_html(data: &ReplayData) -> String {
    replay_html_with_json(&script_json(data))
}

/// The replay page around `json`, which must already be safe inside a script element (made by
/// [`script_json`](crate::script_json)). For a server that keeps the data serialised.
#[must_use]
pub fn replay_html_with_json(json: &str) -> String {
    // Split at the markers once, so that nothing in the data is ever taken for a marker.
    let mut out = String::with_capacity(TEMPLATE.len() + CSS.len() + JS.len() + json.len());
    let mut rest = TEMPLATE;
    for (mark, text) in [(CSS_MARK, CSS), (DATA_MARK, json), (JS_MARK, JS)] {
        match rest.split_once(mark) {
            Some((before, after)) => {
                out.push_str(before);
                out.push_str(text);
                rest = after;
            }
            None => debug_assert!(false, "replay.html lacks {mark}"),
        }
    }
    out.push_str(rest);
    out
}

/// The shared files of log pages, (file name, content): written once next to the pages, which
/// link them by these relative names.
pub const REPLAY_ASSETS: [(&str, &str); 2] = [("replay.css", CSS), ("replay.js", JS)];

/// The inline stylesheet, data and script elements of the template, as written there.
const STYLE_ELEMENT: &str = "<style>\n/*@BAO_CSS@*/\n</style>";
const DATA_ELEMENT: &str = "<script type=\"application/json\" id=\"bao-replay-data\">/*@BAO_DATA@*/</script>";
const SCRIPT_ELEMENT: &str = "<script>\n/*@BAO_JS@*/\n</script>";

/// The template of a log page, cut where the page's title and link (JSON) and the log go.
struct LogTemplate {
    head: String,
    between: &'static str,
    tail: String,
}

static LOG_TEMPLATE: LazyLock<LogTemplate> = LazyLock::new(|| {
    let (head, rest) = TEMPLATE.split_once(STYLE_ELEMENT).unwrap_or((TEMPLATE, ""));
    let (middle, rest) = rest.split_once(DATA_ELEMENT).unwrap_or((rest, ""));
    let (before_script, after_script) = rest.split_once(SCRIPT_ELEMENT).unwrap_or((rest, ""));
    let style = format!("<link rel=\"stylesheet\" href=\"{}\">", REPLAY_ASSETS[0].0);
    LogTemplate {
        head: format!("{head}{style}{middle}<script type=\"application/json\" id=\"bao-replay-page\">"),
        between: "</script>\n<script type=\"application/json\" id=\"bao-replay-log\">",
        tail: format!(
            "</script>{before_script}<script src=\"{}\"></script>{after_script}",
            REPLAY_ASSETS[1].0
        ),
    }
});

/// The title and the link back of a log page.
#[derive(Serialize)]
struct PageLinks<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    back_href: Option<&'a str>,
}

/// The log page of the game log `log` (its text as written): the template with the log
/// embedded, linking [`REPLAY_ASSETS`] by relative names (write them next to the page).
/// `title` and `back_href` are [`ReplayData`]'s fields of the same names.
#[must_use]
pub fn replay_html_of_log(log: &str, title: Option<&str>, back_href: Option<&str>) -> String {
    let template = &*LOG_TEMPLATE;
    let links = script_json(&PageLinks { title, back_href });
    let mut out = String::with_capacity(
        template.head.len()
            + links.len()
            + template.between.len()
            + log.len()
            + log.len() / 64
            + template.tail.len(),
    );
    out.push_str(&template.head);
    out.push_str(&links);
    out.push_str(template.between);
    out.push_str(&script_text(log));
    out.push_str(&template.tail);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_page_links_the_shared_files_and_embeds_the_log_only() {
        for element in [STYLE_ELEMENT, DATA_ELEMENT, SCRIPT_ELEMENT] {
            assert_eq!(TEMPLATE.matches(element).count(), 1, "{element}");
        }
        let log = "{\"type\":\"header\",\"name\":\"</script>\"}\n";
        let page = replay_html_of_log(log, Some("game 7"), Some("../index.html"));
        assert!(page.contains(r#"<link rel="stylesheet" href="replay.css">"#), "{page}");
        assert!(page.contains(r#"<script src="replay.js"></script>"#), "{page}");
        assert!(page.contains(r#"{"type":"header","name":"\u003c/script\u003e"}"#), "{page}");
        assert!(
            page.contains(r#"id="bao-replay-page">{"title":"game 7","back_href":"../index.html"}</script>"#)
        );
        assert!(!page.contains("/*@BAO_"), "every marker is replaced");
        assert!(!page.contains(CSS) && !page.contains(JS), "the assets are not inlined");
        assert_eq!(page.matches("</script>").count(), 3, "{page}");
        assert!(page.len() < TEMPLATE.len() + log.len() + 400, "{}", page.len());
    }

    #[test]
    fn the_template_has_each_marker_once_in_order() {
        let css = TEMPLATE.find(CSS_MARK).unwrap();
        let data = TEMPLATE.find(DATA_MARK).unwrap();
        let js = TEMPLATE.find(JS_MARK).unwrap();
        assert!(css < data && data < js);
        for mark in [CSS_MARK, DATA_MARK, JS_MARK] {
            assert_eq!(TEMPLATE.matches(mark).count(), 1, "{mark}");
        }
    }

    #[test]
    fn the_assets_cannot_close_their_own_elements() {
        assert!(!CSS.to_ascii_lowercase().contains("</style"));
        assert!(!JS.to_ascii_lowercase().contains("</script"));
        assert!(!JS.contains("innerHTML"), "text goes in through textContent only");
    }
}
