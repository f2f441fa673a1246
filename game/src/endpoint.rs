//! What the judge talks to: a bot's process or a person's seat, through the same lines.

use std::future::Future;
use std::time::Instant;

use bao_supervise::{BotFault, BotProcess};

use crate::human::HumanSeat;

/// One end of the protocol's lines: the judge ([`crate::judge`]) writes requests to it and
/// reads answers from it, whoever answers.
pub trait LineEndpoint {
    /// Writes one line (without its `'\n'`) before `deadline`.
    fn send_line(
        &mut self,
        line: &str,
        deadline: tokio::time::Instant,
    ) -> impl Future<Output = Result<(), BotFault>> + Send;

    /// The next line and the moment it arrived, before `deadline`.
    fn recv_line_timed(
        &mut self,
        deadline: tokio::time::Instant,
    ) -> impl Future<Output = Result<(String, Instant), BotFault>> + Send;
}

impl LineEndpoint for BotProcess {
    fn send_line(
        &mut self,
        line: &str,
        deadline: tokio::time::Instant,
    ) -> impl Future<Output = Result<(), BotFault>> + Send {
        BotProcess::send_line(self, line, deadline)
    }

    fn recv_line_timed(
        &mut self,
        deadline: tokio::time::Instant,
    ) -> impl Future<Output = Result<(String, Instant), BotFault>> + Send {
        BotProcess::recv_line_timed(self, deadline)
    }
}

/// A seat's player: a supervised process, or a person.
#[derive(Debug)]
pub enum SeatEndpoint {
    /// A bot program (boxed: a process's state is much larger than a person's channels).
    Bot(Box<BotProcess>),
    /// A person (see [`crate::human`]).
    Human(HumanSeat),
}

impl LineEndpoint for SeatEndpoint {
    async fn send_line(&mut self, line: &str, deadline: tokio::time::Instant) -> Result<(), BotFault> {
        match self {
            SeatEndpoint::Bot(process) => process.send_line(line, deadline).await,
            SeatEndpoint::Human(seat) => seat.send_line(line),
        }
    }

    async fn recv_line_timed(
        &mut self,
        deadline: tokio::time::Instant,
    ) -> Result<(String, Instant), BotFault> {
        match self {
            SeatEndpoint::Bot(process) => process.recv_line_timed(deadline).await,
            SeatEndpoint::Human(seat) => seat.recv_line_timed(deadline).await,
        }
    }
}

impl SeatEndpoint {
    /// The lag measured to the player when its last line was sent: a person's page's round
    /// trip; always zero for a bot (bots get no lag credit).
    pub(crate) fn measured_lag(&self) -> std::time::Duration {
        match self {
            SeatEndpoint::Bot(_) => std::time::Duration::ZERO,
            SeatEndpoint::Human(seat) => seat.last_lag(),
        }
    }

    /// The bot's process, if this seat runs one.
    pub(crate) fn process(&self) -> Option<&BotProcess> {
        match self {
            SeatEndpoint::Bot(process) => Some(process),
            SeatEndpoint::Human(_) => None,
        }
    }

    /// The bot's process, if this seat runs one.
    pub(crate) fn process_mut(&mut self) -> Option<&mut BotProcess> {
        match self {
            SeatEndpoint::Bot(process) => Some(process),
            SeatEndpoint::Human(_) => None,
        }
    }
}
