//! The engine's help at a game: hints and the evaluation graph, where the game gives them.

use super::*;

/// `GET /api/games/{id}/hint?count=K&time_ms=T`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct HintParams {
    count: Option<usize>,
    time_ms: Option<u64>,
}

/// A hint's answer.
#[derive(Serialize)]
pub(in crate::server::api) struct HintView {
    to_move: Option<char>,
    depth: u32,
    /// How selective the search was, in percent (100: full width or exact): lines read
    /// `depth@selectivity%`, as engines write them.
    selectivity: u8,
    exact: bool,
    nodes: u64,
    /// What scored the positions ([`othello::engine::eval::Evaluator::describe`]).
    evaluation: String,
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

pub(in crate::server::api) fn hint_view(hint: &Hint) -> HintView {
    HintView {
        to_move: hint.to_move.map(Color::letter),
        depth: hint.depth,
        selectivity: hint.selectivity.percent(),
        exact: hint.exact(),
        nodes: hint.nodes,
        evaluation: hint.evaluation.clone(),
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

pub(super) async fn hint(
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
pub(super) struct EvaluationsView {
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

pub(super) async fn evaluations(
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
