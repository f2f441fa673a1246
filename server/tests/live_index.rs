//! `/live` through the real router: more running games than one page holds come a page at a
//! time, newest first, with links to the next and previous pages that lead there; bad page
//! numbers get a 400, pages past the last the last; ended games are not listed.

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
