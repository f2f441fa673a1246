//! A person plays Bao in the browser against a bot: the web page and its WebSocket around a
//! human seat of `bao-game`.
//!
//! The judge is `bao-game`'s, unchanged: the person sits in a [`bao_game::human`] seat and gets
//! the protocol's `move_request` (with the referee's `legal` list) like a bot; the page shows
//! that list and sends back one of its moves, which the judge checks, times and logs like a
//! bot's. The page is the viewer's replay page (`bao-viewer`), fed ply by ply through its live
//! API, with a play panel added ([`page`]).
//!
//! One WebSocket per page ([`socket`]): events carry a version, a client that reconnects says
//! the last version it has and gets exactly the events after it (or a resync when it claims
//! more than the server has); a move for a ply that is not the one asked, a second move for
//! the same ply, or a move not in the legal list is refused and changes nothing; a hostile
//! frame (too big, binary, not JSON, a flood) closes that socket only.
//!
//! [`start`] serves one game on a local address: what `bao-referee play` runs, with the game
//! the person chose ([`Choices`]).

pub mod events;
pub mod live;
mod observer;
pub mod page;
mod relay;
pub mod round_trip;
pub mod seats;
mod server;
pub mod socket;
pub mod table;

pub use events::{ClientFrame, Event, ServerFrame};
pub use live::{LiveGame, Refusal};
pub use seats::{BadName, Choices, MAX_LAG_CREDIT, bot_clock, open_browser, person_clock};
pub use server::{PlayError, PlayOptions, Running, start};
pub use table::Table;
