//! The timing-fairness rule end to end: a bot is charged from its request's write to its
//! reply's arrival, stamped by its reader thread, so a stall of the referee's own event loop
//! changes nothing: a prompt reply read late is charged its real time, and a late reply is a
//! timeout charged its real time, not the time the referee read it.

use std::time::Duration;

use bao_rules::{Side, Variant};
use tokio_util::sync::CancellationToken;

use crate::judge::LineDirection;
use crate::log::{GameLog, LogRecord, PlyRecord, ResultRecord};
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

/// Blocks the runtime's only thread for `length` as soon as the first move request is sent,
/// and keeps the ply and result records.
struct Staller {
    length: Duration,
    armed: bool,
    plies: Vec<PlyRecord>,
    result: Option<ResultRecord>,
}

impl Staller {
    fn new(length_ms: u64) -> Staller {
        Staller { length: Duration::from_millis(length_ms), armed: true, plies: Vec::new(), result: None }
    }
}

impl GameObserver for Staller {
    fn on_record(&mut self, record: &LogRecord) {
        match record {
            LogRecord::Ply(p) => self.plies.push(p.clone()),
            LogRecord::Result(r) => self.result = Some(r.clone()),
            _ => {}
        }
    }

    fn on_line(&mut self, _side: Side, direction: LineDirection, line: &str, _at: std::time::Instant) {
        if self.armed && direction == LineDirection::Sent && line.contains("move_request") {
            self.armed = false;
            let length = self.length;
            tokio::spawn(async move { std::thread::sleep(length) });
        }
    }
}

fn config(south: BotSpec) -> GameConfig {
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
    config
}

async fn play(config: &GameConfig, staller: &mut Staller) -> crate::GameResult {
    play_game(config, &mut GameLog::discard(), staller, &CancellationToken::new()).await.unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn a_prompt_reply_read_during_a_referee_stall_is_charged_its_real_time() {
    // The bot answers at once; the referee cannot read its line for 400 ms.
    let mut staller = Staller::new(400);
    let result = play(&config(bot("0")), &mut staller).await;
    assert_eq!(result.reason, Reason::MaxPlies, "{}", result.detail);
    let ply = &staller.plies[0];
    assert!(ply.time_us < 100_000, "charged to the arrival, not to the read: {ply:?}");
    assert_eq!(ply.lag_excused_us, None);
}

#[tokio::test(flavor = "current_thread")]
async fn a_late_reply_read_during_a_referee_stall_is_a_timeout_charged_its_real_time() {
    // The bot answers 150 ms after the request (50 ms late); the referee is stalled until 400 ms.
    let mut staller = Staller::new(400);
    let result = play(&config(bot("0.15")), &mut staller).await;
    assert_eq!(result.reason, Reason::Timeout, "{}", result.detail);
    assert_eq!(result.winner, Some(Side::North));
    let offense = staller.result.and_then(|r| r.offense).expect("a timeout names its offense");
    let used = offense.time_us.expect("a timeout records the time taken");
    assert!((100_000..400_000).contains(&used), "charged to the arrival: {used} µs");
}
