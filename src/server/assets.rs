//! The page, compiled into the binary: plain HTML, CSS and JavaScript modules, no build
//! step and nothing fetched from elsewhere (it works offline).

use axum::{
    extract::Path,
    http::header,
    response::{IntoResponse, Response},
};

use super::error::ApiError;

/// The page (the same for the new-game form and for a game: the script reads the path).
const PAGE: &str = include_str!("web/index.html");

/// The other files: name, content type, content.
const ASSETS: [(&str, &str, &str); 8] = [
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("web/app.js"),
    ),
    (
        "api.js",
        "text/javascript; charset=utf-8",
        include_str!("web/api.js"),
    ),
    (
        "clock.js",
        "text/javascript; charset=utf-8",
        include_str!("web/clock.js"),
    ),
    (
        "player.js",
        "text/javascript; charset=utf-8",
        include_str!("web/player.js"),
    ),
    (
        "lobby.js",
        "text/javascript; charset=utf-8",
        include_str!("web/lobby.js"),
    ),
    (
        "board.js",
        "text/javascript; charset=utf-8",
        include_str!("web/board.js"),
    ),
    (
        "graph.js",
        "text/javascript; charset=utf-8",
        include_str!("web/graph.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("web/style.css"),
    ),
];

/// The page's icon: four discs on the felt, as SVG (browsers ask for `/favicon.ico`, and
/// take SVG from it as they do from a `link rel="icon"`).
const ICON: &str = include_str!("web/icon.svg");

/// `GET /favicon.ico`.
pub async fn icon() -> Response {
    (
        [
            (header::CONTENT_TYPE, "image/svg+xml"),
            (header::CACHE_CONTROL, "max-age=86400"),
        ],
        ICON,
    )
        .into_response()
}

/// `GET /` and `GET /g/{id}`.
pub async fn page() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        PAGE,
    )
        .into_response()
}

/// `GET /assets/{file}`.
pub async fn asset(Path(name): Path<String>) -> Result<Response, ApiError> {
    let (_, content_type, content) = ASSETS
        .iter()
        .find(|(file, _, _)| *file == name)
        .ok_or_else(|| {
            ApiError::NoRoute(format!(
                "/assets/{}",
                name.chars().take(100).collect::<String>()
            ))
        })?;
    Ok((
        [
            (header::CONTENT_TYPE, *content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        *content,
    )
        .into_response())
}
