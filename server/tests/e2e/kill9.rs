//! A `kill -9` of the server during a build and during a game: no process of the
//! sandbox (a `setsid` daemon included) is left once the server has started again.

use crate::attack::{processes_with, wait_until_gone, zip_of};
use crate::support::{
    Arena, FAST, SCRIPT_LANGUAGE, Server, bot_script, get, settle, submit, test_exe, wait_for,
};

fn edit_config(arena: &Arena, from: &str, to: &str) {
    let path = arena.data().join("arena.toml");
    let text = std::fs::read_to_string(&path).expect("arena.toml");
    assert!(text.contains(from), "arena.toml has no {from:?}");
    std::fs::write(&path, text.replace(from, to)).expect("write arena.toml");
}

pub fn kill_9_leaves_no_sandbox_process() {
    let marker = format!("{:016x}", rand::random::<u64>());
    let mut edits = FAST.to_vec();
    edits.push(("name = \"executable\"", SCRIPT_LANGUAGE));
    let arena = Arena::new(&["admin", "eve"], &edits);
    let t = &arena.tokens[1];

    // During a build: a daemon and a build that never ends.
    let server = Server::start(&arena.data());
    let build = format!(
        "setsid sh -c 'while :; do sleep 1; done' k9-{marker}-build </dev/null >/dev/null 2>&1 &\n\
         sh -c 'sleep 1000; :' k9-{marker}-build\n"
    );
    let zip = zip_of(&[("bot.sh", b"exit 1\n"), ("build.sh", build.as_bytes())]);
    let a = submit(&server, t, "builder", "script", "b.zip", &zip, "");
    assert_eq!(a.status, 201, "{}", a.body);
    let build_marker = format!("k9-{marker}-build");
    wait_for(60, "the build's processes", || (processes_with(&build_marker) >= 2).then_some(()));
    server.kill9();
    // The version is queued again at the next start: its build must not start the
    // daemon again, so the language's build becomes a failure.
    edit_config(&arena, "build = \"sh ./build.sh\"", "build = \"exit 1\"");
    let server = Server::start(&arena.data());
    assert_eq!(wait_until_gone(&build_marker, 5), 0, "a process of the killed server's build is left");
    drop(server);

    // During a game: two bots, one of which leaves a daemon.
    let server = Server::start(&arena.data());
    let daemon = format!(
        "#!/bin/sh\nsetsid sh -c 'while :; do sleep 1; done' k9-{marker}-game </dev/null >/dev/null 2>&1 &\n\
         exec '{}' --bot slow\n",
        test_exe().display()
    );
    let ids: Vec<i64> = [("daemon", daemon.into_bytes()), ("plain", bot_script("slow"))]
        .iter()
        .map(|(bot, body)| {
            let a = submit(&server, t, bot, "executable", "b.sh", body, "");
            assert_eq!(a.status, 201, "{}", a.body);
            a.json()["id"].as_i64().expect("id")
        })
        .collect();
    for id in &ids {
        assert_eq!(settle(&server, *id, 120), "active");
    }
    let game_marker = format!("k9-{marker}-game");
    wait_for(120, "a running game with the daemon", || {
        let running = get(&format!("{}/api/games?bot=daemon&state=running", server.url), None, None).json();
        let playing = running.as_array().is_some_and(|g| !g.is_empty());
        (playing && processes_with(&game_marker) > 0).then_some(())
    });
    server.kill9();
    // No game at the next start: what is left is the killed server's.
    edit_config(&arena, "\n# concurrency = 1\n", "\nconcurrency = 0\n");
    let server = Server::start(&arena.data());
    assert_eq!(wait_until_gone(&game_marker, 5), 0, "a process of the killed server's game is left");
    drop(server);
}
