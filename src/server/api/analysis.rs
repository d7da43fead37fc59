//! The analysis board over HTTP: any position or game, pasted (a move list, GGF, a record,
//! a grader input) or a finished game of the server's, looked at move by move.
//!
//! - `POST /api/analysis`: the game read, and the position after its first `ply` moves
//!   (instant: no engine);
//! - `POST /api/analysis/lines`: every legal move of that position ranked by the engine
//!   for `time_ms` (the page asks again with more time, so the lines deepen as it watches);
//! - `POST /api/analysis/graph`: the engine's score after each move, from `from` on, for
//!   as long as a graph's request may take (the page asks again for the rest).
//!
//! Each takes the same game: `{"position": TEXT}` or `{"game": ID}`, with the settings a
//! bare move list needs (`rules`, `rows`, `columns`, `first`, `win`). A game being played
//! is not analysed (its players would get the engine's help).

use std::time::Duration;

use axum::{Json, extract::State as AxumState, http::HeaderMap};
use othello::{AnyGame, Color, LoadSettings, Outcome, Record, Setup, Shape, Square, Variant};
use serde::{Deserialize, Serialize};

use super::{
    App, Body, Caller, MAX_HINT_TIME_MS, SettingsRequest,
    games::{HintView, hint_view},
    origin,
    settings::{TimeCap, max_time, time},
};
use crate::server::{error::ApiError, game::legal_list, live::EVAL_BUDGET, views::board_rows};

/// What each endpoint is asked: the game, and where in it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AnalysisRequest {
    /// A pasted game or position, in any format the server reads.
    position: Option<String>,
    /// A finished game of the server's.
    game: Option<String>,
    rules: Option<String>,
    rows: Option<u64>,
    columns: Option<u64>,
    first: Option<String>,
    win: Option<String>,
    /// Moves from the start to the position looked at (default: all of them).
    ply: Option<usize>,
    /// `lines`: the time to search, in milliseconds.
    time_ms: Option<u64>,
    /// `graph`: the first move whose score is wanted, from 0.
    from: Option<usize>,
    /// The board: a move to play at `ply` (the game's moves after it are dropped).
    play: Option<String>,
}

/// The game and the position looked at.
#[derive(Serialize)]
pub(super) struct BoardView {
    rules: &'static str,
    rows: u8,
    columns: u8,
    first: char,
    win: &'static str,
    /// Every move of the game (`pass` is never written: passes are implied).
    moves: Vec<String>,
    /// The position looked at: after this many moves.
    ply: usize,
    /// The position: rows of `B`, `W` and `.`, top first.
    board: Vec<String>,
    to_move: Option<char>,
    legal: Vec<String>,
    counts: Counts,
    /// `playing` or `over` (at this position).
    status: &'static str,
    /// Once over: `B`, `W` or `none`.
    winner: Option<&'static str>,
    last_move: Option<String>,
    /// The game as a record (what a link carries as `position`).
    record: String,
    /// The link to this position.
    url: String,
    /// The opening explorer's board (8 or 10) when the game starts as the explorer's
    /// games do; `null` otherwise.
    explorer: Option<u8>,
}

#[derive(Serialize)]
struct Counts {
    #[serde(rename = "B")]
    black: u32,
    #[serde(rename = "W")]
    white: u32,
}

/// A graph's scores.
#[derive(Serialize)]
pub(super) struct GraphView {
    /// Moves in the game.
    moves: usize,
    /// From `from`: Black's score after each move, in discs, and whether it is exact.
    scores: Vec<ScoreView>,
    /// False while some are still to be computed: ask again from the next.
    complete: bool,
}

#[derive(Serialize)]
struct ScoreView {
    /// After this many moves.
    ply: usize,
    score: f64,
    exact: bool,
}

/// The moves the analysis board ranks: every legal move (the most any board has).
const ALL_MOVES: usize = 16 * 16;

impl AnalysisRequest {
    /// Refuses the fields an endpoint does not read, named in `unread` (found by the red
    /// team of item 47.13: `play` sent to `lines` was silently ignored, answering for
    /// another position than the one meant).
    fn reads_only(&self, endpoint: &str, unread: &[&str]) -> Result<(), ApiError> {
        let given = |field: &str| match field {
            "ply" => self.ply.is_some(),
            "time_ms" => self.time_ms.is_some(),
            "from" => self.from.is_some(),
            "play" => self.play.is_some(),
            _ => false,
        };
        match unread.iter().find(|field| given(field)) {
            Some(field) => Err(ApiError::BadRequest(format!(
                "{endpoint} does not read {field}: leave it out"
            ))),
            None => Ok(()),
        }
    }

    /// The game settings it gives, each checked.
    fn settings(&self) -> Result<super::settings::Settings, ApiError> {
        SettingsRequest {
            rules: self.rules.clone(),
            rows: self.rows,
            columns: self.columns,
            first: self.first.clone(),
            win: self.win.clone(),
        }
        .read()
    }
}

/// The game a request names.
async fn read_game(app: &App, request: &AnalysisRequest) -> Result<AnyGame, ApiError> {
    match (&request.position, &request.game) {
        (Some(text), None) if text.trim().is_empty() => {
            let settings = request.settings()?;
            let mut setup = Setup::standard(settings.shape.unwrap_or(Shape::STANDARD));
            if let Some(first) = settings.first {
                setup.first_mover = first;
            }
            if let Some(win) = settings.win {
                setup.win_rule = win;
            }
            Ok(AnyGame::new(
                settings.variant.unwrap_or(Variant::Full),
                setup,
            ))
        }
        (Some(text), None) => {
            let settings = request.settings()?;
            let shape = settings.shape.unwrap_or(Shape::STANDARD);
            let load = LoadSettings {
                variant: settings.variant,
                shape: settings.shape,
                first: settings.first,
                win: settings.win,
                ..LoadSettings::defaults(Variant::Full, Setup::standard(shape))
            };
            let record = Record::load(text.trim(), &load)
                .map_err(|error| ApiError::BadPosition(format!("position: {error}")))?;
            record
                .replay()
                .map_err(|error| ApiError::BadPosition(format!("position: {error}")))
        }
        (None, Some(id)) => {
            let cell = app.hub.get(id).await?;
            let live = cell.lock().await;
            if !live.table.is_over() {
                return Err(ApiError::BadRequest(
                    "a game being played is not analysed (its players would get the engine's \
                     help): analyse it once it is over"
                        .into(),
                ));
            }
            Ok(live.table.game.clone())
        }
        (Some(_), Some(_)) => Err(ApiError::BadRequest(
            "give position or game, not both: the game is one or the other".into(),
        )),
        (None, None) => Err(ApiError::BadRequest(
            "give the game: position (a move list, GGF or a record) or game (a finished game's id)"
                .into(),
        )),
    }
}

/// `game` after its first `ply` moves (all of them without `ply`), and that `ply`.
fn at_ply(game: &AnyGame, ply: Option<usize>) -> Result<(AnyGame, usize), ApiError> {
    let moves: Vec<_> = game.moves().collect();
    let ply = match ply {
        None => moves.len(),
        Some(ply) if ply <= moves.len() => ply,
        Some(ply) => {
            return Err(ApiError::BadRequest(format!(
                "ply must be from 0 to {}, not {ply}",
                moves.len()
            )));
        }
    };
    let position = AnyGame::replay(game.variant(), *game.setup(), moves[..ply].iter().copied())
        .expect("the game's own moves replay");
    Ok((position, ply))
}

/// The explorer's board for `game`: 8 or 10 under full rules, most discs, from the
/// standard start with Black first.
fn explorer_size(game: &AnyGame) -> Option<u8> {
    let setup = game.setup();
    let shape = setup.board.shape();
    let standard = Setup::standard(shape);
    (game.variant() == Variant::Full
        && shape.rows() == shape.columns()
        && matches!(shape.rows(), 8 | 10)
        && setup.board == standard.board
        && setup.first_mover == Color::Black
        && setup.win_rule == othello::WinRule::MostDiscs)
        .then(|| shape.rows())
}

fn board_view(game: &AnyGame, ply: usize, position: &AnyGame, origin: &str) -> BoardView {
    let setup = game.setup();
    let shape = setup.board.shape();
    let board = position.board();
    let to_move = position.side_to_move();
    let record = {
        let mut record = Record::new(game.variant(), *setup);
        record.moves = game.moves().collect();
        record.to_string()
    };
    let url = {
        let query: String = url_encode(&record);
        format!("{origin}/analysis?ply={ply}&position={query}")
    };
    BoardView {
        rules: game.variant().name(),
        rows: shape.rows(),
        columns: shape.columns(),
        first: setup.first_mover.letter(),
        win: setup.win_rule.name(),
        moves: game.moves().map(|square| square.to_string()).collect(),
        ply,
        board: board_rows(board),
        to_move: to_move.map(Color::letter),
        legal: if to_move.is_some() {
            legal_list(position)
        } else {
            Vec::new()
        },
        counts: Counts {
            black: board.count(Color::Black),
            white: board.count(Color::White),
        },
        status: if position.is_over() {
            "over"
        } else {
            "playing"
        },
        winner: position.outcome().map(|outcome| match outcome {
            Outcome::Win(Color::Black) => "B",
            Outcome::Win(Color::White) => "W",
            Outcome::Draw => "none",
        }),
        last_move: position.moves().last().map(|square| square.to_string()),
        record,
        url,
        explorer: explorer_size(game),
    }
}

/// `text` as a URL's query value.
fn url_encode(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (byte as char).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// `game` with `square` played after its first `ply` moves (those after dropped).
fn variation(game: &AnyGame, ply: usize, square: &str) -> Result<AnyGame, ApiError> {
    let square: Square = square
        .parse()
        .map_err(|error| ApiError::BadRequest(format!("play: {error}")))?;
    let moves = game.moves().take(ply).chain([square]);
    AnyGame::replay(game.variant(), *game.setup(), moves)
        .map_err(|error| ApiError::BadRequest(format!("play: {error}")))
}

pub(super) async fn show(
    AxumState(app): AxumState<App>,
    headers: HeaderMap,
    Body(request): Body<AnalysisRequest>,
) -> Result<Json<BoardView>, ApiError> {
    request.reads_only("/api/analysis", &["time_ms", "from"])?;
    let mut game = read_game(&app, &request).await?;
    let mut ply = request.ply;
    if let Some(square) = &request.play {
        let (_, at) = at_ply(&game, ply)?;
        game = variation(&game, at, square)?;
        ply = Some(at + 1);
    }
    let (position, ply) = at_ply(&game, ply)?;
    let origin = origin(&app, &headers);
    Ok(Json(board_view(&game, ply, &position, &origin)))
}

pub(super) async fn lines(
    AxumState(app): AxumState<App>,
    caller: Caller,
    Body(request): Body<AnalysisRequest>,
) -> Result<Json<HintView>, ApiError> {
    request.reads_only("/api/analysis/lines", &["from", "play"])?;
    let game = read_game(&app, &request).await?;
    let (position, _) = at_ply(&game, request.ply)?;
    let client = caller.client();
    let cap = max_time(&client);
    let time_ms = time(
        request.time_ms,
        "time_ms",
        1000,
        TimeCap {
            ms: cap.ms.min(MAX_HINT_TIME_MS),
            ..cap
        },
    )?;
    let hint = app
        .hub
        .analyse(&position, ALL_MOVES, Duration::from_millis(time_ms), client)
        .await?;
    Ok(Json(hint_view(&hint)))
}

pub(super) async fn graph(
    AxumState(app): AxumState<App>,
    caller: Caller,
    Body(request): Body<AnalysisRequest>,
) -> Result<Json<GraphView>, ApiError> {
    request.reads_only("/api/analysis/graph", &["ply", "time_ms", "play"])?;
    let game = read_game(&app, &request).await?;
    let moves = game.moves().len();
    let from = request.from.unwrap_or(0).min(moves);
    let scores = if from < moves {
        app.hub
            .evaluate_moves(&game, from, EVAL_BUDGET, caller.client())
            .await?
    } else {
        Vec::new()
    };
    let complete = from + scores.len() >= moves;
    Ok(Json(GraphView {
        moves,
        scores: scores
            .into_iter()
            .enumerate()
            .map(|(index, (score, exact))| ScoreView {
                ply: from + index + 1,
                score,
                exact,
            })
            .collect(),
        complete,
    }))
}
