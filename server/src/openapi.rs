//! The OpenAPI document of the JSON API, generated from the handlers'
//! annotations by `utoipa`.

use utoipa::OpenApi;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};

use crate::http::api;

#[derive(OpenApi)]
#[openapi(
    info(title = "Bao competition server", description = "Submit bots, read standings, games and logs."),
    paths(api::me, api::revoke, api::languages, api::bots, api::bot, api::submit, api::version, api::promote, api::leaderboard, api::games,
        api::game, api::game_log, crate::play::routes::set_playable,
        crate::play::routes::score_against_people),
    components(schemas(crate::error::ErrorBody)),
    modifiers(&BearerToken)
)]
struct ApiDoc;

struct BearerToken;

impl utoipa::Modify for BearerToken {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "token",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

/// The document.
#[must_use]
pub fn document() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}
