//! The leaderboard as served: its JSON, its anonymous page and the page's
//! body for signed-in visitors, built off the request path by [`run`] when
//! something on the board changed (a rating round, a game starting or ending,
//! a version activated or retired) and at least every [`REFRESH`]. A request
//! only clones a reference to the latest snapshot, so that the answer costs
//! the same with a million stored games as with ten, and many clients reading
//! the board never queue behind a database read or a render. The JSON and the
//! anonymous page are also kept gzipped (compressed once per rebuild), for the
//! clients that accept it: a tenth of the bytes to write per answer.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use bytes::Bytes;
use minijinja::context;

use crate::arena::Arena;
use crate::error::ServerError;
use crate::games::{self, GameFilter};
use crate::standings;

/// The longest a snapshot is served without a rebuild, even if nothing said it changed.
pub const REFRESH: Duration = Duration::from_secs(5);
/// The shortest gap between two rebuilds (changes arriving faster are batched). A
/// rebuild with 1,000 bots and a million stored games takes about 76 ms (release,
/// loaded machine), so the board costs at most that much CPU per second however fast
/// games end.
pub const MIN_GAP: Duration = Duration::from_secs(1);
/// Recent games shown under the leaderboard.
const RECENT_GAMES: u32 = 20;

/// One built leaderboard.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// `/api/leaderboard`: the standings as JSON.
    pub json: Bytes,
    /// [`Snapshot::json`] gzipped.
    pub json_gzip: Bytes,
    /// `/` for visitors without a session.
    pub page: Bytes,
    /// [`Snapshot::page`] gzipped.
    pub page_gzip: Bytes,
    /// The page's body (table and recent games), already escaped, for the
    /// pages of signed-in visitors (whose header differs).
    pub body: Arc<str>,
}

/// The latest snapshot and the signal that the board changed.
#[derive(Default)]
pub struct LeaderboardSnapshots {
    current: RwLock<Option<Arc<Snapshot>>>,
    changed: tokio::sync::Notify,
}

impl LeaderboardSnapshots {
    /// Says that the board changed: the next rebuild comes within [`MIN_GAP`].
    pub fn changed(&self) {
        self.changed.notify_one();
    }

    /// The latest snapshot, if one was built.
    pub fn current(&self) -> Option<Arc<Snapshot>> {
        self.current.read().ok()?.clone()
    }

    fn set(&self, s: Snapshot) {
        if let Ok(mut c) = self.current.write() {
            *c = Some(Arc::new(s));
        }
    }
}

/// Reads the standings and recent games and renders the snapshot.
pub async fn build(arena: &Arena) -> Result<Snapshot, ServerError> {
    let (rows, games) = arena
        .db
        .read(|c| {
            let rows = standings::leaderboard(c)?;
            let games = games::list(c, &GameFilter { limit: RECENT_GAMES, ..GameFilter::default() })?;
            Ok((rows, games))
        })
        .await?;
    let json =
        serde_json::to_string(&rows).map_err(|e| ServerError::Internal(format!("leaderboard JSON: {e}")))?;
    let body = arena.templates.render("leaderboard_body.html", context! { standings => rows, games })?;
    let page = render_page(arena, &body, None, None)?;
    let (json, page) = (Bytes::from(json), Bytes::from(page));
    let (json_gzip, page_gzip) = tokio::task::spawn_blocking({
        let (json, page) = (json.clone(), page.clone());
        move || Ok::<_, ServerError>((gzip(&json)?, gzip(&page)?))
    })
    .await
    .map_err(|e| ServerError::Internal(format!("leaderboard compression: {e}")))??;
    Ok(Snapshot { json, json_gzip, page, page_gzip, body: Arc::from(body) })
}

fn gzip(bytes: &[u8]) -> Result<Bytes, ServerError> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder
        .write_all(bytes)
        .and_then(|()| encoder.finish())
        .map(Bytes::from)
        .map_err(|e| ServerError::io("cannot gzip the leaderboard", e))
}

/// Whether an `Accept-Encoding` header value accepts gzip (`gzip` or `*`, with a
/// non-zero quality).
#[must_use]
pub fn accepts_gzip(accept_encoding: &str) -> bool {
    accept_encoding.split(',').any(|item| {
        let mut parts = item.split(';').map(str::trim);
        let coding = parts.next().unwrap_or("");
        let refused = parts
            .any(|p| p.strip_prefix("q=").is_some_and(|q| q.trim().parse::<f64>().is_ok_and(|q| q <= 0.0)));
        (coding.eq_ignore_ascii_case("gzip") || coding == "*") && !refused
    })
}

/// An answer of `plain` (or `gzipped` when the request accepts gzip) with `content_type`.
pub fn answer(
    headers: &axum::http::HeaderMap,
    content_type: &'static str,
    plain: &Bytes,
    gzipped: &Bytes,
) -> axum::response::Response {
    use axum::http::header;
    use axum::response::IntoResponse;
    let gzip = headers.get(header::ACCEPT_ENCODING).and_then(|v| v.to_str().ok()).is_some_and(accepts_gzip);
    if gzip {
        (
            [
                (header::CONTENT_TYPE, content_type),
                (header::CONTENT_ENCODING, "gzip"),
                (header::VARY, "accept-encoding"),
            ],
            gzipped.clone(),
        )
            .into_response()
    } else {
        ([(header::CONTENT_TYPE, content_type), (header::VARY, "accept-encoding")], plain.clone())
            .into_response()
    }
}

/// The leaderboard page around a built body, for a visitor (`user`, `csrf` of a session, if any).
pub fn render_page(
    arena: &Arena,
    body: &str,
    user: Option<&str>,
    csrf: Option<&str>,
) -> Result<String, ServerError> {
    let body = minijinja::Value::from_safe_string(body.to_owned());
    arena.templates.render("leaderboard.html", context! { body, user, csrf })
}

/// The latest snapshot, building the first one now if the background task has not yet.
pub async fn latest(arena: &Arena) -> Result<Arc<Snapshot>, ServerError> {
    if let Some(s) = arena.leaderboard.current() {
        return Ok(s);
    }
    let s = build(arena).await?;
    arena.leaderboard.set(s);
    arena
        .leaderboard
        .current()
        .ok_or_else(|| ServerError::Internal("leaderboard snapshot lock poisoned".into()))
}

/// Rebuilds the snapshot when the board changes (batched, at most every
/// [`MIN_GAP`]) and at least every [`REFRESH`], until shutdown.
pub async fn run(arena: Arc<Arena>) {
    loop {
        let started = Instant::now();
        match build(&arena).await {
            Ok(s) => arena.leaderboard.set(s),
            Err(e) => tracing::error!(error = %e, "cannot build the leaderboard"),
        }
        tracing::debug!(micros = started.elapsed().as_micros(), "leaderboard rebuilt");
        tokio::select! {
            () = arena.shutdown.cancelled() => break,
            () = arena.leaderboard.changed.notified() => {}
            () = tokio::time::sleep(REFRESH) => {}
        }
        tokio::select! {
            () = arena.shutdown.cancelled() => break,
            () = tokio::time::sleep(MIN_GAP) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arena_with_one_bot(dir: &std::path::Path) -> Arena {
        let arena = Arena::open(dir).expect("arena");
        arena
            .db
            .write_blocking(|c| {
                let (user, _) = crate::users::create_user(c, "alice", false)?;
                c.execute(
                    "INSERT INTO bots (id, name, owner_id, created_at) VALUES (1, '<b>bold</b>', ?1, 0)",
                    [user.id],
                )?;
                c.execute(
                    "INSERT INTO versions (id, bot_id, number, language, source_name, source_bytes, state,
                     submitted_at, state_at) VALUES (1, 1, 1, 'python', 'main.py', 1, 'active', 0, 0)",
                    [],
                )?;
                Ok(())
            })
            .expect("rows");
        arena
    }

    #[tokio::test]
    async fn a_snapshot_holds_the_standings_as_json_and_escaped_pages() {
        let dir = tempfile::tempdir().expect("tempdir");
        let arena = arena_with_one_bot(dir.path());
        assert!(arena.leaderboard.current().is_none(), "nothing is built before it is asked for");
        let s = latest(&arena).await.expect("built on first use");
        let rows: serde_json::Value = serde_json::from_slice(&s.json).expect("JSON");
        assert_eq!(rows[0]["bot"], "<b>bold</b>");
        assert_eq!(rows[0]["owner"], "alice");
        let page = std::str::from_utf8(&s.page).expect("utf8");
        assert!(page.contains("&lt;b&gt;bold&lt;&#x2f;b&gt;") && !page.contains("<b>bold"), "{page}");
        assert!(page.contains("<h1>Leaderboard</h1>") && page.contains("Log in"), "the anonymous header");
        let signed_in = render_page(&arena, &s.body, Some("alice"), Some("t0ken")).expect("render");
        assert!(signed_in.contains("alice · ") && signed_in.contains("value=\"t0ken\""), "{signed_in}");
        assert!(signed_in.contains("&lt;b&gt;bold"), "the shared body is not escaped twice or unescaped");
        // The next request shares the same snapshot until a rebuild.
        let again = latest(&arena).await.expect("cached");
        assert!(Arc::ptr_eq(&s, &again));
    }

    #[test]
    fn gzip_is_accepted_unless_refused() {
        assert!(accepts_gzip("gzip, deflate, br"));
        assert!(accepts_gzip("br;q=1.0, GZIP;q=0.5"));
        assert!(accepts_gzip("*"));
        assert!(!accepts_gzip("gzip;q=0"));
        assert!(!accepts_gzip("identity"));
        assert!(!accepts_gzip("gzipx, deflate"));
        assert!(!accepts_gzip(""));
    }

    #[tokio::test]
    async fn the_gzipped_answers_unpack_to_the_plain_ones() {
        use std::io::Read;
        let dir = tempfile::tempdir().expect("tempdir");
        let arena = arena_with_one_bot(dir.path());
        let s = latest(&arena).await.expect("built");
        for (plain, gz) in [(&s.json, &s.json_gzip), (&s.page, &s.page_gzip)] {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut out).expect("gzip");
            assert_eq!(&out[..], &plain[..]);
        }
        let mut headers = axum::http::HeaderMap::new();
        let r = answer(&headers, "application/json", &s.json, &s.json_gzip);
        assert!(r.headers().get("content-encoding").is_none());
        headers.insert("accept-encoding", "gzip".parse().expect("header"));
        let r = answer(&headers, "application/json", &s.json, &s.json_gzip);
        assert_eq!(r.headers()["content-encoding"], "gzip");
        assert_eq!(r.headers()["vary"], "accept-encoding");
    }

    #[tokio::test]
    async fn the_background_task_rebuilds_when_told_the_board_changed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let arena = Arc::new(arena_with_one_bot(dir.path()));
        let task = tokio::spawn(run(arena.clone()));
        // Polled (at most 30 s, a guard against a hang, not a timing assertion).
        let mut polls = 0..3000;
        let first = loop {
            if let Some(s) = arena.leaderboard.current() {
                break s;
            }
            assert!(polls.next().is_some(), "the task never built a snapshot");
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        arena
            .db
            .write_blocking(|c| {
                c.execute("UPDATE versions SET state = 'retired' WHERE id = 1", [])?;
                Ok(())
            })
            .expect("retire");
        arena.leaderboard.changed();
        let rebuilt = loop {
            let s = arena.leaderboard.current().expect("built");
            if !Arc::ptr_eq(&s, &first) {
                break s;
            }
            assert!(polls.next().is_some(), "the task never rebuilt the snapshot");
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        assert_eq!(&rebuilt.json[..], b"[]", "the retired version left the board");
        arena.shutdown.cancel();
        task.await.expect("the task stops on shutdown");
    }
}
