//! The page templates (server/templates/, compiled into the binary) and their
//! rendering. Templates end in `.html`, so minijinja escapes every value they
//! print: no text a user supplied reaches a page unescaped.

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use minijinja::Environment;
use serde::Serialize;

use crate::error::ServerError;

const TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("../templates/base.html")),
    ("games_table.html", include_str!("../templates/games_table.html")),
    ("pager.html", include_str!("../templates/pager.html")),
    ("games.html", include_str!("../templates/games.html")),
    ("my_bots.html", include_str!("../templates/my_bots.html")),
    ("workers.html", include_str!("../templates/workers.html")),
    ("leaderboard.html", include_str!("../templates/leaderboard.html")),
    ("leaderboard_body.html", include_str!("../templates/leaderboard_body.html")),
    ("bot.html", include_str!("../templates/bot.html")),
    ("version.html", include_str!("../templates/version.html")),
    ("game.html", include_str!("../templates/game.html")),
    ("live.html", include_str!("../templates/live.html")),
    ("login.html", include_str!("../templates/login.html")),
    ("submit.html", include_str!("../templates/submit.html")),
    ("error.html", include_str!("../templates/error.html")),
    ("play.html", include_str!("../templates/play.html")),
];

/// The compiled templates.
pub struct Templates {
    env: Environment<'static>,
}

impl Templates {
    /// Compiles every template (a syntax error is reported naming the template).
    pub fn new() -> Result<Templates, ServerError> {
        let mut env = Environment::new();
        for (name, source) in TEMPLATES {
            env.add_template(name, source)
                .map_err(|e| ServerError::Internal(format!("template {name}: {e}")))?;
        }
        env.add_filter("outcome", crate::result_words::outcome_filter);
        Ok(Templates { env })
    }

    /// Renders a template with a context.
    pub fn render(&self, name: &str, ctx: impl Serialize) -> Result<String, ServerError> {
        self.env
            .get_template(name)
            .and_then(|t| t.render(ctx))
            .map_err(|e| ServerError::Internal(format!("rendering {name}: {e}")))
    }

    /// Renders a page, or the error page if rendering fails.
    pub fn page(&self, name: &str, ctx: impl Serialize) -> Response {
        match self.render(name, ctx) {
            Ok(html) => Html(html).into_response(),
            Err(e) => self.error(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string(), None),
        }
    }

    /// The error page.
    pub fn error(&self, status: StatusCode, message: &str, user: Option<&str>) -> Response {
        let ctx = minijinja::context! { status => status.to_string(), message => message, user => user };
        let body = self.render("error.html", ctx).unwrap_or_else(|_| format!("{status}: {message}"));
        (status, Html(body)).into_response()
    }
}

/// A Unix-millisecond time as an HTTP date (UTC).
#[must_use]
pub fn format_time(ms: i64) -> String {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(u64::try_from(ms).unwrap_or(0));
    httpdate::fmt_http_date(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_compiles_and_user_text_is_escaped() {
        let t = Templates::new().expect("templates");
        let html = t.render("error.html", minijinja::context! { status => "400", message => "<script>alert(1)</script>", user => "<b>eve</b>" }).expect("render");
        assert!(!html.contains("<script>alert"), "{html}");
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;&#x2f;script&gt;") || html.contains("&lt;script&gt;"),
            "{html}"
        );
        assert!(!html.contains("<b>eve</b>"));
    }

    #[test]
    fn times_format() {
        assert_eq!(format_time(0), "Thu, 01 Jan 1970 00:00:00 GMT");
    }
}
