//! [`PlyTimer`]: a game observer that times every ply cycle and keeps the moves.

use std::time::{Duration, Instant};

use bao_game::log::LogRecord;
use bao_game::runner::GameObserver;

/// The moves of one game, as the log records them: enough to replay its positions.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GameMoves {
    /// The start position in notation.
    pub start: String,
    /// Every move played, in order, in canonical notation.
    pub moves: Vec<String>,
}

/// Times the ply cycles of games as the runner writes their records.
///
/// A ply cycle runs from the previous record (the header for the first ply) to this ply's
/// record, as read on the monotonic clock when the record arrives: it holds the referee's
/// request (move generation, JSON), the pipe round trip, the bot's own work, the referee's
/// judging of the reply and the writing of the log record. The clock is read first thing,
/// before anything is stored.
#[derive(Debug, Default)]
pub struct PlyTimer {
    /// Every ply cycle seen, all games together.
    pub cycles: Vec<Duration>,
    /// The games seen, in order.
    pub games: Vec<GameMoves>,
    /// When each game's header arrived (both bots started and ready).
    pub headers: Vec<Instant>,
    /// Each game's ending: from its last ply record (or header) to its result record
    /// (game over, quit, both bots' exit, stderr records).
    pub endings: Vec<Duration>,
    last: Option<Instant>,
}

impl PlyTimer {
    /// Takes in one record that arrived at `now`.
    pub fn record_at(&mut self, record: &LogRecord, now: Instant) {
        match record {
            LogRecord::Header(header) => {
                self.last = Some(now);
                self.headers.push(now);
                self.games.push(GameMoves { start: header.start.clone(), moves: Vec::new() });
            }
            LogRecord::Ply(ply) => {
                if let Some(last) = self.last {
                    self.cycles.push(now.saturating_duration_since(last));
                }
                self.last = Some(now);
                if let Some(game) = self.games.last_mut() {
                    game.moves.push(ply.mv.clone());
                }
            }
            // The bots were started after the header: the first cycle starts when they are ready.
            LogRecord::Ready(_) => self.last = Some(now),
            LogRecord::Stderr(_) => {}
            LogRecord::Result(_) => {
                if let Some(last) = self.last.take() {
                    self.endings.push(now.saturating_duration_since(last));
                }
            }
        }
    }

    /// The number of plies seen in all games.
    #[must_use]
    pub fn plies(&self) -> usize {
        self.games.iter().map(|g| g.moves.len()).sum()
    }
}

impl GameObserver for PlyTimer {
    fn on_record(&mut self, record: &LogRecord) {
        let now = Instant::now();
        self.record_at(record, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bao_game::log::{BotRecord, Header, PlyRecord, ResultRecord};
    use bao_game::{Reason, TimeControl};
    use bao_supervise::ResourceLimits;

    fn header(start: &str) -> LogRecord {
        let bot = BotRecord { name: "b".into(), command: vec!["b".into()], dir: None, reported: None };
        LogRecord::Header(Header {
            log_version: bao_game::log::LOG_VERSION,
            rules_revision: Some(bao_rules::RULES_REVISION),
            referee: "bao-referee".into(),
            variant: "kiswahili".into(),
            start: start.into(),
            south: bot.clone(),
            north: bot,
            time_control: TimeControl::default(),
            time_controls: None,
            max_plies: Some(1000),
            seed: 0,
            limits: ResourceLimits::default(),
            started_at: String::new(),
            cpu: None,
            max_lag_credit_us: None,
        })
    }

    fn ply(n: u32, mv: &str) -> LogRecord {
        LogRecord::Ply(PlyRecord {
            ply: n,
            side: bao_rules::Side::South,
            mv: mv.into(),
            time_us: 0,
            cpu_us: None,
            clock_ms: [0, 0],
            position: String::new(),
            lag_excused_us: None,
            lag_credit_us: None,
            info: Vec::new(),
        })
    }

    fn result() -> LogRecord {
        LogRecord::Result(ResultRecord {
            result: "draw".into(),
            winner: None,
            reason: Reason::MaxPlies,
            detail: String::new(),
            plies: 2,
            duration_ms: 0,
            final_position: String::new(),
            offense: None,
            exits: [String::new(), String::new()],
        })
    }

    #[test]
    fn cycles_run_from_record_to_record_and_never_across_games() {
        let t0 = Instant::now();
        let at = |us: u64| t0 + Duration::from_micros(us);
        let mut timer = PlyTimer::default();
        timer.record_at(&header("start-1"), at(0));
        timer.record_at(&ply(1, "A1>"), at(100));
        timer.record_at(&ply(2, "B2<"), at(130));
        timer.record_at(&result(), at(5_000));
        // A second game: its first cycle starts at its own header, not at the last result.
        timer.record_at(&header("start-2"), at(9_000));
        timer.record_at(&ply(1, "C3>"), at(9_040));
        timer.record_at(&result(), at(9_050));
        // A ply without a header (not expected) is kept as a move but not timed.
        timer.record_at(&ply(2, "D4<"), at(9_060));

        assert_eq!(timer.cycles, [100, 30, 40].map(Duration::from_micros));
        assert_eq!(
            timer.games,
            [
                GameMoves { start: "start-1".into(), moves: vec!["A1>".into(), "B2<".into()] },
                GameMoves { start: "start-2".into(), moves: vec!["C3>".into(), "D4<".into()] },
            ]
        );
        assert_eq!(timer.plies(), 4);
        assert_eq!(timer.headers, [at(0), at(9_000)]);
        assert_eq!(timer.endings, [4_870, 10].map(Duration::from_micros));
    }
}
