//! The pages in a real browser (headless Chromium): the live page of a running
//! game (the viewer's board, clocks, every ply even when it connects late),
//! /live and the leaderboard updating in place, a bot page, a game page, a
//! replay. Screenshots go to target/browser-screenshots/.

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

/// The last ply a live page holds, from its script's data.
fn live_from(html: &str) -> Option<usize> {
    let at = html.find("id=\"bao-live\">")?;
    let rest = &html[at..];
    let from = rest.find("\"from\":")? + "\"from\":".len();
    rest[from..].split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

/// The moves of a game log in record notation (North's row in lower case).
fn record_moves(log: &str) -> Vec<String> {
    log.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "ply")
        .map(|v| {
            let mv = v["move"].as_str().unwrap_or("").to_owned();
            if v["side"] == "N" { mv.to_ascii_lowercase() } else { mv }
        })
        .collect()
}

/// The moves listed by the viewer's move list in a dumped DOM (after the start entry).
fn dom_moves(dom: &str) -> Vec<String> {
    let mark = "<span class=\"mv\">";
    dom.match_indices(mark)
        .filter_map(|(at, _)| dom[at + mark.len()..].split("</span>").next())
        .map(|t| t.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))
        .filter(|t| t != "start")
        .collect()
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
    let mut edits = FAST.to_vec();
    // Games of a few seconds (the slow bot thinks 150 ms a move).
    edits.push(("max_plies = 300", "max_plies = 40"));
    let arena = Arena::new(&["admin", "fay"], &edits);
    let server = Server::start(&arena.data());
    let profile = arena.dir.path().join("chromium-profile");
    let fay = &arena.tokens[1];
    for (bot, kind) in [("quick", "greedy"), ("thinker", "slow")] {
        let a = submit(&server, fay, bot, "executable", "b.sh", &bot_script(kind), "");
        let id = a.json()["id"].as_i64().expect("id");
        assert_eq!(settle(&server, id, 180), "active");
    }
    let u = &server.url;
    // A running game with a few plies; its live page, opened in the browser, waits
    // 1.5 s before it connects to the stream, and still lists every ply to the end.
    let (id, at_render) = wait_for(120, "a running game with plies", || {
        let running = get(&format!("{u}/api/games?state=running"), None, None).json();
        let id = running.as_array()?.first()?["id"].as_i64()?;
        let page = get(&format!("{u}/live/{id}"), None, None);
        let from = live_from(&page.body)?;
        (from >= 2).then_some((id, from))
    });
    let dom =
        chromium(&profile, &["--timeout=12000", "--dump-dom", &format!("{u}/live/{id}#connect-delay=1500")]);
    let g = get(&format!("{u}/api/games/{id}"), None, None).json();
    assert_ne!(g["state"], "running", "the game ended within the page's 12 s: {g}");
    let log = get(&format!("{u}/api/games/{id}/log"), None, None).body;
    let expected = record_moves(&log);
    assert!(
        expected.len() > at_render + 3,
        "plies were played after the render ({at_render} then {})",
        expected.len()
    );
    let listed = dom_moves(&dom);
    assert_eq!(
        listed, expected,
        "the live page lists every ply in record notation (rendered with {at_render})"
    );
    assert!(dom.contains("data-live-over=\"1\""), "the page shows the end: {dom}");
    assert!(dom.contains("id=\"clock-S\"") && dom.contains("id=\"clock-N\""), "both clocks");
    // The board with its clocks, during the next game.
    let next = wait_for(120, "another running game with plies", || {
        let running = get(&format!("{u}/api/games?state=running"), None, None).json();
        let id = running.as_array()?.iter().filter_map(|g| g["id"].as_i64()).find(|&g| g > id)?;
        (live_from(&get(&format!("{u}/live/{id}"), None, None).body)? >= 2).then_some(id)
    });
    chromium(
        &profile,
        &[
            "--window-size=1100,900",
            "--timeout=1500",
            &format!("--screenshot={}", shots.join("server-live.png").display()),
            &format!("{u}/live/{next}"),
        ],
    );
    let len = std::fs::metadata(shots.join("server-live.png")).map(|m| m.len()).unwrap_or(0);
    assert!(len > 5_000, "a real screenshot of the live board: {len} bytes");
    // /live follows the games in place: a game that starts after the page loaded is listed.
    let newest = |state: &str| -> i64 {
        let list = get(&format!("{u}/api/games?state={state}"), None, None).json();
        list.as_array().map_or(0, |a| a.iter().filter_map(|g| g["id"].as_i64()).max().unwrap_or(0))
    };
    let before = newest("running").max(newest("finished"));
    let live = chromium(&profile, &["--timeout=9000", "--dump-dom", &format!("{u}/live")]);
    let listed_later = live
        .match_indices("data-game=\"")
        .filter_map(|(at, m)| live[at + m.len()..].split('"').next()?.parse::<i64>().ok())
        .any(|g| g > before);
    assert!(
        listed_later,
        "a game started after the page loaded is listed (newest before: {before}):\n{live}"
    );
    // The leaderboard too: a game finished after the page loaded shows in its recent games.
    let before = newest("finished");
    let board = chromium(&profile, &["--timeout=10000", "--dump-dom", &format!("{u}/")]);
    let shown_later = board
        .match_indices("href=\"/games/")
        .filter_map(|(at, m)| board[at + m.len()..].split('"').next()?.parse::<i64>().ok())
        .any(|g| g > before);
    assert!(shown_later, "the leaderboard updated in place (newest finished before: {before}):\n{board}");
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
    // The replay is titled with the arena's names, not the names the bots gave themselves.
    assert!(
        replay.contains("quick v1 vs thinker v1") || replay.contains("thinker v1 vs quick v1"),
        "{replay}"
    );
    screenshot(&profile, &format!("{u}/games/{id}/replay"), &shots.join("server-replay.png"));
}
