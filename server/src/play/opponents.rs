//! Who a person may play at `/play`: the reference rungs built into the referee, a ladder bot
//! whose owner allows it, or a friend; and the rest of a game's choices (variant, side, clock)
//! as `/play/new` takes them.

use std::time::Duration;

use bao_rules::{Side, Variant};
use serde::Serialize;

use crate::play::settings::PlayConfig;

/// One rung of the reference ladder (docs/ladder.md), run as this executable's `sample-bot`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Rung {
    /// Its name at `/play` (`opponent=NAME`).
    pub name: &'static str,
    /// What people see.
    pub label: &'static str,
    /// Its Elo over random, measured in docs/ladder.md ("The ladder (measured)").
    pub elo: u32,
    /// The arguments of `sample-bot`.
    #[serde(skip)]
    pub args: &'static [&'static str],
}

/// The rungs, weakest first, with their Elo from docs/ladder.md's table.
pub const RUNGS: &[Rung] = &[
    Rung { name: "random", label: "random", elo: 0, args: &["random"] },
    Rung { name: "greedy", label: "greedy", elo: 295, args: &["greedy"] },
    Rung {
        name: "alphabeta-d1",
        label: "alphabeta, depth 1",
        elo: 931,
        args: &["alphabeta", "--depth", "1"],
    },
    Rung {
        name: "alphabeta-d2",
        label: "alphabeta, depth 2",
        elo: 1099,
        args: &["alphabeta", "--depth", "2"],
    },
    Rung {
        name: "alphabeta-d4",
        label: "alphabeta, depth 4",
        elo: 1346,
        args: &["alphabeta", "--depth", "4"],
    },
    Rung {
        name: "alphabeta-n3000",
        label: "alphabeta, 3000 nodes",
        elo: 1566,
        args: &["alphabeta", "--nodes", "3000"],
    },
    Rung { name: "alphabeta", label: "alphabeta, full strength", elo: 1752, args: &["alphabeta", "--time"] },
];

/// The opponent named in `/play/new?opponent=NAME`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpponentName {
    /// A reference rung.
    Rung(&'static str),
    /// A friend, who opens the shared link.
    Friend,
    /// A ladder bot, by name (`bot:NAME`, or a name that is no rung's).
    Bot(String),
}

impl OpponentName {
    /// Reads `opponent=`: a rung's name, `friend`, `bot:NAME` or a bot's name.
    #[must_use]
    pub fn parse(text: &str) -> OpponentName {
        if text == "friend" {
            return OpponentName::Friend;
        }
        if let Some(bot) = text.strip_prefix("bot:") {
            return OpponentName::Bot(bot.to_owned());
        }
        match RUNGS.iter().find(|r| r.name == text) {
            Some(rung) => OpponentName::Rung(rung.name),
            None => OpponentName::Bot(text.to_owned()),
        }
    }

    /// The name stored with the game (`friend`, the rung's, or `bot`).
    #[must_use]
    pub fn stored(&self) -> &str {
        match self {
            OpponentName::Rung(name) => name,
            OpponentName::Friend => "friend",
            OpponentName::Bot(_) => "bot",
        }
    }
}

/// The rung named `name`.
#[must_use]
pub fn rung(name: &str) -> Option<&'static Rung> {
    RUNGS.iter().find(|r| r.name == name)
}

/// The side a person asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SideChoice {
    /// South (moves first) or North.
    Side(Side),
    /// Drawn at random.
    Random,
}

impl SideChoice {
    /// The side, drawn now if random.
    #[must_use]
    pub fn draw(self) -> Side {
        match self {
            SideChoice::Side(side) => side,
            SideChoice::Random => {
                if rand::random::<bool>() {
                    Side::South
                } else {
                    Side::North
                }
            }
        }
    }
}

/// A game's choices, read from `/play/new`'s query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameChoices {
    /// The opponent.
    pub opponent: OpponentName,
    /// The side of the person who starts the game.
    pub side: SideChoice,
    /// The variant.
    pub variant: Variant,
    /// No clock, or a Fischer clock (base, increment) for both sides.
    pub clock: Option<(Duration, Duration)>,
}

/// A choice `/play/new` cannot take, naming it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadChoice(pub String);

/// The query of `/play/new`, as sent.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct NewGameQuery {
    /// `opponent=`.
    pub opponent: Option<String>,
    /// `side=S|N|random`.
    pub side: Option<String>,
    /// `variant=kiswahili|kujifunza`.
    pub variant: Option<String>,
    /// `tc=none` or `MINUTES+SECONDS` (`10+5`).
    pub tc: Option<String>,
}

impl GameChoices {
    /// The choices of `query` (defaults: random, South, kiswahili, no clock), checked against
    /// `config`.
    ///
    /// # Errors
    /// A [`BadChoice`] naming the field and what it accepts.
    pub fn from_query(query: &NewGameQuery, config: &PlayConfig) -> Result<GameChoices, BadChoice> {
        let opponent = OpponentName::parse(query.opponent.as_deref().unwrap_or("random"));
        let side = match query.side.as_deref().unwrap_or("S") {
            "S" | "s" | "south" => SideChoice::Side(Side::South),
            "N" | "n" | "north" => SideChoice::Side(Side::North),
            "random" => SideChoice::Random,
            other => {
                return Err(BadChoice(format!("side: {:?} is not S, N or random", clip(other))));
            }
        };
        let variant = match query.variant.as_deref().unwrap_or("kiswahili") {
            "kiswahili" => Variant::Kiswahili,
            "kujifunza" => Variant::Kujifunza,
            other => {
                return Err(BadChoice(format!("variant: {:?} is not kiswahili or kujifunza", clip(other))));
            }
        };
        let clock = parse_clock(query.tc.as_deref().unwrap_or("none"), config.max_clock_minutes)?;
        Ok(GameChoices { opponent, side, variant, clock })
    }
}

/// At most 40 characters of what a visitor sent, for an error message.
fn clip(text: &str) -> String {
    text.chars().take(40).collect()
}

/// `none`, or `MINUTES+SECONDS` (`10+5`: ten minutes, five seconds a move; minutes may have a
/// fraction, `0.5+2`; `10 5`, as an unencoded `+` in an address arrives, too), at most
/// `max_minutes` and a minute a move.
///
/// # Errors
/// A [`BadChoice`] saying what `tc` accepts.
pub fn parse_clock(text: &str, max_minutes: u64) -> Result<Option<(Duration, Duration)>, BadChoice> {
    if text == "none" || text.is_empty() {
        return Ok(None);
    }
    let bad = || {
        BadChoice(format!(
            "tc: {:?} is not none or MINUTES+SECONDS (10+5), with at most {max_minutes} minutes and 60 seconds",
            clip(text)
        ))
    };
    // A `+` typed in an address arrives as a space.
    let (base, increment) = text.split_once(['+', ' ']).ok_or_else(bad)?;
    let base: f64 = base.parse().map_err(|_| bad())?;
    let increment: f64 = increment.parse().map_err(|_| bad())?;
    #[expect(clippy::cast_precision_loss, reason = "a count of minutes far below 2^52")]
    let most = max_minutes as f64;
    if !(base.is_finite() && increment.is_finite())
        || base <= 0.0
        || base > most
        || !(0.0..=60.0).contains(&increment)
    {
        return Err(bad());
    }
    Ok(Some((Duration::from_secs_f64(base * 60.0), Duration::from_secs_f64(increment))))
}

/// A clock as people write it: `10+5`, or `none`.
#[must_use]
pub fn clock_text(clock: Option<(Duration, Duration)>) -> String {
    match clock {
        None => "none".to_owned(),
        Some((base, increment)) => {
            format!("{}+{}", trim(base.as_secs_f64() / 60.0), trim(increment.as_secs_f64()))
        }
    }
}

fn trim(x: f64) -> String {
    let text = format!("{x:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(pairs: &[(&str, &str)]) -> NewGameQuery {
        let get = |k: &str| pairs.iter().find(|(key, _)| *key == k).map(|(_, v)| (*v).to_owned());
        NewGameQuery { opponent: get("opponent"), side: get("side"), variant: get("variant"), tc: get("tc") }
    }

    #[test]
    fn a_query_gives_its_choices_and_defaults() {
        let config = PlayConfig::default();
        let c = GameChoices::from_query(&query(&[]), &config).expect("defaults");
        assert_eq!(c.opponent, OpponentName::Rung("random"));
        assert_eq!((c.side, c.variant, c.clock), (SideChoice::Side(Side::South), Variant::Kiswahili, None));
        let c = GameChoices::from_query(
            &query(&[("opponent", "friend"), ("side", "random"), ("variant", "kujifunza"), ("tc", "10+5")]),
            &config,
        )
        .expect("choices");
        assert_eq!(c.opponent, OpponentName::Friend);
        assert_eq!(c.side, SideChoice::Random);
        assert_eq!(c.variant, Variant::Kujifunza);
        assert_eq!(c.clock, Some((Duration::from_secs(600), Duration::from_secs(5))));
        assert_eq!(clock_text(c.clock), "10+5");
        assert_eq!(OpponentName::parse("bot:random"), OpponentName::Bot("random".into()));
        assert_eq!(OpponentName::parse("someone"), OpponentName::Bot("someone".into()));
    }

    #[test]
    fn bad_choices_are_named() {
        let config = PlayConfig::default();
        for (field, value) in [
            ("side", "east"),
            ("variant", "chess"),
            ("tc", "5"),
            ("tc", "0+5"),
            ("tc", "61+0"),
            ("tc", "5+61"),
            ("tc", "NaN+1"),
            ("tc", "-1+1"),
        ] {
            let e = GameChoices::from_query(&query(&[(field, value)]), &config).expect_err(value);
            assert!(e.0.starts_with(&format!("{field}: ")), "{e}");
        }
        assert_eq!(clock_text(parse_clock("0.5+2", 60).expect("a half minute")), "0.5+2");
        assert_eq!(parse_clock("10 5", 60), parse_clock("10+5", 60), "a + in an address is a space");
    }

    #[test]
    fn the_rungs_climb() {
        assert!(RUNGS.windows(2).all(|w| w[0].elo < w[1].elo));
        assert!(RUNGS.iter().all(|r| rung(r.name).is_some()));
    }
}
