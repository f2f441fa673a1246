//! PROTOCOL.md's own examples are true (issue 14: the page stands alone, so what it shows
//! must be what the referee does): its minimal Python bot passes every check, and its
//! worked North-to-move request has the legal moves, rows and board the rules engine gives.

use std::process::{Command, Output};

use serde_json::Value;

use crate::support::{Scratch, bin, have_python3, workspace_root};

fn protocol_md() -> String {
    std::fs::read_to_string(workspace_root().join("PROTOCOL.md")).expect("PROTOCOL.md")
}

/// The first block fenced as ```LANG after the heading that starts with `heading`.
fn block_after(doc: &str, heading: &str, lang: &str) -> String {
    let section = doc.split(heading).nth(1).unwrap_or_else(|| panic!("PROTOCOL.md has no {heading:?}"));
    let fence = format!("```{lang}\n");
    let body = section.split(&fence).nth(1).unwrap_or_else(|| panic!("no ```{lang} block after {heading:?}"));
    body.split("```").next().expect("a closed block").to_owned()
}

fn referee(args: &[&str]) -> Output {
    Command::new(bin("bao-referee")).args(args).output().expect("the referee runs")
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_minimal_python_bot_of_protocol_md_passes_every_check() {
    if !have_python3("the_minimal_python_bot_of_protocol_md_passes_every_check") {
        return;
    }
    let code = block_after(&protocol_md(), "## A minimal bot in Python", "python");
    let file = Scratch::new("protocol-doc", "minimal.py");
    std::fs::write(&file, code).unwrap();
    let out = referee(&["check", &format!("python3 {}", file.display())]);
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out), String::from_utf8_lossy(&out.stderr));
    assert!(text(&out).contains("All 18 checks passed."), "{}", text(&out));
}

#[test]
fn the_worked_north_request_is_what_the_rules_give() {
    let doc = protocol_md();
    let heading = "## A worked `move_request`, North to move";
    let request: Value =
        serde_json::from_str(&block_after(&doc, heading, "json")).expect("the request is JSON");
    let position = &request["position"];
    let notation = position["notation"].as_str().unwrap();
    assert_eq!(position["to_move"], "N");
    // Its legal moves are the engine's, in North's own perspective.
    let legal = text(&referee(&["rules", "legal", notation]));
    let documented: Vec<&str> =
        request["legal"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    assert_eq!(legal.split_whitespace().collect::<Vec<_>>(), documented);
    // `rows` repeats the notation's rows, in absolute order A, B, a, b.
    let rows_field = notation.split(' ').nth(2).unwrap();
    for (key, row) in ["A", "B", "a", "b"].into_iter().zip(rows_field.split('/')) {
        let seeds: Vec<u64> = row.split(',').map(|n| n.parse().unwrap()).collect();
        let listed: Vec<u64> =
            position["rows"][key].as_array().unwrap().iter().map(|n| n.as_u64().unwrap()).collect();
        assert_eq!(listed, seeds, "rows.{key}");
    }
    assert_eq!(position["takasia"], notation.rsplit(' ').next().unwrap());
    // The board drawn on the page is `rules show`'s.
    let board = block_after(&doc, heading, "text");
    let shown = text(&referee(&["rules", "show", notation]));
    assert!(shown.contains(board.trim_end()), "PROTOCOL.md draws\n{board}\nbut rules show prints\n{shown}");
    // The ply numbering the page explains: request ply 69 is answered by log ply 70.
    assert_eq!(request["ply"], 69);
    assert!(doc.contains("North's answer is logged as **ply 70**"));
}

#[test]
fn the_first_request_of_the_protocol_page_is_the_start() {
    let doc = protocol_md();
    let request: Value =
        serde_json::from_str(&block_after(&doc, "### `move_request`", "json")).expect("the request is JSON");
    let notation = request["position"]["notation"].as_str().unwrap();
    let start = text(&referee(&["rules", "start", "kiswahili"]));
    assert_eq!(notation, start.trim());
    let legal = text(&referee(&["rules", "legal", notation]));
    let documented: Vec<&str> =
        request["legal"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    assert_eq!(legal.split_whitespace().collect::<Vec<_>>(), documented);
    assert_eq!(request["ply"], 0);
    assert_eq!(request["id"], 1);
}
