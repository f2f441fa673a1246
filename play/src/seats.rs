//! The game a person asked for: the seats, the clocks and the seed, from the choices of
//! `bao-referee play` (what the person picked, not how the command line spelled it).

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use bao_game::{GameConfig, TimeControl};
use bao_rules::{Side, Variant};
use bao_supervise::BotSpec;

use crate::server::PlayOptions;

/// The time a person gets for one move when the game has no clock: a day.
pub const UNTIMED_MOVE: Duration = Duration::from_secs(24 * 60 * 60);

/// The tolerance added to a person's deadlines: the server's own handling of the move (the
/// socket, the relay, the judge's thread) and the round trip's jitter around its measured
/// estimate. The round trip itself is credited to each move (lag compensation, up to
/// [`MAX_LAG_CREDIT`]); before lag compensation this margin was 1 s and covered it.
pub const PERSON_MARGIN: Duration = Duration::from_millis(250);

/// Lag compensation: the most of the round trip measured to a person's page that is credited
/// to one of their moves (the judge charges the move's time less the credit). The log's
/// header records it (`max_lag_credit_us`); bots never get any.
pub const MAX_LAG_CREDIT: Duration = Duration::from_secs(1);

/// The longest name a person may give their seat, in characters.
pub const MAX_NAME_CHARS: usize = 64;

/// What the person chose.
#[derive(Debug, Clone)]
pub struct Choices {
    /// The opponent.
    pub bot: BotSpec,
    /// The variant.
    pub variant: Variant,
    /// The person's side; `None`: drawn at random.
    pub side: Option<Side>,
    /// No clock for the person (`None`), or a Fischer clock (base, increment) for both sides.
    pub clock: Option<(Duration, Duration)>,
    /// The person's name, as the log records the seat.
    pub name: String,
    /// Adjudicate a draw after this many plies (0: never).
    pub max_plies: u32,
    /// The game's seed.
    pub seed: u64,
    /// Where the game log goes.
    pub log: PathBuf,
    /// The port on 127.0.0.1 (0: any free port).
    pub port: u16,
}

/// A bot's clock in a game with a person: the Fischer clock (base, increment) both sides
/// have, or the referee's default when the person has no clock.
#[must_use]
pub fn bot_clock(clock: Option<(Duration, Duration)>) -> TimeControl {
    match clock {
        Some((base, increment)) => TimeControl { base: Some(base), increment, ..TimeControl::default() },
        None => TimeControl::default(),
    }
}

/// A person's clock: the same Fischer clock as the bot's, or [`UNTIMED_MOVE`] a move with no
/// clock; each with [`PERSON_MARGIN`].
#[must_use]
pub fn person_clock(clock: Option<(Duration, Duration)>) -> TimeControl {
    match clock {
        Some(_) => TimeControl { margin: PERSON_MARGIN, ..bot_clock(clock) },
        None => TimeControl {
            base: None,
            increment: Duration::ZERO,
            move_time: Some(UNTIMED_MOVE),
            margin: PERSON_MARGIN,
            ..TimeControl::default()
        },
    }
}

/// A name the log cannot record as a seat's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("give a name of 1 to {MAX_NAME_CHARS} characters with no control characters")]
pub struct BadName;

impl Choices {
    /// The options of [`crate::start`]: the person's seat (never run: a [`bao_game::human`]
    /// seat), the bot's seat, the bot's clock (the referee's default with no clock), and the
    /// person's (the same Fischer clock, or a day a move with no clock; each with
    /// [`PERSON_MARGIN`]).
    ///
    /// # Errors
    /// [`BadName`] for an empty name, a control character or more than [`MAX_NAME_CHARS`].
    pub fn into_options(self) -> Result<PlayOptions, BadName> {
        if self.name.trim().is_empty()
            || self.name.chars().any(char::is_control)
            || self.name.chars().count() > MAX_NAME_CHARS
        {
            return Err(BadName);
        }
        let you = self.side.unwrap_or_else(|| if rand::random::<bool>() { Side::South } else { Side::North });
        let person = BotSpec {
            name: Some(self.name.clone()),
            program: bao_game::runner::HUMAN_COMMAND.to_owned(),
            args: Vec::new(),
            dir: None,
        };
        let (south, north) = if you == Side::South { (person, self.bot) } else { (self.bot, person) };
        let mut config = GameConfig::new(south, north, self.variant);
        config.seed = self.seed;
        config.max_plies = (self.max_plies > 0).then_some(self.max_plies);
        config.time = bot_clock(self.clock);
        config.side_time[you.index()] = Some(person_clock(self.clock));
        Ok(PlayOptions {
            config,
            you,
            person: self.name,
            timed: self.clock.is_some(),
            log: self.log,
            listen: SocketAddr::from((Ipv4Addr::LOCALHOST, self.port)),
        })
    }
}

/// Opens `url` with `xdg-open` when there is a graphical session (`DISPLAY` or
/// `WAYLAND_DISPLAY` set); `Err` says why it could not, `Ok(false)` that there is none.
///
/// # Errors
/// When `xdg-open` cannot be started.
pub fn open_browser(url: &str) -> std::io::Result<bool> {
    let graphical =
        ["DISPLAY", "WAYLAND_DISPLAY"].iter().any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
    if !graphical {
        return Ok(false);
    }
    std::process::Command::new("xdg-open")
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|_| true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choices(name: &str, side: Option<Side>, clock: Option<(Duration, Duration)>) -> Choices {
        Choices {
            bot: BotSpec { name: None, program: "bot".into(), args: Vec::new(), dir: None },
            variant: Variant::Kiswahili,
            side,
            clock,
            name: name.to_owned(),
            max_plies: 0,
            seed: 7,
            log: PathBuf::from("play.jsonl"),
            port: 0,
        }
    }

    #[test]
    fn the_person_gets_a_day_a_move_without_a_clock_and_the_bot_the_default() {
        let options = choices("ann", Some(Side::North), None).into_options().expect("options");
        assert_eq!(options.you, Side::North);
        assert_eq!(options.config.north.program, bao_game::runner::HUMAN_COMMAND);
        assert_eq!(options.config.south.program, "bot");
        let person = options.config.side_time[Side::North.index()].expect("the person's clock");
        assert_eq!((person.move_time, person.margin), (Some(UNTIMED_MOVE), PERSON_MARGIN));
        assert_eq!(options.config.time, TimeControl::default());
        assert!(!options.timed);
        assert_eq!(options.config.max_plies, None);
    }

    #[test]
    fn a_clock_is_the_same_for_both_but_the_person_s_margin() {
        let clock = (Duration::from_secs(300), Duration::from_secs(5));
        let options = choices("ann", Some(Side::South), Some(clock)).into_options().expect("options");
        let person = options.config.side_time[Side::South.index()].expect("the person's clock");
        assert_eq!((person.base, person.increment), (Some(clock.0), clock.1));
        assert_eq!((options.config.time.base, options.config.time.increment), (Some(clock.0), clock.1));
        assert_eq!(person.margin, PERSON_MARGIN);
        assert!(options.timed);
    }

    #[test]
    fn names_the_log_cannot_hold_are_refused() {
        for bad in ["", "  ", "a\u{7}b", &"x".repeat(MAX_NAME_CHARS + 1)] {
            assert_eq!(choices(bad, None, None).into_options().err(), Some(BadName), "{bad:?}");
        }
        assert!(choices(&"x".repeat(MAX_NAME_CHARS), None, None).into_options().is_ok());
    }
}
