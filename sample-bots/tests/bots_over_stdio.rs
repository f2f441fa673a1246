//! Runs the sample bots as processes (the two binaries and the Python template) on a
//! scripted transcript, and checks every line they write and how they exit.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use bao_protocol::{
    BotMessage, Clock, GameOver, MoveRequest, PerSide, PositionJson, RefereeMessage, Rows, Side, TimeControl,
};

const START: &str = "kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 SN -";
/// The position after South's first legal move from the start: North to move.
fn after_first_move() -> String {
    let start: bao_rules::Position = START.parse().expect("valid position");
    start.play(start.legal_moves()[0]).expect("legal").0.to_string()
}

fn request(id: u64, notation: &str, legal: &[String]) -> RefereeMessage {
    let position: bao_rules::Position = notation.parse().expect("valid position");
    let to_move = match position.side_to_move() {
        bao_rules::Side::South => Side::South,
        bao_rules::Side::North => Side::North,
    };
    RefereeMessage::MoveRequest(MoveRequest {
        id,
        ply: u32::try_from(id - 1).expect("small"),
        position: PositionJson {
            notation: notation.into(),
            variant: "kiswahili".into(),
            to_move,
            rows: Rows::default(),
            hands: PerSide {
                south: position.hand(bao_rules::Side::South),
                north: position.hand(bao_rules::Side::North),
            },
            stage: "namua".into(),
            nyumba: PerSide { south: true, north: true },
            takasia: None,
        },
        legal: legal.to_vec(),
        opponent_move: None,
        clock: Clock { you_ms: 5000, opponent_ms: 5000, increment_ms: 0, move_time_ms: None },
    })
}

fn legal(notation: &str) -> Vec<String> {
    let position: bao_rules::Position = notation.parse().expect("valid position");
    position.legal_moves().iter().map(ToString::to_string).collect()
}

/// Feeds `input` to `command`, closes stdin, and returns (exit success, stdout messages).
fn converse(mut command: Command, input: &str) -> (bool, Vec<BotMessage>) {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("start {command:?}: {e}"));
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write transcript");
    let output = child.wait_with_output().expect("bot finishes");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 stdout");
    let messages = stdout
        .lines()
        .map(|line| BotMessage::parse(line).unwrap_or_else(|e| panic!("{command:?} wrote {line:?}: {e}")))
        .collect();
    (output.status.success(), messages)
}

fn transcript(with_quit: bool) -> String {
    let mut messages = vec![
        RefereeMessage::hello(Side::South, "kiswahili", START, TimeControl::fischer(5000, 0, 5000, 100)),
        request(1, START, &legal(START)),
        request(2, &after_first_move(), &legal(&after_first_move())),
        RefereeMessage::GameOver(GameOver {
            result: "draw (max_plies)".into(),
            winner: None,
            reason: "max_plies".into(),
            plies: 2,
        }),
    ];
    if with_quit {
        messages.push(RefereeMessage::Quit);
    }
    messages.iter().map(|m| format!("{}\n", m.to_line())).collect()
}

/// Checks one bot's answers: `ready` first, then one legal move per request with its id.
fn check_conversation(command: impl Fn() -> Command, name: &str) {
    for with_quit in [true, false] {
        let (success, messages) = converse(command(), &transcript(with_quit));
        assert!(success, "{name} exits 0 (quit: {with_quit})");
        let Some(BotMessage::Ready(ready)) = messages.first() else {
            panic!("{name} starts with ready: {messages:?}");
        };
        assert_eq!(ready.name, name);
        let moves: Vec<_> = messages
            .iter()
            .filter_map(|m| match m {
                BotMessage::Move(reply) => Some(reply.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(moves.len(), 2, "{name}: {messages:?}");
        assert_eq!(moves[0].id, 1);
        assert!(legal(START).contains(&moves[0].move_text), "{name}: {}", moves[0].move_text);
        assert_eq!(moves[1].id, 2);
        assert!(legal(&after_first_move()).contains(&moves[1].move_text), "{name}: {}", moves[1].move_text);
    }
}

#[test]
fn bao_random_converses_and_exits_cleanly() {
    check_conversation(
        || {
            let mut c = Command::new(env!("CARGO_BIN_EXE_bao-random"));
            c.args(["--seed", "9"]);
            c
        },
        "random",
    );
}

#[test]
fn bao_greedy_converses_and_exits_cleanly() {
    check_conversation(|| Command::new(env!("CARGO_BIN_EXE_bao-greedy")), "greedy");
}

#[test]
fn python_template_converses_and_exits_cleanly() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/random_bot.py");
    check_conversation(
        || {
            let mut c = Command::new("python3");
            c.arg("-B").arg(&script).args(["--seed", "4"]);
            c
        },
        "random-py",
    );
}

#[test]
fn bad_arguments_exit_2() {
    let status = Command::new(env!("CARGO_BIN_EXE_bao-random"))
        .args(["--seed", "minus-one"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run bao-random");
    assert_eq!(status.code(), Some(2));
}
