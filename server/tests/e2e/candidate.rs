//! Candidate evaluation: a clearly stronger candidate passes its SPRT against
//! its owner's active version and is promoted automatically.

use crate::support::{Arena, FAST, Server, bot_script, get, settle, submit, wait_for};

pub fn candidate_evaluation_reaches_a_verdict() {
    let arena = Arena::new(&["admin", "dana"], FAST);
    let server = Server::start(&arena.data());
    let dana = &arena.tokens[1];
    let v1 = submit(&server, dana, "climber", "executable", "r.sh", &bot_script("random"), "");
    let v1 = v1.json()["id"].as_i64().expect("id");
    assert_eq!(settle(&server, v1, 120), "active");
    let v2 = submit(
        &server,
        dana,
        "climber",
        "executable",
        "g.sh",
        &bot_script("greedy"),
        "&candidate=true&auto_promote=true",
    );
    assert_eq!(v2.status, 201, "{}", v2.body);
    let v2 = v2.json();
    assert_eq!(v2["candidate"], true);
    assert_eq!(v2["baseline_id"], v1);
    let v2 = v2["id"].as_i64().expect("id");
    assert_eq!(settle(&server, v2, 120), "evaluating");
    let verdict = wait_for(600, "the SPRT verdict", || {
        let v = get(&format!("{}/api/versions/{v2}", server.url), None, None).json();
        (v["state"] != "evaluating").then_some(v)
    });
    assert_eq!(verdict["state"], "active", "{verdict}");
    let reason = verdict["reason"].as_str().unwrap_or("");
    assert!(reason.contains("H1") && reason.contains("promoted"), "{reason}");
    assert!(verdict["sprt_llr"].as_f64().is_some_and(|l| l > 2.0), "{verdict}");
    assert_eq!(get(&format!("{}/api/versions/{v1}", server.url), None, None).json()["state"], "retired");
    let page = get(&format!("{}/versions/{v2}", server.url), None, None);
    assert!(page.body.contains("SPRT log-likelihood ratio"), "{}", page.body);
    // Candidate games are not ladder games.
    let board = get(&format!("{}/api/leaderboard", server.url), None, None).json();
    assert_eq!(board[0]["version_id"], v2);
}
