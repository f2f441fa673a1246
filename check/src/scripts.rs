//! The scripted exchange of each check, run on a freshly started bot.

use std::time::Duration;

use bao_protocol::GamesPerProcess;
use bao_rules::{Position, Side, Variant};
use serde_json::{Value, json};

use bao_game::{Reason, wire};

use super::catalog::CheckKind;
use super::failure::Failure;
use super::opponent::RandomOpponent;
use super::positions;
use super::session::{Session, how_it_ended, legal_moves};
use super::settings::{ID_REQUESTS, LONG_GAME_PLIES, OPPONENT_SEED, QUIT_GRACE, Settings};

/// How long the checker gives itself to write a line the bot is not timed on
/// (`game_over`, `quit`).
const WRITE_TIME: Duration = Duration::from_millis(500);

/// Runs the exchange of `kind` on `session`: `Ok` when the bot did everything right.
///
/// # Errors
/// The first thing the bot did wrong.
pub async fn run(kind: CheckKind, session: &mut Session, settings: &Settings) -> Result<(), Failure> {
    let kiswahili = Position::start(Variant::Kiswahili);
    match kind {
        CheckKind::Handshake => session.greet(Side::South, &kiswahili).await.map(drop),
        CheckKind::FirstMove | CheckKind::FischerClock | CheckKind::MoveTimeClock => {
            single_move(session, kiswahili).await
        }
        CheckKind::NorthReply => play_game(session, Side::North, Limit::Requests(1)).await.map(drop),
        CheckKind::NamuaMidgame => single_move(session, positions::parse(positions::NAMUA_MIDGAME)?).await,
        CheckKind::MtajiKujifunza => single_move(session, Position::start(Variant::Kujifunza)).await,
        CheckKind::MtajiKiswahili => {
            single_move(session, positions::parse(positions::MTAJI_KISWAHILI)?).await
        }
        CheckKind::OneLegalMove => single_move(session, positions::parse(positions::ONE_LEGAL_MOVE)?).await,
        CheckKind::Takasia => single_move(session, positions::parse(positions::TAKASIA)?).await,
        CheckKind::SafariChoice => single_move(session, positions::parse(positions::SAFARI_CHOICE)?).await,
        CheckKind::IdsIncrease => {
            play_game(session, Side::North, Limit::Requests(ID_REQUESTS)).await.map(drop)
        }
        CheckKind::GameOverQuit => game_over_quit(session).await,
        CheckKind::GameOverNoReply => game_over_no_reply(session).await,
        CheckKind::EndOfInput => end_of_input(session).await,
        CheckKind::UnknownFields => unknown_fields(session, settings).await,
        CheckKind::LongGame => play_game(session, Side::South, Limit::Plies(LONG_GAME_PLIES)).await.map(drop),
        CheckKind::TwoGames => two_games(session, settings).await,
    }
}

/// A game that starts at `start` (hello says so), with the bot to move: one request, id 1, ply 0.
async fn single_move(session: &mut Session, start: Position) -> Result<(), Failure> {
    session.greet(start.side_to_move(), &start).await?;
    session.ask(1, 0, &start, None).await?;
    Ok(())
}

/// When [`play_game`] stops.
#[derive(Debug, Clone, Copy)]
enum Limit {
    /// After this many requests to the bot.
    Requests(u64),
    /// After this many plies (adjudicated a draw).
    Plies(u32),
}

/// A game from the Kiswahili start with the bot playing `side` and the checker's random
/// opponent the other, until the rules end it or `limit`. Returns the plies played.
async fn play_game(session: &mut Session, side: Side, limit: Limit) -> Result<u32, Failure> {
    let start = Position::start(Variant::Kiswahili);
    session.greet(side, &start).await?;
    play_from(session, side, start, limit).await
}

/// The game from `start` after the handshake: the bot plays `side` (ids from 1), the checker's
/// random opponent the other, until the rules end it or `limit`. Returns the plies played.
async fn play_from(session: &mut Session, side: Side, start: Position, limit: Limit) -> Result<u32, Failure> {
    let mut position = start;
    let mut opponent = RandomOpponent::new(OPPONENT_SEED);
    let mut last_move: Option<String> = None;
    let mut ply: u32 = 0;
    let mut next_id: u64 = 1;
    loop {
        let outcome = position.outcome();
        if let bao_rules::Outcome::Win { winner, reason } = outcome {
            let reason = match reason {
                bao_rules::WinReason::FrontRowEmpty => Reason::FrontRowEmpty,
                bao_rules::WinReason::NoLegalMoves => Reason::NoLegalMoves,
            };
            session.note(&format!("the game ended by the rules after {ply} plies: {outcome}"));
            session.set_game_over(wire::game_over_line(&outcome.to_string(), Some(winner), reason, ply));
            return Ok(ply);
        }
        match limit {
            Limit::Requests(n) if next_id > n => return Ok(ply),
            Limit::Plies(n) if ply >= n => {
                session.note(&format!("the game reached {n} plies: adjudicated a draw"));
                return Ok(ply);
            }
            _ => {}
        }
        let mv = if position.side_to_move() == side {
            let mv = session.ask(next_id, ply, &position, last_move.as_deref()).await?;
            next_id += 1;
            mv
        } else {
            opponent
                .choose(&position)
                .ok_or_else(|| Failure::new("internal error: the checker's opponent has no legal move"))?
        };
        let (next, _) = position
            .play(mv)
            .map_err(|e| Failure::new(format!("internal error: the checker cannot play {mv}: {e}")))?;
        position = next;
        last_move = Some(mv.to_string());
        ply += 1;
        session.set_plies(ply);
    }
}

/// Says whether the bot exited by itself with code 0 within the quit grace period.
async fn expect_exit_after_quit(session: &mut Session) -> Result<(), Failure> {
    match session.wait_for_exit(QUIT_GRACE).await {
        Some(report) if report.success() => {
            session.note(&format!("the bot {}", how_it_ended(&report)));
            Ok(())
        }
        Some(report) => Err(Failure::new(format!(
            "after quit the bot {}; exit code 0 is expected",
            how_it_ended(&report)
        ))),
        None => Err(Failure::new(format!(
            "the bot was still running {} ms after quit; the referee would stop it with SIGTERM",
            QUIT_GRACE.as_millis()
        ))),
    }
}

/// hello, ready, then at once `game_over` (the opponent failed to start) and `quit`.
async fn game_over_quit(session: &mut Session) -> Result<(), Failure> {
    session.greet(Side::South, &Position::start(Variant::Kiswahili)).await?;
    let game_over =
        wire::game_over_line("S wins (handshake_failed)", Some(Side::South), Reason::HandshakeFailed, 0);
    session.send(&game_over, WRITE_TIME).await?;
    session.quit(WRITE_TIME).await?;
    expect_exit_after_quit(session).await
}

/// How long the bot is watched for a reply to `game_over` it must not send.
const SILENCE: Duration = Duration::from_millis(300);

/// hello, ready, one move, `game_over` (nothing may come back), then `quit`.
async fn game_over_no_reply(session: &mut Session) -> Result<(), Failure> {
    let start = Position::start(Variant::Kiswahili);
    session.greet(Side::South, &start).await?;
    let mv = session.ask(1, 0, &start, None).await?;
    let game_over = wire::game_over_line("N wins (timeout)", Some(Side::North), Reason::Timeout, 1);
    session.note(&format!("the bot played {mv}; the game ends at once (its opponent's clock ran out)"));
    session.send(&game_over, WRITE_TIME).await?;
    if let Some(line) = session.expect_silence(SILENCE).await {
        return Err(Failure::new(format!(
            "wrote {line:?} after game_over; game_over is not a request: a bot writes nothing \
             in reply (and nothing once it has answered a request)"
        )));
    }
    session.quit(WRITE_TIME).await?;
    expect_exit_after_quit(session).await
}

/// hello, ready, then the end of input on stdin.
async fn end_of_input(session: &mut Session) -> Result<(), Failure> {
    session.greet(Side::South, &Position::start(Variant::Kiswahili)).await?;
    session.note("the checker closes the bot's stdin");
    match session.close_input(QUIT_GRACE).await {
        Some(report) if report.success() && report.ended_by == bao_supervise::EndedBy::Itself => {
            session.note(&format!("the bot {}", how_it_ended(&report)));
            Ok(())
        }
        Some(report) if report.ended_by == bao_supervise::EndedBy::Itself => Err(Failure::new(format!(
            "at the end of its input the bot {}; exit code 0 is expected",
            how_it_ended(&report)
        ))),
        Some(report) => Err(Failure::new(format!(
            "the bot was still running {} ms after its stdin was closed, and {}",
            QUIT_GRACE.as_millis(),
            how_it_ended(&report)
        ))),
        None => Err(Failure::new("internal error: the bot was already stopped")),
    }
}

/// The requests to the bot in each game of the `two-games` check.
const TWO_GAMES_REQUESTS: u64 = 3;

/// The `game_over` line of a game of `two-games` stopped after `plies`: a draw at the ply limit
/// (or the rules' result, recorded by [`play_from`], when the game ended before).
fn draw_line(plies: u32) -> String {
    wire::game_over_line("draw (max_plies)", None, Reason::MaxPlies, plies)
}

/// Protocol 1.1. A bot whose `ready` says `"games":"many"` plays South in Bao la Kiswahili
/// (three requests), gets `game_over`, then a second `hello` in the same process: North in Bao
/// la Kujifunza with the other clock mode, three requests from id 1, `game_over`, `quit`; it
/// must exit with code 0. A bot that does not declare it plays one game per process: it gets
/// `quit` after its game, as the referee sends it, and must exit with code 0.
async fn two_games(session: &mut Session, settings: &Settings) -> Result<(), Failure> {
    let kiswahili = Position::start(Variant::Kiswahili);
    let ready = session.greet(Side::South, &kiswahili).await?;
    if ready.games != GamesPerProcess::Many {
        session.note(
            "the bot's ready does not say \"games\":\"many\": it plays one game per process, and \
             the referee sends quit after every game (protocol 1)",
        );
        session.pass_note("one game per process: the bot does not declare \"games\":\"many\"");
        let plies = play_from(session, Side::South, kiswahili, Limit::Requests(1)).await?;
        session.send(&draw_line(plies), WRITE_TIME).await?;
        // A one-game bot may end as soon as its game is over, before `quit` is written: the
        // write then finds no reader, which is no fault of the bot's. How it ended decides (a
        // bot that neither reads nor ends fails there as still running).
        let _ = session.quit(WRITE_TIME).await;
        return expect_exit_after_quit(session).await;
    }
    let plies = play_from(session, Side::South, kiswahili, Limit::Requests(TWO_GAMES_REQUESTS)).await?;
    session.send(&draw_line(plies), WRITE_TIME).await?;
    // The bot declared it: the next game comes in the same process, from another side,
    // variant and clock mode (the referee's next game is often against another opponent).
    let kujifunza = Position::start(Variant::Kujifunza);
    let time = settings.other_mode();
    session.set_time(time);
    session.set_plies(0);
    session.note(&format!(
        "game 1 is over; game 2 in the same process: the bot plays North in Bao la Kujifunza, {}",
        Settings { time, ..settings.clone() }.time_control_text()
    ));
    let second = wire::hello_line(Side::North, &kujifunza, &time);
    let ready = session.handshake_as(Side::North, &second).await.map_err(|failure| {
        let hint = if failure.why.contains("the bot ended") || failure.why.contains("could not write") {
            "; a bot that says \"games\":\"many\" must not exit after game_over: the next game's \
             hello may follow (it exits after quit or at the end of its input)"
        } else {
            ""
        };
        Failure::new(format!(
            "the second game's hello (after game_over, in the same process): {}{hint}",
            failure.why
        ))
    })?;
    if ready.games != GamesPerProcess::Many {
        session.note("the bot's second ready does not say \"games\":\"many\": this is its last game");
    }
    let plies = play_from(session, Side::North, kujifunza, Limit::Requests(TWO_GAMES_REQUESTS))
        .await
        .map_err(|failure| Failure::new(format!("in the second game: {}", failure.why)))?;
    session.set_plies(plies);
    session.send(&draw_line(plies), WRITE_TIME).await?;
    session.quit(WRITE_TIME).await?;
    expect_exit_after_quit(session).await
}

/// `line` (a compact JSON object, as the referee writes it) with `fields` added at its end and
/// `nested` (`(object field, new field, value)`) added at the start of the inner objects. The
/// text is edited in place so that the known fields keep their order (`type` first).
fn with_unknown_fields(
    line: &str,
    fields: &[(&str, Value)],
    nested: &[(&str, &str, Value)],
) -> Result<String, Failure> {
    let internal = |what: &str| Failure::new(format!("internal error: cannot add fields to {what}"));
    let mut text = line.strip_suffix('}').ok_or_else(|| internal(line))?.to_owned();
    for (name, value) in fields {
        text.push_str(&format!(",{}:{value}", Value::from(*name)));
    }
    text.push('}');
    for (parent, name, value) in nested {
        let key = format!("{}:{{", Value::from(*parent));
        if text.matches(&key).count() != 1 {
            return Err(internal(parent));
        }
        text = text.replacen(&key, &format!("{key}{}:{value},", Value::from(*name)), 1);
    }
    serde_json::from_str::<Value>(&text).map_err(|_| internal(line))?;
    Ok(text)
}

/// The standard exchange with unknown fields everywhere and an unknown `game_over` reason.
async fn unknown_fields(session: &mut Session, settings: &Settings) -> Result<(), Failure> {
    let start = Position::start(Variant::Kiswahili);
    let hello = with_unknown_fields(
        &wire::hello_line(Side::South, &start, &settings.time),
        &[("x_future_field", json!({"nested": [1, 2, 3]}))],
        &[("time_control", "x_future_byoyomi_ms", json!(250)), ("limits", "x_future_limit", json!(7))],
    )?;
    session.handshake(&hello).await?;
    let move_time = settings.move_time();
    let request = with_unknown_fields(
        &wire::move_request_line(
            1,
            0,
            &start,
            legal_moves(&start),
            None,
            move_time,
            move_time,
            &settings.time,
        ),
        &[("x_future_hint", json!("ignore me")), ("x_future_null", Value::Null)],
        &[("position", "x_future_hash", json!("0123abcd")), ("clock", "x_future_ms", json!(0))],
    )?;
    session.request_move(&request, 1, 0, &start).await?;
    session.set_plies(1);
    let game_over = bao_protocol::RefereeMessage::GameOver(bao_protocol::GameOver {
        result: "S wins (x_future_reason)".to_owned(),
        winner: Some(wire::wire_side(Side::South)),
        reason: "x_future_reason".to_owned(),
        plies: 1,
    })
    .to_line();
    let game_over = with_unknown_fields(
        &game_over,
        &[("x_future_detail", json!({"text": "a reason added by a later referee"}))],
        &[],
    )?;
    session.send(&game_over, WRITE_TIME).await?;
    session.quit(WRITE_TIME).await?;
    expect_exit_after_quit(session).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fields_are_added_where_asked_and_the_message_still_parses() {
        let line = r#"{"type":"quit","clock":{"a":1}}"#;
        let added = with_unknown_fields(line, &[("x", json!(1))], &[("clock", "y", json!(true))]).unwrap();
        assert_eq!(added, r#"{"type":"quit","clock":{"y":true,"a":1},"x":1}"#);
        let value: Value = serde_json::from_str(&added).unwrap();
        assert_eq!(value["x"], 1);
        assert_eq!(value["clock"]["y"], true);
        assert_eq!(value["clock"]["a"], 1);
        assert!(with_unknown_fields(line, &[], &[("missing", "y", json!(1))]).is_err());
        assert!(with_unknown_fields("not json", &[], &[]).is_err());
        let start = Position::start(Variant::Kiswahili);
        let request = wire::move_request_line(
            1,
            0,
            &start,
            legal_moves(&start),
            None,
            Duration::from_secs(1),
            Duration::from_secs(1),
            &bao_game::TimeControl::default(),
        );
        let added =
            with_unknown_fields(&request, &[("z", json!("?"))], &[("position", "w", json!(0))]).unwrap();
        assert!(bao_protocol::RefereeMessage::parse(&added).is_ok(), "{added}");
    }
}
