//! The server's domain types: ids, names and the small enums of states,
//! purposes, results and models, each converted to and from its database text
//! in one place (`ToSql`/`FromSql`, [`stored_text`]), so that a row with an
//! unknown text is refused with an error naming it, and a state change that
//! the lifecycle does not allow cannot be written ([`VersionChange`],
//! [`GameChange`]).
//!
//! The texts stored in the database and shown by the JSON API are the
//! variants' names in lower case (`"queued"`, `"running"`, `"south"`, …),
//! as they were when these were plain strings.

#[macro_use]
mod stored_text;

mod game_change;
mod game_result;
mod game_state;
mod ids;
mod names;
mod purpose;
mod rating_model;
mod sprt_verdict;
mod version_change;
mod version_state;

pub use game_change::GameChange;
pub use game_result::GameResult;
pub use game_state::GameState;
pub use ids::{BotId, GameId, UserId, VersionId};
pub use names::{BotName, InvalidName, UserName};
pub use purpose::Purpose;
pub use rating_model::RatingModel;
pub use sprt_verdict::SprtVerdict;
pub use stored_text::UnknownText;
pub use version_change::{ImpossibleTransition, VersionChange};
pub use version_state::VersionState;
