//! `POST /api/users/{name}/revoke` through the real router: a user may revoke their own
//! tokens and an admin anyone's; nobody else's; a revoked token is refused at once.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use tower::ServiceExt;

fn call(
    rt: &tokio::runtime::Runtime,
    app: &axum::Router,
    method: Method,
    uri: &str,
    token: &str,
) -> (StatusCode, serde_json::Value) {
    let req = Request::builder()
        .method(method)
        .uri(uri)
        .header("authorization", format!("Bearer {token}"))
        .body(Body::empty())
        .expect("request");
    let response = rt.block_on(app.clone().oneshot(req)).expect("infallible");
    let status = response.status();
    let bytes = rt.block_on(axum::body::to_bytes(response.into_body(), 1 << 20)).expect("body");
    (status, serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null))
}

#[test]
fn users_revoke_their_own_tokens_and_admins_anyones() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("arena");
    let admin = bao_server::user_add(&data, "root", true).expect("admin");
    let alice = bao_server::user_add(&data, "alice", false).expect("alice");
    let bob = bao_server::user_add(&data, "bob", false).expect("bob");
    let arena = Arc::new(bao_server::arena::Arena::open(&data).expect("arena"));
    let app = bao_server::http::router(arena);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");

    let (status, body) = call(&rt, &app, Method::POST, "/api/users/bob/revoke", &alice);
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(body["error"].as_str().is_some_and(|m| m.contains("admin")), "{body}");
    let (status, body) = call(&rt, &app, Method::POST, "/api/users/nobody/revoke", &admin);
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");

    let (status, body) = call(&rt, &app, Method::POST, "/api/users/alice/revoke", &alice);
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body, serde_json::json!({"tokens": 1, "sessions": 0}));
    let (status, _) = call(&rt, &app, Method::GET, "/api/me", &alice);
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a revoked token is refused");

    let (status, body) = call(&rt, &app, Method::POST, "/api/users/BOB/revoke", &admin);
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _) = call(&rt, &app, Method::GET, "/api/me", &bob);
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, body) = call(&rt, &app, Method::GET, "/api/me", &admin);
    assert_eq!((status, body["name"].as_str()), (StatusCode::OK, Some("root")), "the admin keeps theirs");

    let fresh = bao_server::user_token(&data, "alice").expect("a new token");
    let (status, body) = call(&rt, &app, Method::GET, "/api/me", &fresh);
    assert_eq!((status, body["name"].as_str()), (StatusCode::OK, Some("alice")));
}
