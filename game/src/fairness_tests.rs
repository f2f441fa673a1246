//! The timing-fairness rule end to end: a bot is charged up to its reply's arrival; a move
//! that is late only because the referee's own event loop was stalled when the reply arrived
//! is excused (within the caps), and logged; a reply that was late by the bot's own clock is
//! a timeout, whatever the referee did earlier in the move.

use std::time::Duration;

use bao_rules::{Side, Variant};
use tokio_util::sync::CancellationToken;

use crate::judge::LineDirection;
use crate::lag::LagMonitor;
use crate::log::{GameLog, LogRecord};
use crate::runner::GameObserver;
use crate::{GameConfig, Reason, TimeControl, play_game};
use bao_supervise::BotSpec;

/// A bot that answers its first request after `delay` seconds with `A6<` (legal from the start).
fn bot(delay: &str) -> BotSpec {
    let script = format!(
        r#"read l; echo '{{"type":"ready","name":"b"}}'; read l; sleep {delay}; echo '{{"type":"move","id":1,"move":"A6<"}}'; read l; read l"#
    );
    BotSpec { name: None, program: "sh".to_owned(), args: vec!["-c".to_owned(), script], dir: None }
}

/// Stalls the runtime's only thread for `length`, `after` the first move request was sent,
/// and keeps the ply records.
struct Staller {
    after: Duration,
    length: Duration,
    armed: bool,
    plies: Vec<crate::log::PlyRecord>,
}

impl Staller {
    fn new(after_ms: u64, length_ms: u64) -> Staller {
        Staller {
            after: Duration::from_millis(after_ms),
            length: Duration::from_millis(length_ms),
            armed: true,
            plies: Vec::new(),
        }
    }
}

impl GameObserver for Staller {
    fn on_record(&mut self, record: &LogRecord) {
        if let LogRecord::Ply(p) = record {
            self.plies.push(p.clone());
        }
    }

    fn on_line(&mut self, _side: Side, direction: LineDirection, line: &str, _at: std::time::Instant) {
        if self.armed && direction == LineDirection::Sent && line.contains("move_request") {
            self.armed = false;
            let (after, length) = (self.after, self.length);
            tokio::spawn(async move {
                if !after.is_zero() {
                    tokio::time::sleep(after).await;
                }
                std::thread::sleep(length);
            });
        }
    }
}

fn config(south: BotSpec, lag: Option<LagMonitor>) -> GameConfig {
    let mut config = GameConfig::new(south, bot("0"), Variant::Kiswahili);
    config.time = TimeControl {
        base: None,
        increment: Duration::ZERO,
        move_time: Some(Duration::from_millis(100)),
        startup: Duration::from_secs(5),
        margin: Duration::ZERO,
    };
    config.max_plies = Some(1);
    config.quit_grace = Duration::from_millis(200);
    config.lag = lag;
    config
}

async fn play(config: &GameConfig, staller: &mut Staller) -> crate::GameResult {
    play_game(config, &mut GameLog::discard(), staller, &CancellationToken::new()).await.unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn a_prompt_reply_read_late_because_the_referee_stalled_is_excused_and_logged() {
    let config = config(bot("0"), Some(LagMonitor::start()));
    // The bot answers at once; the referee cannot read it for 200 ms.
    let mut staller = Staller::new(0, 200);
    let result = play(&config, &mut staller).await;
    assert_eq!(result.reason, Reason::MaxPlies, "{}", result.detail);
    let ply = &staller.plies[0];
    let excused = ply.lag_excused_us.expect("the excuse is logged");
    assert_eq!(excused, ply.time_us - 100_000, "exactly the overrun is excused: {ply:?}");
}

#[tokio::test(flavor = "current_thread")]
async fn without_the_lag_monitor_the_same_move_is_a_timeout() {
    let config = config(bot("0"), None);
    let result = play(&config, &mut Staller::new(0, 200)).await;
    assert_eq!(result.reason, Reason::Timeout, "{}", result.detail);
    assert_eq!(result.winner, Some(Side::North));
}

#[tokio::test(flavor = "current_thread")]
async fn a_reply_late_by_the_bots_own_clock_is_not_excused_by_an_earlier_stall() {
    // The referee stalls for 200 ms early in the move; the bot answers 300 ms after the
    // request, 200 ms late, after the stall is over.
    let config = config(bot("0.3"), Some(LagMonitor::start()));
    let mut staller = Staller::new(10, 200);
    let result = play(&config, &mut staller).await;
    assert_eq!(result.reason, Reason::Timeout, "{}", result.detail);
    assert!(staller.plies.is_empty());
}

#[tokio::test(flavor = "current_thread")]
async fn a_stall_longer_than_the_cap_is_not_excused() {
    // The bot answers at once; the referee cannot read it for 600 ms (more than 250 ms
    // per move can be excused).
    let config = config(bot("0"), Some(LagMonitor::start()));
    let result = play(&config, &mut Staller::new(0, 600)).await;
    assert_eq!(result.reason, Reason::Timeout, "{}", result.detail);
}
