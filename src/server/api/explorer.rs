//! The opening explorer over HTTP: `GET /api/explorer?size=8&moves=f5d6`: every move played
//! next in the game database (the WTHOR files `othello db import` added, and the server's
//! own finished games of standard Othello on that board), with its games, results and
//! average disc result.

use std::{
    collections::HashMap,
    sync::Arc,
    time::{Duration, Instant},
};

use axum::{Json, extract::State as AxumState};
use othello::{Color, MoveList, Shape, Square, analysis::explorer::Explorer};
use serde::{Deserialize, Serialize};

use super::{App, Params};
use crate::server::{error::ApiError, game::revive};

/// How long an explorer built from the database answers before it is built again (games
/// imported meanwhile show after this long, on every server sharing the database).
const FRESH_FOR: Duration = Duration::from_secs(60);

/// The server's own finished games an explorer reads (the latest).
const OWN_GAMES: usize = 2000;

/// One board's explorer, shared by the requests that ask it (a query sorts it once).
type Shared = Arc<std::sync::Mutex<Explorer>>;

/// The explorers, one per board, each with when it was built.
#[derive(Default)]
pub struct Explorers(tokio::sync::Mutex<HashMap<u8, (Instant, Shared)>>);

impl std::fmt::Debug for Explorers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Explorers")
    }
}

impl Explorers {
    /// The explorer of `size` × `size` games, built again from the database when stale.
    async fn of(&self, app: &App, size: u8) -> Result<Shared, ApiError> {
        let mut explorers = self.0.lock().await;
        if let Some((built, explorer)) = explorers.get(&size)
            && built.elapsed() < FRESH_FOR
        {
            return Ok(Arc::clone(explorer));
        }
        let shape = Shape::new(size, size).map_err(|_| bad_size(size))?;
        let mut explorer = Explorer::new(shape);
        for (moves, result) in app.hub.store().library_games(size).await? {
            // A stored game that does not replay (a damaged row) is left out.
            if let Ok(moves) = moves.parse::<MoveList>() {
                let _ = explorer.add(&moves.0, result);
            }
        }
        for (moves, result) in own_games(app, shape).await? {
            let _ = explorer.add(&moves, result);
        }
        let explorer = Arc::new(std::sync::Mutex::new(explorer));
        explorers.insert(size, (Instant::now(), Arc::clone(&explorer)));
        Ok(explorer)
    }
}

/// The server's latest finished games of standard Othello on `shape` (full rules, most
/// discs, the standard start, Black first), each with Black's disc difference at its end
/// (the empty squares to the winner, as WTHOR counts them; a game aborted is left out).
async fn own_games(app: &App, shape: Shape) -> Result<Vec<(Vec<Square>, i32)>, ApiError> {
    let store = app.hub.store();
    let mut games = Vec::new();
    for id in store.finished(OWN_GAMES).await? {
        let Some(stored) = store.load(&id).await? else {
            continue;
        };
        if !stored.is_standard(shape) {
            continue;
        }
        let Some((table, _)) = revive(stored) else {
            continue;
        };
        let Some(winner) = table.result() else {
            continue;
        };
        if !counts_for_explorer(&table) {
            continue;
        }
        // As a WTHOR file would score it: a game won on time while behind is still a win.
        let board = table.game.board();
        let cells = shape.cells() as u32;
        let black = othello::wthor::score(
            [board.count(Color::Black), board.count(Color::White)],
            cells,
            winner,
        );
        games.push((
            table.game.moves().collect(),
            2 * black as i32 - cells as i32,
        ));
    }
    Ok(games)
}

/// Moves a game of the server's needs before the explorer counts it.
const OWN_GAME_MOVES: usize = 20;

/// Whether the explorer counts a finished game of the server's: only games people can
/// trust as played, so that nobody can fill the statistics with made-up games (any visitor
/// may make games, hold both seats, paste moves and resign): rated games, or games between
/// two different accounts, played here from the start for at least [`OWN_GAME_MOVES`] moves.
fn counts_for_explorer(table: &crate::server::table::Table) -> bool {
    let [black, white] = [
        table.seats[Color::Black].user_id,
        table.seats[Color::White].user_id,
    ];
    let members = matches!((black, white), (Some(black), Some(white)) if black != white);
    let moves = table.game.moves().count();
    (table.rated || members)
        && table.moves_here() == table.game.history().len()
        && moves >= OWN_GAME_MOVES
}

fn bad_size(size: u8) -> ApiError {
    ApiError::BadRequest(format!(
        "size must be 8 or 10 (the game database's boards), not {size}"
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ExplorerParams {
    /// The board's side: 8 (the default) or 10.
    size: Option<u8>,
    /// The moves played so far, as a move list (`f5d6`).
    moves: Option<String>,
}

/// One move played next.
#[derive(Serialize)]
struct NextView {
    #[serde(rename = "move")]
    square: String,
    games: u64,
    black_wins: u64,
    draws: u64,
    white_wins: u64,
    /// Black's score in percent (a draw counts half).
    black_score: f64,
    /// Black's average disc difference at the end.
    average: f64,
}

#[derive(Serialize)]
pub(super) struct ExplorerView {
    size: u8,
    moves: String,
    /// Games in the database on this board.
    total: usize,
    /// Games that reached these moves.
    games: u64,
    next: Vec<NextView>,
}

/// `GET /api/explorer?size=8&moves=f5d6`.
pub(super) async fn explore(
    AxumState(app): AxumState<App>,
    Params(params): Params<ExplorerParams>,
) -> Result<Json<ExplorerView>, ApiError> {
    let size = params.size.unwrap_or(8);
    if ![8, 10].contains(&size) {
        return Err(bad_size(size));
    }
    let text = params.moves.unwrap_or_default();
    let moves = text
        .parse::<MoveList>()
        .map_err(|error| ApiError::BadRequest(format!("moves: {error}")))?
        .0;
    let explorer = app.explorers.of(&app, size).await?;
    let mut explorer = explorer.lock().expect("not poisoned");
    let next = explorer
        .next(&moves)
        .map_err(|error| ApiError::BadRequest(format!("moves: {error}")))?;
    Ok(Json(ExplorerView {
        size,
        moves: MoveList(moves).to_string(),
        total: explorer.len(),
        games: next.games,
        next: next
            .moves
            .iter()
            .map(|stats| NextView {
                square: stats.square.to_string(),
                games: stats.games,
                black_wins: stats.black_wins,
                draws: stats.draws,
                white_wins: stats.white_wins,
                black_score: (stats.black_score() * 10.0).round() / 10.0,
                average: (stats.average * 10.0).round() / 10.0,
            })
            .collect(),
    }))
}
