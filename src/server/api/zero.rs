//! The nets of `othello zero` shipped with the program, for the page to show beside the
//! player: `GET /api/zero/nets` (each net's game and how its training went) and
//! `GET /api/zero/nets/{name}/curve` (its training curve, an SVG drawing).

use std::sync::OnceLock;

use axum::{
    Json,
    extract::Path,
    http::header,
    response::{IntoResponse, Response},
};
use othello::{GameKind, engine::zero::shipped_kinds, training::zero::RunRecord};
use serde::Serialize;

use crate::server::error::ApiError;

/// A shipped net as the page describes it.
#[derive(Clone, Debug, Serialize)]
pub(super) struct NetView {
    /// Its name in links: `6x6-full-most`.
    name: String,
    /// The game it plays: `6x6 FULL most`.
    game: String,
    rules: &'static str,
    rows: u8,
    columns: u8,
    win: &'static str,
    /// Filters of each convolution and residual blocks.
    channels: usize,
    blocks: usize,
    /// Iterations of self-play and fits it had, and the one whose net is shipped.
    iterations: usize,
    best: usize,
    /// Minutes of training in all.
    minutes: f64,
    /// The shipped net's score against `random` and `greedy`, and the games of each, at
    /// the end of the run.
    vs_random: f64,
    vs_greedy: f64,
    games: usize,
    /// The share of its moves that keep the exact game value, and over how many
    /// positions, where measured.
    exact_share: Option<f64>,
    exact_positions: Option<usize>,
    /// Its scores against the `classic` levels, weakest first, where measured.
    levels: Vec<LevelView>,
    /// Its training curve.
    curve: String,
}

/// The shipped net's score against a `classic` level.
#[derive(Clone, Debug, Serialize)]
struct LevelView {
    level: u8,
    score: f64,
    games: u32,
}

/// A net's view and its curve, drawn once.
struct Shown {
    view: NetView,
    svg: String,
}

fn shown() -> &'static [Shown] {
    static SHOWN: OnceLock<Vec<Shown>> = OnceLock::new();
    SHOWN.get_or_init(|| shipped_kinds().filter_map(show).collect())
}

fn show(kind: GameKind) -> Option<Shown> {
    let record = RunRecord::shipped(kind)?;
    let last = record.last()?;
    let name = format!(
        "{}x{}-{}-{}",
        kind.shape.rows(),
        kind.shape.columns(),
        kind.variant.name(),
        kind.rule.name()
    );
    let svg = record.curve_svg().ok()?;
    let exact = record.exact_share();
    let view = NetView {
        curve: format!("/api/zero/nets/{name}/curve"),
        name,
        game: kind.to_string(),
        rules: kind.variant.name(),
        rows: kind.shape.rows(),
        columns: kind.shape.columns(),
        win: kind.rule.name(),
        channels: record.settings.channels,
        blocks: record.settings.blocks,
        iterations: last.iteration,
        best: record.best,
        minutes: (record.seconds() / 60.0).round(),
        vs_random: last.vs_random,
        vs_greedy: last.vs_greedy,
        games: 2 * record.settings.eval_pairs,
        exact_share: exact.map(|row| row.share),
        exact_positions: exact.map(|row| row.positions),
        levels: record
            .last_levels()
            .into_iter()
            .map(|row| LevelView {
                level: row.level,
                score: row.score,
                games: row.games,
            })
            .collect(),
    };
    Some(Shown { view, svg })
}

/// The shipped nets.
#[derive(Serialize)]
pub(super) struct NetsView {
    nets: Vec<NetView>,
}

/// `GET /api/zero/nets`.
pub(super) async fn nets() -> Json<NetsView> {
    Json(NetsView {
        nets: shown().iter().map(|shown| shown.view.clone()).collect(),
    })
}

/// `GET /api/zero/nets/{name}/curve`.
pub(super) async fn curve(Path(name): Path<String>) -> Result<Response, ApiError> {
    let shown = shown()
        .iter()
        .find(|shown| shown.view.name == name)
        .ok_or_else(|| {
            ApiError::NoRoute(format!(
                "/api/zero/nets/{}/curve",
                name.chars().take(100).collect::<String>()
            ))
        })?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/svg+xml"),
            // As the list's figures: a new program's net shows its own curve at once.
            (header::CACHE_CONTROL, "no-cache"),
        ],
        shown.svg.clone(),
    )
        .into_response())
}
