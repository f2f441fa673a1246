//! Authentication: a Bearer token for the JSON API, a session cookie for the
//! web pages, and the CSRF check of the pages' forms.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use axum_extra::extract::CookieJar;

use crate::arena::SharedArena;
use crate::error::ApiError;
use crate::users::{Session, User};

/// The name of the session cookie.
pub const SESSION_COOKIE: &str = "bao_session";

/// The user of an API request, from its `Authorization: Bearer TOKEN` header.
#[derive(Debug, Clone)]
pub struct ApiUser(pub User);

/// The bearer token of a request's headers.
fn bearer(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else { return Ok(None) };
    let value =
        value.to_str().map_err(|_| ApiError::unauthorized("the Authorization header is not ASCII"))?;
    let token = value
        .strip_prefix("Bearer ")
        .ok_or_else(|| ApiError::unauthorized("the Authorization header must be \"Bearer TOKEN\""))?;
    Ok(Some(token.trim().to_owned()))
}

impl FromRequestParts<SharedArena> for ApiUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, arena: &SharedArena) -> Result<Self, Self::Rejection> {
        let token = bearer(&parts.headers)?.ok_or_else(|| {
            ApiError::unauthorized("this endpoint needs an API token: Authorization: Bearer TOKEN")
        })?;
        let user = arena.db.read(move |conn| crate::users::user_by_token(conn, &token)).await?;
        user.map(ApiUser).ok_or_else(|| ApiError::unauthorized("the API token is not valid"))
    }
}

/// The optional user of an API request: `None` without an Authorization header
/// (a wrong token is still an error).
#[derive(Debug, Clone)]
pub struct MaybeApiUser(pub Option<User>);

impl FromRequestParts<SharedArena> for MaybeApiUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, arena: &SharedArena) -> Result<Self, Self::Rejection> {
        if bearer(&parts.headers)?.is_none() {
            return Ok(MaybeApiUser(None));
        }
        Ok(MaybeApiUser(Some(ApiUser::from_request_parts(parts, arena).await?.0)))
    }
}

/// The session of a page request, if its cookie names a live one.
#[derive(Debug, Clone)]
pub struct PageSession(pub Option<Session>);

impl FromRequestParts<SharedArena> for PageSession {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, arena: &SharedArena) -> Result<Self, Self::Rejection> {
        let jar = CookieJar::from_headers(&parts.headers);
        let Some(cookie) = jar.get(SESSION_COOKIE).map(|c| c.value().to_owned()) else {
            return Ok(PageSession(None));
        };
        let session = arena.db.read(move |conn| crate::users::session_by_cookie(conn, &cookie)).await?;
        Ok(PageSession(session))
    }
}

/// Checks a form post: the session's CSRF token must match the form's, and an
/// `Origin` header, when sent, must name this host or the configured `public_url`.
pub fn check_form(
    session: &Session,
    form_csrf: &str,
    headers: &HeaderMap,
    public_url: Option<&str>,
) -> Result<(), ApiError> {
    if !crate::token::constant_time_eq(&session.csrf, form_csrf) {
        return Err(ApiError::forbidden("the form's CSRF token does not match the session: reload the page"));
    }
    check_origin(headers, public_url)
}

/// The origin (`scheme://host[:port]`, lower case, no path) of a URL, if it has one.
#[must_use]
pub fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    let scheme = scheme.to_ascii_lowercase();
    if host.is_empty() || !matches!(scheme.as_str(), "http" | "https") {
        return None;
    }
    Some(format!("{scheme}://{}", host.to_ascii_lowercase()))
}

/// An `Origin` header, when present, must be the configured `public_url`'s origin (the
/// server behind a reverse proxy, whose `Host` may be the proxy's upstream name) or name
/// the `Host` the request was sent to.
pub fn check_origin(headers: &HeaderMap, public_url: Option<&str>) -> Result<(), ApiError> {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) else { return Ok(()) };
    if public_url.and_then(origin_of).is_some_and(|public| Some(public) == origin_of(origin)) {
        return Ok(());
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    let origin_host = origin.split_once("://").map_or(origin, |(_, rest)| rest);
    if origin_host != host {
        return Err(ApiError::forbidden(format!(
            "cross-site form post refused (Origin {origin} is not {host})"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn bearer_parsing() {
        let mut h = HeaderMap::new();
        assert!(bearer(&h).expect("none").is_none());
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer abc"));
        assert_eq!(bearer(&h).expect("ok").as_deref(), Some("abc"));
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert!(bearer(&h).is_err());
    }

    #[test]
    fn origin_must_match_host() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_static("127.0.0.1:8080"));
        assert!(check_origin(&h, None).is_ok());
        h.insert(header::ORIGIN, HeaderValue::from_static("http://127.0.0.1:8080"));
        assert!(check_origin(&h, None).is_ok());
        h.insert(header::ORIGIN, HeaderValue::from_static("https://evil.example"));
        assert!(check_origin(&h, None).is_err());
    }

    #[test]
    fn behind_a_proxy_the_public_url_is_the_origin() {
        // nginx's default `proxy_set_header Host $proxy_host`: the upstream's name.
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_static("127.0.0.1:8080"));
        h.insert(header::ORIGIN, HeaderValue::from_static("https://bao.example.org"));
        assert!(check_origin(&h, None).is_err(), "without public_url the proxy's name is refused");
        assert!(check_origin(&h, Some("https://bao.example.org/")).is_ok());
        assert!(check_origin(&h, Some("https://Bao.Example.org")).is_ok());
        assert!(check_origin(&h, Some("http://bao.example.org")).is_err(), "another scheme");
        h.insert(header::ORIGIN, HeaderValue::from_static("https://evil.example"));
        assert!(check_origin(&h, Some("https://bao.example.org")).is_err());
        assert_eq!(origin_of("bao.example.org"), None);
    }
}
