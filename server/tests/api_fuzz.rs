//! A property test of the whole HTTP surface, driven by the OpenAPI document:
//! random methods, every documented path with hostile or random parameters,
//! random query strings, headers and bodies, sent to the real router (in
//! process, on a real SQLite file). No answer may be a 5xx, nothing may
//! panic, and every API error must be JSON with a message.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Method, Request};
use proptest::prelude::*;
use tower::ServiceExt;

fn paths() -> Vec<String> {
    let doc = serde_json::to_value(bao_server::openapi::document()).expect("the document serialises");
    let mut paths: Vec<String> = doc["paths"].as_object().expect("paths").keys().cloned().collect();
    paths.extend(
        [
            "/",
            "/bots/{name}",
            "/games",
            "/games/{id}",
            "/games/{id}/replay",
            "/my/bots",
            "/versions/{id}",
            "/live",
            "/live/{id}",
            "/leaderboard/body",
            "/login",
            "/submit",
            "/logout",
            "/healthz",
            "/metrics",
            "/api/openapi.json",
            "/versions/{id}/promote",
            "/play",
            "/play/game/{id}",
            "/play/game/{id}/log",
            "/play/game/{id}/info",
            "/play/game/{id}/ws",
        ]
        .map(String::from),
    );
    paths
}

fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("1".to_owned()),
        Just("0".to_owned()),
        Just("-1".to_owned()),
        Just("99999999999999999999".to_owned()),
        Just("%3Cscript%3E".to_owned()),
        Just("..%2F..%2Fetc".to_owned()),
        Just("bot-1".to_owned()),
        "[a-zA-Z0-9_%.-]{1,40}",
    ]
}

fn query() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("?language=python&file_name=a.py".to_owned()),
        Just("?language=python&file_name=a.zip&candidate=true&auto_promote=true".to_owned()),
        Just("?limit=abc&state=x".to_owned()),
        Just("?limit=4294967296&before=-5&bot=%00".to_owned()),
        Just("?page=99999999999999999999&page=-1".to_owned()),
        Just("?page=%FF%FE".to_owned()),
        "\\?[a-z_]{1,10}=[a-zA-Z0-9%&=]{0,30}",
    ]
}

fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(Vec::new()),
        Just(b"token=abc&csrf=def".to_vec()),
        Just(b"PK\x03\x04\x14\x00garbage".to_vec()),
        Just(b"print(1)\n".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..300),
    ]
}

fn content_type() -> impl Strategy<Value = Option<&'static str>> {
    prop_oneof![
        Just(None),
        Just(Some("application/octet-stream")),
        Just(Some("application/x-www-form-urlencoded")),
        Just(Some("multipart/form-data; boundary=xyz")),
        Just(Some("application/json")),
    ]
}

struct Fixture {
    _dir: tempfile::TempDir,
    app: axum::Router,
    token: String,
    rt: tokio::runtime::Runtime,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("arena");
    let token = bao_server::user_add(&data, "fuzzer", false).expect("user");
    let arena = Arc::new(bao_server::arena::Arena::open(&data).expect("arena"));
    let app = bao_server::http::router(arena);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    Fixture { _dir: dir, app, token, rt }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn no_request_gets_a_5xx(
        post in any::<bool>(),
        path_index in any::<proptest::sample::Index>(),
        seg in segment(),
        q in query(),
        b in body(),
        ct in content_type(),
        auth in prop_oneof![Just(0u8), Just(1u8), Just(2u8)],
    ) {
        thread_local! { static FIX: Fixture = fixture(); }
        FIX.with(|f| {
            let all = paths();
            let template = path_index.get(&all);
            let path = template.replace("{name}", &seg).replace("{id}", &seg);
            let uri = format!("{path}{q}");
            let Ok(mut req) = Request::builder()
                .method(if post { Method::POST } else { Method::GET })
                .uri(&uri)
                .body(Body::from(b.clone())) else { return Ok(()) };
            if let Some(ct) = ct {
                req.headers_mut().insert("content-type", ct.parse().expect("header"));
            }
            match auth {
                1 => { req.headers_mut().insert("authorization", format!("Bearer {}", f.token).parse().expect("header")); }
                2 => { req.headers_mut().insert("authorization", "Bearer nope".parse().expect("header")); }
                _ => {}
            }
            let response = f.rt.block_on(f.app.clone().oneshot(req)).expect("infallible");
            let status = response.status();
            prop_assert!(status.as_u16() < 500, "{} {uri} -> {status}", if post { "POST" } else { "GET" });
            if path.starts_with("/api/") && status.is_client_error() {
                let ct = response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
                prop_assert!(ct.starts_with("application/json"), "{uri} -> {status} with {ct}");
                let bytes = f.rt.block_on(axum::body::to_bytes(response.into_body(), 1 << 20)).expect("body");
                let v: serde_json::Value = serde_json::from_slice(&bytes).expect("a JSON error");
                prop_assert!(v["error"].as_str().is_some_and(|m| !m.is_empty()), "{uri}: {v}");
            }
            Ok(())
        })?;
    }
}
