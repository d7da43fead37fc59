//! An opening explorer: for the moves played so far, every move played next in a database of
//! games, with how many games, how they ended and the average disc result.
//!
//! Games are kept by their move sequence from the standard start, turned by the start's own
//! symmetries so that the first move is the conventional one (f5 on 8 × 8, as WTHOR writes
//! them): a game opened d3 and one opened f5 meet in the same line. A query is turned the
//! same way, and its answers back. Sorted sequences make each query a binary search and one
//! pass over the games that share its moves.
//!
//! ```
//! use othello::analysis::explorer::Explorer;
//! use othello::{MoveList, Shape};
//!
//! let moves = |text: &str| text.parse::<MoveList>().unwrap().0;
//! let mut explorer = Explorer::new(Shape::STANDARD);
//! explorer.add(&moves("f5d6c3"), 10)?;
//! explorer.add(&moves("e6f4"), -4)?; // the same opening as f5d6, turned
//! explorer.add(&moves("f5f6"), 0)?;
//! let next = explorer.next(&moves("f5"))?;
//! assert_eq!((next.games, next.moves.len()), (3, 2));
//! let d6 = &next.moves[0];
//! assert_eq!((d6.square.to_string(), d6.games, d6.black_wins), ("d6".into(), 2, 1));
//! assert_eq!(d6.average, 3.0);
//! // Asked the other way round, answered the other way round.
//! assert_eq!(explorer.next(&moves("e6"))?.moves[0].square.to_string(), "f4");
//! # Ok::<_, othello::analysis::explorer::ExplorerError>(())
//! ```

use thiserror::Error;

use crate::engine::symmetry::Symmetry;
use crate::{Board, Setup, Shape, Square, Variant};

/// What an explorer refuses.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ExplorerError {
    /// A move off the explorer's board.
    #[error("{square} is not on the {shape} board")]
    OffBoard {
        /// The move.
        square: Square,
        /// The board.
        shape: Shape,
    },
    /// A move that is not legal where it comes.
    #[error("move {ply}, {square}, is not legal there")]
    Illegal {
        /// The move's number, from 1.
        ply: usize,
        /// The move.
        square: Square,
    },
}

/// One move played next, and how its games went.
#[derive(Clone, Debug, PartialEq)]
pub struct NextMove {
    /// The move, as the query was asked (not turned).
    pub square: Square,
    /// Games that played it.
    pub games: u64,
    /// Of them, won by Black, drawn, won by White.
    pub black_wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by White.
    pub white_wins: u64,
    /// Black's average disc difference at their end.
    pub average: f64,
}

impl NextMove {
    /// Black's score, in percent: a win counts one, a draw half.
    pub fn black_score(&self) -> f64 {
        if self.games == 0 {
            return 0.0;
        }
        100.0 * (self.black_wins as f64 + self.draws as f64 / 2.0) / self.games as f64
    }
}

/// The answer to a query: the games that reached its moves, and each move played next, the
/// most played first.
#[derive(Clone, Debug, PartialEq)]
pub struct Next {
    /// Games that reached the query's moves (some may end there).
    pub games: u64,
    /// The moves played next.
    pub moves: Vec<NextMove>,
}

/// The games of one board, by their turned move sequences.
#[derive(Clone, Debug)]
pub struct Explorer {
    shape: Shape,
    /// The start's symmetries (those that map it onto itself).
    symmetries: Vec<Symmetry>,
    /// Each game's turned moves (square indices) and Black's final disc difference.
    games: Vec<(Vec<u8>, i16)>,
    /// Whether `games` is sorted.
    sorted: bool,
}

impl Explorer {
    /// An explorer of standard Othello games on `shape` from its standard start.
    pub fn new(shape: Shape) -> Explorer {
        let start = Setup::standard(shape).board;
        let symmetries = Symmetry::of(shape.rows(), shape.columns())
            .iter()
            .copied()
            .filter(|&symmetry| turned(&start, symmetry, shape) == start)
            .collect();
        Explorer {
            shape,
            symmetries,
            games: Vec::new(),
            sorted: true,
        }
    }

    /// The number of games.
    pub fn len(&self) -> usize {
        self.games.len()
    }

    /// Whether it has no games.
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    /// Adds a game: its moves (passes implicit) and Black's disc difference at its end.
    ///
    /// # Errors
    /// [`ExplorerError`] for a move off the board or not legal where it comes: nothing is
    /// added.
    pub fn add(&mut self, moves: &[Square], black_result: i32) -> Result<(), ExplorerError> {
        self.check(moves)?;
        let symmetry = self.orientation(moves);
        let turned = moves
            .iter()
            .map(|&square| self.turn(square, symmetry).index() as u8)
            .collect();
        let result = black_result.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
        self.games.push((turned, result));
        self.sorted = false;
        Ok(())
    }

    /// The moves played next after `moves` (passes implicit), the most played first (ties
    /// by the square's name), each with how its games ended.
    ///
    /// # Errors
    /// [`ExplorerError`] for a move off the board or not legal where it comes.
    pub fn next(&mut self, moves: &[Square]) -> Result<Next, ExplorerError> {
        self.check(moves)?;
        if !self.sorted {
            self.games.sort_unstable();
            self.sorted = true;
        }
        let symmetry = self.orientation(moves);
        let prefix: Vec<u8> = moves
            .iter()
            .map(|&square| self.turn(square, symmetry).index() as u8)
            .collect();
        let start = self
            .games
            .partition_point(|(game, _)| game.as_slice() < prefix.as_slice());
        let mut games = 0;
        let mut next: Vec<(u8, NextMove, i64)> = Vec::new();
        for (game, result) in self.games[start..]
            .iter()
            .take_while(|(game, _)| game.starts_with(&prefix))
        {
            games += 1;
            let Some(&square) = game.get(prefix.len()) else {
                continue;
            };
            let at = match next.iter().position(|(known, ..)| *known == square) {
                Some(at) => at,
                None => {
                    let shown = self.turn(Square::from_index(square), symmetry);
                    next.push((square, NextMove::empty(shown), 0));
                    next.len() - 1
                }
            };
            let (_, stats, sum) = &mut next[at];
            stats.games += 1;
            *sum += i64::from(*result);
            match result.signum() {
                1 => stats.black_wins += 1,
                0 => stats.draws += 1,
                _ => stats.white_wins += 1,
            }
        }
        let mut moves: Vec<NextMove> = next
            .into_iter()
            .map(|(_, mut stats, sum)| {
                stats.average = sum as f64 / stats.games as f64;
                stats
            })
            .collect();
        moves.sort_by(|a, b| {
            b.games
                .cmp(&a.games)
                .then_with(|| a.square.to_string().cmp(&b.square.to_string()))
        });
        Ok(Next { games, moves })
    }

    /// Checks that `moves` replay from the start.
    fn check(&self, moves: &[Square]) -> Result<(), ExplorerError> {
        let mut game = crate::AnyGame::new(Variant::Full, Setup::standard(self.shape));
        for (ply, &square) in moves.iter().enumerate() {
            if !self.shape.contains(square) {
                return Err(ExplorerError::OffBoard {
                    square,
                    shape: self.shape,
                });
            }
            game.play(square).map_err(|_| ExplorerError::Illegal {
                ply: ply + 1,
                square,
            })?;
        }
        Ok(())
    }

    /// The start's symmetry that takes the first of `moves` to the conventional first move
    /// (one step right of the centre on the row below it: f5 on 8 × 8); the identity when
    /// none does (or there is no move yet).
    fn orientation(&self, moves: &[Square]) -> Symmetry {
        let conventional = Square::new(self.shape.rows() / 2, self.shape.columns() / 2 + 1);
        moves
            .first()
            .and_then(|&first| {
                self.symmetries
                    .iter()
                    .copied()
                    .find(|&symmetry| self.turn(first, symmetry) == conventional)
            })
            .unwrap_or(Symmetry::Identity)
    }

    /// `square` turned by `symmetry` (each of the start's symmetries is its own inverse).
    fn turn(&self, square: Square, symmetry: Symmetry) -> Square {
        symmetry.apply(square, self.shape.rows(), self.shape.columns())
    }
}

impl NextMove {
    fn empty(square: Square) -> NextMove {
        NextMove {
            square,
            games: 0,
            black_wins: 0,
            draws: 0,
            white_wins: 0,
            average: 0.0,
        }
    }
}

/// `board` turned by `symmetry`.
fn turned(board: &Board, symmetry: Symmetry, shape: Shape) -> Board {
    let mut out = Board::empty(shape);
    for square in shape.squares() {
        if let Some(color) = board.at(square) {
            out.set(
                symmetry.apply(square, shape.rows(), shape.columns()),
                Some(color),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MoveList;

    fn moves(text: &str) -> Vec<Square> {
        text.parse::<MoveList>().unwrap().0
    }

    #[test]
    fn the_four_first_moves_meet_in_one_line_and_answers_turn_back() {
        let mut explorer = Explorer::new(Shape::STANDARD);
        assert_eq!(explorer.symmetries.len(), 4, "the start's own symmetries");
        // The same game (f5d6c3: the tiger's start) in its four orientations.
        for (line, result) in [("f5d6c3", 2), ("e6f4c3", 4), ("d3c5f6", -6), ("c4e3f6", 0)] {
            explorer.add(&moves(line), result).unwrap();
        }
        for (first, second) in [("f5", "d6"), ("e6", "f4"), ("d3", "c5"), ("c4", "e3")] {
            let next = explorer.next(&moves(first)).unwrap();
            assert_eq!(next.games, 4, "{first}");
            assert_eq!(next.moves.len(), 1);
            let only = &next.moves[0];
            assert_eq!(only.square.to_string(), second, "{first}");
            assert_eq!(
                (only.games, only.black_wins, only.draws, only.white_wins),
                (4, 2, 1, 1)
            );
            assert_eq!(only.average, 0.0);
            assert_eq!(only.black_score(), 62.5);
        }
        let root = explorer.next(&[]).unwrap();
        assert_eq!(
            (root.games, root.moves[0].square.to_string()),
            (4, "f5".into())
        );
        // A game that ends where asked counts, with no next move.
        explorer.add(&moves("f5d6"), 1).unwrap();
        let after = explorer.next(&moves("f5d6")).unwrap();
        assert_eq!((after.games, after.moves[0].games), (5, 4));
        assert_eq!(explorer.next(&moves("f5f6")).unwrap().games, 0);
    }

    #[test]
    fn moves_that_do_not_replay_are_refused() {
        let mut explorer = Explorer::new(Shape::STANDARD);
        assert_eq!(
            explorer.add(&moves("f5a1"), 0),
            Err(ExplorerError::Illegal {
                ply: 2,
                square: "a1".parse().unwrap()
            })
        );
        assert!(explorer.is_empty());
        assert!(explorer.next(&moves("j10")).is_err());
        // 10 x 10: the conventional first move is g6.
        let mut ten = Explorer::new(Shape::new(10, 10).unwrap());
        ten.add(&moves("d5"), 3).unwrap();
        assert_eq!(ten.next(&[]).unwrap().moves[0].square.to_string(), "g6");
    }
}
