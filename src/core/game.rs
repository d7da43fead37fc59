//! A game in progress: whose turn it is, automatic passes, the end, the winner, and history.

use std::{fmt, marker::PhantomData};

use thiserror::Error;

use crate::{Bitboard, Board, Color, RuleSet, Setup, Shape, Square, WinRule};

impl WinRule {
    /// The result of a finished game on `board`.
    pub fn outcome(self, board: &Board) -> Outcome {
        let black = board.count(Color::Black);
        let white = board.count(Color::White);
        let leader = match black.cmp(&white) {
            std::cmp::Ordering::Equal => return Outcome::Draw,
            std::cmp::Ordering::Greater => Color::Black,
            std::cmp::Ordering::Less => Color::White,
        };
        Outcome::Win(match self {
            WinRule::MostDiscs => leader,
            WinRule::FewestDiscs => leader.opponent(),
        })
    }
}

impl fmt::Display for WinRule {
    /// The symbol, `>` or `<`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.symbol())
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// This side won.
    Win(Color),
    /// Equal disc counts.
    Draw,
}

impl Outcome {
    /// The winner, if the game was not drawn.
    pub const fn winner(self) -> Option<Color> {
        match self {
            Outcome::Win(color) => Some(color),
            Outcome::Draw => None,
        }
    }
}

/// Where a game stands: someone to move, or over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// This side is to move (and has a legal move).
    ToMove(Color),
    /// Neither side can move.
    Over(Outcome),
}

/// A move that was played: where, by whom, and what it turned over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ply {
    square: Square,
    side: Color,
    flips: Bitboard,
    /// The mover's legal moves before the move, kept so undo restores them without work.
    legal_before: Bitboard,
}

impl Ply {
    /// The square played.
    pub const fn square(&self) -> Square {
        self.square
    }

    /// The side that moved.
    pub const fn side(&self) -> Color {
        self.side
    }

    /// The discs turned over.
    pub const fn flips(&self) -> Bitboard {
        self.flips
    }
}

/// Why a move was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum MoveError {
    /// Neither side can move any more.
    #[error("the game is over")]
    GameOver,
    /// The square is outside the board.
    #[error("{square} is not on the {shape} board")]
    OffBoard {
        /// The square asked for.
        square: Square,
        /// The board's shape.
        shape: Shape,
    },
    /// The square already holds a disc.
    #[error("{square} is already occupied")]
    Occupied {
        /// The square asked for.
        square: Square,
    },
    /// The move turns nothing over, so the rules do not allow it.
    #[error("illegal move {square}: it flips no disc")]
    Illegal {
        /// The square asked for.
        square: Square,
    },
}

/// A move list could not be replayed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("move {number}: {error}")]
pub struct ReplayError {
    /// The 1-based number of the move that failed.
    pub number: usize,
    /// Why it failed.
    #[source]
    pub error: MoveError,
}

/// A game under rule set `R`, from its [`Setup`] to its end.
///
/// Passes are automatic: after a move the opponent is to move if it has a legal move;
/// otherwise the same side moves again; if neither can move the game is over. The same
/// applies before the first move, so a first mover with no move passes at once.
///
/// ```
/// use othello::{Color, Full, Game, Outcome, Setup, Shape};
///
/// let mut game = Game::<Full>::new(Setup::standard(Shape::STANDARD));
/// assert_eq!(game.side_to_move(), Some(Color::Black));
/// game.play("d3".parse()?)?;
/// assert_eq!((game.count(Color::Black), game.count(Color::White)), (4, 1));
/// assert!(game.play("a1".parse()?).is_err());
/// game.undo();
/// assert_eq!(game.board(), &Setup::standard(Shape::STANDARD).board);
/// assert_eq!(game.outcome(), None);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game<R: RuleSet> {
    setup: Setup,
    board: Board,
    /// `None` once the game is over.
    side_to_move: Option<Color>,
    /// Legal moves of the side to move (empty once the game is over).
    legal: Bitboard,
    history: Vec<Ply>,
    /// Undone plies, the most recently undone last.
    undone: Vec<Ply>,
    rules: PhantomData<R>,
}

impl<R: RuleSet> Game<R> {
    /// A game starting from `setup`, with the first mover's pass already made if it has no
    /// move.
    pub fn new(setup: Setup) -> Game<R> {
        let mut game = Game {
            setup,
            board: setup.board,
            side_to_move: None,
            legal: Bitboard::EMPTY,
            history: Vec::new(),
            undone: Vec::new(),
            rules: PhantomData,
        };
        game.give_turn(setup.first_mover);
        game
    }

    /// A game from `setup` after playing `moves` in order.
    ///
    /// # Errors
    /// [`ReplayError`] naming the first move that could not be played.
    pub fn replay(
        setup: Setup,
        moves: impl IntoIterator<Item = Square>,
    ) -> Result<Game<R>, ReplayError> {
        let mut game = Game::new(setup);
        for (index, square) in moves.into_iter().enumerate() {
            game.play(square).map_err(|error| ReplayError {
                number: index + 1,
                error,
            })?;
        }
        Ok(game)
    }

    /// Where the game started.
    pub const fn setup(&self) -> &Setup {
        &self.setup
    }

    /// The current position.
    pub const fn board(&self) -> &Board {
        &self.board
    }

    /// Number of `color`'s discs.
    pub const fn count(&self, color: Color) -> u32 {
        self.board.count(color)
    }

    /// The side to move, or `None` once the game is over.
    pub const fn side_to_move(&self) -> Option<Color> {
        self.side_to_move
    }

    /// The legal moves of the side to move; empty once the game is over.
    pub const fn legal_moves(&self) -> Bitboard {
        self.legal
    }

    /// Whether the side to move may play `square`.
    pub const fn is_legal(&self, square: Square) -> bool {
        self.legal.contains(square)
    }

    /// Whether neither side can move.
    pub const fn is_over(&self) -> bool {
        self.side_to_move.is_none()
    }

    /// The result, once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.is_over()
            .then(|| self.setup.win_rule.outcome(&self.board))
    }

    /// Whose move it is, or the result.
    pub fn status(&self) -> Status {
        match self.side_to_move {
            Some(side) => Status::ToMove(side),
            None => Status::Over(self.setup.win_rule.outcome(&self.board)),
        }
    }

    /// The moves played so far, oldest first (passes are implicit).
    pub fn history(&self) -> &[Ply] {
        &self.history
    }

    /// The squares played so far, oldest first.
    pub fn moves(&self) -> impl ExactSizeIterator<Item = Square> + '_ {
        self.history.iter().map(Ply::square)
    }

    /// The moves [`redo`](Game::redo) would play again, the next one first.
    pub fn undone(&self) -> impl ExactSizeIterator<Item = Square> + '_ {
        self.undone.iter().rev().map(Ply::square)
    }

    /// The undone plies, the most recently undone last.
    pub(crate) fn undone_plies(&self) -> &[Ply] {
        &self.undone
    }

    /// Plays `square` for the side to move, then passes the turn (see [`Game`]). Clears the
    /// moves that [`redo`](Game::redo) could bring back.
    ///
    /// # Errors
    /// [`MoveError`] if the game is over or the move is not legal; the game is unchanged.
    pub fn play(&mut self, square: Square) -> Result<Ply, MoveError> {
        let ply = self.play_keeping_redo(square)?;
        self.undone.clear();
        Ok(ply)
    }

    /// Takes back the last move; returns it, or `None` at the start.
    pub fn undo(&mut self) -> Option<Ply> {
        let ply = self.history.pop()?;
        self.board.unplace(ply.side, ply.square, ply.flips);
        self.side_to_move = Some(ply.side);
        self.legal = ply.legal_before;
        self.undone.push(ply);
        Some(ply)
    }

    /// Plays again the move most recently undone, if no other move was played since.
    pub fn redo(&mut self) -> Option<Ply> {
        let ply = self.undone.pop()?;
        // Undo restored exactly the position this move was played in, so it is legal again.
        self.play_keeping_redo(ply.square).ok()
    }

    fn play_keeping_redo(&mut self, square: Square) -> Result<Ply, MoveError> {
        let side = self.side_to_move.ok_or(MoveError::GameOver)?;
        if !self.legal.contains(square) {
            let shape = self.board.shape();
            return Err(if !shape.contains(square) {
                MoveError::OffBoard { square, shape }
            } else if self.board.at(square).is_some() {
                MoveError::Occupied { square }
            } else {
                MoveError::Illegal { square }
            });
        }
        let flips = R::flips(&self.board, side, square);
        debug_assert!(!flips.is_empty(), "legal move {square} flips nothing");
        self.board.place(side, square, flips);
        let ply = Ply {
            square,
            side,
            flips,
            legal_before: self.legal,
        };
        self.history.push(ply);
        self.give_turn(side.opponent());
        Ok(ply)
    }

    /// Gives the turn to `preferred` if it can move, else to the other side if that can
    /// move, else ends the game.
    fn give_turn(&mut self, preferred: Color) {
        for side in [preferred, preferred.opponent()] {
            let legal = R::legal_moves(&self.board, side);
            if !legal.is_empty() {
                self.side_to_move = Some(side);
                self.legal = legal;
                return;
            }
        }
        self.side_to_move = None;
        self.legal = Bitboard::EMPTY;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Full, Simple};

    fn setup(text: &str) -> Setup {
        text.parse().unwrap()
    }

    #[test]
    fn first_mover_without_a_move_passes_at_once() {
        let game = Game::<Full>::new(setup("4\n4\nW\n>\nB . . .\n. W . .\n. . . .\n. . . .\n"));
        assert_eq!(game.side_to_move(), Some(Color::Black));
        assert_eq!(
            game.legal_moves().iter().collect::<Vec<_>>(),
            [Square::new(2, 2)]
        );
    }

    #[test]
    fn game_over_before_the_first_move() {
        let game = Game::<Full>::new(setup(
            "4\n6\nB\n<\nB B . . . .\n. . . . . .\n. . . . W .\n. . . . . .\n",
        ));
        assert!(game.is_over());
        assert_eq!(game.outcome(), Some(Outcome::Win(Color::White)));
        assert!(game.legal_moves().is_empty());
    }

    #[test]
    fn refusals_say_why() {
        let mut game = Game::<Full>::new(Setup::standard(Shape::new(4, 4).unwrap()));
        assert_eq!(
            game.play(Square::new(4, 0)),
            Err(MoveError::OffBoard {
                square: Square::new(4, 0),
                shape: Shape::new(4, 4).unwrap()
            })
        );
        assert_eq!(
            game.play(Square::new(1, 1)).unwrap_err().to_string(),
            "b2 is already occupied"
        );
        assert_eq!(
            game.play(Square::new(0, 0)).unwrap_err().to_string(),
            "illegal move a1: it flips no disc"
        );
        assert_eq!(game.history().len(), 0);
    }

    #[test]
    fn the_same_side_moves_again_when_the_opponent_must_pass() {
        // Black plays c1, flipping b1; White then has no move but Black does (b2).
        let mut game = Game::<Full>::new(setup("4\n4\nB\n>\nB W . .\n. . . .\n. . W .\n. . . B\n"));
        game.play("c1".parse().unwrap()).unwrap();
        assert_eq!(game.side_to_move(), Some(Color::Black));
        game.undo();
        assert_eq!(game.side_to_move(), Some(Color::Black));
        assert_eq!(game.board(), &game.setup().board);
    }

    #[test]
    fn undo_and_redo_walk_the_history() {
        let mut game = Game::<Simple>::new(Setup::standard(Shape::STANDARD));
        let moves = ["d3", "c3", "b3"].map(|m| m.parse::<Square>().unwrap());
        for square in moves {
            game.play(square).unwrap();
        }
        let after = game.clone();
        assert_eq!(game.undo().map(|p| p.square()), Some(moves[2]));
        assert_eq!(game.undo().map(|p| p.square()), Some(moves[1]));
        assert_eq!(game.redo().map(|p| p.square()), Some(moves[1]));
        assert_eq!(game.redo().map(|p| p.square()), Some(moves[2]));
        assert_eq!(game.redo(), None);
        assert_eq!(game, after);
        game.undo();
        game.play(game.legal_moves().first().unwrap()).unwrap();
        assert_eq!(game.redo(), None, "a new move clears redo");
    }

    #[test]
    fn replay_names_the_failing_move() {
        let error = Game::<Full>::replay(
            Setup::standard(Shape::STANDARD),
            ["d3", "c5", "d3"].map(|m| m.parse().unwrap()),
        )
        .unwrap_err();
        assert_eq!(error.to_string(), "move 3: d3 is already occupied");
    }

    #[test]
    fn outcomes_under_both_win_rules() {
        let board = setup("4\n4\nB\n>\nB B . .\nW . . .\n. . . .\n. . . .\n").board;
        assert_eq!(
            WinRule::MostDiscs.outcome(&board),
            Outcome::Win(Color::Black)
        );
        assert_eq!(
            WinRule::FewestDiscs.outcome(&board),
            Outcome::Win(Color::White)
        );
        let empty = Board::empty(board.shape());
        assert_eq!(WinRule::FewestDiscs.outcome(&empty), Outcome::Draw);
    }
}
