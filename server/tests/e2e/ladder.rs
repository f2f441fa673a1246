//! The ladder from submission to standings, a crash in the middle of games,
//! and the export.

use std::collections::HashMap;

use serde_json::Value;

use crate::support::{Arena, FAST, Server, bot_script, get, settle, submit, wait_for};

fn finished_games(server: &Server) -> Vec<Value> {
    let mut all = Vec::new();
    let mut before = String::new();
    loop {
        let page =
            get(&format!("{}/api/games?state=finished&limit=1000{before}", server.url), None, None).json();
        let page = page.as_array().cloned().unwrap_or_default();
        let Some(last) = page.last() else { break };
        before = format!("&before={}", last["id"]);
        all.extend(page);
    }
    all
}

fn running_games(server: &Server) -> usize {
    get(&format!("{}/api/games?state=running", server.url), None, None).json().as_array().map_or(0, Vec::len)
}

pub fn ladder_survives_kill_9_and_exports() {
    let arena = Arena::new(&["admin", "alice", "bob", "carol"], FAST);
    let data = arena.data();
    let server = Server::start(&data);
    let (alice, bob, carol) = (&arena.tokens[1], &arena.tokens[2], &arena.tokens[3]);
    // Two good bots as executables, one good Python bot, one that fails to build,
    // one that builds but fails the conformance gate.
    let python_bot =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../sample-bots/python/random_bot.py"))
            .expect("the Python sample bot");
    let subs = [
        submit(&server, alice, "greedy", "executable", "greedy.sh", &bot_script("greedy"), ""),
        submit(&server, bob, "random", "executable", "random.sh", &bot_script("random"), ""),
        submit(&server, carol, "pyrandom", "python", "random_bot.py", &python_bot, ""),
        submit(&server, carol, "broken", "python", "broken.py", b"def f(:\n", ""),
        submit(&server, bob, "mute", "python", "mute.py", b"import sys\nsys.stdin.read()\n", ""),
    ];
    let ids: Vec<i64> = subs
        .iter()
        .map(|a| {
            assert_eq!(a.status, 201, "{}", a.body);
            a.json()["id"].as_i64().expect("id")
        })
        .collect();
    let states: Vec<String> = ids.iter().map(|&id| settle(&server, id, 240)).collect();
    assert_eq!(states, ["active", "active", "active", "rejected", "rejected"]);
    let broken = get(&format!("{}/api/versions/{}", server.url, ids[3]), Some(carol), None).json();
    assert!(broken["reason"].as_str().unwrap_or("").contains("build failed"), "{broken}");
    assert!(broken["build_log"].as_str().unwrap_or("").contains("SyntaxError"), "{broken}");
    let mute = get(&format!("{}/api/versions/{}", server.url, ids[4]), Some(bob), None).json();
    assert!(mute["reason"].as_str().unwrap_or("").contains("conformance"), "{mute}");
    assert!(mute["check_report"].as_str().unwrap_or("").contains("FAIL"), "{mute}");

    // Games are played, in colour-swapped pairs from shared openings.
    wait_for(300, "30 finished games and one running", || {
        (finished_games(&server).len() >= 30 && running_games(&server) > 0).then_some(())
    });
    let before = finished_games(&server);
    let mut pairs: HashMap<String, Vec<&Value>> = HashMap::new();
    for g in &before {
        pairs.entry(g["pair_key"].as_str().expect("key").to_owned()).or_default().push(g);
    }
    let complete = pairs.values().filter(|p| p.len() == 2).count();
    assert!(complete >= 10, "{complete} complete pairs");
    for p in pairs.values().filter(|p| p.len() == 2) {
        assert_eq!(p[0]["south"]["version_id"], p[1]["north"]["version_id"], "colours swapped");
        assert_eq!(p[0]["opening_seed"], p[1]["opening_seed"], "same opening");
    }
    // Every pair of active bots met.
    for (a, b) in [(ids[0], ids[1]), (ids[0], ids[2]), (ids[1], ids[2])] {
        assert!(
            before.iter().any(|g| {
                let (s, n) = (g["south"]["version_id"].as_i64(), g["north"]["version_id"].as_i64());
                (s == Some(a) && n == Some(b)) || (s == Some(b) && n == Some(a))
            }),
            "versions {a} and {b} never met"
        );
    }

    // kill -9 during a game, then restart. The game seen running may end in the moment
    // before the kill lands (games here last a fraction of a second): it is then finished,
    // and the kill is tried again, up to five times, until one lands in a game.
    let mut server = server;
    let mut aborted = Vec::new();
    for _ in 0..5 {
        let running = wait_for(60, "a running game to kill the server in", || {
            let running = get(&format!("{}/api/games?state=running", server.url), None, None).json();
            running.as_array()?.first()?["id"].as_i64()
        });
        server.kill9();
        server = Server::start(&data);
        let list = get(&format!("{}/api/games?state=aborted", server.url), None, None).json();
        aborted = list.as_array().cloned().unwrap_or_default();
        if aborted.iter().any(|g| g["id"].as_i64() == Some(running)) {
            break;
        }
        let finished: Vec<i64> = finished_games(&server).iter().filter_map(|g| g["id"].as_i64()).collect();
        assert!(
            finished.contains(&running),
            "game {running}, running at the kill, is neither aborted nor finished"
        );
    }
    let after_restart = finished_games(&server);
    let by_id: HashMap<i64, &Value> =
        after_restart.iter().map(|g| (g["id"].as_i64().expect("id"), g)).collect();
    assert!(after_restart.len() >= before.len());
    for g in &before {
        let again = by_id.get(&g["id"].as_i64().expect("id")).expect("a finished game survives the kill");
        assert_eq!(again["result"], g["result"], "same result");
    }
    assert!(!aborted.is_empty(), "in five kills, one landed in a game, recorded as aborted");
    assert!(aborted[0]["reason"].as_str().unwrap_or("").contains("stopped"), "{}", aborted[0]);
    // The ladder goes on.
    let n = after_restart.len();
    wait_for(120, "more games after the restart", || (finished_games(&server).len() >= n + 4).then_some(()));

    // Stop gracefully, then every finished game is counted exactly once in the standings.
    let status = server.terminate();
    assert_eq!(status.code(), Some(130), "{status}");
    let server = Server::start(&data);
    let games = finished_games(&server);
    let board = wait_for(30, "the standings to count every game", || {
        let board = get(&format!("{}/api/leaderboard", server.url), None, None).json();
        let counted: i64 = board.as_array()?.iter().map(|s| s["games"].as_i64().unwrap_or(0)).sum();
        (counted == 2 * i64::try_from(games.len()).ok()? || running_games(&server) > 0 && counted > 0)
            .then_some(board)
    });
    let rows = board.as_array().expect("rows");
    assert_eq!(rows.len(), 3, "{board}");
    assert_eq!(rows[0]["bot"], "greedy", "the greedy bot leads: {board}");
    for r in rows {
        assert!(
            r["rating_low"].as_f64() < r["rating"].as_f64()
                && r["rating"].as_f64() < r["rating_high"].as_f64()
        );
        let wld = r["wins"].as_i64().unwrap_or(0)
            + r["losses"].as_i64().unwrap_or(0)
            + r["draws"].as_i64().unwrap_or(0);
        assert_eq!(wld, r["games"].as_i64().unwrap_or(-1));
    }
    // Every log verifies, and the game page and the log download work.
    for g in &games {
        let id = g["id"].as_i64().expect("id");
        let text = std::fs::read_to_string(data.join("games").join(format!("{id}.jsonl"))).expect("log");
        bao_game::verify::verify_log(&text).unwrap_or_else(|e| panic!("game {id} does not verify: {e}"));
    }
    let id = games[0]["id"].as_i64().expect("id");
    let log = get(&format!("{}/api/games/{id}/log", server.url), None, None);
    assert_eq!(log.status, 200);
    assert!(log.body.starts_with("{\"type\":\"header\""), "{}", &log.body[..100.min(log.body.len())]);
    let page = get(&format!("{}/games/{id}", server.url), None, None);
    assert!(page.body.contains("Download the game log"), "{}", page.body);
    let replay = get(&format!("{}/games/{id}/replay", server.url), None, None);
    assert_eq!(replay.status, 200, "{}", replay.body);
    assert!(replay.body.contains("<script"), "the viewer's replay page");
    let bot_page = get(&format!("{}/bots/greedy", server.url), None, None);
    assert!(bot_page.body.contains("Head to head") && bot_page.body.contains("random"), "{}", bot_page.body);
    let live = get(&format!("{}/live", server.url), None, None);
    assert_eq!(live.status, 200);
    drop(server);

    // The export: every finished game's log (verifiable) and the standings.
    let out = arena.dir.path().join("export");
    let run = crate::support::server_command()
        .args(["serve", "--data"])
        .arg(&data)
        .arg("export")
        .arg(&out)
        .output()
        .expect("export runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let exported: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(out.join("games.json")).expect("games.json"))
            .expect("json");
    assert!(exported.len() >= games.len());
    let standings: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("standings.json")).expect("standings"))
            .expect("json");
    assert_eq!(standings.as_array().map(Vec::len), Some(3));
    for g in &exported {
        let text =
            std::fs::read_to_string(out.join("games").join(format!("{}.jsonl", g["id"]))).expect("log");
        bao_game::verify::verify_log(&text).expect("an exported log verifies");
    }
}
