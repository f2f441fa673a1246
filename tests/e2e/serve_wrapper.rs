//! `bao-referee serve` and `bao-referee submit`, the referee's own subcommands over the
//! competition server: an arena made with `serve user add`, bots submitted with `submit`,
//! seen on the API, tokens revoked and reissued with `serve user revoke|token`, a graceful stop on SIGTERM, and `serve export` writing logs that
//! `bao-referee verify` accepts.

use std::process::Command;

use crate::serve_support::{QUICK, Served, TestArena, script, wait_for};
use crate::support::bin;

#[test]
fn serve_submit_sigterm_and_export_through_the_referee_cli() {
    let arena = TestArena::new("serve-cli", "alice", QUICK);
    let server = Served::start(&arena);
    let (status, me) = server.get_json("/api/me", Some(&arena.token));
    assert_eq!((status, me["name"].as_str()), (200, Some("alice")), "{me}");

    // Two bots: the referee's built-in random bot as an executable, the Python sample bot as source.
    let referee = bin("bao-referee").display().to_string();
    let random = script(arena.path("random.sh"), &format!("'{referee}' sample-bot random"));
    let python = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../sample-bots/python/random_bot.py");
    let a = server.submit(&arena.token, "cli-random", &random, "executable");
    let b = server.submit(&arena.token, "cli-python", &python, "python");
    for v in [&a, &b] {
        assert_eq!(v["number"], 1, "{v}");
        assert_eq!(v["state"], "queued", "a new version starts queued: {v}");
    }
    let (a, b) = (a["id"].as_i64().expect("id"), b["id"].as_i64().expect("id"));
    for id in [a, b] {
        let v = server.settled(id, &arena.token, 240);
        assert_eq!(v["state"], "active", "version {id}: {v}\nlog:\n{}", server.log());
    }

    // Both appear in the API: the bot list, the leaderboard, and games between them.
    let (_, bots) = server.get_json("/api/bots", None);
    let names: Vec<&str> =
        bots.as_array().expect("a list").iter().filter_map(|b| b["name"].as_str()).collect();
    assert!(names.contains(&"cli-random") && names.contains(&"cli-python"), "{bots}");
    let finished = wait_for(240, "4 finished games", || {
        let (_, games) = server.get_json("/api/games?state=finished", None);
        let games = games.as_array().cloned().unwrap_or_default();
        (games.len() >= 4).then_some(games.len())
    });
    wait_for(60, "both bots rated on the leaderboard", || {
        let (_, board) = server.get_json("/api/leaderboard", None);
        let rows = board.as_array().cloned().unwrap_or_default();
        let rated = rows.iter().filter(|r| r["games"].as_i64().unwrap_or(0) > 0).count();
        (rows.len() == 2 && rated == 2).then_some(())
    });

    // `serve user revoke` ends the token at once (the server is running); `serve user token` gives a new one.
    let cli = |args: &[&str]| {
        let out = Command::new(bin("bao-referee"))
            .args(["serve", "--data"])
            .arg(arena.data())
            .args(args)
            .output()
            .expect("bao-referee serve user runs");
        assert!(out.status.success(), "serve {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    assert_eq!(cli(&["user", "revoke", "alice"]), "revoked 1 tokens and 0 sessions of alice");
    let (status, refused) = server.get_json("/api/me", Some(&arena.token));
    assert_eq!(status, 401, "a revoked token is refused: {refused}");
    let fresh = cli(&["user", "token", "alice"]);
    assert_eq!(fresh.len(), 64, "{fresh:?}");
    let (status, me) = server.get_json("/api/me", Some(&fresh));
    assert_eq!((status, me["name"].as_str()), (200, Some("alice")), "{me}");

    // SIGTERM: a graceful stop with exit status 130 (README, "Exit codes"); the games that were
    // running are aborted, not lost.
    let status = server.terminate();
    assert_eq!(status.code(), Some(130), "serve exits 130 on SIGTERM: {status:?}");

    // `serve export DIR` writes every finished game's log; each one verifies.
    let out = arena.path("export");
    let export = Command::new(bin("bao-referee"))
        .args(["serve", "--data"])
        .arg(arena.data())
        .arg("export")
        .arg(&out)
        .output()
        .expect("serve export runs");
    let said = String::from_utf8_lossy(&export.stdout);
    assert!(export.status.success(), "export failed: {said}{}", String::from_utf8_lossy(&export.stderr));
    assert!(said.starts_with("exported ") && said.contains(" games and 2 standings"), "{said}");
    let logs: Vec<_> = std::fs::read_dir(out.join("games"))
        .expect("export/games")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    assert!(logs.len() >= finished, "{} logs exported, {finished} games seen finished", logs.len());
    for log in &logs {
        let verify = Command::new(bin("bao-referee")).arg("verify").arg(log).output().expect("verify runs");
        assert!(
            verify.status.success(),
            "{} does not verify: {}{}",
            log.display(),
            String::from_utf8_lossy(&verify.stdout),
            String::from_utf8_lossy(&verify.stderr)
        );
    }
    let standings: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("standings.json")).expect("standings.json"))
            .expect("standings.json is JSON");
    assert_eq!(standings.as_array().map(Vec::len), Some(2), "{standings}");
}
