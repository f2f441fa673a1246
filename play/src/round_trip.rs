//! The round trip to a page, measured on its WebSocket with the protocol's own Ping and Pong
//! frames (a browser answers a Ping by itself, with the same payload, whatever its script is
//! doing): the lag that lag compensation credits to the person's moves (`bao_game::judge::
//! charge_with_credit`).
//!
//! The socket sends a Ping every [`PING_EVERY`], stamped just before it is written; the Pong
//! that carries its payload is stamped as the socket reads it, both on the monotonic clock. A
//! Pong that answers no Ping in flight (forged, or for a Ping already given up) is ignored: a
//! page can make its round trip look longer by answering late, never shorter than it is, and
//! the judge credits at most the seat's cap a move.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How often the socket pings its page.
pub const PING_EVERY: Duration = Duration::from_secs(1);

/// Pings awaiting their Pong at most; past it the oldest is given up.
pub const MAX_PINGS_IN_FLIGHT: usize = 8;

/// The round trip of one socket: its Pings in flight and the smoothed estimate.
#[derive(Debug, Default)]
pub struct RoundTrip {
    next: u64,
    in_flight: VecDeque<(u64, Instant)>,
    smoothed: Option<Duration>,
}

impl RoundTrip {
    /// No Ping sent yet, no estimate.
    #[must_use]
    pub fn new() -> RoundTrip {
        RoundTrip::default()
    }

    /// A new Ping sent at `at`: its payload.
    pub fn ping(&mut self, at: Instant) -> [u8; 8] {
        let id = self.next;
        self.next += 1;
        if self.in_flight.len() == MAX_PINGS_IN_FLIGHT {
            self.in_flight.pop_front();
        }
        self.in_flight.push_back((id, at));
        id.to_be_bytes()
    }

    /// A Pong read at `at` with `payload`: the round trip it measured, if it answers a Ping in
    /// flight (the Pings before it, which a page answers in order, are given up).
    pub fn pong(&mut self, payload: &[u8], at: Instant) -> Option<Duration> {
        let id = u64::from_be_bytes(payload.try_into().ok()?);
        let index = self.in_flight.iter().position(|&(sent_id, _)| sent_id == id)?;
        let (_, sent) = self.in_flight.drain(..=index).next_back()?;
        let sample = at.saturating_duration_since(sent);
        // Smoothed as TCP smooths its round trip (RFC 6298): a quarter of each new sample.
        self.smoothed = Some(match self.smoothed {
            None => sample,
            Some(old) => (old * 3 + sample) / 4,
        });
        Some(sample)
    }

    /// The round trip now (zero before the first Pong).
    #[must_use]
    pub fn estimate(&self) -> Duration {
        self.smoothed.unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn a_pong_measures_its_ping_and_the_estimate_follows_the_samples() {
        let t0 = Instant::now();
        let mut rtt = RoundTrip::new();
        assert_eq!(rtt.estimate(), Duration::ZERO);
        let first = rtt.ping(t0);
        let second = rtt.ping(t0 + MS * 1000);
        assert_eq!(rtt.pong(&first, t0 + MS * 200), Some(MS * 200));
        assert_eq!(rtt.estimate(), MS * 200);
        assert_eq!(rtt.pong(&second, t0 + MS * 1600), Some(MS * 600));
        assert_eq!(rtt.estimate(), MS * 300, "a quarter of the new sample");
    }

    #[test]
    fn pongs_that_answer_no_ping_in_flight_change_nothing() {
        let t0 = Instant::now();
        let mut rtt = RoundTrip::new();
        let first = rtt.ping(t0);
        let second = rtt.ping(t0 + MS * 10);
        // Forged: a payload never sent, a payload of the wrong size.
        assert_eq!(rtt.pong(&99_u64.to_be_bytes(), t0 + MS * 20), None);
        assert_eq!(rtt.pong(b"abc", t0 + MS * 20), None);
        // The second's pong gives up the first; the first's, late, is then ignored.
        assert_eq!(rtt.pong(&second, t0 + MS * 60), Some(MS * 50));
        assert_eq!(rtt.pong(&first, t0 + MS * 70), None);
        assert_eq!(rtt.pong(&second, t0 + MS * 80), None, "answered once only");
        assert_eq!(rtt.estimate(), MS * 50);
    }

    #[test]
    fn at_most_so_many_pings_wait_for_their_pong() {
        let t0 = Instant::now();
        let mut rtt = RoundTrip::new();
        let oldest = rtt.ping(t0);
        for _ in 0..MAX_PINGS_IN_FLIGHT {
            let _ = rtt.ping(t0);
        }
        assert_eq!(rtt.in_flight.len(), MAX_PINGS_IN_FLIGHT);
        assert_eq!(rtt.pong(&oldest, t0 + MS), None, "given up");
    }
}
