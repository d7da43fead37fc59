//! Puzzles over HTTP: `GET /api/puzzles/next` (a puzzle near the caller's puzzle rating,
//! not yet answered), `GET /api/puzzles/{id}` (a shared link), and
//! `POST /api/puzzles/{id}/answer` `{"square":"d3"}`: right or not, every move's exact
//! score, and for an account's first answer both ratings' change.

use axum::{
    Json,
    extract::{Path, Query, State as AxumState},
    http::HeaderMap,
};
use othello::{Square, analysis::puzzle::PuzzleGoal};
use serde::{Deserialize, Serialize};

use super::{App, Body, Caller, origin};
use crate::server::{
    error::ApiError,
    puzzles::{self, Judged},
    ratings::Rating,
    store::StoredPuzzle,
    views,
};

/// A puzzle as the page shows it (its answer kept back).
#[derive(Serialize)]
pub(super) struct PuzzleView {
    id: String,
    /// The link to it.
    url: String,
    /// Rows of `B`, `W` and `.`, top first.
    board: Vec<String>,
    /// `B` or `W`: whose move it is.
    to_move: char,
    /// `win` (the only winning move) or `draw` (the only move that does not lose).
    goal: PuzzleGoal,
    /// The legal moves, for the page to mark.
    legal: Vec<String>,
    empties: u32,
    /// The puzzle's rating.
    rating: i64,
    /// Rated answers so far, and how many were right.
    attempts: u32,
    solved: u32,
    /// The caller's puzzle rating (an account), and whether they answered this one
    /// already (then a new answer is not rated): `null` for guests.
    you: Option<SolverView>,
}

#[derive(Serialize)]
struct SolverView {
    rating: i64,
    provisional: bool,
    attempts: u32,
    solved: u32,
    /// `true`/`false`: answered before, right or wrong; `null`: not yet.
    answered: Option<bool>,
}

/// An answer judged.
#[derive(Serialize)]
pub(super) struct AnswerView {
    /// Whether the square was the answer.
    correct: bool,
    /// The answer.
    answer: String,
    /// Every legal move with its exact final disc difference for the side to move, best
    /// first.
    moves: Vec<ScoredView>,
    /// Whether the answer counted for the ratings (an account's first answer).
    rated: bool,
    /// The caller's rating before and after (rated answers only).
    before: Option<i64>,
    after: Option<i64>,
    /// The puzzle's rating now.
    puzzle_rating: i64,
}

#[derive(Serialize)]
struct ScoredView {
    square: String,
    score: i32,
}

#[derive(Deserialize)]
pub(super) struct NextQuery {
    /// The puzzle just answered: not given again at once.
    after: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AnswerRequest {
    square: String,
}

async fn view(
    app: &App,
    headers: &HeaderMap,
    caller: &Caller,
    stored: StoredPuzzle,
) -> Result<PuzzleView, ApiError> {
    let store = app.hub.store();
    let id = stored.puzzle.id();
    let you = match &caller.member {
        Some(member) => {
            let rating = puzzles::rating_of(store, member.id).await?;
            Some(SolverView {
                rating: rating.rating.rating.round() as i64,
                provisional: rating.rating.provisional(),
                attempts: rating.rating.games,
                solved: rating.solved,
                answered: store.puzzle_answered(member.id, &id).await?,
            })
        }
        None => None,
    };
    let setup = stored.puzzle.setup;
    let board = views::board_rows(&setup.board);
    let mut legal: Vec<String> = stored
        .puzzle
        .moves
        .iter()
        .map(|(square, _)| square.to_string())
        .collect();
    legal.sort();
    Ok(PuzzleView {
        url: format!("{}/p/{id}", origin(app, headers)),
        id,
        board,
        to_move: setup.first_mover.letter(),
        goal: stored.puzzle.goal(),
        legal,
        empties: setup.board.empty_squares().count(),
        rating: stored.rating.rating.round() as i64,
        attempts: stored.rating.games,
        solved: stored.solved,
        you,
    })
}

pub(super) async fn next_puzzle(
    AxumState(app): AxumState<App>,
    headers: HeaderMap,
    caller: Caller,
    Query(query): Query<NextQuery>,
) -> Result<Json<PuzzleView>, ApiError> {
    let user_id = caller.member.as_ref().map(|member| member.id);
    let stored = puzzles::next(app.hub.store(), user_id, query.after.as_deref()).await?;
    Ok(Json(view(&app, &headers, &caller, stored).await?))
}

pub(super) async fn show_puzzle(
    AxumState(app): AxumState<App>,
    headers: HeaderMap,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<PuzzleView>, ApiError> {
    let Some(stored) = app.hub.store().puzzle(&id).await? else {
        return Err(ApiError::NoSuchPuzzle(id.chars().take(40).collect()));
    };
    Ok(Json(view(&app, &headers, &caller, stored).await?))
}

pub(super) async fn answer_puzzle(
    AxumState(app): AxumState<App>,
    caller: Caller,
    Path(id): Path<String>,
    Body(request): Body<AnswerRequest>,
) -> Result<Json<AnswerView>, ApiError> {
    let square: Square = request
        .square
        .trim()
        .to_ascii_lowercase()
        .parse()
        .map_err(|_| {
            ApiError::BadRequest(format!(
                "square: expected a square such as d3, found {:?}",
                request.square.chars().take(20).collect::<String>()
            ))
        })?;
    let user_id = caller.member.as_ref().map(|member| member.id);
    let Judged {
        puzzle,
        solved,
        rated,
    } = puzzles::answer(app.hub.store(), &id, user_id, square).await?;
    let rounded = |rating: Rating| rating.rating.round() as i64;
    Ok(Json(AnswerView {
        correct: solved,
        answer: puzzle.puzzle.answer.to_string(),
        moves: puzzle
            .puzzle
            .moves
            .iter()
            .map(|&(square, score)| ScoredView {
                square: square.to_string(),
                score,
            })
            .collect(),
        rated: rated.is_some(),
        before: rated.map(|(before, _)| rounded(before)),
        after: rated.map(|(_, after)| rounded(after)),
        puzzle_rating: rounded(puzzle.rating),
    }))
}
