//! The engine's help for people at a live game: hints, and the evaluation graph (its
//! scores kept with the moves).

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use othello::{
    AnyGame, Color, Setup, Square,
    analysis::{Hint, RankOptions, rank, rank_in},
    engine::{Limits, Signal, TranspositionTable},
};

use super::{
    super::{client::Client, error::ApiError, game::GameCell, store::Change, table::TableError},
    Hub,
    plan::lane,
};

/// Time for each position of the evaluation graph, and its depth limit.
const EVAL_TIME: Duration = Duration::from_millis(40);
const EVAL_DEPTH: u32 = 8;

/// The most one request for the graph computes before answering with what it has (the
/// page asks again for the rest).
pub const EVAL_BUDGET: Duration = Duration::from_secs(2);

/// Transposition table for a hint or an evaluation, in MiB.
const ANALYSIS_HASH: usize = 8;

/// Clients waiting for the pool per engine thread, beyond which a hint is refused as busy
/// (it would wait for a job of each).
const HINTS_QUEUED_PER_THREAD: usize = 4;

/// Jobs one client may have waiting beyond which its hint is refused as busy.
const HINTS_QUEUED_PER_CLIENT: usize = 2;

impl Hub {
    /// The engine's score after each move, for Black (`None` where not known yet), having
    /// computed the first missing ones for at most `budget` (at least one); and whether
    /// every score is known. Each score is kept as soon as it is computed, as long as the
    /// moves up to it are still the game's, so a long game's graph fills in over a few
    /// requests however fast it moves.
    ///
    /// # Errors
    /// [`ApiError::Storage`] if the scores cannot be stored.
    pub async fn evaluations(
        &self,
        cell: &Arc<GameCell>,
        budget: Duration,
        client: Client,
    ) -> Result<(Vec<Option<(f64, bool)>>, bool), ApiError> {
        // One computation per game at a time: every watcher asks after every move, and
        // those who wait find the scores the first one kept.
        let _evaluating = cell.evaluating.lock().await;
        let (game, known, lane) = {
            let live = cell.lock().await;
            (
                live.table.game.clone(),
                live.table
                    .meta
                    .iter()
                    .map(|meta| meta.eval)
                    .collect::<Vec<_>>(),
                lane(&live.table),
            )
        };
        let missing: Vec<usize> = (0..known.len())
            .filter(|&ply| known[ply].is_none())
            .collect();
        if missing.is_empty() {
            return Ok((known, true));
        }
        let moves: Vec<Square> = game.moves().collect();
        let evaluated = moves.clone();
        let computed = self
            .pool
            .run(lane, client, move || {
                let start = Instant::now();
                let setup = *game.setup();
                let mut computed = Vec::new();
                for ply in missing {
                    if !computed.is_empty() && start.elapsed() >= budget {
                        break;
                    }
                    let after =
                        AnyGame::replay(game.variant(), setup, evaluated[..=ply].iter().copied())
                            .expect("the game's own moves replay");
                    computed.push((ply, evaluate_for_black(&after)));
                }
                computed
            })
            .await
            .ok_or_else(|| ApiError::Storage("the engine pool has stopped".into()))?;
        let mut live = cell.lock().await;
        // Scores of positions the game still goes through (an undo meanwhile may have
        // taken some back; the moves before it are unchanged).
        let same = live
            .table
            .game
            .moves()
            .zip(&moves)
            .take_while(|(now, then)| now == *then)
            .count();
        let keep: Vec<(usize, (f64, bool))> = computed
            .into_iter()
            .filter(|&(ply, _)| ply < same && live.table.meta[ply].eval.is_none())
            .collect();
        if !keep.is_empty() {
            let changes = keep
                .iter()
                .map(|&(ply, (score, exact))| Change::Eval {
                    game: cell.id.clone(),
                    ply,
                    score,
                    exact,
                })
                .collect();
            self.commit(changes).await?;
            for &(ply, score) in &keep {
                live.table.meta[ply].eval = Some(score);
            }
        }
        let scores: Vec<Option<(f64, bool)>> =
            live.table.meta.iter().map(|meta| meta.eval).collect();
        let complete = scores.iter().all(Option::is_some);
        Ok((scores, complete))
    }

    /// The best `count` moves of the position now, searched for `time`.
    ///
    /// # Errors
    /// [`ApiError::Rule(TableError::GameOver)`] when there is nothing to move; [`ApiError::Busy`] when many
    /// hints already wait for the engines.
    pub async fn hint(
        &self,
        cell: &Arc<GameCell>,
        count: usize,
        time: Duration,
        client: Client,
    ) -> Result<Hint, ApiError> {
        let game = {
            let live = cell.lock().await;
            if live.table.is_over() {
                return Err(ApiError::Rule(TableError::GameOver));
            }
            live.table.game.clone()
        };
        self.analyse(&game, count, time, client).await
    }

    /// The best `count` moves of `game`'s position, searched for `time` (a game of the
    /// analysis board, or a live game's position).
    ///
    /// # Errors
    /// [`ApiError::Rule(TableError::GameOver)`] when the game is over; [`ApiError::Busy`]
    /// when many searches already wait for the engines.
    pub async fn analyse(
        &self,
        game: &AnyGame,
        count: usize,
        time: Duration,
        client: Client,
    ) -> Result<Hint, ApiError> {
        let setup = position(game).ok_or(ApiError::Rule(TableError::GameOver))?;
        let variant = game.variant();
        let options = RankOptions {
            limits: Limits::time(time),
            hash: Some(
                othello::engine::TranspositionTable::megabytes_for_time(time)
                    .clamp(ANALYSIS_HASH, 64),
            ),
            ..RankOptions::new(variant, count)
        };
        let stop = StopOnDrop::default();
        let signal = Arc::clone(&stop.0);
        self.pool
            .try_run(
                self.pool.size() * HINTS_QUEUED_PER_THREAD,
                HINTS_QUEUED_PER_CLIENT,
                client,
                move || rank(&setup, &options, Some(&signal), &mut |_| {}),
            )
            .map_err(|_| ApiError::Busy)?
            .await
            .ok_or_else(|| ApiError::Storage("the engine pool has stopped".into()))
    }

    /// The engine's score after each of `game`'s moves from the `from`-th (from 0), for
    /// Black, computing for at most `budget` (at least one score): the analysis board's
    /// graph, asked again from where it stopped.
    ///
    /// # Errors
    /// [`ApiError::Busy`] when many searches already wait for the engines.
    pub async fn evaluate_moves(
        &self,
        game: &AnyGame,
        from: usize,
        budget: Duration,
        client: Client,
    ) -> Result<Vec<(f64, bool)>, ApiError> {
        let moves: Vec<Square> = game.moves().collect();
        let (variant, setup) = (game.variant(), *game.setup());
        let stop = StopOnDrop::default();
        let signal = Arc::clone(&stop.0);
        self.pool
            .try_run(
                self.pool.size() * HINTS_QUEUED_PER_THREAD,
                HINTS_QUEUED_PER_CLIENT,
                client,
                move || {
                    let start = Instant::now();
                    let mut scores = Vec::new();
                    for ply in from..moves.len() {
                        if signal.is_stopped() || (!scores.is_empty() && start.elapsed() >= budget)
                        {
                            break;
                        }
                        let after = AnyGame::replay(variant, setup, moves[..=ply].iter().copied())
                            .expect("the game's own moves replay");
                        scores.push(evaluate_for_black(&after));
                    }
                    scores
                },
            )
            .map_err(|_| ApiError::Busy)?
            .await
            .ok_or_else(|| ApiError::Storage("the engine pool has stopped".into()))
    }
}

/// Stops a search when the request waiting for it goes (its visitor left, or the page
/// asked for another position): dropped with the request's future, it raises the signal
/// the search polls, so nobody's engine time goes to an answer nobody will read.
#[derive(Default)]
struct StopOnDrop(Arc<Signal>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// The position after the game's moves so far, with the side to move named first.
fn position(game: &AnyGame) -> Option<Setup> {
    Some(Setup {
        board: *game.board(),
        first_mover: game.side_to_move()?,
        win_rule: game.setup().win_rule,
    })
}

/// Black's final score in a finished position, in discs.
fn final_for_black(game: &AnyGame) -> f64 {
    let board = game.board();
    let (black, white) = (board.count(Color::Black), board.count(Color::White));
    let empties = board.empty_squares().count();
    f64::from(othello::engine::final_score(
        game.setup().win_rule,
        black,
        white,
        empties,
    ))
}

/// The engine's score of `game`'s position for Black, in discs, and whether it is exact:
/// a point of the evaluation graph.
fn evaluate_for_black(game: &AnyGame) -> (f64, bool) {
    let limits = Limits {
        depth: Some(EVAL_DEPTH),
        time: Some(EVAL_TIME),
        nodes: None,
    };
    evaluate_within(game, limits)
}

/// [`evaluate_for_black`] within `limits`.
fn evaluate_within(game: &AnyGame, limits: Limits) -> (f64, bool) {
    let Some(setup) = position(game) else {
        return (final_for_black(game), true);
    };
    let options = RankOptions {
        limits,
        hash: Some(ANALYSIS_HASH),
        ..RankOptions::new(game.variant(), 1)
    };
    let mut tt = TranspositionTable::new(ANALYSIS_HASH);
    let hint = rank_in(&setup, &options, &mut tt, None, &mut |_| {});
    let Some(line) = hint.lines.first() else {
        return (final_for_black(game), true);
    };
    let for_black = |discs: f64| {
        if setup.first_mover == Color::Black {
            discs
        } else {
            -discs
        }
    };
    if line.exact || hint.depth < 2 {
        return (for_black(line.score.discs()), line.exact);
    }
    // A search's score leans towards the side that moves last in it, so an odd and an even
    // depth differ by a few discs in the opening, and a graph of one depth zig-zags with
    // the side to move: the mean of the last two depths reads as one line. The shallower
    // search gets a table of its own (the deeper one's entries would answer it with their
    // own scores), and costs about a third more.
    let shallower = RankOptions {
        limits: Limits::depth(hint.depth - 1),
        ..options
    };
    tt.clear();
    let before = rank_in(&setup, &shallower, &mut tt, None, &mut |_| {});
    let mean = before.lines.first().map_or(line.score.discs(), |earlier| {
        (line.score.discs() + earlier.score.discs()) / 2.0
    });
    (for_black(mean), false)
}

#[cfg(test)]
mod tests {
    use othello::{MoveList, Shape, Variant};

    use super::*;

    /// Found by the red team of item 47.13: a graph of one search depth zig-zagged by two to
    /// three discs with the side to move (f5 d6 c3 ...: +2.7, -0.2, +2.6, 0.0, +3.1 at depth
    /// 8), which reads as a blunder every other move. The mean of the last two depths does
    /// not.
    #[test]
    fn the_graph_does_not_zig_zag_with_the_side_to_move() {
        let moves = "f5d6c3d3c4f4f6f3e6e7c6".parse::<MoveList>().unwrap().0;
        let scores: Vec<f64> = (1..=moves.len())
            .map(|ply| {
                let game = AnyGame::replay(
                    Variant::Full,
                    Setup::standard(Shape::STANDARD),
                    moves[..ply].iter().copied(),
                )
                .unwrap();
                evaluate_within(&game, Limits::depth(8)).0
            })
            .collect();
        for pair in scores.windows(2) {
            assert!((pair[1] - pair[0]).abs() < 1.5, "{scores:?}");
        }
    }
}
