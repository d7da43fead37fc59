//! Puzzles: standard Othello positions near the end where exactly one move keeps the game's
//! result (the only move that wins, or the only one that draws when every other loses),
//! proved by the exact solver, with every legal move's exact score kept to show after an
//! answer.

use std::ops::RangeInclusive;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::engine::{
    Goal, Limits, Node, Node8, SearchOptions, Signal, SquareSet, TranspositionTable, endgame,
    endgame::SolveOptions, eval::Evaluator, on_node, search,
};
use crate::{Board, Color, Obf, Setup, Shape, Square, Variant, WinRule};

/// The empty squares a puzzle has: enough for the answer not to be obvious, few enough
/// for the solver to prove it in a second or so.
pub const EMPTIES: RangeInclusive<u32> = 14..=24;

/// The deepest search [`Puzzle::depth`] tries.
pub const MAX_DEPTH: u32 = 10;

/// What the one move achieves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PuzzleGoal {
    /// The only winning move.
    Win,
    /// The only move that draws; every other loses.
    Draw,
}

/// A puzzle: the position, its answer and every legal move's exact score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Puzzle {
    /// The position (8 × 8, FULL rules, most discs wins), its side to move first.
    pub setup: Setup,
    /// The one move that keeps the result.
    pub answer: Square,
    /// Every legal move with its exact final disc difference for the side to move, best
    /// first (the answer), then by score.
    pub moves: Vec<(Square, i32)>,
    /// The shallowest search (full width, the engine's evaluation) whose best move is the
    /// answer; `None` if none to [`MAX_DEPTH`]: how hard the puzzle looks to the engine.
    pub depth: Option<u32>,
}

impl Puzzle {
    /// What the answer achieves.
    pub fn goal(&self) -> PuzzleGoal {
        if self.moves[0].1 > 0 {
            PuzzleGoal::Win
        } else {
            PuzzleGoal::Draw
        }
    }

    /// A short name of the position, the same wherever it is made: the first 10 hex digits
    /// of the SHA-256 of its OBF text.
    pub fn id(&self) -> String {
        position_id(&self.setup)
    }

    /// The position in OBF.
    pub fn obf(&self) -> String {
        Obf::new(self.setup.board, self.setup.first_mover).to_string()
    }

    /// A first guess at its rating for puzzle solvers (1,500 for a puzzle the engine sees
    /// at depth 4; 100 a ply more or less), before anyone has tried it.
    pub fn starting_rating(&self) -> f64 {
        let depth = self.depth.unwrap_or(MAX_DEPTH + 1);
        1100.0 + 100.0 * f64::from(depth)
    }

    /// The record kept in a puzzles file.
    pub fn record(&self, source: &str) -> PuzzleRecord {
        PuzzleRecord {
            id: self.id(),
            position: self.obf(),
            answer: self.answer.to_string(),
            goal: self.goal(),
            moves: self
                .moves
                .iter()
                .map(|&(square, score)| ScoredMove {
                    square: square.to_string(),
                    score,
                })
                .collect(),
            depth: self.depth,
            source: source.to_owned(),
        }
    }
}

/// The id [`Puzzle::id`] gives a position.
pub fn position_id(setup: &Setup) -> String {
    let text = Obf::new(setup.board, setup.first_mover).to_string();
    Sha256::digest(text.as_bytes())
        .iter()
        .take(5)
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// One line of a puzzles file (JSON lines), as `othello puzzles make` writes it and the
/// server reads it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PuzzleRecord {
    /// [`Puzzle::id`].
    pub id: String,
    /// The position in OBF.
    pub position: String,
    /// The answer, as `d3`.
    pub answer: String,
    /// What it achieves.
    pub goal: PuzzleGoal,
    /// Every legal move and its exact score, best first.
    pub moves: Vec<ScoredMove>,
    /// [`Puzzle::depth`].
    pub depth: Option<u32>,
    /// Where the position comes from: `self-play 7` (a game's number and seed), `game ID`.
    pub source: String,
}

/// A move and its exact score for the side to move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoredMove {
    /// The square, as `d3`.
    pub square: String,
    /// The final disc difference after it, under perfect play.
    pub score: i32,
}

/// Why a puzzles file's record is refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("puzzle {id}: {reason}")]
pub struct BadPuzzle {
    /// The record's id.
    pub id: String,
    /// What is wrong.
    pub reason: String,
}

impl PuzzleRecord {
    /// The puzzle this record describes, checked for consistency (not re-solved: see
    /// [`verify`]).
    ///
    /// # Errors
    /// A [`BadPuzzle`] naming what does not hold.
    pub fn puzzle(&self) -> Result<Puzzle, BadPuzzle> {
        let bad = |reason: String| BadPuzzle {
            id: self.id.clone(),
            reason,
        };
        let obf: Obf = self
            .position
            .parse()
            .map_err(|error| bad(format!("position: {error}")))?;
        let square = |text: &str| -> Result<Square, BadPuzzle> {
            text.parse::<Square>()
                .ok()
                .filter(|&square| Shape::STANDARD.contains(square))
                .ok_or_else(|| bad(format!("no square {text:?}")))
        };
        let moves = self
            .moves
            .iter()
            .map(|scored| Ok((square(&scored.square)?, scored.score)))
            .collect::<Result<Vec<_>, BadPuzzle>>()?;
        let puzzle = Puzzle {
            setup: obf.setup,
            answer: square(&self.answer)?,
            moves,
            depth: self.depth,
        };
        let legal = legal_moves(&puzzle.setup);
        let mut listed: Vec<Square> = puzzle.moves.iter().map(|&(square, _)| square).collect();
        listed.sort();
        if listed != legal {
            return Err(bad("its moves are not the position's legal moves".into()));
        }
        if puzzle.id() != self.id {
            return Err(bad(format!("the position's id is {}", puzzle.id())));
        }
        if puzzle.moves[0].0 != puzzle.answer || puzzle.goal() != self.goal {
            return Err(bad(
                "the answer is not the first move, or its goal differs".into()
            ));
        }
        if !is_unique(&puzzle.moves) {
            return Err(bad("another move keeps the result".into()));
        }
        if puzzle.moves.windows(2).any(|pair| pair[0].1 < pair[1].1) {
            return Err(bad("its moves are not listed best first".into()));
        }
        let empties = puzzle.setup.board.empty_squares().count();
        if !EMPTIES.contains(&empties) {
            return Err(bad(format!(
                "{empties} empty squares, not {} to {}",
                EMPTIES.start(),
                EMPTIES.end()
            )));
        }
        Ok(puzzle)
    }
}

/// The legal moves of the setup's side to move, in square order.
fn legal_moves(setup: &Setup) -> Vec<Square> {
    let node = Node8::from_board(&setup.board, setup.first_mover);
    let mut moves = node.moves();
    let mut squares = Vec::new();
    while let Some(mv) = moves.pop() {
        squares.push(node.square(mv));
    }
    squares.sort();
    squares
}

/// Whether the first of `moves` (best first) keeps a win or a draw that no other keeps.
fn is_unique(moves: &[(Square, i32)]) -> bool {
    let [(_, best), rest @ ..] = moves else {
        return false;
    };
    !rest.is_empty()
        && *best >= 0
        && rest
            .iter()
            .all(|&(_, score)| outcome(score) < outcome(*best))
}

/// A score's result: -1 a loss, 0 a draw, 1 a win.
fn outcome(score: i32) -> i32 {
    score.signum()
}

/// The puzzle in `setup` (8 × 8 FULL, most discs wins; its first mover to move), if it is
/// one: between [`EMPTIES`] empty squares, two legal moves or more, and exactly one that
/// keeps a win (or a draw where all others lose). One exact solve, then one null-window
/// solve a move to refute the rest (most positions stop there), then an exact score for
/// every move.
///
/// # Errors
/// [`endgame::Unfinished`] when `limits` or `signal` stopped a solve.
pub fn find(
    setup: &Setup,
    tt: &mut TranspositionTable,
    limits: &Limits,
    signal: Option<&Signal>,
) -> Result<Option<Puzzle>, endgame::Unfinished> {
    if setup.board.shape() != Shape::STANDARD || setup.win_rule != WinRule::MostDiscs {
        return Ok(None);
    }
    on_node!(
        variant = Variant::Full,
        &setup.board,
        setup.first_mover,
        |node| find_at(&node, setup, tt, limits, signal)
    )
}

fn find_at<N: Node>(
    node: &N,
    setup: &Setup,
    tt: &mut TranspositionTable,
    limits: &Limits,
    signal: Option<&Signal>,
) -> Result<Option<Puzzle>, endgame::Unfinished> {
    if !EMPTIES.contains(&node.empties().len()) || node.moves().len() < 2 {
        return Ok(None);
    }
    let options = SolveOptions::exact(WinRule::MostDiscs);
    tt.clear();
    let solution = endgame::solve_with(node, Goal::Exact, &options, tt, limits, signal)?;
    let Some(answer) = solution.best else {
        return Ok(None);
    };
    if solution.score < 0 {
        return Ok(None);
    }
    // Another move keeps the result when the opponent's reply cannot reach this much.
    let threshold = if solution.score > 0 { 0 } else { 1 };
    let mut moves = node.moves();
    while let Some(mv) = moves.pop() {
        if node.square(mv) == answer {
            continue;
        }
        let (beaten, _) =
            endgame::reaches(&node.play(mv), threshold, &options, tt, limits, signal)?;
        if !beaten {
            return Ok(None);
        }
    }
    let mut scored = vec![(answer, solution.score)];
    let mut moves = node.moves();
    while let Some(mv) = moves.pop() {
        let square = node.square(mv);
        if square != answer {
            let child =
                endgame::solve_with(&node.play(mv), Goal::Exact, &options, tt, limits, signal)?;
            scored.push((square, -child.score));
        }
    }
    scored[1..].sort_by_key(|&(square, score)| (-score, square));
    Ok(Some(Puzzle {
        setup: *setup,
        answer,
        moves: scored,
        depth: first_depth(node, answer, tt, signal),
    }))
}

/// The shallowest full-width search that plays `answer`, up to [`MAX_DEPTH`].
fn first_depth<N: Node>(
    node: &N,
    answer: Square,
    tt: &mut TranspositionTable,
    signal: Option<&Signal>,
) -> Option<u32> {
    (1..=MAX_DEPTH).find(|&depth| {
        tt.clear();
        let options = SearchOptions::new(
            WinRule::MostDiscs,
            Limits::depth(depth),
            Evaluator::default(),
        );
        search(node, &options, tt, signal, &mut |_| {}).best == Some(answer)
    })
}

/// Solves a puzzle again from its position alone, as a check of a shipped file: `Ok(())`
/// when [`find`] finds the same answer and the same score for every move.
///
/// # Errors
/// What differs, or that a solve was stopped.
pub fn verify(puzzle: &Puzzle, limits: &Limits) -> Result<(), String> {
    let mut tt = TranspositionTable::new(16);
    let found = find(&puzzle.setup, &mut tt, limits, None)
        .map_err(|_| "a solve did not finish".to_owned())?
        .ok_or_else(|| "the position is not a puzzle".to_owned())?;
    let sorted = |moves: &[(Square, i32)]| {
        let mut moves = moves.to_vec();
        moves.sort();
        moves
    };
    if found.answer != puzzle.answer {
        return Err(format!(
            "the answer is {}, not {}",
            found.answer, puzzle.answer
        ));
    }
    if sorted(&found.moves) != sorted(&puzzle.moves) {
        return Err(format!(
            "the scores are {:?}, not {:?}",
            found.moves, puzzle.moves
        ));
    }
    Ok(())
}

/// A standard position from a board where the side to move plays Black (as a training
/// sample's [`board`](crate::training::Sample::board) is), coloured as in a game without
/// passes: Black to move when the discs on the board are even, else White (colours
/// swapped).
pub fn oriented(board: &Board) -> Setup {
    let discs = board.count(Color::Black) + board.count(Color::White);
    let mut shown = *board;
    let mover = if discs.is_multiple_of(2) {
        Color::Black
    } else {
        shown.swap_colors();
        Color::White
    };
    Setup {
        board: shown,
        first_mover: mover,
        win_rule: WinRule::MostDiscs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first shipped puzzle's record.
    fn shipped() -> PuzzleRecord {
        let line = include_str!("../../data/puzzles.jsonl")
            .lines()
            .next()
            .unwrap();
        serde_json::from_str(line).unwrap()
    }

    #[test]
    fn a_position_outside_the_range_or_with_one_move_is_no_puzzle() {
        let mut tt = TranspositionTable::new(1);
        let start = Setup::standard(Shape::STANDARD);
        assert!(matches!(
            find(&start, &mut tt, &Limits::NONE, None),
            Ok(None)
        ));
        let other = Setup::standard(Shape::new(6, 6).unwrap());
        assert!(matches!(
            find(&other, &mut tt, &Limits::NONE, None),
            Ok(None)
        ));
    }

    #[test]
    fn a_record_whose_other_move_also_wins_or_whose_moves_are_not_legal_is_refused() {
        let record = shipped();
        let puzzle = record.puzzle().unwrap();
        assert_eq!(puzzle.record(&record.source), record);
        let mut two_wins = record.clone();
        two_wins.moves[1].score = two_wins.moves[0].score;
        assert!(two_wins.moves[1].score > 0 || two_wins.goal == PuzzleGoal::Draw);
        let error = two_wins.puzzle().unwrap_err();
        assert_eq!(error.reason, "another move keeps the result");
        let mut missing = record.clone();
        missing.moves.pop();
        let error = missing.puzzle().unwrap_err();
        assert!(error.reason.contains("legal moves"), "{error}");
        let mut renamed = record;
        renamed.id = "0000000000".into();
        assert!(renamed.puzzle().unwrap_err().reason.contains("id is"));
    }

    #[test]
    fn the_side_to_move_is_coloured_by_parity() {
        let mut board = Board::standard(Shape::STANDARD);
        assert_eq!(oriented(&board).first_mover, Color::Black);
        board.set(Square::new(0, 0), Some(Color::Black));
        let setup = oriented(&board);
        assert_eq!(setup.first_mover, Color::White);
        assert_eq!(setup.board.at(Square::new(0, 0)), Some(Color::White));
    }
}
