//! `/live` through the real router: more running games than one page holds come a page at a
//! time, newest first, with links to the next and previous pages that lead there; bad page
//! numbers get a 400, pages past the last the last; ended games are not listed. In headless
//! Chromium (`live_index.mjs`), the page's script keeps its page as games start and end, and
//! the pager it draws leads to the next and previous pages.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use bao_server::domain::Purpose;
use bao_server::live::GameStart;
use tower::ServiceExt;

struct Site {
    _dir: tempfile::TempDir,
    app: axum::Router,
    rt: tokio::runtime::Runtime,
}

impl Site {
    fn get(&self, uri: &str) -> (StatusCode, String) {
        let request = Request::builder().uri(uri).body(Body::empty()).expect("request");
        let response = self.rt.block_on(self.app.clone().oneshot(request)).expect("answer");
        let status = response.status();
        let bytes = self.rt.block_on(axum::body::to_bytes(response.into_body(), 1 << 24)).expect("body");
        (status, String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// An arena whose live hub has `running` games running (ids 1..=running) and three more that
/// ended (ids above them).
fn site(running: i64) -> Site {
    let dir = tempfile::tempdir().expect("tempdir");
    let arena = bao_server::arena::Arena::open(&dir.path().join("arena")).expect("arena");
    for id in 1..=running + 3 {
        let start =
            GameStart { south: format!("s{id} v1"), north: format!("n{id} v2"), purpose: Purpose::Ladder };
        arena.live.start(id, &start);
    }
    for id in running + 1..=running + 3 {
        arena.live.finish(id, "the game was stopped");
    }
    let app = bao_server::http::router(Arc::new(arena));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    Site { _dir: dir, app, rt }
}

/// The games a page lists, in order.
fn listed(html: &str) -> Vec<i64> {
    html.split("<tr data-game=\"").skip(1).filter_map(|s| s.split('"').next()?.parse().ok()).collect()
}

/// The address of the pager's link with `rel`, unescaped.
fn link(html: &str, rel: &str) -> Option<String> {
    let end = html.find(&format!("\" rel=\"{rel}\""))?;
    let start = html[..end].rfind("href=\"")? + "href=\"".len();
    Some(html[start..end].replace("&#x2f;", "/").replace("&amp;", "&"))
}

#[test]
fn running_games_come_a_page_at_a_time_and_the_pager_links_lead_there() {
    let s = site(120);
    let (status, first) = s.get("/live");
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(listed(&first), (71..=120).rev().collect::<Vec<_>>(), "the newest 50, newest first");
    assert!(first.contains("Page 1 of 3 (120 games)"), "{first}");
    assert!(first.contains("s120 v1") && first.contains("n120 v2"), "the players: {first}");
    assert_eq!(link(&first, "prev"), None);

    // "Older" leads to the next 50, no gap, no repeat.
    let next = link(&first, "next").expect("a link to the next page");
    assert_eq!(next, "/live?page=2");
    let (status, second) = s.get(&next);
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed(&second), (21..=70).rev().collect::<Vec<_>>());
    assert!(second.contains("Page 2 of 3 (120 games)"), "{second}");
    // "Newer" leads back to the first page.
    let prev = link(&second, "prev").expect("a link to the previous page");
    assert_eq!(prev, "/live?page=1");
    assert_eq!(listed(&s.get(&prev).1), listed(&first));

    let (_, last) = s.get(&link(&second, "next").expect("the next page"));
    assert_eq!(listed(&last), (1..=20).rev().collect::<Vec<_>>());
    assert_eq!(link(&last, "next"), None, "the last page has no next");
    assert_eq!(link(&last, "last"), None);
    assert_eq!(link(&last, "first").as_deref(), Some("/live?page=1"));
    // The script knows the page it draws, and how many a page holds.
    assert!(last.contains("data-page=\"3\" data-per-page=\"50\""), "{last}");

    // Past the last page: the last page. Not a page number: a 400 that says so.
    for past in ["4", "99999999999999999999"] {
        let (status, page) = s.get(&format!("/live?page={past}"));
        assert_eq!((status, listed(&page)), (StatusCode::OK, listed(&last)), "page={past}");
    }
    for bad in ["0", "-1", "abc", ""] {
        let (status, page) = s.get(&format!("/live?page={bad}"));
        assert_eq!(status, StatusCode::BAD_REQUEST, "page={bad}: {page}");
        assert!(page.contains("bad page number"), "page={bad}: {page}");
    }
}

#[test]
fn one_page_of_running_games_has_no_pager_and_none_says_so() {
    let s = site(3);
    let (status, page) = s.get("/live");
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed(&page), vec![3, 2, 1], "the ended games 4..6 are not listed");
    assert!(!page.contains("class=\"pager\""), "{page}");
    assert!(page.contains("<p id=\"live-empty\" class=\"muted\" hidden>"), "{page}");
    let s = site(0);
    let (_, page) = s.get("/live");
    assert!(listed(&page).is_empty());
    assert!(page.contains("<p id=\"live-empty\" class=\"muted\">No game is running."), "{page}");
}

/// Chromium and playwright-core for the browser test: `None` when they are there, otherwise
/// what is missing (a failure under `BAO_REQUIRE_ALL=1`).
fn browser_missing() -> Option<String> {
    let browser = std::env::var("BAO_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let modules =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../viewer/browser-tests/node_modules/playwright-core");
    let node = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !std::path::Path::new(&browser).exists() {
        Some(format!("{browser} (apt-get install chromium)"))
    } else if !node || !std::path::Path::new(modules).is_dir() {
        Some("node and playwright-core (npm ci --prefix viewer/browser-tests)".to_owned())
    } else {
        None
    }
}

/// The driver's process, killed if the test fails before it ends.
struct Driver(std::process::Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The next line of JSON the driver prints.
fn driver_line(out: &mut impl BufRead) -> serde_json::Value {
    let mut line = String::new();
    out.read_line(&mut line).expect("read the driver");
    serde_json::from_str(line.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}"))
}

fn ids(value: &serde_json::Value) -> Vec<i64> {
    value["games"].as_array().expect("games").iter().filter_map(serde_json::Value::as_i64).collect()
}

#[test]
fn in_a_browser_the_page_redraws_itself_as_games_start_and_end_and_its_pager_links_work() {
    if let Some(missing) = browser_missing() {
        assert!(
            std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"),
            "BAO_REQUIRE_ALL=1 but this test needs {missing}"
        );
        eprintln!("skipped: the /live browser test needs {missing}");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let arena = bao_server::arena::Arena::open(&dir.path().join("arena")).expect("arena");
    let start = |id: i64| GameStart {
        south: format!("s{id} v1"),
        north: format!("n{id} v2"),
        purpose: Purpose::Ladder,
    };
    for id in 1..=120 {
        arena.live.start(id, &start(id));
    }
    let hub = arena.live.clone();
    let app = bao_server::http::router(Arc::new(arena));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("non-blocking");
    let addr = listener.local_addr().expect("address");
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            axum::serve(listener, app).await
        })
    });

    let mut driver = Driver(
        Command::new("node")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/live_index.mjs"))
            .arg(format!("http://{addr}"))
            .env("BAO_PLAYWRIGHT_DIR", concat!(env!("CARGO_MANIFEST_DIR"), "/../viewer/browser-tests"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("node runs"),
    );
    let mut out = BufReader::new(driver.0.stdout.take().expect("stdout"));
    let loaded = driver_line(&mut out);
    assert_eq!(ids(&loaded["loaded"]), (21..=70).rev().collect::<Vec<_>>(), "{loaded}");
    assert_eq!(loaded["loaded"]["pager"], "Page 2 of 3 (120 games)", "{loaded}");

    // A game starts (the newest: page 1's oldest moves onto page 2) and one of page 2 ends.
    hub.start(121, &start(121));
    hub.finish(30, "the game was stopped");
    let mut stdin = driver.0.stdin.take().expect("stdin");
    writeln!(stdin, "go").expect("tell the driver");
    let report = driver_line(&mut out);
    let status = driver.0.wait().expect("the driver ends");
    assert!(status.success(), "{report}");
    assert_eq!(report["errors"], serde_json::json!([]), "{report}");
    let page_2: Vec<i64> = (31..=71).rev().chain((21..=29).rev()).collect();
    assert_eq!(ids(&report["redrawn"]), page_2, "{report}");
    assert_eq!(report["redrawn"]["pager"], "Page 2 of 3 (120 games)", "{report}");
    // Its pager's links, as the script drew them.
    assert_eq!(report["older"]["url"], "/live?page=3", "{report}");
    assert_eq!(ids(&report["older"]), (1..=20).rev().collect::<Vec<_>>(), "{report}");
    assert_eq!(report["newer"]["url"], "/live?page=2", "{report}");
    assert_eq!(ids(&report["newer"]), page_2, "{report}");
}
