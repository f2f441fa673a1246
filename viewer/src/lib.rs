//! Seeing a game of Bao: the board as text for a terminal, a self-contained HTML replay of a
//! game, and a tournament index page linking to the replays.
//!
//! The input is plain data ([`ReplayData`], [`IndexData`]), serialisable, documented in
//! docs/viewer.md; [`BoardJson::from_position`] and [`PlyData::from_positions`] build it from
//! `bao-rules` positions. Nothing here does I/O: every function returns a `String`. It must
//! not know how a game is played or where a page is written.
//!
//! ```
//! use bao_rules::{Position, Variant};
//! use bao_viewer::{BoardJson, TerminalStyle, render_board};
//! let board = BoardJson::from_position(&Position::start(Variant::Kiswahili));
//! let text = render_board(&board, "greedy", "random", TerminalStyle::PLAIN);
//! assert!(text.contains("[  6]"));
//! ```

mod from_log;
mod from_rules;
mod html_text;
mod index_data;
mod index_html;
mod position_text;
mod replay_data;
mod replay_html;
mod result_words;
mod terminal;

pub use from_log::{FromLogError, ply_data, replay_from_log, result_data};
pub use from_rules::{absolute_pit_name, record_form};
pub use html_text::{escape_html, relative_href, script_json, script_text};
pub use index_data::{
    CrossCell, CrossTable, EloInterval, GameRow, IndexData, SprtState, StandingRow, signed,
};
pub use index_html::tournament_index_html;
pub use position_text::render_position;
pub use replay_data::{
    BoardJson, InfoData, PlyData, ROW_LETTERS, ReplayData, ResultData, SideCode, StageCode, Step,
    parse_pit_name, pit_name,
};
pub use replay_html::{REPLAY_ASSETS, replay_html, replay_html_of_log, replay_html_with_json};
pub use result_words::result_in_words;
pub use terminal::{
    TerminalStyle, format_clock_ms, format_info, format_micros, render_board, render_game, render_ply,
    render_ply_header, render_result,
};
