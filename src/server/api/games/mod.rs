//! The game routes: a new game, the list, a game's state, a person's actions (each one
//! [`Action`] through the hub's act path), the engine's help, exports and the live channel.

use std::{sync::Arc, time::Duration};

use axum::{
    Json, Router,
    extract::{
        State as AxumState,
        ws::{WebSocketUpgrade, rejection::WebSocketUpgradeRejection},
    },
    http::{HeaderMap, StatusCode, header},
    response::{IntoResponse, Response},
    routing::{MethodRouter, get, post},
};
use othello::{
    ByColor, Color, LoadSettings, Record, RecordFormat, Setup, Shape, Square, Variant,
    analysis::Hint, engine::Occupant,
};
use serde::{Deserialize, Serialize};

use super::{
    App, Body, Caller, Empty, Game, GameHead, MAX_HINT_COUNT, MAX_HINT_TIME_MS, Params, origin,
    same_origin, seat,
    settings::{ClockRequest, Settings, SettingsRequest, TimeCap, guest_name, max_time, time},
};
use crate::server::{
    error::{ApiError, SeekError},
    game::{GameCell, NewGame, NewSeat, Viewer},
    limits::Making,
    live::{DEFAULT_SPEED_MS, DEFAULT_TIME_MS, EVAL_BUDGET, MAX_SPEED_MS},
    table::{Action, Controls, Help, UndoAction},
    views::{self, GameView},
    websocket,
};

mod create;
mod help;

use create::create;
pub(super) use help::{HintView, hint_view};
use help::{evaluations, hint};

/// The routes under `/api/games`.
pub fn routes() -> Router<App> {
    Router::new()
        .route("/games", post(create).get(list))
        .route("/games/{id}", get(show))
        .route("/games/{id}/moves", post(play))
        .route("/games/{id}/undo", post(undo))
        .route("/games/{id}/redo", plain(Action::Redo))
        .route("/games/{id}/resign", plain(Action::Resign))
        .route("/games/{id}/abort", plain(Action::Abort))
        .route("/games/{id}/rematch", post(rematch))
        .route("/games/{id}/claim", plain(Action::Claim))
        .route("/games/{id}/control", post(control))
        .route("/games/{id}/hint", get(hint))
        .route("/games/{id}/evaluations", get(evaluations))
        .route("/games/{id}/export", get(export))
        .route("/games/{id}/events", get(events))
}

/// How many games `GET /api/games` lists.
const LISTED: usize = 20;

/// A game in the list of those being played.
#[derive(Serialize)]
struct Listed {
    #[serde(flatten)]
    head: GameHead,
    black: String,
    white: String,
    moves: usize,
    to_move: Option<char>,
}

/// `GET /api/games`: the games being played, most recently changed first (at most 20),
/// for spectators.
#[derive(Serialize)]
struct ListView {
    games: Vec<Listed>,
}

async fn list(
    AxumState(app): AxumState<App>,
    headers: HeaderMap,
) -> Result<Json<ListView>, ApiError> {
    let origin = origin(&app, &headers);
    let mut games = Vec::new();
    for id in app.hub.playing(LISTED, super::listed_since()).await? {
        let Ok(cell) = app.hub.get(&id).await else {
            continue;
        };
        let listing = cell.listing().await;
        games.push(Listed {
            head: GameHead::of(&origin, id, &listing),
            black: listing.name(Color::Black),
            white: listing.name(Color::White),
            moves: listing.moves,
            to_move: listing.to_move.map(Color::letter),
        });
    }
    Ok(Json(ListView { games }))
}

/// `GET /api/games/{id}`: `?ply=k` for the position after `k` moves.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ShowParams {
    ply: Option<usize>,
}

async fn show(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    Params(params): Params<ShowParams>,
) -> Result<Json<GameView>, ApiError> {
    app.hub.refresh_seats(&cell).await;
    let Some(ply) = params.ply else {
        let state = views::view(&cell, caller.viewer(&cell).await, None).await;
        return Ok(Json(state.expect("the position now is always there")));
    };
    // A review is read-only: no control of a game between engines in it.
    let viewer = Viewer {
        control: false,
        ..caller.viewer(&cell).await
    };
    views::view(&cell, viewer, Some(ply))
        .await
        .map(Json)
        .map_err(|played| {
            ApiError::BadRequest(format!(
                "ply must be from 0 to {played} (the moves played), not {ply}"
            ))
        })
}

/// A person's action on the game, through the hub's one act path: the game as they see it
/// after, or the refusal with it.
async fn act(
    app: &App,
    cell: &Arc<GameCell>,
    caller: &Caller,
    action: Action,
) -> Result<Json<GameView>, ApiError> {
    // An account's refusals count the same here as through the bot API.
    app.check_refusals(caller)?;
    app.hub
        .act(cell, caller.credentials(), action)
        .await
        .map(Json)
        .inspect_err(|error| app.count_refusal(caller, error))
}

/// `POST /api/games/{id}/moves`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveRequest {
    square: String,
}

async fn play(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    Body(request): Body<MoveRequest>,
) -> Result<Json<GameView>, ApiError> {
    let square: Square = request.square.trim().parse().map_err(|_| {
        ApiError::BadRequest(format!(
            "square must be in standard notation such as d3, not {:?}",
            request.square
        ))
    })?;
    act(&app, &cell, &caller, Action::Play(square)).await
}

/// `POST /api/games/{id}/undo`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct UndoRequest {
    action: Option<UndoAction>,
}

async fn undo(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    Body(request): Body<UndoRequest>,
) -> Result<Json<GameView>, ApiError> {
    let answer = request.action.unwrap_or(UndoAction::Request);
    act(&app, &cell, &caller, Action::Undo(answer)).await
}

async fn rematch(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    Body(Empty {}): Body<Empty>,
) -> Result<Json<GameView>, ApiError> {
    // Only a seat is counted against the games it may make.
    seat(&cell, &caller).await?;
    app.admission
        .admit(Making::Game, &caller.client(), caller.address)?;
    act(&app, &cell, &caller, Action::Rematch).await
}

/// A seat's action that takes no body (`{}` at most): redo, resign, abort, claim.
fn plain(action: Action) -> MethodRouter<App> {
    post(
        move |AxumState(app): AxumState<App>,
              Game(cell): Game,
              caller: Caller,
              Body(Empty {}): Body<Empty>| async move {
            act(&app, &cell, &caller, action).await
        },
    )
}

/// `POST /api/games/{id}/control`: games between engines.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ControlRequest {
    paused: Option<bool>,
    step: Option<bool>,
    speed_ms: Option<u64>,
}

async fn control(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    Body(request): Body<ControlRequest>,
) -> Result<Json<GameView>, ApiError> {
    let secret = caller.secret.as_deref().ok_or(ApiError::Unauthorized)?;
    // Who may comes before what they ask.
    app.hub.check_control(&cell, secret).await?;
    if let Some(speed) = request.speed_ms
        && speed > MAX_SPEED_MS
    {
        return Err(ApiError::BadRequest(format!(
            "speed_ms must be from 0 to {MAX_SPEED_MS}, not {speed}"
        )));
    }
    let controls = Controls {
        paused: request.paused,
        step: request.step.unwrap_or(false),
        speed_ms: request.speed_ms,
    };
    app.hub
        .act(&cell, caller.credentials(), Action::Control(controls))
        .await
        .map(Json)
}

/// `GET /api/games/{id}/export?format=ggf|transcript|record|grader`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExportParams {
    format: Option<String>,
}

async fn export(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    Params(params): Params<ExportParams>,
) -> Result<Response, ApiError> {
    app.hub.refresh_seats(&cell).await;
    let record = cell.record().await;
    let name = params.format.as_deref().unwrap_or("record");
    let format = RecordFormat::from_name(name)
        .filter(|format| RecordFormat::EXPORTS.contains(format))
        .ok_or_else(|| {
            ApiError::BadRequest(format!(
                "format must be ggf, transcript, record or grader, not {name:?}"
            ))
        })?;
    let text = record
        .export(format)
        .map_err(|error| ApiError::BadPosition(error.to_string()))?;
    // A grader input does not say its rules: its name does (`othello --rules simple <
    // othello-ID-simple.in` replays a SIMPLE one).
    let file = if format == RecordFormat::Grader {
        format!("othello-{}-{}.in", cell.id, record.variant.name())
    } else {
        format!("othello-{}-{name}.{}", cell.id, format.extension())
    };
    Ok((
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("inline; filename=\"{file}\""),
            ),
        ],
        text,
    )
        .into_response())
}

async fn events(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let upgrade = websocket::upgrade(upgrade, "the live channel")?;
    let hub = Arc::clone(&app.hub);
    let stopping = app.stopping.clone();
    let silence = app.client_timeout;
    // A browser opens a WebSocket to any site with that site's cookies: the session opens
    // a seat only for a page of this site.
    let member = caller
        .member
        .filter(|_| same_origin(&headers))
        .map(|member| member.id);
    Ok(upgrade
        .on_upgrade(move |socket| websocket::serve(socket, hub, cell, stopping, silence, member)))
}
