//! The page, compiled into the binary: plain HTML, CSS and JavaScript modules, no build
//! step and nothing fetched from elsewhere (it works offline).

use std::{fmt::Write as _, sync::OnceLock};

use axum::{
    extract::Path,
    http::header,
    response::{IntoResponse, Response},
};
use othello::engine::{PLAYER_KINDS, PlayerKind};

use super::error::ApiError;

/// The page (the same for the new-game form and for a game: the script reads the path), as
/// written: [`page_html`] fills in its players.
const PAGE: &str = include_str!("web/index.html");

/// The kind the seats' menus list first: the engine, the opponent most people come for.
const FIRST_KIND: &str = "engine";

/// The page as served: each seat's menu of players (`<!-- players -->`, or `<!-- players
/// selected=NAME -->` with a kind chosen at first) and the fields for the numbers they take
/// (`<!-- player numbers SEAT -->`: a level, a depth, playouts) written from the library's
/// list of players, [`PLAYER_KINDS`] (those it offers on the page).
fn page_html() -> &'static str {
    static FILLED: OnceLock<String> = OnceLock::new();
    FILLED.get_or_init(|| {
        let mut kinds: Vec<&PlayerKind> = PLAYER_KINDS
            .iter()
            .filter(|kind| kind.label.is_some())
            .collect();
        kinds.sort_by_key(|kind| kind.name != FIRST_KIND);
        let mut page = String::with_capacity(PAGE.len() + 2048);
        let mut rest = PAGE;
        while let Some(start) = rest.find("<!-- player") {
            let end = start + rest[start..].find("-->").expect("a closed marker") + 3;
            let marker = rest[start + 4..end - 3].trim();
            // The marker's own line goes: its indentation starts each line written for it.
            let line_start = rest[..start].rfind('\n').map_or(0, |i| i + 1);
            let indent = &rest[line_start..start];
            page.push_str(&rest[..line_start]);
            if let Some(numbers_of) = marker.strip_prefix("player numbers ") {
                write_numbers(&mut page, indent, numbers_of, &kinds);
            } else {
                let chosen = marker
                    .strip_prefix("players")
                    .and_then(|rest| rest.trim().strip_prefix("selected="));
                write_options(&mut page, indent, chosen, &kinds);
            }
            rest = rest[end..].strip_prefix('\n').unwrap_or(&rest[end..]);
        }
        page.push_str(rest);
        page
    })
}

/// A seat's menu of players: an `<option>` for each kind, `chosen` selected.
fn write_options(page: &mut String, indent: &str, chosen: Option<&str>, kinds: &[&PlayerKind]) {
    for kind in kinds {
        let selected = if chosen == Some(kind.name) {
            " selected"
        } else {
            ""
        };
        let label = kind.label.unwrap_or(kind.name);
        let _ = writeln!(
            page,
            "{indent}<option value=\"{}\"{selected}>{label}</option>",
            kind.name
        );
    }
}

/// The fields of `seat` for the number each kind takes, hidden until its kind is chosen.
fn write_numbers(page: &mut String, indent: &str, seat: &str, kinds: &[&PlayerKind]) {
    for kind in kinds {
        let Some(number) = kind.argument else {
            continue;
        };
        let mut words = number.name.chars();
        let title: String = words
            .next()
            .map(|first| first.to_uppercase().chain(words).collect())
            .unwrap_or_default();
        let (name, min, max) = (kind.name, number.min, number.max);
        let _ = writeln!(
            page,
            "{indent}<label class=\"{name}-only\" data-kind=\"{name}\" hidden>{title} \
             ({min}–{max}) <input name=\"{seat}-{}\" type=\"number\" min=\"{min}\" \
             max=\"{max}\" value=\"{}\"></label>",
            number.name, number.suggested
        );
    }
}

/// The other files: name, content type, content.
const ASSETS: [(&str, &str, &str); 12] = [
    (
        "analysis.js",
        "text/javascript; charset=utf-8",
        include_str!("web/analysis.js"),
    ),
    (
        "tournament.js",
        "text/javascript; charset=utf-8",
        include_str!("web/tournament.js"),
    ),
    (
        "puzzle.js",
        "text/javascript; charset=utf-8",
        include_str!("web/puzzle.js"),
    ),
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
        "words.js",
        "text/javascript; charset=utf-8",
        include_str!("web/words.js"),
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
        page_html(),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Each seat's menu offers the players the page always offered, in the same order (the
    /// net of `othello zero` last), and a field for each number they take; nothing is left
    /// of the markers.
    #[test]
    fn the_page_lists_its_players_from_the_library() {
        let page = page_html();
        assert!(!page.contains("<!-- player"), "{page}");
        for seat in ["black", "white"] {
            let engine = if seat == "white" { " selected" } else { "" };
            let menu = format!(
                "<select name=\"{seat}-kind\" class=\"seat-kind\">
                <option value=\"human\">a person</option>
                <option value=\"engine\"{engine}>the engine</option>
                <option value=\"random\">random</option>
                <option value=\"greedy\">greedy</option>
                <option value=\"minimax\">minimax</option>
                <option value=\"mcts\">MCTS</option>
                <option value=\"zero\">zero (neural net)</option>
              </select>"
            );
            assert!(page.contains(&menu), "{seat}: {page}");
            let numbers = format!(
                "</label>
            <label class=\"engine-only\" data-kind=\"engine\" hidden>Level (1–10) <input name=\"{seat}-level\" type=\"number\" min=\"1\" max=\"10\" value=\"10\"></label>
            <label class=\"minimax-only\" data-kind=\"minimax\" hidden>Depth (1–60) <input name=\"{seat}-depth\" type=\"number\" min=\"1\" max=\"60\" value=\"4\"></label>
            <label class=\"mcts-only\" data-kind=\"mcts\" hidden>Playouts (1–1000000) <input name=\"{seat}-playouts\" type=\"number\" min=\"1\" max=\"1000000\" value=\"2000\"></label>
            <label class=\"zero-only\" data-kind=\"zero\" hidden>Simulations (1–100000) <input name=\"{seat}-simulations\" type=\"number\" min=\"1\" max=\"100000\" value=\"400\"></label>
            <figure class=\"zero-net\" data-kind=\"zero\" hidden>"
            );
            assert!(page.contains(&numbers), "{seat}: {page}");
        }
    }
}
