//! The `[play]` section of `arena.toml`: how many games people may play at once, how often
//! they may start one, and when a game left alone ends (docs/server.md, "People playing").

use std::time::Duration;

use serde::Deserialize;

/// The limits of `/play`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PlayConfig {
    /// Whether `/play` is offered at all.
    pub enabled: bool,
    /// Games with people in them running at once, in all.
    pub max_human_games: usize,
    /// Games running at once started from one client address (IPv4 address or IPv6 /64).
    pub max_human_games_per_address: usize,
    /// Games one client address may start per minute.
    pub starts_per_minute: u32,
    /// An unclocked game whose person has not moved for this many seconds is abandoned
    /// (recorded, not counted); a game between friends whose friend has not come, dropped.
    pub abandon_after_secs: u64,
    /// The longest base time a clock may have, in minutes.
    pub max_clock_minutes: u64,
    /// A game still running after this many plies is a draw.
    pub human_max_plies: u32,
}

impl Default for PlayConfig {
    fn default() -> PlayConfig {
        PlayConfig {
            enabled: true,
            max_human_games: 20,
            max_human_games_per_address: 3,
            starts_per_minute: 10,
            abandon_after_secs: 900,
            max_clock_minutes: 60,
            human_max_plies: 800,
        }
    }
}

impl PlayConfig {
    /// How long an unclocked game may wait for its person.
    #[must_use]
    pub fn abandon_after(&self) -> Duration {
        Duration::from_secs(self.abandon_after_secs)
    }
}
