//! The referee's own CPU work per ply, without processes: the positions of the benchmark's
//! games replayed in-process, each step of a ply timed on its own.

use std::hint::black_box;
use std::time::{Duration, Instant};

use anyhow::Context;
use bao_protocol::{BotMessage, MoveReply, RefereeMessage};
use bao_rules::{Move, MoveText, Position, Side};
use serde::Serialize;

use super::ply_timer::GameMoves;
use super::stats::Summary;
use bao_game::TimeControl;
use bao_game::log::{LogRecord, PlyRecord};
use bao_game::wire;

/// One move request of a game: the position the bot was asked about and what it played.
#[derive(Debug, Clone)]
pub struct RequestCase {
    /// The position before the move.
    pub position: Position,
    /// Plies played before it.
    pub ply: u32,
    /// The opponent's last move.
    pub last_move: Option<String>,
    /// The move the bot played.
    pub played: String,
}

/// Replays the recorded games into the requests the referee made.
///
/// # Errors
/// A start position or move that does not parse or is illegal (names the game and ply).
pub fn replay(games: &[GameMoves]) -> anyhow::Result<Vec<RequestCase>> {
    let mut cases = Vec::new();
    for (index, game) in games.iter().enumerate() {
        let mut position: Position = game
            .start
            .parse()
            .with_context(|| format!("game {index}: bad start position {:?}", game.start))?;
        let mut last_move: Option<String> = None;
        for (ply, text) in (0u32..).zip(&game.moves) {
            let what = || format!("game {index}, ply {}: move {text:?}", ply + 1);
            let parsed: MoveText = text.parse().with_context(what)?;
            let mv = parsed.to_move(&position).with_context(what)?;
            let (next, _) = position.play(mv).with_context(what)?;
            cases.push(RequestCase { position, ply, last_move: last_move.clone(), played: text.clone() });
            position = next;
            last_move = Some(text.clone());
        }
    }
    Ok(cases)
}

/// The move request line the referee sends for a case (clocks as in a fresh game).
#[must_use]
pub fn request_line(case: &RequestCase, tc: &TimeControl) -> String {
    let left = tc.base.or(tc.move_time).unwrap_or_default();
    let legal = case.position.legal_moves().iter().map(ToString::to_string).collect();
    wire::move_request_line(
        u64::from(case.ply / 2 + 1),
        case.ply,
        &case.position,
        legal,
        case.last_move.as_deref(),
        left,
        left,
        tc,
    )
}

/// Time per ply of each step, over every case and repetition, in µs.
#[derive(Debug, Clone, Serialize)]
pub struct CpuWork {
    /// Requests replayed (plies).
    pub cases: usize,
    /// Times each case was timed.
    pub repetitions: u32,
    /// The rules: the endings, every legal move with the position it leads to.
    pub legal_moves: Summary,
    /// Building the move request line into a reused buffer, as the game loop does
    /// ([`wire::MoveRequestLine::write`]).
    pub request_json: Summary,
    /// Judging the reply: parsing the JSON line, parsing the move, finding it among the
    /// legal moves.
    pub judge_reply: Summary,
    /// Building the ply's log record (the position in notation); done with any log.
    pub record_build: Summary,
    /// Serialising the ply record to a JSON line; only with a real log file.
    pub record_json: Summary,
    /// `legal_moves + request_json + judge_reply + record_build`, per sample: the referee's
    /// work per ply with a discarded log.
    pub referee_per_ply: Summary,
    /// `referee_per_ply + record_json`: with a log file (the write itself not included).
    pub referee_per_ply_logged: Summary,
    /// The sample bot's side, for comparison: parsing the request, answering.
    pub bot_per_ply: Summary,
    /// For comparison, not in the totals: building the same request the way it was built
    /// before issue 10 (`serde` from a `MoveRequest` with a vector of move strings, a new
    /// line each ply), against [`CpuWork::request_json`] written into a reused buffer.
    pub request_json_serde: Summary,
}

/// Measures [`CpuWork`] over `cases`, each timed `repetitions` times.
///
/// # Errors
/// A case that does not replay (its move is illegal in its position), or no cases.
pub fn measure(cases: &[RequestCase], repetitions: u32, tc: &TimeControl) -> anyhow::Result<CpuWork> {
    let samples = cases.len() * repetitions as usize;
    let mut rules = Vec::with_capacity(samples);
    let mut request = Vec::with_capacity(samples);
    let mut judge = Vec::with_capacity(samples);
    let mut build = Vec::with_capacity(samples);
    let mut json = Vec::with_capacity(samples);
    let mut referee = Vec::with_capacity(samples);
    let mut referee_logged = Vec::with_capacity(samples);
    let mut bot = Vec::with_capacity(samples);
    let mut request_serde = Vec::with_capacity(samples);
    let mut line = String::new();
    let left = tc.base.or(tc.move_time).unwrap_or_default();
    let replies: Vec<String> = cases
        .iter()
        .map(|c| {
            BotMessage::Move(MoveReply { id: u64::from(c.ply / 2 + 1), move_text: c.played.clone() })
                .to_line()
        })
        .collect();
    for _ in 0..repetitions {
        for (case, reply) in cases.iter().zip(&replies) {
            let t0 = Instant::now();
            let position = black_box(&case.position);
            // As the game loop: the rules' endings, then every legal move with its result.
            black_box(Side::ALL.into_iter().find(|&s| position.front_row_empty(s)));
            let successors = position.successors();
            let t1 = Instant::now();
            let fields = wire::MoveRequestLine {
                id: u64::from(case.ply / 2 + 1),
                ply: case.ply,
                position,
                opponent_move: case.last_move.as_deref(),
                you: left,
                opponent: left,
                tc,
            };
            fields.write(successors.iter().map(|(m, _)| m), &mut line);
            let t2 = Instant::now();
            let next = judge_reply(black_box(reply), &successors)
                .with_context(|| format!("ply {}: the reply {reply:?} does not replay", case.ply + 1))?;
            let t3 = Instant::now();
            let record = ply_record(case, &next);
            let t4 = Instant::now();
            let encoded = serde_json::to_vec(black_box(&record)).context("serialising a ply record")?;
            let t5 = Instant::now();
            black_box(encoded);
            let answer = bot_answer(black_box(&line));
            let t6 = Instant::now();
            black_box((record, answer));
            // For comparison, not in the totals: the request as it was built before (serde,
            // a vector of move strings, a new line each ply).
            let legal = successors.iter().map(|(m, _)| m.to_string()).collect();
            let serde_line = wire::move_request_line(
                fields.id,
                fields.ply,
                position,
                legal,
                fields.opponent_move,
                left,
                left,
                tc,
            );
            let t7 = Instant::now();
            black_box(serde_line);
            request_serde.push(t7 - t6);
            rules.push(t1 - t0);
            request.push(t2 - t1);
            judge.push(t3 - t2);
            build.push(t4 - t3);
            json.push(t5 - t4);
            referee.push(t4 - t0);
            referee_logged.push(t5 - t0);
            bot.push(t6 - t5);
        }
    }
    let summary = |what: &str, samples: &[Duration]| {
        Summary::of(samples).with_context(|| format!("no samples of {what}: no plies were played"))
    };
    Ok(CpuWork {
        cases: cases.len(),
        repetitions,
        legal_moves: summary("legal moves", &rules)?,
        request_json: summary("request building", &request)?,
        judge_reply: summary("reply judging", &judge)?,
        record_build: summary("record building", &build)?,
        record_json: summary("record serialising", &json)?,
        referee_per_ply: summary("referee work", &referee)?,
        referee_per_ply_logged: summary("referee work with a log", &referee_logged)?,
        bot_per_ply: summary("bot work", &bot)?,
        request_json_serde: summary("serde request building", &request_serde)?,
    })
}

/// What the game loop does with a reply line: parse it, parse the move, find it among the
/// legal moves (whose results are already known).
fn judge_reply(line: &str, successors: &[(Move, Position)]) -> anyhow::Result<Position> {
    let BotMessage::Move(reply) = BotMessage::parse(line)? else {
        anyhow::bail!("not a move message");
    };
    let parsed: MoveText = reply.move_text.parse()?;
    let candidate = parsed.to_move_unchecked();
    successors
        .iter()
        .find(|(m, _)| *m == candidate)
        .map(|&(_, next)| next)
        .ok_or_else(|| anyhow::anyhow!("{} is not a legal move", reply.move_text))
}

/// The ply record the runner builds after a move.
fn ply_record(case: &RequestCase, next: &Position) -> LogRecord {
    LogRecord::Ply(PlyRecord {
        ply: case.ply + 1,
        side: case.position.side_to_move(),
        mv: case.played.clone(),
        time_us: 12,
        cpu_us: Some(10),
        clock_ms: [3_600_000, 3_600_000],
        // As the game loop writes it.
        position: wire::notation(next),
        lag_excused_us: None,
        lag_credit_us: None,
        info: Vec::new(),
    })
}

/// What the sample bot's protocol loop does with a request: parse it, answer it.
fn bot_answer(line: &str) -> Option<String> {
    match RefereeMessage::parse(line) {
        Ok(RefereeMessage::MoveRequest(request)) => {
            let move_text = request.legal.first()?.clone();
            Some(BotMessage::Move(MoveReply { id: request.id, move_text }).to_line())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use bao_rules::Variant;

    use super::*;

    /// A few plies of a real game, made by playing the first legal move each time.
    fn first_moves(plies: usize) -> GameMoves {
        let mut position = Position::start(Variant::Kiswahili);
        let mut moves = Vec::new();
        for _ in 0..plies {
            let mv = position.legal_moves()[0];
            moves.push(mv.to_string());
            position = position.play(mv).expect("a legal move").0;
        }
        GameMoves { start: Position::start(Variant::Kiswahili).to_string(), moves }
    }

    #[test]
    fn replay_gives_one_request_per_move_with_the_opponents_last_move() {
        let game = first_moves(3);
        let cases = replay(&[game.clone(), game.clone()]).expect("replays");
        assert_eq!(cases.len(), 6);
        assert_eq!(cases[0].ply, 0);
        assert_eq!(cases[0].last_move, None);
        assert_eq!(cases[0].position, Position::start(Variant::Kiswahili));
        assert_eq!(cases[2].ply, 2);
        assert_eq!(cases[2].last_move.as_deref(), Some(game.moves[1].as_str()));
        assert_eq!(cases[3].ply, 0, "the second game starts over");
        let line = request_line(&cases[1], &TimeControl::default());
        assert!(line.contains("\"type\":\"move_request\""), "{line}");
    }

    #[test]
    fn replay_names_the_game_and_ply_of_an_illegal_move() {
        let mut game = first_moves(2);
        game.moves.push("not-a-move".into());
        let error = replay(&[game]).expect_err("illegal");
        assert!(format!("{error:#}").contains("game 0, ply 3"), "{error:#}");
    }

    #[test]
    fn measure_times_every_step_of_every_case() {
        let cases = replay(&[first_moves(4)]).expect("replays");
        let work = measure(&cases, 2, &TimeControl::default()).expect("measures");
        assert_eq!(work.cases, 4);
        assert_eq!(work.legal_moves.count, 8);
        assert_eq!(work.bot_per_ply.count, 8);
        assert!(work.referee_per_ply.median_us >= work.request_json.min_us);
        assert!(measure(&[], 1, &TimeControl::default()).is_err());
    }
}
