//! The game page: the viewer's replay page (its board, sowing animation, move list), with the
//! play panel's script and style added. The board is the viewer's, fed ply by ply through its
//! live API (`window.baoReplay`); the play script adds the legal moves (elements carrying
//! `data-move`), the marked pits, both clocks, resign, and the page's `data-state`.

use bao_rules::{Position, Side};
use bao_viewer::{BoardJson, ReplayData, script_json};
use serde::Serialize;

const PLAY_JS: &str = include_str!("../assets/play.js");
const PLAY_CSS: &str = include_str!("../assets/play.css");

/// What the play script needs to know, embedded in the page.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PageConfig {
    /// The WebSocket's path.
    pub socket_path: String,
    /// The person's side: `S` or `N` (a watcher's: the side shown at the bottom).
    pub you: &'static str,
    /// Whether the person's clock runs (`false`: no clock for the person).
    pub timed: bool,
    /// Whether the other side is a person too (a game between friends): both clocks follow
    /// `timed`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub two_people: bool,
    /// The page watches the game: no seat, no moves, no resignation.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub watching: bool,
    /// The address to give a friend (shown in the element carrying `data-share-link`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub share_link: Option<String>,
    /// Where a new game (a rematch) is started when this one is over (a link shown at the end).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_game_href: Option<String>,
}

/// The page of a game between the person playing `you` (named `person`) and the bot `bot`,
/// from `start`.
#[must_use]
pub fn game_page(start: &Position, you: Side, person: &str, bot: &str, config: &PageConfig) -> String {
    let (south, north) = if you == Side::South { (person, bot) } else { (bot, person) };
    game_page_of(start, [south, north], &format!("{person} vs {bot}"), None, config)
}

/// The page of a game between `names` (South's, North's) titled `title`, with a link back
/// to `back_href`.
#[must_use]
pub fn game_page_of(
    start: &Position,
    names: [&str; 2],
    title: &str,
    back_href: Option<String>,
    config: &PageConfig,
) -> String {
    let data = ReplayData {
        variant: start.variant().to_string(),
        south_name: names[0].to_owned(),
        north_name: names[1].to_owned(),
        start: BoardJson::from_position(start),
        plies: Vec::new(),
        result: None,
        title: Some(title.to_owned()),
        back_href,
    };
    let page = bao_viewer::replay_html(&data);
    let added = format!(
        "<style>\n{PLAY_CSS}\n</style>\n<script type=\"application/json\" id=\"bao-play-config\">{}</script>\n<script>\n{PLAY_JS}\n</script>\n",
        script_json(config)
    );
    match page.rfind("</body>") {
        Some(at) => format!("{}{added}{}", &page[..at], &page[at..]),
        None => format!("{page}{added}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_is_the_viewer_page_with_the_play_script_after_the_viewer_script() {
        let start = Position::start(bao_rules::Variant::Kiswahili);
        let config = PageConfig {
            socket_path: "/game/x/ws".to_owned(),
            you: "N",
            timed: false,
            ..PageConfig::default()
        };
        let page = game_page(&start, Side::North, "</script>you", "sample-random", &config);
        assert!(page.contains("id=\"board\""), "the viewer's board");
        let viewer = page.find("window.baoReplay =").expect("the viewer's script");
        let play = page.find("id=\"bao-play-config\"").expect("the play config");
        assert!(viewer < play, "the play script runs after the viewer's");
        assert!(page.contains(r#"{"socket_path":"/game/x/ws","you":"N","timed":false}"#), "{page}");
        assert!(!page.contains("</script>you"), "names are escaped");
        assert!(!PLAY_JS.to_ascii_lowercase().contains("</script"));
        assert!(!PLAY_JS.contains("innerHTML"), "text goes in through textContent only");
    }
}
