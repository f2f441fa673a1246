//! The self-contained HTML replay of one game.
//!
//! One template (`assets/replay.html`) with its stylesheet and script inlined at compile time;
//! the game goes in as JSON in `<script type="application/json" id="bao-replay-data">`. The
//! page loads nothing from the network, so it works from `file://` and can equally be served
//! over HTTP by a server that embeds the data the same way.

use crate::html_text::script_json;
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

#[cfg(test)]
mod tests {
    use super::*;

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
