//! Candidate evaluation: a clearly stronger candidate passes its SPRT against
//! its owner's active version and is promoted automatically.

use crate::support::{Arena, FAST, Server, bot_script, get, post, settle, submit, wait_for};

/// Submits `first` as the active version of `bot`, then `second` as a candidate; returns their ids.
fn candidate_of(
    server: &Server,
    token: &str,
    bot: &str,
    first: &str,
    second: &str,
    auto: bool,
) -> (i64, i64) {
    let v1 = submit(server, token, bot, "executable", "a.sh", &bot_script(first), "");
    let v1 = v1.json()["id"].as_i64().expect("id");
    assert_eq!(settle(server, v1, 120), "active");
    let extra = if auto { "&candidate=true&auto_promote=true" } else { "&candidate=true" };
    let v2 = submit(server, token, bot, "executable", "b.sh", &bot_script(second), extra);
    assert_eq!(v2.status, 201, "{}", v2.body);
    let v2 = v2.json()["id"].as_i64().expect("id");
    assert_eq!(settle(server, v2, 120), "evaluating");
    (v1, v2)
}

pub fn candidate_evaluation_reaches_a_verdict() {
    let arena = Arena::new(&["admin", "dana", "erin"], FAST);
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
    // The leaderboard is a snapshot rebuilt in the background within moments of a change.
    wait_for(30, "the promoted version on the leaderboard", || {
        let board = get(&format!("{}/api/leaderboard", server.url), None, None).json();
        (board[0]["version_id"] == v2).then_some(())
    });

    // Without auto_promote: H1 is reported, and only the owner may promote.
    let (w1, w2) = candidate_of(&server, dana, "hopeful", "random", "greedy", false);
    let v = wait_for(600, "the second SPRT verdict", || {
        let v = get(&format!("{}/api/versions/{w2}", server.url), None, None).json();
        (v["sprt_result"] == "h1").then_some(v)
    });
    assert_eq!(v["state"], "evaluating", "waits for its owner: {v}");
    assert!(v["reason"].as_str().unwrap_or("").contains("promote"), "{v}");
    let promote = format!("{}/api/versions/{w2}/promote", server.url);
    let erin = post(&promote, &[("Authorization", &format!("Bearer {}", arena.tokens[2]))], b"");
    assert_eq!(erin.status, 403, "{}", erin.body);
    let ok = post(&promote, &[("Authorization", &format!("Bearer {dana}"))], b"");
    assert_eq!(ok.status, 200, "{}", ok.body);
    assert_eq!(ok.json()["state"], "active");
    assert_eq!(get(&format!("{}/api/versions/{w1}", server.url), None, None).json()["state"], "retired");
    let again = post(&promote, &[("Authorization", &format!("Bearer {dana}"))], b"");
    assert_eq!(again.status, 400, "{}", again.body);

    // A weaker candidate: H0, rejected with the reason; the active version stays.
    let (x1, x2) = candidate_of(&server, &arena.tokens[2], "steady", "greedy", "random", true);
    // Its page, open in a browser while it is tested, shows the verdict as it comes, in place.
    if crate::browser::driver_installed() {
        let page = crate::browser::driver(&[
            "wait",
            &format!("{}/versions/{x2}", server.url),
            "document.getElementById('verdict') !== null",
            "600000",
        ]);
        assert_eq!(page["navigations"], 1, "no reload: {page}");
        assert!(page["text"].as_str().is_some_and(|t| t.contains("Verdict: not better")), "{page}");
    } else {
        assert!(
            std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"),
            "BAO_REQUIRE_ALL=1 but chromium, node or playwright-core is missing (npm ci --prefix viewer/browser-tests)"
        );
        eprintln!(
            "skipped the verdict in a browser: needs chromium, node and playwright-core (npm ci --prefix viewer/browser-tests)"
        );
    }
    let v = wait_for(600, "the third SPRT verdict", || {
        let v = get(&format!("{}/api/versions/{x2}", server.url), None, None).json();
        (v["state"] != "evaluating").then_some(v)
    });
    assert_eq!(v["state"], "rejected", "{v}");
    assert!(v["reason"].as_str().unwrap_or("").contains("not better"), "{v}");
    assert_eq!(get(&format!("{}/api/versions/{x1}", server.url), None, None).json()["state"], "active");
}
