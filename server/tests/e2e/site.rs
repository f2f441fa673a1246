//! Every page of the site in headless Chromium at 1280 px and at 360 px (a
//! phone): none scrolls sideways (`document.documentElement.scrollWidth <=
//! innerWidth`, and no table or block inside scrolls sideways either), none has
//! a script error, each answers its status. Full-page screenshots are kept in
//! target/site-screenshots/ (NAME-WIDTHpx.png).

use std::path::{Path, PathBuf};

use crate::browser::{driver, driver_installed};
use crate::support::{Arena, FAST, Server, bot_script, get, post, settle, submit, wait_for};

const CHROMIUM: &str = "/usr/bin/chromium";

/// Whether Chromium, node and playwright-core are here; without them the test fails
/// under `BAO_REQUIRE_ALL=1` and else says plainly why it is skipped.
fn browser_here(test: &str) -> bool {
    let browser = std::env::var("BAO_CHROMIUM").unwrap_or_else(|_| CHROMIUM.into());
    let required = std::env::var("BAO_REQUIRE_ALL").as_deref() == Ok("1");
    if !Path::new(&browser).exists() {
        assert!(!required, "BAO_REQUIRE_ALL=1 but {browser} is missing (apt-get install chromium)");
        eprintln!("skipped: {test} needs {browser} (apt-get install chromium)");
        return false;
    }
    if !driver_installed() {
        assert!(
            !required,
            "BAO_REQUIRE_ALL=1 but node or playwright-core is missing (npm ci --prefix viewer/browser-tests)"
        );
        eprintln!("skipped: {test} needs node and playwright-core (npm ci --prefix viewer/browser-tests)");
        return false;
    }
    true
}

pub fn site_at_1280_and_360() {
    if !browser_here("site_at_1280_and_360") {
        return;
    }
    let shots = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target/site-screenshots"));
    std::fs::create_dir_all(&shots).expect("screenshot directory");
    // Screenshots of an earlier run must not pass for this run's.
    for entry in std::fs::read_dir(&shots).expect("screenshot directory").flatten() {
        if entry.path().extension().is_some_and(|e| e == "png") {
            std::fs::remove_file(entry.path()).expect("an old screenshot removed");
        }
    }
    let arena = Arena::new(&["admin", "fay"], FAST);
    let server = Server::start(&arena.data());
    let u = &server.url;
    let fay = &arena.tokens[1];
    // Two bots that play, one whose program never answers (rejected by the gate).
    let mut active = Vec::new();
    for bot in ["quick", "averyveryverylongbotnamewithout"] {
        let a = submit(&server, fay, bot, "executable", "b.sh", &bot_script("random"), "");
        let id = a.json()["id"].as_i64().expect("id");
        assert_eq!(settle(&server, id, 180), "active");
        active.push(id);
    }
    let broken = submit(&server, fay, "silent", "executable", "b.sh", b"#!/bin/sh\nexit 3\n", "");
    let broken = broken.json()["id"].as_i64().expect("id");
    assert_eq!(settle(&server, broken, 180), "rejected");
    // Enough games for a second page of games and a rating history to plot.
    let finished = wait_for(240, "51 finished games and a rating plot", || {
        let list = get(&format!("{u}/api/games?state=finished&limit=100"), None, None).json();
        let ids: Vec<i64> = list.as_array()?.iter().filter_map(|g| g["id"].as_i64()).collect();
        let plotted = get(&format!("{u}/bots/quick"), None, None).body.contains("<svg class=\"plot\"");
        (ids.len() > 50 && plotted).then_some(ids)
    });
    let game = finished[0];
    // A session, as the log-in form makes it.
    let login = post(
        &format!("{u}/login"),
        &[("Content-Type", "application/x-www-form-urlencoded")],
        format!("token={fay}").as_bytes(),
    );
    assert_eq!(login.status, 303, "{}", login.body);
    let cookie = login.header("set-cookie").expect("a session cookie").split(';').next().expect("name=value");
    let (name, value) = cookie.split_once('=').expect("name=value");
    // The administrator's session, for the page only administrators see.
    let admin_login = post(
        &format!("{u}/login"),
        &[("Content-Type", "application/x-www-form-urlencoded")],
        format!("token={}", arena.tokens[0]).as_bytes(),
    );
    assert_eq!(admin_login.status, 303, "{}", admin_login.body);
    let admin_cookie =
        admin_login.header("set-cookie").expect("a session cookie").split(';').next().expect("name=value");
    let (admin_name, admin_value) = admin_cookie.split_once('=').expect("name=value");
    // Two workers as they report themselves (the page lists what is in the table; this arena
    // plays its own games): one heard from now, one silent for a minute.
    let now = now_ms();
    let db = crate::support::arena_db(&arena.data());
    for (id, host, running, load, seen) in [
        ("worker-a1-4711-0f3c", "bao-worker-7d9f8c6b5-x2k4q", 3, 2.75, now),
        ("worker-b2-815-a001", "gpu-node-17.cluster.example.org", 0, 0.05, now - 60_000),
    ] {
        db.execute(
            "INSERT INTO workers (id, host, version, arch, concurrency, running, load, started_at, seen_at)
             VALUES (?1, ?2, '0.1.0', 'x86_64', 4, ?3, ?4, ?5, ?6)",
            bao_server::db::params![id, host, running, load, now - 3_600_000, seen],
        )
        .expect("a worker row");
    }
    drop(db);
    let pages: Vec<(&str, String, bool, u16)> = vec![
        // First, while the first worker's report is fresh (it is silent after 30 s).
        ("workers", "/admin/workers".into(), true, 200),
        ("workers-refused", "/admin/workers".into(), true, 403),
        ("leaderboard", "/".into(), false, 200),
        ("leaderboard-signed-in", "/".into(), true, 200),
        ("games", "/games".into(), false, 200),
        ("games-page-2", "/games?page=2".into(), false, 200),
        ("bot", "/bots/quick".into(), false, 200),
        ("bot-long-name", "/bots/averyveryverylongbotnamewithout".into(), false, 200),
        ("version", format!("/versions/{}", active[0]), false, 200),
        ("version-owner", format!("/versions/{broken}"), true, 200),
        ("game", format!("/games/{game}"), false, 200),
        ("replay", format!("/games/{game}/replay"), false, 200),
        ("live", "/live".into(), false, 200),
        ("live-game", format!("/live/{game}"), false, 200),
        ("my-bots", "/my/bots".into(), true, 200),
        ("submit", "/submit".into(), true, 200),
        ("login", "/login".into(), false, 200),
        ("not-found", "/bots/nobody".into(), false, 404),
        ("bad-page", "/games?page=zero".into(), false, 400),
    ];
    let spec = serde_json::json!({
        "base": u,
        "dir": shots,
        "widths": [1280, 360],
        "cookie": { "name": name, "value": value },
        "pages": pages.iter().map(|(n, p, s, _)| {
            let mut page = serde_json::json!({ "name": n, "path": p, "signed_in": s });
            if *n == "workers" {
                page["cookie"] = serde_json::json!({ "name": admin_name, "value": admin_value });
            }
            page
        }).collect::<Vec<_>>(),
    });
    let spec_file = arena.dir.path().join("site.json");
    std::fs::write(&spec_file, spec.to_string()).expect("spec");
    let seen = driver(&["site", &spec_file.to_string_lossy()]);
    let measured = seen["pages"].as_array().expect("pages measured");
    assert_eq!(measured.len(), pages.len() * 2, "every page at both widths: {seen}");
    let mut wide = Vec::new();
    for m in measured {
        let (name, width) = (m["name"].as_str().unwrap_or("?"), m["width"].as_u64().unwrap_or(0));
        let expected = pages.iter().find(|p| p.0 == name).map_or(0, |p| p.3);
        assert_eq!(m["status"].as_u64(), Some(u64::from(expected)), "{name} at {width} px: {m}");
        assert_eq!(m["errors"], serde_json::json!([]), "no script error on {name} at {width} px: {m}");
        let file = m["file"].as_str().expect("screenshot file");
        let len = std::fs::metadata(file).map(|f| f.len()).unwrap_or(0);
        assert!(len > 5_000, "a real screenshot of {name} at {width} px: {len} bytes");
        let (scroll, inner) =
            (m["scrollWidth"].as_u64().unwrap_or(u64::MAX), m["innerWidth"].as_u64().unwrap_or(0));
        assert_eq!(inner, width, "{name}: the viewport is {width} px wide");
        if scroll > inner || m["sideways"].as_array().is_some_and(|s| !s.is_empty()) {
            wide.push(format!(
                "{name} at {width} px: document {scroll} px wide, scrolling inside: {}",
                m["sideways"]
            ));
        }
    }
    assert!(wide.is_empty(), "pages that scroll sideways:\n{}", wide.join("\n"));
    // The pages say what they must (the screenshots are of the right pages).
    let title = |name: &str| {
        measured.iter().find(|m| m["name"] == name).and_then(|m| m["title"].as_str()).unwrap_or("").to_owned()
    };
    assert!(title("my-bots").starts_with("My bots"), "{}", title("my-bots"));
    assert!(title("games-page-2").starts_with("Games (page 2)"), "{}", title("games-page-2"));
    assert!(title("not-found").starts_with("Error"), "{}", title("not-found"));
    // The workers' page shows both rows, the silent one marked (the screenshots show them).
    crate::support::arena_db(&arena.data())
        .execute("UPDATE workers SET seen_at = ?1 WHERE id = 'worker-a1-4711-0f3c'", [now_ms()])
        .expect("a fresh report");
    let workers = get(&format!("{u}/admin/workers"), None, Some(admin_cookie)).body;
    assert!(
        workers.contains("gpu-node-17.cluster.example.org") && workers.contains("bao-worker-7d9f8c6b5-x2k4q"),
        "{workers}"
    );
    assert!(
        workers.contains(r#"data-worker="worker-b2-815-a001" class="silent""#)
            && workers.contains(r#"data-worker="worker-a1-4711-0f3c">"#),
        "the silent worker is marked, and only it: {workers}"
    );
    // The full replay page says the result in words under a bar back to the site; the game
    // page embeds it without the bar, and says the result itself.
    let replay = get(&format!("{u}/games/{game}/replay"), None, None).body;
    let words = replay.split("<strong id=\"result-words\">").nth(1).and_then(|s| s.split('<').next());
    assert!(
        words.is_some_and(|w| w.starts_with("South wins: ")
            || w.starts_with("North wins: ")
            || w.starts_with("Draw")),
        "{words:?}"
    );
    let words = words.unwrap_or_default().replace("&#x27;", "'").replace("&#39;", "'");
    let embedded = get(&format!("{u}/games/{game}/replay?embed=1"), None, None).body;
    assert!(!embedded.contains("result-words") && embedded.contains("bao-replay-data"), "{embedded}");
    let page = get(&format!("{u}/games/{game}"), None, None).body.replace("&#x27;", "'");
    assert!(page.contains(&words), "the game page says {words:?} too");
    // A finished game's live stream ends with the words, for the live page's status and result box.
    let stream = get(&format!("{u}/live/{game}/events?from=0"), None, None).body;
    let end = stream.split("event: end\ndata: ").nth(1).and_then(|s| s.lines().next()).expect("an end event");
    let end: serde_json::Value = serde_json::from_str(end).expect("the end event's JSON");
    assert_eq!(end["text"].as_str(), Some(words.as_str()), "{end}");
    assert!(end["data"]["text"].as_str().is_some_and(|t| t.starts_with(&words)), "{end}");
    // The viewer's own result box, on the replay and the live page, says it in words too.
    for name in ["replay", "live-game"] {
        let shown =
            measured.iter().find(|m| m["name"] == name).and_then(|m| m["result"].as_str()).unwrap_or("");
        assert!(shown.starts_with(&words) && !shown.contains('_'), "{name}: {shown:?}, not {words:?}");
    }
    eprintln!("{} screenshots in {}", measured.len(), shots.display());
}

fn now_ms() -> i64 {
    i64::try_from(
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("clock").as_millis(),
    )
    .expect("ms")
}
