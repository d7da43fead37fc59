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
    routing::{get, post},
};
use othello::{
    ByColor, Color, LoadSettings, Record, RecordFormat, Setup, Shape, Square, Variant,
    engine::analysis::Hint,
};
use serde::{Deserialize, Serialize};

use super::{
    App, Body, Caller, Empty, Game, MAX_HINT_COUNT, MAX_HINT_TIME_MS, Params, origin, same_origin,
    seat,
    settings::{ClockRequest, Settings, SettingsRequest, TimeCap, guest_name, max_time, time},
};
use crate::{
    play::Occupant,
    server::{
        error::{ApiError, SeekError},
        game::{GameCell, NewGame, NewSeat, Viewer},
        limits::Making,
        live::{DEFAULT_SPEED_MS, DEFAULT_TIME_MS, EVAL_BUDGET, MAX_SPEED_MS},
        table::{Action, Controls, Help, UndoAction},
        views::{self, GameView},
        websocket,
    },
};

/// The routes under `/api/games`.
pub fn routes() -> Router<App> {
    Router::new()
        .route("/games", post(create).get(list))
        .route("/games/{id}", get(show))
        .route("/games/{id}/moves", post(play))
        .route("/games/{id}/undo", post(undo))
        .route("/games/{id}/redo", post(redo))
        .route("/games/{id}/resign", post(resign))
        .route("/games/{id}/abort", post(abort))
        .route("/games/{id}/rematch", post(rematch))
        .route("/games/{id}/claim", post(claim))
        .route("/games/{id}/control", post(control))
        .route("/games/{id}/hint", get(hint))
        .route("/games/{id}/evaluations", get(evaluations))
        .route("/games/{id}/export", get(export))
        .route("/games/{id}/events", get(events))
}

/// `POST /api/games`: every field optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateRequest {
    rules: Option<String>,
    rows: Option<u64>,
    columns: Option<u64>,
    first: Option<String>,
    win: Option<String>,
    black: Option<String>,
    white: Option<String>,
    time_ms: Option<u64>,
    black_time_ms: Option<u64>,
    white_time_ms: Option<u64>,
    speed_ms: Option<u64>,
    position: Option<String>,
    help: Option<bool>,
    clock: Option<ClockRequest>,
    #[serde(default)]
    rated: bool,
    black_name: Option<String>,
    white_name: Option<String>,
}

/// A new game's answer.
#[derive(Serialize)]
struct CreatedView {
    id: String,
    seats: SeatsCreated,
    spectator_url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    control: Option<Link>,
    state: GameView,
}

#[derive(Serialize)]
struct SeatsCreated {
    black: SeatCreated,
    white: SeatCreated,
}

#[derive(Serialize)]
struct SeatCreated {
    player: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    secret: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<String>,
}

#[derive(Serialize)]
struct Link {
    secret: String,
    url: String,
}

impl CreateRequest {
    /// The game asked for, its engines' time per move within `max_time`.
    fn into_new_game(self, max_time: TimeCap) -> Result<NewGame, ApiError> {
        let Settings {
            variant,
            shape,
            first,
            win,
        } = SettingsRequest {
            rules: self.rules,
            rows: self.rows,
            columns: self.columns,
            first: self.first,
            win: self.win,
        }
        .read()?;
        let seat = |text: Option<String>, name: &str| -> Result<Occupant, ApiError> {
            match text {
                None => Ok(Occupant::Human),
                Some(text) => text
                    .parse()
                    .map_err(|error| ApiError::BadRequest(format!("{name}: {error}"))),
            }
        };
        let black = seat(self.black, "black")?;
        let white = seat(self.white, "white")?;
        let time_ms = time(self.time_ms, "time_ms", DEFAULT_TIME_MS, max_time)?;
        let black_time = time(self.black_time_ms, "black_time_ms", time_ms, max_time)?;
        let white_time = time(self.white_time_ms, "white_time_ms", time_ms, max_time)?;
        let speed_ms = match self.speed_ms {
            None => DEFAULT_SPEED_MS,
            Some(n) if n <= MAX_SPEED_MS => n,
            Some(n) => {
                return Err(ApiError::BadRequest(format!(
                    "speed_ms must be from 0 to {MAX_SPEED_MS}, not {n}"
                )));
            }
        };
        let mut setup = Setup::standard(shape.unwrap_or(Shape::STANDARD));
        let (variant, setup, moves) = match self.position.as_deref().map(str::trim) {
            None | Some("") => {
                if let Some(first) = first {
                    setup.first_mover = first;
                }
                if let Some(win) = win {
                    setup.win_rule = win;
                }
                (variant.unwrap_or(Variant::Full), setup, Vec::new())
            }
            Some(text) => {
                let settings = LoadSettings {
                    variant,
                    shape,
                    first,
                    win,
                    ..LoadSettings::defaults(Variant::Full, setup)
                };
                let record = Record::load(text, &settings)
                    .map_err(|error| ApiError::BadPosition(format!("position: {error}")))?;
                (record.variant, record.setup, record.moves)
            }
        };
        let clock = self.clock.map(ClockRequest::control).transpose()?;
        if clock.is_some() && black != Occupant::Human && white != Occupant::Human {
            return Err(ApiError::BadRequest(
                "a clock is for games with a person in them".into(),
            ));
        }
        let seat = |occupant: Occupant, time_ms: u64, name: Option<String>| NewSeat {
            name: name.filter(|_| occupant == Occupant::Human),
            ..NewSeat::new(occupant, time_ms)
        };
        Ok(NewGame {
            variant,
            setup,
            moves,
            seats: [
                seat(
                    black,
                    black_time,
                    guest_name(self.black_name, "black_name")?,
                ),
                seat(
                    white,
                    white_time,
                    guest_name(self.white_name, "white_name")?,
                ),
            ],
            speed_ms,
            help: self.help.unwrap_or(false),
            clock,
            rated: false,
            client: None,
        })
    }
}

async fn create(
    AxumState(app): AxumState<App>,
    caller: Caller,
    headers: HeaderMap,
    Body(request): Body<CreateRequest>,
) -> Result<Response, ApiError> {
    let rated = request.rated;
    let client = caller.client();
    let mut new = request.into_new_game(max_time(&client))?;
    if rated {
        rate_against_the_computer(&app, &caller, &mut new).await?;
    }
    app.admission.admit(Making::Game, &client, caller.address)?;
    new.client = Some(client);
    let created = app.hub.create(new).await?;
    let origin = origin(&app, &headers);
    let cell = &created.cell;
    let page = format!("{origin}/g/{}", cell.id);
    let players = cell.listing().await.players;
    let state = views::view(cell, Viewer::default(), None)
        .await
        .expect("the position now is always there");
    let ByColor {
        black: black_secret,
        white: white_secret,
    } = created.secrets;
    let ByColor {
        black: black_player,
        white: white_player,
    } = players;
    let seat = |player: String, secret: Option<String>| SeatCreated {
        player,
        url: secret
            .as_ref()
            .map(|secret| format!("{page}#secret={secret}")),
        secret,
    };
    let view = CreatedView {
        id: cell.id.clone(),
        seats: SeatsCreated {
            black: seat(black_player, black_secret),
            white: seat(white_player, white_secret),
        },
        spectator_url: page.clone(),
        control: created.control.map(|secret| Link {
            url: format!("{page}#control={secret}"),
            secret,
        }),
        state,
    };
    Ok((StatusCode::CREATED, Json(view)).into_response())
}

/// Makes `new` a rated game between the member asking and a computer player, whose
/// account (named by its player spec, `engine:7`) holds its rating: a timed game, no help.
async fn rate_against_the_computer(
    app: &App,
    caller: &Caller,
    new: &mut NewGame,
) -> Result<(), ApiError> {
    let member = caller.member.as_ref().ok_or(SeekError::MembersOnly)?;
    if new.clock.is_none() {
        return Err(ApiError::BadRequest(
            "a rated game needs a clock: give clock.base_ms".into(),
        ));
    }
    if !new.moves.is_empty() {
        return Err(ApiError::BadRequest(
            "a rated game starts from its start, with no moves pasted".into(),
        ));
    }
    let people = new
        .seats
        .iter()
        .filter(|seat| seat.occupant == Occupant::Human)
        .count();
    if people != 1 {
        return Err(ApiError::BadRequest(
            "a rated game made here is between you and a computer player: one seat human, \
             the other an engine; play people from the lobby"
                .into(),
        ));
    }
    for seat in &mut new.seats {
        match seat.occupant {
            Occupant::Human => {
                seat.name = Some(member.name.clone());
                seat.user_id = Some(member.id);
            }
            Occupant::Computer(spec) => {
                seat.user_id = Some(app.accounts.computer_account(&spec.to_string()).await?);
            }
        }
    }
    new.rated = true;
    new.help = false;
    Ok(())
}

/// How many games `GET /api/games` lists.
const LISTED: usize = 20;

/// A game in the list of those being played.
#[derive(Serialize)]
struct Listed {
    id: String,
    url: String,
    rules: &'static str,
    rows: u8,
    columns: u8,
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
    for id in app.hub.playing(LISTED).await? {
        let Ok(cell) = app.hub.get(&id).await else {
            continue;
        };
        let listing = cell.listing().await;
        games.push(Listed {
            url: format!("{origin}/g/{id}"),
            id,
            rules: listing.variant.name(),
            rows: listing.rows,
            columns: listing.columns,
            black: listing.players.black,
            white: listing.players.white,
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
    Game(cell): Game,
    caller: Caller,
    Params(params): Params<ShowParams>,
) -> Result<Json<GameView>, ApiError> {
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
    app.hub
        .act(cell, caller.credentials(), action)
        .await
        .map(Json)
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

async fn redo(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    Body(Empty {}): Body<Empty>,
) -> Result<Json<GameView>, ApiError> {
    act(&app, &cell, &caller, Action::Redo).await
}

async fn resign(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    Body(Empty {}): Body<Empty>,
) -> Result<Json<GameView>, ApiError> {
    act(&app, &cell, &caller, Action::Resign).await
}

async fn abort(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    Body(Empty {}): Body<Empty>,
) -> Result<Json<GameView>, ApiError> {
    act(&app, &cell, &caller, Action::Abort).await
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

async fn claim(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    Body(Empty {}): Body<Empty>,
) -> Result<Json<GameView>, ApiError> {
    act(&app, &cell, &caller, Action::Claim).await
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

/// `GET /api/games/{id}/hint?count=K&time_ms=T`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HintParams {
    count: Option<usize>,
    time_ms: Option<u64>,
}

/// A hint's answer.
#[derive(Serialize)]
struct HintView {
    to_move: Option<char>,
    depth: u32,
    exact: bool,
    nodes: u64,
    moves: Vec<HintLineView>,
}

#[derive(Serialize)]
struct HintLineView {
    #[serde(rename = "move")]
    mv: String,
    score: f64,
    exact: bool,
    pv: Vec<String>,
}

fn move_text(square: Option<Square>) -> String {
    square.map_or_else(|| "pass".to_owned(), |square| square.to_string())
}

fn hint_view(hint: &Hint) -> HintView {
    HintView {
        to_move: hint.to_move.map(Color::letter),
        depth: hint.depth,
        exact: hint.exact(),
        nodes: hint.nodes,
        moves: hint
            .lines
            .iter()
            .map(|line| HintLineView {
                mv: move_text(line.square),
                score: line.score.discs(),
                exact: line.exact,
                pv: line.pv.iter().map(|&square| move_text(square)).collect(),
            })
            .collect(),
    }
}

/// Refuses `help` to the holder of the request's secret where the game gives none.
async fn check_help(cell: &GameCell, caller: &Caller, help: Help) -> Result<(), ApiError> {
    let viewer = caller.viewer(cell).await;
    cell.check_help(viewer, help)
        .await
        .map_err(ApiError::NoHelp)
}

async fn hint(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    Params(params): Params<HintParams>,
) -> Result<Json<HintView>, ApiError> {
    let count = match params.count {
        None => 3,
        Some(count @ 1..=MAX_HINT_COUNT) => count,
        Some(count) => {
            return Err(ApiError::BadRequest(format!(
                "count must be from 1 to {MAX_HINT_COUNT}, not {count}"
            )));
        }
    };
    let client = caller.client();
    let cap = max_time(&client);
    let time_ms = time(
        params.time_ms,
        "time_ms",
        1000,
        TimeCap {
            ms: cap.ms.min(MAX_HINT_TIME_MS),
            ..cap
        },
    )?;
    check_help(&cell, &caller, Help::Hints).await?;
    let hint = app
        .hub
        .hint(&cell, count, Duration::from_millis(time_ms), client)
        .await?;
    Ok(Json(hint_view(&hint)))
}

/// The evaluation graph: the scores known, and whether that is all of them.
#[derive(Serialize)]
struct EvaluationsView {
    /// Moves in the game (the graph's width).
    moves: usize,
    scores: Vec<EvaluationView>,
    /// False while some are still to be computed: ask again.
    complete: bool,
}

#[derive(Serialize)]
struct EvaluationView {
    ply: usize,
    #[serde(rename = "move")]
    mv: String,
    score: f64,
    exact: bool,
}

async fn evaluations(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
) -> Result<Json<EvaluationsView>, ApiError> {
    check_help(&cell, &caller, Help::Evaluation).await?;
    let (scores, complete) = app
        .hub
        .evaluations(&cell, EVAL_BUDGET, caller.client())
        .await?;
    let moves = cell.moves().await;
    Ok(Json(EvaluationsView {
        moves: moves.len(),
        scores: scores
            .into_iter()
            .zip(moves)
            .enumerate()
            .filter_map(|(index, (score, mv))| {
                let (score, exact) = score?;
                Some(EvaluationView {
                    ply: index + 1,
                    mv,
                    score,
                    exact,
                })
            })
            .collect(),
        complete,
    }))
}

/// `GET /api/games/{id}/export?format=ggf|transcript|record|grader`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExportParams {
    format: Option<String>,
}

async fn export(
    Game(cell): Game,
    Params(params): Params<ExportParams>,
) -> Result<Response, ApiError> {
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
    let upgrade = upgrade.map_err(|rejection| {
        ApiError::BadRequest(format!(
            "the live channel is a WebSocket: {}",
            rejection.body_text()
        ))
    })?;
    let hub = Arc::clone(&app.hub);
    let stopping = app.stopping.clone();
    let silence = app.client_timeout;
    // A browser opens a WebSocket to any site with that site's cookies: the session opens
    // a seat only for a page of this site.
    let member = caller
        .member
        .filter(|_| same_origin(&headers))
        .map(|member| member.id);
    Ok(websocket::small_buffers(upgrade)
        .on_upgrade(move |socket| websocket::serve(socket, hub, cell, stopping, silence, member)))
}
