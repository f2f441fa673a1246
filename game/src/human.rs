//! A person's seat: a player like a bot, reached through two channels instead of a process.
//!
//! The judge talks to a human seat exactly as to a bot: it writes the protocol's lines
//! (`hello`, `move_request` with its `legal` list, `game_over`, `quit`) and reads the
//! protocol's answers (`ready`, `move` with the request's id), with the same deadlines, the
//! same clock and the same legality check ([`crate::judge`]). Whatever carries the lines to
//! the person (a web page, see the `bao-play` crate) only relays them: it never decides a
//! move's legality.
//!
//! One difference, lag compensation: a person's move comes with the round trip measured to
//! their page ([`HumanInput::Line`]'s `lag`), and the judge credits it to the move, up to the
//! seat's [`HumanSeat::max_lag_credit`] (the header's `max_lag_credit_us`, the ply's
//! `lag_credit_us`; docs/play.md). A bot's seat has no such input: bots never get lag credit.

use std::time::{Duration, Instant};

use bao_supervise::BotFault;
use tokio::sync::mpsc;

/// What the person sends to the judge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HumanInput {
    /// A protocol line (`ready`, `move`), with the moment it arrived from the person: the
    /// person's time runs to this moment, as a bot's runs to its line's arrival.
    Line {
        /// The line, without its `'\n'`.
        text: String,
        /// When it arrived.
        at: Instant,
        /// The round trip last measured to the person's page over the connection the line
        /// came through (zero: none measured). The judge credits it to the person's move, up to
        /// the seat's [`HumanSeat::max_lag_credit`]: see [`crate::judge::charge_with_credit`].
        lag: Duration,
    },
    /// The person resigns: the seat ends, and the game is lost as a bot's that left.
    Resign,
}

/// The sentence of a resignation, in the fault and so in the game log's `detail`.
pub const RESIGNED: &str = "the person resigned";

/// The judge's end of a human seat.
#[derive(Debug)]
pub struct HumanSeat {
    /// The person's name, as the log's header records the seat.
    pub name: String,
    /// Lines from the judge to the person.
    pub to_person: mpsc::UnboundedSender<String>,
    /// Lines (and a resignation) from the person to the judge.
    pub from_person: mpsc::UnboundedReceiver<HumanInput>,
    /// The most of the measured lag credited to one of the person's moves (lag compensation;
    /// zero, as [`human_seat`] makes it: none). The log's header records it
    /// (`max_lag_credit_us`); bots never get any.
    pub max_lag_credit: Duration,
    /// The lag that came with the last line read.
    last_lag: Duration,
}

/// The other end of a human seat: what relays it to the person holds these.
#[derive(Debug)]
pub struct HumanRelay {
    /// Lines the judge wrote to the person.
    pub from_judge: mpsc::UnboundedReceiver<String>,
    /// Where the person's lines go.
    pub to_judge: mpsc::UnboundedSender<HumanInput>,
}

/// A human seat named `name` and the relay that serves it.
#[must_use]
pub fn human_seat(name: &str) -> (HumanSeat, HumanRelay) {
    let (to_person, from_judge) = mpsc::unbounded_channel();
    let (to_judge, from_person) = mpsc::unbounded_channel();
    let seat = HumanSeat {
        name: name.to_owned(),
        to_person,
        from_person,
        max_lag_credit: Duration::ZERO,
        last_lag: Duration::ZERO,
    };
    (seat, HumanRelay { from_judge, to_judge })
}

impl HumanSeat {
    /// Writes one line to the person. A relay that has gone is the person leaving.
    pub(crate) fn send_line(&self, line: &str) -> Result<(), BotFault> {
        self.to_person
            .send(line.to_owned())
            .map_err(|_| BotFault::Io("the person's page has gone".to_owned()))
    }

    /// The lag measured when the last line read was sent (see [`HumanInput::Line`]).
    pub(crate) fn last_lag(&self) -> Duration {
        self.last_lag
    }

    /// The person's next line and its arrival, before `deadline`.
    pub(crate) async fn recv_line_timed(
        &mut self,
        deadline: tokio::time::Instant,
    ) -> Result<(String, Instant), BotFault> {
        tokio::select! {
            biased;
            input = self.from_person.recv() => match input {
                Some(HumanInput::Line { text, at, lag }) => {
                    self.last_lag = lag;
                    Ok((text, at))
                }
                Some(HumanInput::Resign) => Err(BotFault::Io(RESIGNED.to_owned())),
                None => Err(BotFault::Io("the person's page has gone".to_owned())),
            },
            () = tokio::time::sleep_until(deadline) => Err(BotFault::Timeout),
        }
    }
}
