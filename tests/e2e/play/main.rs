//! End-to-end tests of `bao-referee play`: the game's WebSocket driven by a Rust client, and a
//! person playing a whole game in headless Chromium.

mod browser;
mod server;
mod socket;
