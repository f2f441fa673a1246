//! The API's errors and authentication, the documents, and the pages'
//! sessions and CSRF protection.

use crate::support::{Arena, FAST, Server, get, post};

pub fn api_errors_auth_and_docs() {
    let arena = Arena::new(&["alice"], FAST);
    let server = Server::start(&arena.data());
    let u = &server.url;
    assert_eq!(get(&format!("{u}/healthz"), None, None).body.trim(), "ok");
    let me = get(&format!("{u}/api/me"), None, None);
    assert_eq!(me.status, 401);
    assert!(me.error().contains("API token"), "{}", me.body);
    let bad = get(&format!("{u}/api/me"), Some("not-a-token"), None);
    assert_eq!(bad.status, 401);
    assert!(bad.error().contains("not valid"));
    let ok = get(&format!("{u}/api/me"), Some(&arena.tokens[0]), None).json();
    assert_eq!(ok["name"], "alice");
    assert_eq!(ok["is_admin"], true);
    // Every failure is JSON with a message: unknown path, wrong method, bad query, unknown id.
    for (path, status) in [
        ("/api/nothing", 404),
        ("/api/games?limit=x", 400),
        ("/api/games/999", 404),
        ("/api/versions/abc", 400),
    ] {
        let a = get(&format!("{u}{path}"), None, None);
        assert_eq!(a.status, status, "{path}: {}", a.body);
        assert!(!a.error().is_empty());
    }
    let wrong_method = post(&format!("{u}/api/leaderboard"), &[], b"");
    assert_eq!(wrong_method.status, 405);
    assert!(wrong_method.error().contains("method"));
    // The OpenAPI document lists the endpoints and the token scheme.
    let doc = get(&format!("{u}/api/openapi.json"), None, None).json();
    assert_eq!(doc["openapi"].as_str().map(|v| v.starts_with("3.")), Some(true));
    for path in ["/api/leaderboard", "/api/bots/{name}/versions", "/api/games/{id}/log", "/api/versions/{id}"]
    {
        assert!(doc["paths"].get(path).is_some(), "{path} missing from the OpenAPI document");
    }
    assert_eq!(doc["components"]["securitySchemes"]["token"]["scheme"], "bearer");
    // /metrics is for administrators by default (http.metrics = "admin").
    let anonymous = get(&format!("{u}/metrics"), None, None);
    assert_eq!(anonymous.status, 401, "{}", anonymous.body);
    let metrics = get(&format!("{u}/metrics"), Some(&arena.tokens[0]), None);
    assert!(metrics.body.contains("bao_games_finished_total 0"), "{}", metrics.body);
    assert!(metrics.body.contains("bao_versions{state=\"active\"} 0"));
    let languages = get(&format!("{u}/api/languages"), None, None).json();
    assert_eq!(languages.as_array().map(Vec::len), Some(6));
    let status = server.terminate();
    assert_eq!(status.code(), Some(130), "graceful shutdown on SIGTERM exits 130 (README): {status}");
}

pub fn pages_sessions_and_csrf() {
    let arena = Arena::new(&["alice"], FAST);
    let server = Server::start(&arena.data());
    let u = &server.url;
    let home = get(&format!("{u}/"), None, None);
    assert_eq!(home.status, 200);
    assert!(home.body.contains("Leaderboard") && home.body.contains("No active bots yet"), "{}", home.body);
    // A wrong token does not log in.
    let form = ("Content-Type", "application/x-www-form-urlencoded");
    let wrong = post(&format!("{u}/login"), &[form], b"token=nope");
    assert_eq!(wrong.status, 401);
    assert!(wrong.header("set-cookie").is_none());
    // The right one sets an HttpOnly, SameSite=Strict cookie.
    let login = post(&format!("{u}/login"), &[form], format!("token={}", arena.tokens[0]).as_bytes());
    assert_eq!(login.status, 303, "{}", login.body);
    let set = login.header("set-cookie").expect("a session cookie").to_owned();
    assert!(set.contains("HttpOnly") && set.contains("SameSite=Strict") && set.contains("Path=/"), "{set}");
    let cookie = set.split(';').next().expect("name=value").to_owned();
    let page = get(&format!("{u}/submit"), None, Some(&cookie));
    assert!(page.body.contains("alice"), "logged in: {}", page.body);
    let csrf = page
        .body
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("the form carries a CSRF token")
        .to_owned();
    assert_eq!(csrf.len(), 64);
    // A form post without the session's CSRF token is refused, and so is a cross-site one.
    let no_csrf = post(&format!("{u}/logout"), &[form, ("Cookie", &cookie)], b"csrf=forged");
    assert_eq!(no_csrf.status, 403, "{}", no_csrf.body);
    let cross = post(
        &format!("{u}/logout"),
        &[form, ("Cookie", &cookie), ("Origin", "https://evil.example")],
        format!("csrf={csrf}").as_bytes(),
    );
    assert_eq!(cross.status, 403, "{}", cross.body);
    // The real form logs out, and the cookie no longer works.
    let out = post(&format!("{u}/logout"), &[form, ("Cookie", &cookie)], format!("csrf={csrf}").as_bytes());
    assert_eq!(out.status, 303);
    let after = get(&format!("{u}/submit"), None, Some(&cookie));
    assert!(after.body.contains("Log in</a> first"), "{}", after.body);
}
