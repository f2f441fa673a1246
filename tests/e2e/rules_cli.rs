//! `bao-referee rules ...`: the exact output formats, the stdin batch modes
//! and the exit codes, against cases from `rules/tests/data`.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::support::{bin, workspace_root};

const KISWAHILI_START: &str =
    "kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 SN -";
const KUJIFUNZA_START: &str =
    "kujifunza S 2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2 0,0 -- -";
/// special.jsonl: a mtaji position with North to move and a4 under takasia.
const TAKASIA: &str = "kiswahili N 0,0,2,0,1,1,0,0/6,6,6,6,6,6,5,5/2,0,0,2,0,0,2,0/1,1,1,1,1,1,1,1 0,0 -- A4";
/// special.jsonl: a kujifunza position, North to move.
const KUJIFUNZA_N: &str =
    "kujifunza N 1,0,0,0,0,0,0,1/2,1,0,3,0,0,1,1/2,3,10,5,2,1,4,1/7,0,1,2,3,4,3,6 0,0 -- -";
/// special.jsonl: South wins by emptying North's front row with A1>.
const WINNING_CAPTURE: &str =
    "kiswahili S 1,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,1/0,0,0,0,0,0,0,9 21,22 SN -";
/// The position after it: finished, no legal moves.
const AFTER_WINNING_CAPTURE: &str =
    "kiswahili N 3,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,9 20,22 SN -";
/// special.jsonl: a namua capture ending in the functional nyumba (safari offered).
const SAFARI: &str = "kiswahili S 0,1,0,0,6,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,5,0/0,0,0,0,0,0,0,0 22,22 SN -";
/// random-kiswahili.jsonl game 16 ply 43: North's A4> leaves South without a move.
const BEFORE_NO_MOVES: &str =
    "kiswahili N 0,1,1,1,21,0,0,0/1,1,1,1,1,1,1,1/0,8,1,2,0,4,1,0/1,2,0,2,3,1,3,3 0,1 S- -";

/// What a run of the binary gave.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `bao-referee rules ARGS` with `stdin` as its input.
fn rules(args: &[&str], stdin: &str) -> Run {
    let mut child = Command::new(bin("bao-referee"))
        .arg("rules")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start bao-referee");
    let mut input = child.stdin.take().expect("stdin is piped");
    let text = stdin.to_owned();
    // Write from another thread so a large input cannot deadlock against the output.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(text.as_bytes());
    });
    let out = child.wait_with_output().expect("wait for bao-referee");
    writer.join().expect("stdin writer");
    let run = Run {
        code: out.status.code().expect("exited normally, not by a signal"),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    };
    assert!(!run.stderr.contains("panicked"), "bao-referee panicked: {}", run.stderr);
    run
}

/// Runs and expects success; returns stdout.
fn ok(args: &[&str], stdin: &str) -> String {
    let run = rules(args, stdin);
    assert_eq!(run.code, 0, "rules {args:?} failed: {}", run.stderr);
    assert_eq!(run.stderr, "", "rules {args:?} wrote to stderr");
    run.stdout
}

/// Runs and expects `code`; returns stderr, checked to be an `error: ` message
/// with no Rust Debug forms in it.
fn fails(code: i32, args: &[&str], stdin: &str) -> Run {
    let run = rules(args, stdin);
    assert_eq!(run.code, code, "rules {args:?}: stdout {:?} stderr {:?}", run.stdout, run.stderr);
    assert!(run.stderr.starts_with("error: "), "stderr: {:?}", run.stderr);
    for debug in ["Parse(", "ParseSetupError", "IllegalMove", "Err(", "{ field"] {
        assert!(!run.stderr.contains(debug), "Debug form {debug:?} in stderr: {}", run.stderr);
    }
    run
}

#[test]
fn start_prints_both_start_positions() {
    assert_eq!(ok(&["start", "kiswahili"], ""), format!("{KISWAHILI_START}\n"));
    assert_eq!(ok(&["start", "kujifunza"], ""), format!("{KUJIFUNZA_START}\n"));
}

#[test]
fn legal_prints_sorted_moves_on_one_line() {
    assert_eq!(ok(&["legal", KISWAHILI_START], ""), "A6< A6> A7< A7>\n");
    assert_eq!(ok(&["legal", TAKASIA], ""), "A1< A1> A7< A7>\n");
    assert_eq!(ok(&["legal", KUJIFUNZA_N], ""), "A1< A1> A2< A2> A3< A3> A4< A4> A5> A7< A7>\n");
    assert_eq!(ok(&["legal", SAFARI], ""), "A2> A2>+\n");
    // A finished game: an empty line.
    assert_eq!(ok(&["legal", AFTER_WINNING_CAPTURE], ""), "\n");
}

#[test]
fn legal_reads_positions_from_stdin_one_line_each() {
    let input = format!("{KISWAHILI_START}\n{TAKASIA}\r\n{AFTER_WINNING_CAPTURE}\n{SAFARI}");
    assert_eq!(ok(&["legal"], &input), "A6< A6> A7< A7>\nA1< A1> A7< A7>\n\nA2> A2>+\n");
    assert_eq!(ok(&["legal"], ""), "");
}

#[test]
fn play_prints_the_position_and_the_result() {
    assert_eq!(
        ok(&["play", KUJIFUNZA_N, "A1<"], ""),
        "kujifunza S 1,0,0,0,0,0,0,1/2,1,0,3,0,0,1,1/0,3,10,5,2,1,4,1/8,1,1,2,3,4,3,6 0,0 -- -\nresult: ongoing\n"
    );
    assert_eq!(
        ok(&["play", SAFARI, "A2>+"], ""),
        "kiswahili N 1,3,1,1,0,1,1,1/0,0,0,0,1,1,1,1/0,0,0,0,6,2,0,0/0,0,0,0,0,0,0,0 21,22 -N -\n\
         result: ongoing\n"
    );
    assert_eq!(
        ok(&["play", WINNING_CAPTURE, "A1>"], ""),
        format!("{AFTER_WINNING_CAPTURE}\nresult: S wins (front_row_empty)\n")
    );
    assert_eq!(
        ok(&["play", BEFORE_NO_MOVES, "a4>"], ""),
        "kiswahili S 0,1,1,0,0,0,0,0/1,1,1,1,1,1,1,1/1,12,0,1,4,7,4,0/3,1,3,5,6,0,1,6 0,0 -- -\n\
         result: N wins (no_legal_moves)\n"
    );
    // With no moves: the position itself and its state.
    assert_eq!(
        ok(&["play", AFTER_WINNING_CAPTURE], ""),
        format!("{AFTER_WINNING_CAPTURE}\nresult: S wins (front_row_empty)\n")
    );
}

/// RULES.md section 12: `A7<` then North's `a5<` from the Kiswahili start.
#[test]
fn play_reproduces_the_worked_example_of_section_12() {
    let out = ok(&["play", KISWAHILI_START, "A7<", "a5<"], "");
    assert_eq!(
        out,
        "kiswahili S 0,0,0,0,7,3,0,0/0,0,0,0,0,0,0,0/0,0,0,0,7,2,2,1/0,0,0,0,0,0,0,0 21,21 SN -\nresult: ongoing\n"
    );
    let position = out.lines().next().unwrap();
    let rows: Vec<&str> = position.split(' ').nth(2).unwrap().split('/').collect();
    assert_eq!(rows[0], "0,0,0,0,7,3,0,0", "South's front row A1..A8");
    assert_eq!(rows[2], "0,0,0,0,7,2,2,1", "North's front row a1..a8");
    assert_eq!(position.split(' ').nth(3), Some("21,21"), "hands");
    // The same game written with North's move in upper case (its own perspective).
    assert_eq!(ok(&["play", KISWAHILI_START, "A7<", "A5<"], ""), out);
}

#[test]
fn play_reads_position_tab_move_lines_from_stdin() {
    let input = format!(
        "{KISWAHILI_START}\tA7<\n\
         kiswahili N 0,0,0,1,7,3,0,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 21,22 SN -\ta5<\n\
         {WINNING_CAPTURE}\tA1>\n\
         {TAKASIA}\tA7>\n"
    );
    assert_eq!(
        ok(&["play"], &input),
        "kiswahili N 0,0,0,1,7,3,0,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 21,22 SN -\tongoing\n\
         kiswahili S 0,0,0,0,7,3,0,0/0,0,0,0,0,0,0,0/0,0,0,0,7,2,2,1/0,0,0,0,0,0,0,0 21,21 SN -\tongoing\n\
         kiswahili N 3,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,9 20,22 SN -\t\
         S wins (front_row_empty)\n\
         kiswahili S 0,0,2,0,1,1,0,0/6,6,6,6,6,6,5,5/0,1,1,3,0,0,0,1/2,0,2,0,2,0,2,0 0,0 -- -\tongoing\n"
    );
}

#[test]
fn perft_counts_sequences_and_agrees_with_legal_and_play() {
    assert_eq!(ok(&["perft", KISWAHILI_START, "0"], ""), "1\n");
    assert_eq!(ok(&["perft", KISWAHILI_START, "1"], ""), "4\n");
    let depth2: u64 = ok(&["perft", KISWAHILI_START, "2"], "").trim().parse().unwrap();
    assert_eq!(depth2, 14);

    // Cross-check: the sum over the start's moves of the number of replies.
    let moves = ok(&["legal", KISWAHILI_START], "");
    let moves: Vec<&str> = moves.split_whitespace().collect();
    assert_eq!(moves.len(), 4);
    let plays: String = moves.iter().map(|m| format!("{KISWAHILI_START}\t{m}\n")).collect();
    let played = ok(&["play"], &plays);
    let nexts: Vec<(&str, &str)> = played.lines().map(|l| l.split_once('\t').unwrap()).collect();
    let positions: String = nexts.iter().map(|(p, _)| format!("{p}\n")).collect();
    let replies = ok(&["legal"], &positions);
    let sum: u64 = replies
        .lines()
        .zip(&nexts)
        .map(
            |(line, (_, result))| {
                if *result == "ongoing" { line.split_whitespace().count() as u64 } else { 1 }
            },
        )
        .sum();
    assert_eq!(sum, depth2);

    // A finished position has no sequences of length 1 or more.
    assert_eq!(ok(&["perft", AFTER_WINNING_CAPTURE, "3"], ""), "0\n");
    assert_eq!(ok(&["perft", KUJIFUNZA_N, "1"], ""), "11\n");
}

#[test]
fn show_draws_the_board_from_both_sides() {
    let expected = "\
Position: kiswahili S 0,0,0,0,7,3,0,0/0,0,0,0,0,0,0,0/0,0,0,0,7,2,2,1/0,0,0,0,0,0,0,0 21,21 SN -
Variant:  kiswahili

           8    7    6    5    4    3    2    1   North's columns
North b    0    0    0    0    0    0    0    0
      a    1    2    2    7*   0    0    0    0
        ---------------------------------------
South A    0    0    0    0    7*   3    0    0
      B    0    0    0    0    0    0    0    0
           1    2    3    4    5    6    7    8   South's columns

North: 21 in hand, namua stage, owns nyumba a5
South: 21 in hand, namua stage, owns nyumba A5
Takasia: none
To move: South
Result:  ongoing
Marks:   * owned nyumba, ! under takasia
";
    assert_eq!(
        ok(
            &[
                "show",
                "kiswahili S 0,0,0,0,7,3,0,0/0,0,0,0,0,0,0,0/0,0,0,0,7,2,2,1/0,0,0,0,0,0,0,0 21,21 SN -"
            ],
            ""
        ),
        expected
    );

    let takasia = ok(&["show", TAKASIA], "");
    assert!(takasia.contains("\nNorth b    1    1    1    1    1    1    1    1\n"), "{takasia}");
    assert!(takasia.contains("\n      a    0    2    0    0    2!   0    0    2\n"), "{takasia}");
    assert!(takasia.contains("\nSouth A    0    0    2    0    1    1    0    0\n"), "{takasia}");
    assert!(takasia.contains("\n      B    6    6    6    6    6    6    5    5\n"), "{takasia}");
    assert!(takasia.contains("\nNorth: 0 in hand, mtaji stage, no nyumba\n"), "{takasia}");
    assert!(takasia.contains("\nTakasia: a4 (North may not lift it this move)\n"), "{takasia}");
    assert!(takasia.contains("\nTo move: North\n"), "{takasia}");

    let over = ok(&["show", AFTER_WINNING_CAPTURE], "");
    assert!(over.contains("\nResult:  S wins (front_row_empty) (game over)\n"), "{over}");

    // Three-digit counts keep the columns aligned.
    let big = ok(
        &[
            "show",
            "kujifunza S 100,0,0,0,0,0,0,7/10,0,0,0,0,0,0,0/9,0,0,0,0,0,0,99/0,0,0,0,0,0,0,20 0,0 -- -",
        ],
        "",
    );
    assert!(big.contains("\n      a   99    0    0    0    0    0    0    9\n"), "{big}");
    assert!(big.contains("\nSouth A  100    0    0    0    0    0    0    7\n"), "{big}");
}

#[test]
fn illegal_moves_exit_1_and_say_why() {
    let run = fails(1, &["play", KISWAHILI_START, "A7<", "A6<"], "");
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("move 2 of 2 (A6<) is illegal"), "{}", run.stderr);
    assert!(run.stderr.contains("A6<: captures are mandatory"), "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "position: kiswahili N 0,0,0,1,7,3,0,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 21,22 SN -"
        ),
        "{}",
        run.stderr
    );

    let run = fails(1, &["play", TAKASIA, "a4<"], "");
    assert!(run.stderr.contains("pit A4 is under takasia"), "{}", run.stderr);
    let run = fails(1, &["play", KISWAHILI_START, "a7<"], "");
    assert!(run.stderr.contains("lower-case row is accepted only for North"), "{}", run.stderr);
    let run = fails(1, &["play", KISWAHILI_START, "B1>"], "");
    assert!(run.stderr.contains("in namua the seed from hand goes into a front pit"), "{}", run.stderr);
    let run = fails(1, &["play", AFTER_WINNING_CAPTURE, "A1>"], "");
    assert!(run.stderr.contains("the game is over (S wins (front_row_empty))"), "{}", run.stderr);
    let run = fails(1, &["play", SAFARI, "A2<+"], "");
    assert!(run.stderr.contains("A2<"), "{}", run.stderr);
}

#[test]
fn malformed_input_exits_2_and_names_the_field() {
    let short_row = "kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0 22,22 SN -";
    for args in [
        &["legal", short_row][..],
        &["play", short_row, "A7<"],
        &["perft", short_row, "1"],
        &["show", short_row],
    ] {
        let run = fails(2, args, "");
        assert!(run.stderr.contains("field 3 (rows): row b has 7 counts, expected 8"), "{}", run.stderr);
    }
    let cases: &[(&[&str], &str)] = &[
        (&["start", "chess"], "unknown variant \"chess\""),
        (&["legal", "kiswahili"], "expected 6 fields"),
        (
            &[
                "legal",
                "kiswahili X 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 SN -",
            ],
            "field 2 (to-move)",
        ),
        (
            &["legal", "kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22 SN -"],
            "field 4 (hands)",
        ),
        (
            &[
                "legal",
                "kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 NS -",
            ],
            "field 5 (nyumba)",
        ),
        (
            &[
                "legal",
                "kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 SN A9",
            ],
            "field 6 (takasia)",
        ),
        (
            &[
                "legal",
                "kiswahili S 0,0,0,0,256,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 SN -",
            ],
            "more than 255",
        ),
        (
            &[
                "legal",
                "kujifunza S 2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2 1,0 -- -",
            ],
            "field 4 (hands)",
        ),
        (&["play", KISWAHILI_START, "A7<", "X5<"], "move 2 of 2: bad move \"X5<\": bad row 'X'"),
        (&["play", KISWAHILI_START, "A9<"], "bad column"),
        (&["play", KISWAHILI_START, "A7"], "bad direction"),
        (&["play", KISWAHILI_START, "A7<<"], "unexpected text"),
        (&["play", KISWAHILI_START, ""], "empty move"),
        (&["perft", KISWAHILI_START, "two"], "bad depth \"two\""),
        (&["perft", KISWAHILI_START, "-1"], "bad depth \"-1\""),
        (&["perft", KISWAHILI_START, "99999999999"], "bad depth"),
        (
            &["show", "kiswahili S 0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,1 0,0 -- -"],
            "both front rows are empty",
        ),
    ];
    for (args, needle) in cases {
        let run = fails(2, args, "");
        assert!(run.stderr.contains(needle), "rules {args:?}: {:?} not in {}", needle, run.stderr);
    }
    // A position split by the shell gets a hint.
    let run = fails(2, &["legal", "kiswahili", "S"], "");
    assert!(run.stderr.contains("unexpected argument"), "{}", run.stderr);
    let run = fails(
        2,
        &["play", "kiswahili", "S", "0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0"],
        "",
    );
    assert!(run.stderr.contains("in quotes"), "{}", run.stderr);
}

/// The batch modes stop at the first bad line; earlier answers stay printed.
#[test]
fn batch_modes_stop_at_the_first_bad_line_and_name_it() {
    let input = format!("{KISWAHILI_START}\n{TAKASIA}\nnot a position\n{SAFARI}\n");
    let run = fails(2, &["legal"], &input);
    assert_eq!(run.stdout, "A6< A6> A7< A7>\nA1< A1> A7< A7>\n");
    assert!(
        run.stderr.starts_with("error: line 3: bad position \"not a position\": position: expected 6 fields")
    );

    let run = fails(2, &["legal"], &format!("{KISWAHILI_START}\n\n"));
    assert!(run.stderr.starts_with("error: line 2: bad position \"\""), "{}", run.stderr);

    let input = format!("{KISWAHILI_START}\tA7<\n{KISWAHILI_START}\tA5<\n{KISWAHILI_START}\tA6<\n");
    let run = fails(1, &["play"], &input);
    assert_eq!(
        run.stdout,
        "kiswahili N 0,0,0,1,7,3,0,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 21,22 SN -\tongoing\n"
    );
    assert!(run.stderr.starts_with("error: line 2: move A5< is illegal: A5<: "), "{}", run.stderr);
    assert!(run.stderr.contains(&format!("position: {KISWAHILI_START}")), "{}", run.stderr);

    let cases = [
        (format!("{KISWAHILI_START} A7<\n"), "line 1: expected POSITION<TAB>MOVE, found no tab"),
        (
            format!("{KISWAHILI_START}\tA7<\n{KISWAHILI_START}\tA7<\tA6<\n"),
            "line 2: expected POSITION<TAB>MOVE, found more than one tab",
        ),
        (format!("{KISWAHILI_START}\tZ7<\n"), "line 1: bad move \"Z7<\""),
        ("kiswahili\tA7<\n".to_owned(), "line 1: bad position \"kiswahili\""),
    ];
    for (input, needle) in &cases {
        let run = fails(2, &["play"], input);
        assert!(run.stderr.starts_with(&format!("error: {needle}")), "{needle:?} vs {}", run.stderr);
    }

    // Input that is not UTF-8 is malformed, not a crash.
    let mut child = Command::new(bin("bao-referee"))
        .args(["rules", "legal"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"\xff\xfe\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "error: line 1: not valid UTF-8\n");
}

/// Every line of the in-repo random Kiswahili games, through both batch modes.
#[test]
fn batch_modes_agree_with_the_random_games() {
    let data = std::fs::read_to_string(workspace_root().join("rules/tests/data/random-kiswahili.jsonl"))
        .expect("read rules/tests/data/random-kiswahili.jsonl");
    let cases: Vec<serde_json::Value> = data.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(cases.len() > 1000);
    let field = |case: &serde_json::Value, name: &str| case[name].as_str().unwrap().to_owned();

    let positions: String = cases.iter().map(|c| format!("{}\n", field(c, "position"))).collect();
    let expected_legal: String = cases
        .iter()
        .map(|c| {
            let moves: Vec<&str> =
                c["legal"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
            format!("{}\n", moves.join(" "))
        })
        .collect();
    assert_eq!(ok(&["legal"], &positions), expected_legal);

    let plays: String =
        cases.iter().map(|c| format!("{}\t{}\n", field(c, "position"), field(c, "move"))).collect();
    let expected_play: String =
        cases.iter().map(|c| format!("{}\t{}\n", field(c, "next"), field(c, "result"))).collect();
    assert_eq!(ok(&["play"], &plays), expected_play);
}

/// A program can ask one line at a time: each answer arrives before the next
/// question is written (the output is flushed whenever the input runs dry).
#[test]
fn batch_mode_answers_each_line_before_the_next_arrives() {
    use std::io::{BufRead, BufReader};
    use std::sync::mpsc;
    use std::time::Duration;

    let mut child = Command::new(bin("bao-referee"))
        .args(["rules", "legal"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    for (question, answer) in [(KISWAHILI_START, "A6< A6> A7< A7>"), (TAKASIA, "A1< A1> A7< A7>")] {
        writeln!(stdin, "{question}").unwrap();
        stdin.flush().unwrap();
        let got = rx.recv_timeout(Duration::from_secs(20)).expect("an answer while stdin stays open");
        assert_eq!(got, answer);
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
}
