//! The pages in a real browser (headless Chromium): the leaderboard, a bot
//! page, a game page, and the live page of a running game, whose moves arrive
//! by server-sent events. Screenshots go to target/browser-screenshots/.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::support::{Arena, FAST, Server, bot_script, get, settle, submit, wait_for};

const CHROMIUM: &str = "/usr/bin/chromium";

fn chromium(profile: &Path, args: &[&str]) -> String {
    let out = Command::new(std::env::var("BAO_CHROMIUM").unwrap_or_else(|_| CHROMIUM.into()))
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .output()
        .expect("chromium runs");
    assert!(out.status.success(), "chromium failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn screenshot(profile: &Path, url: &str, file: &Path) {
    chromium(profile, &["--window-size=1100,900", &format!("--screenshot={}", file.display()), url]);
    let len = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
    assert!(len > 5_000, "a real screenshot of {url}: {len} bytes");
}

fn li_count(html: &str) -> usize {
    html.matches("<li>").count()
}

pub fn pages_in_a_browser() {
    let browser =
        std::env::var("BAO_CHROMIUM").map(PathBuf::from).unwrap_or_else(|_| PathBuf::from(CHROMIUM));
    if !browser.exists() {
        assert!(
            std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"),
            "BAO_REQUIRE_ALL=1 but {} is missing (apt-get install chromium)",
            browser.display()
        );
        eprintln!("skipped: pages_in_a_browser needs {} (apt-get install chromium)", browser.display());
        return;
    }
    let shots = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target/browser-screenshots"));
    std::fs::create_dir_all(&shots).expect("screenshot directory");
    let arena = Arena::new(&["admin", "fay"], FAST);
    let server = Server::start(&arena.data());
    let profile = arena.dir.path().join("chromium-profile");
    let fay = &arena.tokens[1];
    for (bot, kind) in [("quick", "greedy"), ("thinker", "slow")] {
        let a = submit(&server, fay, bot, "executable", "b.sh", &bot_script(kind), "");
        let id = a.json()["id"].as_i64().expect("id");
        assert_eq!(settle(&server, id, 180), "active");
    }
    let u = &server.url;
    // A running game with a few moves, watched live.
    let game = wait_for(120, "a running game with moves", || {
        let running = get(&format!("{u}/api/games?state=running"), None, None).json();
        let id = running.as_array()?.first()?["id"].as_i64()?;
        let page = get(&format!("{u}/live/{id}"), None, None);
        (li_count(&page.body) >= 2).then_some((id, li_count(&page.body)))
    });
    let (id, at_load) = game;
    let dom = chromium(&profile, &["--timeout=2500", "--dump-dom", &format!("{u}/live/{id}")]);
    let grew = li_count(&dom) >= at_load + 3;
    let ended = dom.contains("id=\"status\">finished: ");
    assert!(
        grew || ended,
        "the live page got no moves by server-sent events (load {at_load}, now {}):\n{dom}",
        li_count(&dom)
    );
    screenshot(&profile, &format!("{u}/live/{id}"), &shots.join("server-live.png"));
    // The other pages, once the game is over.
    wait_for(120, "the watched game to finish", || {
        (get(&format!("{u}/api/games/{id}"), None, None).json()["state"] != "running").then_some(())
    });
    std::thread::sleep(Duration::from_millis(1500));
    let home = chromium(&profile, &["--dump-dom", &format!("{u}/")]);
    assert!(home.contains("href=\"/bots/quick\"") && home.contains("href=\"/bots/thinker\""), "{home}");
    screenshot(&profile, &format!("{u}/"), &shots.join("server-leaderboard.png"));
    let bot = chromium(&profile, &["--dump-dom", &format!("{u}/bots/quick")]);
    assert!(bot.contains("Head to head") && bot.contains("thinker"), "{bot}");
    screenshot(&profile, &format!("{u}/bots/quick"), &shots.join("server-bot.png"));
    let page = chromium(&profile, &["--dump-dom", &format!("{u}/games/{id}")]);
    assert!(page.contains("Download the game log") && li_count(&page) > 0, "{page}");
    screenshot(&profile, &format!("{u}/games/{id}"), &shots.join("server-game.png"));
    let replay = chromium(&profile, &["--dump-dom", &format!("{u}/games/{id}/replay")]);
    // The viewer names the bots as they reported themselves in the log.
    assert!(replay.contains("greedy vs slow-random") || replay.contains("slow-random vs greedy"), "{replay}");
    screenshot(&profile, &format!("{u}/games/{id}/replay"), &shots.join("server-replay.png"));
}
