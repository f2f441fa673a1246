//! The site's pages through the real router, on an arena seeded with 130 games:
//! every list of games comes a page at a time and bad page numbers get a 400
//! that says what was wrong (or the last page); results read as sentences, never
//! `0–1`; a bot page starts with its rank and rating with its interval, and
//! plots the rating with axes and dates, and shows its score against people
//! (games at /play); "my bots" shows a signed-in
//! entrant's bots with their builds and gates.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use tower::ServiceExt;

/// The day the seeded history starts: 1 Dec 2026, 00:00 UTC.
const T0: i64 = 1_796_083_200_000;
const DAY: i64 = 24 * 3600 * 1000;

struct Site {
    _dir: tempfile::TempDir,
    app: axum::Router,
    rt: tokio::runtime::Runtime,
    /// alice's session cookie (`bao_session=…`).
    cookie: String,
}

impl Site {
    fn get(&self, uri: &str, cookie: Option<&str>) -> (StatusCode, String, Option<String>) {
        let mut req = Request::builder().uri(uri);
        if let Some(c) = cookie {
            req = req.header("cookie", c);
        }
        let response = self
            .rt
            .block_on(self.app.clone().oneshot(req.body(Body::empty()).expect("request")))
            .expect("answer");
        let status = response.status();
        let location = response.headers().get("location").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let bytes = self.rt.block_on(axum::body::to_bytes(response.into_body(), 1 << 24)).expect("body");
        (status, String::from_utf8_lossy(&bytes).into_owned(), location)
    }
}

/// alice owns `alpha` (v1 retired, v2 active, v3 rejected by its build, v4 by its gate) and
/// `beta` (active); bob owns `gamma` (active). 130 finished games alpha–beta, 10 beta–gamma,
/// one aborted; ratings and a 10-day rating history for alpha; games with people at /play
/// (alpha won 3, lost 1, one abandoned; beta drew one).
fn site() -> Site {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("arena");
    bao_server::user_add(&data, "alice", false).expect("alice");
    bao_server::user_add(&data, "bob", false).expect("bob");
    let arena = bao_server::arena::Arena::open(&data).expect("arena");
    let cookie = arena
        .db
        .write_blocking(|c| {
            c.execute_batch(
                "INSERT INTO bots (id, name, owner_id, created_at) VALUES
                   (1, 'alpha', (SELECT id FROM users WHERE name = 'alice'), 0),
                   (2, 'beta', (SELECT id FROM users WHERE name = 'alice'), 0),
                   (3, 'gamma', (SELECT id FROM users WHERE name = 'bob'), 0);
                 INSERT INTO versions (id, bot_id, number, language, source_name, source_bytes, state,
                   submitted_at, state_at, reason, check_report) VALUES
                   (1, 1, 1, 'python', 'a.py', 1, 'retired', 0, 0, 'replaced by a newer version', 'ok'),
                   (2, 1, 2, 'python', 'a.py', 1, 'active', 0, 0, 'passed the checks', 'ok'),
                   (3, 1, 3, 'python', 'a.py', 1, 'rejected', 0, 0, 'the build failed: exit status 1', ''),
                   (4, 1, 4, 'python', 'a.py', 1, 'rejected', 0, 0,
                      'the conformance check failed (see the report)', 'FAILED: no answer'),
                   (5, 2, 1, 'rust', 'b.rs', 1, 'active', 0, 0, 'passed the checks', 'ok'),
                   (6, 3, 1, 'c', 'c.c', 1, 'active', 0, 0, 'passed the checks', 'ok');
                 INSERT INTO ratings VALUES
                   (2, 1612.4, 1571.0, 1653.8, 130, 80, 40, 10, 0.97, 0),
                   (5, 1490.0, 1450.0, 1530.0, 140, 45, 85, 10, 0.8, 0),
                   (6, 1397.6, 1300.0, 1495.2, 10, 5, 5, 0, 1.0, 0);
                 INSERT INTO human_games (token, variant, opponent, version_id, person_side, clock, state,
                   result, started_at, log_path) VALUES
                   ('p1', 'kiswahili', 'bot', 2, 'N', 'none', 'finished', 'south', 0, ''),
                   ('p2', 'kiswahili', 'bot', 2, 'S', 'none', 'finished', 'north', 0, ''),
                   ('p3', 'kiswahili', 'bot', 1, 'S', 'none', 'finished', 'north', 0, ''),
                   ('p4', 'kiswahili', 'bot', 2, 'S', 'none', 'finished', 'south', 0, ''),
                   ('p5', 'kiswahili', 'bot', 2, 'S', 'none', 'abandoned', NULL, 0, ''),
                   ('p6', 'kiswahili', 'bot', 5, 'S', 'none', 'finished', 'draw', 0, '');",
            )?;
            let tx = c.transaction()?;
            for i in 0..130_i64 {
                let (result, reason) = match i % 3 {
                    0 => ("south", "front_row_empty"),
                    1 => ("north", "timeout: no answer within 1000 ms"),
                    _ => ("draw", "max_plies"),
                };
                tx.execute(
                    "INSERT INTO games (south_id, north_id, pair_key, opening_seed, purpose, state, result,
                       reason, plies, started_at, finished_at, log_path)
                     VALUES (?1, ?2, 'k', 0, 'ladder', 'finished', ?3, ?4, 40, ?5, ?5, '')",
                    rusqlite::params![
                        if i % 2 == 0 { 2 } else { 5 },
                        if i % 2 == 0 { 5 } else { 2 },
                        result,
                        reason,
                        T0 + i
                    ],
                )?;
            }
            for i in 0..10_i64 {
                tx.execute(
                    "INSERT INTO games (south_id, north_id, pair_key, opening_seed, purpose, state, result,
                       reason, plies, started_at, finished_at, log_path)
                     VALUES (5, 6, 'k', 0, 'ladder', 'finished', 'south', 'no_legal_moves', 30, ?1, ?1, '')",
                    [T0 + 1000 + i],
                )?;
            }
            tx.execute(
                "INSERT INTO games (south_id, north_id, pair_key, opening_seed, purpose, state, reason,
                   started_at, log_path) VALUES (6, 2, 'k', 0, 'ladder', 'aborted',
                   'the server stopped during the game', ?1, '')",
                [T0 + 2000],
            )?;
            for d in 0..=10_i64 {
                tx.execute(
                    "INSERT INTO rating_history (version_id, at, elo, games) VALUES (2, ?1, ?2, ?3)",
                    rusqlite::params![T0 + d * DAY, 1500.0 + 11.0 * d as f64, d * 13],
                )?;
            }
            tx.commit()?;
            let alice: i64 = c.query_row("SELECT id FROM users WHERE name = 'alice'", [], |r| r.get(0))?;
            bao_server::users::create_session(c, bao_server::domain::UserId::new(alice))
        })
        .expect("seeded");
    let app = bao_server::http::router(Arc::new(arena));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    Site { _dir: dir, app, rt, cookie: format!("{}={cookie}", bao_server::auth::SESSION_COOKIE) }
}

/// The game ids a page links to, in order.
fn game_links(html: &str) -> Vec<i64> {
    html.split("href=\"/games/").skip(1).filter_map(|s| s.split('"').next()?.parse().ok()).collect()
}

#[test]
fn games_come_a_page_at_a_time_and_bad_pages_are_refused() {
    let s = site();
    let (status, first, _) = s.get("/games", None);
    assert_eq!(status, StatusCode::OK, "{first}");
    let ids = game_links(&first);
    assert_eq!(ids.len(), 50, "50 games a page");
    assert_eq!(ids[0], 141, "newest first");
    assert!(first.contains("Page 1 of 3 (141 games)"), "{first}");
    assert!(first.contains("games?page=2\" rel=\"next\""), "{first}");
    let (_, second, _) = s.get("/games?page=2", None);
    assert_eq!(game_links(&second), (42..=91).rev().collect::<Vec<_>>(), "the next 50, no gap, no repeat");
    let (_, last, _) = s.get("/games?page=3", None);
    assert_eq!(game_links(&last), (1..=41).rev().collect::<Vec<_>>());
    assert!(!last.contains("rel=\"next\"") && last.contains("rel=\"prev\""));
    // Past the last page: the last page.
    for past in ["4", "4000000000", "99999999999999999999999"] {
        let (status, page, _) = s.get(&format!("/games?page={past}"), None);
        assert_eq!((status, game_links(&page)), (StatusCode::OK, game_links(&last)), "page={past}");
    }
    // Not a page number: a 400 that says so, on the error page.
    for bad in ["0", "-1", "abc", "", "1.5", "%00"] {
        let (status, page, _) = s.get(&format!("/games?page={bad}"), None);
        assert_eq!(status, StatusCode::BAD_REQUEST, "page={bad}: {page}");
        assert!(page.contains("bad page number"), "page={bad}: {page}");
    }
    // A bot's games too.
    let (status, bot, _) = s.get("/bots/beta?page=3", None);
    assert_eq!(status, StatusCode::OK);
    assert!(bot.contains("Page 3 of 3 (140 games)"), "{bot}");
    assert_eq!(game_links(&bot).len(), 40);
    assert!(bot.contains("href=\"&#x2f;bots&#x2f;beta?page=2#games\" rel=\"prev\""), "{bot}");
    let (status, _, _) = s.get("/bots/beta?page=x", None);
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // One page of games has no pager.
    let (_, gamma, _) = s.get("/bots/gamma", None);
    assert!(!gamma.contains("class=\"pager\""), "{gamma}");
}

#[test]
fn results_read_as_sentences_everywhere() {
    let s = site();
    let pages = [
        s.get("/", None).1,
        s.get("/games", None).1,
        s.get("/games?page=3", None).1,
        s.get("/bots/alpha", None).1,
        s.get("/bots/gamma", None).1,
    ];
    for page in &pages {
        for raw in [">1–0<", ">0–1<", ">½–½<", "front_row_empty", "max_plies", "no_legal_moves", ">timeout"]
        {
            assert!(!page.contains(raw), "{raw} on a page:\n{page}");
        }
    }
    let all = pages.concat();
    for words in [
        "South wins: North&#x27;s front row is empty",
        "North wins: South ran out of time",
        "Draw: the ply limit was reached",
        "South wins: North has no legal move",
        "Aborted (not counted)",
    ] {
        assert!(all.contains(words), "{words} is shown");
    }
    // The game page says it whole, with the detail.
    let (status, game, _) = s.get("/games/2", None);
    assert_eq!(status, StatusCode::OK, "{game}");
    assert!(game.contains("North wins: South ran out of time — no answer within 1000 ms"), "{game}");
    let (_, aborted, _) = s.get("/games/141", None);
    assert!(aborted.contains("Aborted (not counted): the server stopped during the game"), "{aborted}");
}

#[test]
fn a_bot_page_starts_with_its_rank_and_rating_and_plots_it_with_axes() {
    let s = site();
    let (status, page, _) = s.get("/bots/alpha", None);
    assert_eq!(status, StatusCode::OK, "{page}");
    let top = &page[..page.find("Rating over time").expect("the plot")];
    assert!(top.contains("<strong>1</strong><span class=\"muted small\">of 3</span>"), "rank 1 of 3: {top}");
    assert!(top.contains("<strong>1612</strong>") && top.contains("95 %: 1571–1654"), "{top}");
    assert!(top.contains("80 won · 40 lost · 10 drawn"), "{top}");
    // The plot: rating ticks at round values, dates on the time axis, the newest rating named.
    for label in [">1500</text>", ">1550</text>", ">1600</text>", ">1 Dec 2026</text>", ">11 Dec 2026</text>"]
    {
        assert!(page.contains(label), "{label} on the plot");
    }
    assert!(page.contains("the newest 1610"), "{page}");
    let (_, gamma, _) = s.get("/bots/gamma", None);
    assert!(gamma.contains("<strong>3</strong>") && !gamma.contains("<svg"), "no history, no plot");
    // The score against people (games at /play, every version, finished ones only): the bot's.
    assert!(page.contains("Against people:\n3 wins, 1 loss, 0 draws"), "{page}");
    let (_, beta, _) = s.get("/bots/beta", None);
    assert!(beta.contains("Against people:\n0 wins, 0 losses, 1 draw"), "{beta}");
    assert!(gamma.contains("Against people:\n<span class=\"muted\">no finished games yet"), "{gamma}");
    // Head to head over every game, not a page of them.
    assert!(page.contains("href=\"/bots/beta\">beta</a></td><td class=\"num\">130<"), "{page}");
}

#[test]
fn my_bots_shows_an_entrants_bots_builds_and_gates() {
    let s = site();
    let (status, _, location) = s.get("/my/bots", None);
    assert_eq!(
        (status, location.as_deref()),
        (StatusCode::SEE_OTHER, Some("/login")),
        "signed out: to log in"
    );
    let (status, page, _) = s.get("/my/bots", Some(&s.cookie));
    assert_eq!(status, StatusCode::OK, "{page}");
    assert!(page.contains("data-bot=\"alpha\"") && page.contains("data-bot=\"beta\""), "{page}");
    assert!(!page.contains("gamma"), "only alice's bots: {page}");
    let alpha =
        &page[page.find("data-bot=\"alpha\"").expect("alpha")..page.find("data-bot=\"beta\"").expect("beta")];
    // Newest version first: v4 failed its gate, v3 its build, v2 is on the ladder.
    let row = |v: i64| {
        let at = alpha.find(&format!("href=\"/versions/{v}\"")).expect("the version's row");
        &alpha[at..at + alpha[at..].find("</tr>").expect("row end")]
    };
    assert!(row(4).contains("step-passed\">passed</td><td class=\"step-failed\">failed"), "{}", row(4));
    assert!(row(3).contains("step-failed\">failed</td><td class=\"step-skipped\">skipped"), "{}", row(3));
    assert!(
        row(2).contains("state-active")
            && row(2).contains("step-passed\">passed</td><td class=\"step-passed")
    );
    assert!(alpha.contains("Rank <strong>1</strong>") && alpha.contains("(1571–1654)"), "{alpha}");
    assert!(
        alpha.find("/versions/4").expect("v4") < alpha.find("/versions/1\"").expect("v1"),
        "newest first"
    );
    // The header links to it when signed in.
    let (_, home, _) = s.get("/", Some(&s.cookie));
    assert!(home.contains("href=\"/my/bots\""), "{home}");
}

/// `/admin/workers`: the workers' last reports, for administrators only; a worker not heard
/// from for 30 s is marked silent; a visitor is sent to the login, an entrant refused.
#[test]
fn the_workers_page_is_the_admins_and_marks_silent_workers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("arena");
    bao_server::user_add(&data, "root", true).expect("root");
    bao_server::user_add(&data, "eve", false).expect("eve");
    let arena = bao_server::arena::Arena::open(&data).expect("arena");
    let (root, eve) = arena
        .db
        .write_blocking(|c| {
            for (id, host, running, ago) in [("w-fresh", "node-a", 2, 2_000), ("w-gone", "node-b", 1, 90_000)]
            {
                bao_server::worker::status::report(
                    c,
                    &bao_server::worker::status::WorkerReport {
                        id: id.into(),
                        host: host.into(),
                        version: "0.1.0".into(),
                        arch: "x86_64".into(),
                        concurrency: 2,
                        running,
                        load: 1.25,
                    },
                )?;
                // Stamped on the database's clock; then made `ago` old.
                c.execute(
                    "UPDATE workers SET seen_at = seen_at - ?2 WHERE id = ?1",
                    bao_server::db::params![id, ago],
                )?;
            }
            let id = |name: &str| {
                c.query_row("SELECT id FROM users WHERE name = ?1", [name], |r| r.get::<_, i64>(0))
            };
            let root = bao_server::users::create_session(c, bao_server::domain::UserId::new(id("root")?))?;
            let eve = bao_server::users::create_session(c, bao_server::domain::UserId::new(id("eve")?))?;
            Ok((root, eve))
        })
        .expect("seeded");
    let site = Site {
        _dir: dir,
        app: bao_server::http::router(Arc::new(arena)),
        rt: tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime"),
        cookie: String::new(),
    };
    let cookie = |secret: &str| format!("{}={secret}", bao_server::auth::SESSION_COOKIE);
    let (status, _, location) = site.get("/admin/workers", None);
    assert_eq!((status, location.as_deref()), (StatusCode::SEE_OTHER, Some("/login")));
    let (status, page, _) = site.get("/admin/workers", Some(&cookie(&eve)));
    assert_eq!(status, StatusCode::FORBIDDEN, "{page}");
    assert!(!page.contains("node-a"), "an entrant sees no worker");
    let (status, page, _) = site.get("/admin/workers", Some(&cookie(&root)));
    assert_eq!(status, StatusCode::OK, "{page}");
    let row = |id: &str| {
        let start =
            page.find(&format!("data-worker=\"{id}\"")).unwrap_or_else(|| panic!("{id} listed: {page}"));
        page[start..].split("</tr>").next().expect("row").to_owned()
    };
    let fresh = row("w-fresh");
    assert!(fresh.contains("node-a") && fresh.contains("2 of 2") && fresh.contains("1.25"), "{fresh}");
    assert!(!fresh.contains("silent"), "a worker heard from 2 s ago is not silent: {fresh}");
    let gone = row("w-gone");
    assert!(gone.contains("node-b") && gone.contains("silent") && gone.contains(" s ago"), "{gone}");
}
