//! The timing-fairness rule end to end: a move that is late only because the
//! referee's own event loop was stalled is excused, not forfeited; without
//! the lag monitor the same game is a timeout.

use std::time::Duration;

use bao_rules::Variant;
use tokio_util::sync::CancellationToken;

use crate::lag::LagMonitor;
use crate::log::{GameLog, LogRecord};
use crate::runner::GameObserver;
use crate::{GameConfig, Reason, TimeControl, play_game};
use bao_supervise::BotSpec;

/// A bot that answers its first request 300 ms late with `A6<` (legal from the start).
fn slow_bot() -> BotSpec {
    let script = r#"read l; echo '{"type":"ready","name":"slow"}'; read l; sleep 0.3; echo '{"type":"move","id":1,"move":"A6<"}'; read l; read l"#;
    BotSpec {
        name: None,
        program: "sh".to_owned(),
        args: vec!["-c".to_owned(), script.to_owned()],
        dir: None,
    }
}

/// Stalls the runtime's only thread for 1 s, 30 ms after the header is
/// written (just after the first request went out).
struct Staller;

impl GameObserver for Staller {
    fn on_record(&mut self, record: &LogRecord) {
        if matches!(record, LogRecord::Header(_)) {
            tokio::spawn(async {
                tokio::time::sleep(Duration::from_millis(30)).await;
                std::thread::sleep(Duration::from_millis(1000));
            });
        }
    }
}

fn config(lag: Option<LagMonitor>) -> GameConfig {
    let mut config = GameConfig::new(slow_bot(), slow_bot(), Variant::Kiswahili);
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

#[tokio::test(flavor = "current_thread")]
async fn a_move_late_only_by_the_referees_own_stall_is_excused() {
    let config = config(Some(LagMonitor::start()));
    let mut log = GameLog::discard();
    let result = play_game(&config, &mut log, &mut Staller, &CancellationToken::new()).await.unwrap();
    assert_eq!(result.reason, Reason::MaxPlies, "{}", result.detail);
    assert_eq!(result.plies, 1);
}

#[tokio::test(flavor = "current_thread")]
async fn without_the_lag_monitor_the_same_move_is_a_timeout() {
    let config = config(None);
    let mut log = GameLog::discard();
    let result = play_game(&config, &mut log, &mut Staller, &CancellationToken::new()).await.unwrap();
    assert_eq!(result.reason, Reason::Timeout, "{}", result.detail);
    assert_eq!(result.winner, Some(bao_rules::Side::North));
}
