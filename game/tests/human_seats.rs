//! Human seats: people are judged, timed and logged like bots, through the same lines.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use bao_game::human::{HumanInput, HumanRelay, RESIGNED, human_seat};
use bao_game::log::GameLog;
use bao_game::runner::{HUMAN_COMMAND, Silent};
use bao_game::verify::verify_log;
use bao_game::{GameConfig, Reason, TimeControl, play_game_with_seats};
use bao_protocol::{BotMessage, MoveReply, Ready, RefereeMessage};
use bao_rules::{Side, Variant};
use bao_supervise::BotSpec;
use tokio_util::sync::CancellationToken;

/// What a scripted person does when asked to move.
#[derive(Clone, Copy)]
enum Person {
    /// Plays the first move of the referee's list.
    FirstLegal,
    /// Resigns.
    Resigns,
    /// Sends a move that is not in the list.
    Illegal,
    /// Never answers.
    Silent,
    /// Plays the first legal move, `think` after the request, saying its page's round trip
    /// was `lag` (what a socket that pings the page would pass on).
    Lagged {
        /// How long after the request the move is sent.
        think: Duration,
        /// The round trip claimed.
        lag: Duration,
    },
}

/// Answers `hello` with `ready`, and move requests as `person` does.
async fn relay(mut relay: HumanRelay, person: Person) {
    while let Some(line) = relay.from_judge.recv().await {
        let reply = match RefereeMessage::parse(&line).expect("the judge writes protocol lines") {
            RefereeMessage::Hello(_) => BotMessage::Ready(Ready::named("relay")).to_line(),
            RefereeMessage::MoveRequest(request) => match person {
                Person::Lagged { think, lag } => {
                    tokio::time::sleep(think).await;
                    let line =
                        BotMessage::Move(MoveReply { id: request.id, move_text: request.legal[0].clone() })
                            .to_line();
                    let _ = relay.to_judge.send(HumanInput::Line { text: line, at: Instant::now(), lag });
                    continue;
                }
                Person::FirstLegal => {
                    BotMessage::Move(MoveReply { id: request.id, move_text: request.legal[0].clone() })
                        .to_line()
                }
                Person::Illegal => {
                    BotMessage::Move(MoveReply { id: request.id, move_text: "B8>".to_owned() }).to_line()
                }
                Person::Resigns => {
                    let _ = relay.to_judge.send(HumanInput::Resign);
                    continue;
                }
                Person::Silent => continue,
            },
            _ => continue,
        };
        let _ =
            relay.to_judge.send(HumanInput::Line { text: reply, at: Instant::now(), lag: Duration::ZERO });
    }
}

fn person_spec(name: &str) -> BotSpec {
    BotSpec { name: Some(name.to_owned()), program: HUMAN_COMMAND.to_owned(), args: Vec::new(), dir: None }
}

/// Plays a game between two scripted people; the result and the log's text.
async fn play(south: Person, north: Person, time: TimeControl, file: &str) -> (bao_game::GameResult, String) {
    play_capped(south, north, time, [Duration::ZERO; 2], None, file).await
}

/// [`play`] with each seat's lag credit cap (South's, North's) and a ply limit.
async fn play_capped(
    south: Person,
    north: Person,
    time: TimeControl,
    caps: [Duration; 2],
    max_plies: Option<u32>,
    file: &str,
) -> (bao_game::GameResult, String) {
    let mut config = GameConfig::new(person_spec("ann"), person_spec("bob"), Variant::Kiswahili);
    config.time = time;
    if max_plies.is_some() {
        config.max_plies = max_plies;
    }
    let (mut ann, ann_relay) = human_seat("ann");
    let (mut bob, bob_relay) = human_seat("bob");
    ann.max_lag_credit = caps[0];
    bob.max_lag_credit = caps[1];
    tokio::spawn(relay(ann_relay, south));
    tokio::spawn(relay(bob_relay, north));
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(file);
    let mut log = GameLog::create(&path).expect("create the log");
    let result = play_game_with_seats(
        &config,
        [Some(ann), Some(bob)],
        &mut log,
        &mut Silent,
        &CancellationToken::new(),
    )
    .await
    .expect("the log is written");
    log.finish().expect("the log is complete");
    let text = std::fs::read_to_string(&path).expect("read the log");
    let _ = std::fs::remove_file(&path);
    (result, text)
}

fn unhurried() -> TimeControl {
    TimeControl { base: Some(Duration::from_secs(60)), ..TimeControl::default() }
}

#[tokio::test]
async fn two_people_play_a_whole_game_that_verifies_with_both_named_as_people() {
    let (result, log) = play(Person::FirstLegal, Person::FirstLegal, unhurried(), "human-whole.jsonl").await;
    assert!(result.plies > 10, "{result:?}");
    assert!(result.aborted.is_none(), "{result:?}");
    let verified = verify_log(&log).unwrap_or_else(|e| panic!("{e}\n{log}"));
    assert_eq!(verified.plies, result.plies);
    let header: serde_json::Value =
        serde_json::from_str(log.lines().next().expect("a header")).expect("JSON");
    for (side, name) in [("south", "ann"), ("north", "bob")] {
        assert_eq!(header[side]["name"], name);
        assert_eq!(header[side]["command"], serde_json::json!([HUMAN_COMMAND]));
    }
}

#[tokio::test]
async fn a_person_who_resigns_loses_and_the_log_says_so() {
    let (result, log) = play(Person::FirstLegal, Person::Resigns, unhurried(), "human-resigns.jsonl").await;
    assert_eq!(result.winner, Some(Side::South));
    assert_eq!(result.reason, Reason::BotExited);
    assert!(result.detail.ends_with(RESIGNED), "{}", result.detail);
    assert_eq!(result.plies, 1);
    verify_log(&log).unwrap_or_else(|e| panic!("{e}\n{log}"));
}

#[tokio::test]
async fn the_judge_not_the_relay_decides_legality() {
    let (result, log) = play(Person::Illegal, Person::FirstLegal, unhurried(), "human-illegal.jsonl").await;
    assert_eq!(result.winner, Some(Side::North));
    assert_eq!(result.reason, Reason::IllegalMove, "{}", result.detail);
    verify_log(&log).unwrap_or_else(|e| panic!("{e}\n{log}"));
}

#[tokio::test]
async fn a_person_runs_out_of_time_like_a_bot() {
    let time = TimeControl {
        base: None,
        move_time: Some(Duration::from_millis(200)),
        margin: Duration::from_millis(20),
        ..TimeControl::default()
    };
    let (result, log) = play(Person::Silent, Person::FirstLegal, time, "human-timeout.jsonl").await;
    assert_eq!(result.winner, Some(Side::North));
    assert_eq!(result.reason, Reason::Timeout, "{}", result.detail);
    verify_log(&log).unwrap_or_else(|e| panic!("{e}\n{log}"));
}

/// The log's records as JSON values.
fn records(log: &str) -> Vec<serde_json::Value> {
    log.lines().map(|l| serde_json::from_str(l).expect("a JSON record")).collect()
}

fn lines(records: &[serde_json::Value]) -> String {
    records.iter().map(|r| format!("{r}\n")).collect()
}

const MS: Duration = Duration::from_millis(1);

/// Ann's page has a 150 ms round trip, within her 400 ms cap: each of her moves is credited
/// the whole round trip. Bob's claims 2 s: he is credited his cap of 300 ms, never more.
async fn lagged_game(file: &str) -> String {
    let time = TimeControl { base: Some(Duration::from_secs(60)), ..TimeControl::default() };
    let ann = Person::Lagged { think: MS * 200, lag: MS * 150 };
    let bob = Person::Lagged { think: MS * 400, lag: Duration::from_secs(2) };
    let (result, log) = play_capped(ann, bob, time, [MS * 400, MS * 300], Some(6), file).await;
    assert_eq!(result.plies, 6, "{result:?}");
    log
}

#[tokio::test]
async fn a_person_is_credited_the_measured_lag_up_to_the_cap_and_the_log_verifies() {
    let log = lagged_game("human-lag-credited.jsonl").await;
    let verified = verify_log(&log).unwrap_or_else(|e| panic!("{e}\n{log}"));
    assert_eq!(verified.plies, 6);
    let records = records(&log);
    assert_eq!(records[0]["max_lag_credit_us"], serde_json::json!([400_000, 300_000]));
    let mut left_ms = [60_000_u64, 60_000];
    let mut left_us = [60_000_000_u64, 60_000_000];
    for ply in records.iter().filter(|r| r["type"] == "ply") {
        let side = usize::from(ply["side"] == "N");
        let (time, credit) =
            (ply["time_us"].as_u64().expect("time"), ply["lag_credit_us"].as_u64().expect("credit"));
        // Ann's whole round trip; Bob's 2 s capped at 300 ms.
        assert_eq!(credit, [150_000, 300_000][side], "{ply}");
        assert!(time >= [200_000, 400_000][side], "{ply}");
        // The clock is charged the time less the credit (and 100 ms increment added).
        left_us[side] = left_us[side] - (time - credit) + 100_000;
        left_ms[side] = left_us[side] / 1000;
        assert_eq!(ply["clock_ms"][side].as_u64(), Some(left_ms[side]), "{ply}");
    }
}

#[tokio::test]
async fn verify_rejects_a_credit_above_the_cap_a_credit_above_the_time_and_a_credit_to_a_bot() {
    let genuine = records(&lagged_game("human-lag-forged.jsonl").await);
    verify_log(&lines(&genuine)).expect("the genuine log verifies");
    let first_north =
        genuine.iter().position(|r| r["type"] == "ply" && r["side"] == "N").expect("a ply of N");

    // Bob's first credit raised past his 300 ms cap, his clocks forged to match the credit: the
    // clock arithmetic adds up, the cap does not.
    let mut forged = genuine.clone();
    let extra = 50_000;
    for r in forged.iter_mut().skip(first_north).filter(|r| r["type"] == "ply") {
        let ms = r["clock_ms"][1].as_u64().expect("clock") + extra / 1000;
        r["clock_ms"][1] = ms.into();
    }
    forged[first_north]["lag_credit_us"] = 350_000.into();
    let e = verify_log(&lines(&forged)).expect_err("a credit above the cap");
    assert_eq!(e.line, first_north + 1, "{e}");
    assert!(
        e.message.contains("lag_credit_us 350000, but the header's max_lag_credit_us allows N 300000 µs"),
        "{e}"
    );

    // The cap raised in the header too: then it verifies (the credit is what the header allows).
    forged[0]["max_lag_credit_us"] = serde_json::json!([400_000, 350_000]);
    verify_log(&lines(&forged)).unwrap_or_else(|e| panic!("a consistent log: {e}"));

    // A credit larger than the move's time.
    let mut forged = genuine.clone();
    forged[0]["max_lag_credit_us"] = serde_json::json!([400_000, 100_000_000]);
    let time = forged[first_north]["time_us"].as_u64().expect("time");
    forged[first_north]["lag_credit_us"] = (time + 1).into();
    let e = verify_log(&lines(&forged)).expect_err("a credit above the time");
    assert!(e.message.contains("is more than the move's time_us"), "{e}");

    // Bots never get lag credit: North named a bot with a cap.
    let mut forged = genuine.clone();
    forged[0]["north"]["command"] = serde_json::json!(["./bot"]);
    let e = verify_log(&lines(&forged)).expect_err("a bot with lag credit");
    assert_eq!(e.line, 1, "{e}");
    assert!(e.message.contains("bots never get lag credit"), "{e}");

    // A credit in a log whose header has no cap.
    let mut forged = genuine;
    forged[0].as_object_mut().expect("header").remove("max_lag_credit_us");
    let e = verify_log(&lines(&forged)).expect_err("credit without a cap");
    assert!(e.message.contains("allows S 0 µs"), "{e}");
}

#[tokio::test]
async fn a_silent_person_with_lag_compensation_waits_the_cap_longer_then_loses_on_time() {
    let time =
        TimeControl { base: None, move_time: Some(MS * 200), margin: MS * 20, ..TimeControl::default() };
    let caps = [MS * 100, MS * 100];
    let (result, log) =
        play_capped(Person::Silent, Person::FirstLegal, time, caps, None, "human-lag-timeout.jsonl").await;
    assert_eq!((result.winner, result.reason), (Some(Side::North), Reason::Timeout), "{}", result.detail);
    assert!(result.detail.contains("no move within 320 ms"), "{}", result.detail);
    let records = records(&log);
    let waited = records.last().expect("a result")["offense"]["time_us"].as_u64().expect("the time");
    assert!(waited >= 320_000, "{waited}");
    verify_log(&log).unwrap_or_else(|e| panic!("{e}\n{log}"));
}
