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

/// The event ids of a live stream read to its end (`end` for the end event).
fn sse_ids(url: &str, last_event_id: Option<&str>) -> Vec<String> {
    use std::io::BufRead;
    let agent: ureq::Agent =
        ureq::Agent::config_builder().timeout_global(Some(Duration::from_secs(60))).build().into();
    let mut req = agent.get(url);
    if let Some(last) = last_event_id {
        req = req.header("Last-Event-ID", last);
    }
    let mut response = req.call().expect("the stream answers");
    let reader = std::io::BufReader::new(response.body_mut().as_reader());
    let (mut ids, mut kind) = (Vec::new(), String::new());
    for line in reader.lines() {
        let line = line.expect("a line of the stream");
        if let Some(k) = line.strip_prefix("event: ") {
            kind = k.to_owned();
        } else if let Some(id) = line.strip_prefix("id: ") {
            if kind == "end" {
                ids.push("end".to_owned());
                break;
            }
            ids.push(id.to_owned());
        }
    }
    ids
}

/// Runs the live pages' driver (tests/e2e/live_page.mjs: playwright-core from
/// viewer/browser-tests, `npm ci --prefix viewer/browser-tests`); its JSON answer.
pub fn driver(args: &[&str]) -> serde_json::Value {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/e2e");
    let out = Command::new("node")
        .arg(format!("{dir}/live_page.mjs"))
        .args(args)
        .env("BAO_PLAYWRIGHT_DIR", concat!(env!("CARGO_MANIFEST_DIR"), "/../viewer/browser-tests"))
        .output()
        .expect("node runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "live_page.mjs {args:?} failed: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// Whether the driver can run here (Chromium, node and playwright-core installed).
pub fn driver_installed() -> bool {
    let modules =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../viewer/browser-tests/node_modules/playwright-core");
    let browser = std::env::var("BAO_CHROMIUM").unwrap_or_else(|_| CHROMIUM.into());
    Path::new(&browser).exists()
        && Path::new(modules).is_dir()
        && Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success())
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
    if !driver_installed() {
        assert!(
            std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"),
            "BAO_REQUIRE_ALL=1 but node or playwright-core is missing (npm ci --prefix viewer/browser-tests)"
        );
        eprintln!(
            "skipped: pages_in_a_browser needs node and playwright-core (npm ci --prefix viewer/browser-tests)"
        );
        return;
    }
    let shots = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target/browser-screenshots"));
    std::fs::create_dir_all(&shots).expect("screenshot directory");
    let mut edits = FAST.to_vec();
    // Games of up to 9 s (both bots think 150 ms a move, random moves: most games reach 60 plies).
    edits.push(("max_plies = 300", "max_plies = 60"));
    let arena = Arena::new(&["admin", "fay"], &edits);
    let server = Server::start(&arena.data());
    let profile = arena.dir.path().join("chromium-profile");
    let fay = &arena.tokens[1];
    for (bot, kind) in [("quick", "slow"), ("thinker", "slow")] {
        let a = submit(&server, fay, bot, "executable", "b.sh", &bot_script(kind), "");
        let id = a.json()["id"].as_i64().expect("id");
        assert_eq!(settle(&server, id, 180), "active");
    }
    let u = &server.url;
    // The stream resumes after the ply the client names: `Last-Event-ID` (a reconnecting
    // browser's) wins over `?from=`; every later ply comes once, in order, then the end.
    let id = wait_for(120, "a running game with 6 plies", || {
        let running = get(&format!("{u}/api/games?state=running"), None, None).json();
        let id = running.as_array()?.first()?["id"].as_i64()?;
        (live_from(&get(&format!("{u}/live/{id}"), None, None).body)? >= 6).then_some(id)
    });
    let resumed = sse_ids(&format!("{u}/live/{id}/events?from=1"), Some("5"));
    let from_query = sse_ids(&format!("{u}/live/{id}/events?from=2"), None);
    // The stream's end comes as the game ends; its row says "finished" a moment later, and
    // until then the log is refused with 409.
    let log = wait_for(60, "the finished game's log", || {
        let answer = get(&format!("{u}/api/games/{id}/log"), None, None);
        (answer.status == 200).then_some(answer.body)
    });
    let total = record_moves(&log).len();
    assert!(total >= 6, "the log of game {id} holds {total} plies, the live page showed 6:\n{log}");
    let plies = |from: usize| (from + 1..=total).map(|p| p.to_string()).collect::<Vec<_>>();
    assert_eq!(resumed, [plies(5), vec!["end".to_owned()]].concat(), "after Last-Event-ID 5");
    assert_eq!(from_query, [plies(2), vec!["end".to_owned()]].concat(), "after ?from=2");
    // A running game with a few plies; its live page, opened in the browser, waits
    // 1.5 s before it connects to the stream, and still lists every ply to the end.
    // (On a loaded machine the browser may start too late for a game to have plies
    // left: such a game is not a test of the stream, and the next one is taken.)
    let mut last = 0;
    let mut early_game = || {
        let id = wait_for(120, "a running game with few plies", || {
            let running = get(&format!("{u}/api/games?state=running"), None, None).json();
            let id = running.as_array()?.iter().filter_map(|g| g["id"].as_i64()).find(|&g| g > last)?;
            let from = live_from(&get(&format!("{u}/live/{id}"), None, None).body)?;
            (2..=12).contains(&from).then_some(id)
        });
        last = id;
        id
    };
    let mut streamed = None;
    for _ in 0..5 {
        let id = early_game();
        let live = driver(&["live", &format!("{u}/live/{id}#connect-delay=1500")]);
        // The page saw the end; the game's row says so a moment later.
        let log = wait_for(60, "the game the page saw end to be finished", || {
            let answer = get(&format!("{u}/api/games/{id}/log"), None, None);
            (answer.status == 200).then_some(answer.body)
        });
        let expected = record_moves(&log);
        let at_render = usize::try_from(live["rendered"].as_u64().expect("the page's ply")).expect("ply");
        let listed: Vec<String> = live["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| m.as_str().unwrap_or("").to_owned())
            .collect();
        assert_eq!(
            listed, expected,
            "the live page lists every ply in record notation (rendered with {at_render})"
        );
        assert_eq!(live["plies"], expected.len().to_string(), "{live}");
        assert!(live["status"].as_str().is_some_and(|s| s.starts_with("over: ")), "{live}");
        assert_eq!(live["navigations"], 1, "no reload: {live}");
        assert_eq!(live["errors"], serde_json::json!([]), "no script error: {live}");
        if expected.len() > at_render + 3 {
            streamed = Some((id, at_render, expected.len()));
            break;
        }
    }
    let (id, at_render, total) = streamed.expect("in five games, one with plies after the page's render");
    eprintln!("game {id}: the page held {at_render} plies, the stream brought the rest to {total}");
    // The board with its clocks, during a game: exactly one clock ticks, the clock of the
    // side to move, and it runs down while that side thinks (two samples 50 ms apart at the
    // same ply show different times; the displayed tenths change every 100 ms).
    let shot = shots.join("server-live.png");
    let mut shown = false;
    for _ in 0..5 {
        let next = early_game();
        let seen = driver(&["shot", &format!("{u}/live/{next}"), &shot.to_string_lossy()]);
        let len = std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0);
        assert!(len > 5_000, "a real screenshot of the live board: {len} bytes");
        let samples = seen["samples"].as_array().expect("clock samples");
        let running: Vec<&serde_json::Value> = samples.iter().filter(|s| s["over"] == false).collect();
        for s in &samples[..] {
            let shown_clocks = s["clocks"].as_array().expect("clocks");
            assert!(
                shown_clocks.iter().all(|t| t.as_str().is_some_and(|t| t.ends_with(" s"))),
                "both clocks shown: {seen}"
            );
        }
        for s in &running {
            assert_eq!(
                s["ticking"].as_array().map(Vec::len),
                Some(1),
                "one clock ticks while the game runs: {seen}"
            );
        }
        let runs_down = running.windows(2).any(|w| {
            w[0]["plies"] == w[1]["plies"]
                && w[0]["ticking"] == w[1]["ticking"]
                && w[0]["clocks"] != w[1]["clocks"]
        });
        if running.len() > 10 {
            assert!(runs_down, "the clock of the side to move runs down: {seen}");
            shown = true;
            break;
        }
    }
    assert!(shown, "in five games, one still running when the browser showed it");
    // /live follows the games in place: a game that starts after the page loaded is listed.
    let newest = |state: &str| -> i64 {
        let list = get(&format!("{u}/api/games?state={state}"), None, None).json();
        list.as_array().map_or(0, |a| a.iter().filter_map(|g| g["id"].as_i64()).max().unwrap_or(0))
    };
    let before = newest("running").max(newest("finished"));
    let expr = format!(
        "[...document.querySelectorAll('#live-games tr[data-game]')].some(tr => Number(tr.dataset.game) > {before})"
    );
    let index = driver(&["wait", &format!("{u}/live"), &expr]);
    assert_eq!((index["ok"].as_bool(), index["navigations"].as_i64()), (Some(true), Some(1)), "{index}");
    // The leaderboard too: a game that finishes after the page loaded shows in its recent games.
    let before = newest("finished");
    let expr = format!(
        "[...document.querySelectorAll('#leaderboard a[href^=\"/games/\"]')].some(a => Number(a.getAttribute('href').slice(7)) > {before})"
    );
    let board = driver(&["wait", &format!("{u}/"), &expr]);
    assert_eq!((board["ok"].as_bool(), board["navigations"].as_i64()), (Some(true), Some(1)), "{board}");
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
