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
}

/// Answers `hello` with `ready`, and move requests as `person` does.
async fn relay(mut relay: HumanRelay, person: Person) {
    while let Some(line) = relay.from_judge.recv().await {
        let reply = match RefereeMessage::parse(&line).expect("the judge writes protocol lines") {
            RefereeMessage::Hello(_) => BotMessage::Ready(Ready::named("relay")).to_line(),
            RefereeMessage::MoveRequest(request) => match person {
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
        let _ = relay.to_judge.send(HumanInput::Line { text: reply, at: Instant::now() });
    }
}

fn person_spec(name: &str) -> BotSpec {
    BotSpec { name: Some(name.to_owned()), program: HUMAN_COMMAND.to_owned(), args: Vec::new(), dir: None }
}

/// Plays a game between two scripted people; the result and the log's text.
async fn play(south: Person, north: Person, time: TimeControl, file: &str) -> (bao_game::GameResult, String) {
    let mut config = GameConfig::new(person_spec("ann"), person_spec("bob"), Variant::Kiswahili);
    config.time = time;
    let (ann, ann_relay) = human_seat("ann");
    let (bob, bob_relay) = human_seat("bob");
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
