//! Rule sets: where FULL and SIMPLE differ, and nowhere else.

use std::{fmt, str::FromStr};

use thiserror::Error;

use crate::{Bitboard, Board, Color, Square};

mod full;
mod simple;

pub use full::Full;
pub use simple::Simple;

/// What makes a move legal and which discs it flips.
///
/// Rule sets are zero-sized types, chosen at compile time (`Game<Full>`); [`Variant`] picks one
/// at run time. Under both rule sets a move is legal exactly when it lands on an empty square
/// of the board and flips at least one disc; the required methods must keep that true.
///
/// ```
/// use othello::{Board, Color, Full, RuleSet, Shape, Simple, Square};
///
/// let board = Board::standard(Shape::STANDARD);
/// assert_eq!(Full::legal_moves(&board, Color::Black).count(), 4);
/// // SIMPLE allows every empty square next to a White disc.
/// assert_eq!(Simple::legal_moves(&board, Color::Black).count(), 10);
/// let d3: Square = "d3".parse()?;
/// assert_eq!(Full::flips(&board, Color::Black, d3).count(), 1);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub trait RuleSet: Copy + Default + fmt::Debug + Send + Sync + 'static {
    /// The run-time name of this rule set.
    const VARIANT: Variant;

    /// Every square where `side` may move.
    fn legal_moves(board: &Board, side: Color) -> Bitboard;

    /// The opponent discs that turn over when `side` moves to `square`; empty when the move is
    /// illegal (including an occupied square or one off the board).
    fn flips(board: &Board, side: Color, square: Square) -> Bitboard;

    /// Discs of `side` that no sequence of moves can ever flip: all of them, or (where
    /// finding all would cost too much) a subset. The engine's evaluation counts them and
    /// its exact solver bounds scores with them.
    fn stable(board: &Board, side: Color) -> Bitboard;

    /// Whether `side` has any legal move.
    fn can_move(board: &Board, side: Color) -> bool {
        !Self::legal_moves(board, side).is_empty()
    }
}

/// The rule sets by name, for choosing one at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Variant {
    /// Standard Othello: [`Full`].
    #[default]
    Full,
    /// The course's simplified rules: [`Simple`].
    Simple,
}

impl Variant {
    /// Both variants.
    pub const ALL: [Variant; 2] = [Variant::Full, Variant::Simple];

    /// The lower-case name used on the command line: `full` or `simple`.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Full => "full",
            Variant::Simple => "simple",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = ParseVariantError;

    /// `full` or `simple`, in any case.
    fn from_str(s: &str) -> Result<Variant, ParseVariantError> {
        Variant::ALL
            .into_iter()
            .find(|v| v.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| ParseVariantError {
                found: s.to_owned(),
            })
    }
}

/// Runs `$body` with the type `R` bound to a rule set chosen at run time: the one place
/// that turns a [`Variant`] (or an [`AnyGame`](crate::AnyGame)) into a type for generic
/// code, so code that reads the rules from a person or a file picks them once, at its edge.
///
/// - `on_rules!(variant, |R| body)`: `R` is [`Full`] or [`Simple`], as `variant` says;
/// - `on_rules!(game = any_game, |game, R| body)`: `game` is the [`Game<R>`](crate::Game)
///   inside the [`AnyGame`](crate::AnyGame) (a reference where `any_game` is one);
/// - `on_rules!(game = any_game, |game| body)`: the same where the body needs no `R`
///   (it forwards to the game's own methods).
///
/// The body is compiled once for each rule set, so it may call generic code (`f::<R>(..)`)
/// and borrow from its surroundings like a closure; `?` and `return` act on the enclosing
/// function.
///
/// ```
/// use othello::{AnyGame, Board, Color, RuleSet, Setup, Shape, Variant, on_rules};
///
/// fn first_moves(variant: Variant) -> u32 {
///     let board = Board::standard(Shape::STANDARD);
///     on_rules!(variant, |R| R::legal_moves(&board, Color::Black).count())
/// }
/// assert_eq!(first_moves(Variant::Full), 4);
/// assert_eq!(first_moves(Variant::Simple), 10);
///
/// let game = AnyGame::new(Variant::Simple, Setup::standard(Shape::STANDARD));
/// let flips = on_rules!(game = &game, |game, R| {
///     R::flips(game.board(), Color::Black, "c3".parse()?).count()
/// });
/// assert_eq!(flips, 1);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[macro_export]
macro_rules! on_rules {
    (game = $game:expr, |$inner:ident, $rules:ident| $body:expr) => {
        match $game {
            $crate::AnyGame::Full($inner) => {
                #[allow(dead_code)]
                type $rules = $crate::Full;
                $body
            }
            $crate::AnyGame::Simple($inner) => {
                #[allow(dead_code)]
                type $rules = $crate::Simple;
                $body
            }
        }
    };
    (game = $game:expr, |$inner:ident| $body:expr) => {
        match $game {
            $crate::AnyGame::Full($inner) => $body,
            $crate::AnyGame::Simple($inner) => $body,
        }
    };
    ($variant:expr, |$rules:ident| $body:expr) => {
        match $variant {
            $crate::Variant::Full => {
                #[allow(dead_code)]
                type $rules = $crate::Full;
                $body
            }
            $crate::Variant::Simple => {
                #[allow(dead_code)]
                type $rules = $crate::Simple;
                $body
            }
        }
    };
}

/// A rule set name other than `full` or `simple`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("rules must be full or simple, found {found:?}")]
pub struct ParseVariantError {
    /// The rejected name.
    pub found: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Direction, Shape};

    /// Flips computed cell by cell, straight from the rules' wording.
    fn naive_flips(variant: Variant, board: &Board, side: Color, square: Square) -> Bitboard {
        if !board.shape().contains(square) || board.at(square).is_some() {
            return Bitboard::EMPTY;
        }
        let mut flips = Bitboard::EMPTY;
        for direction in Direction::ALL {
            let mut run = Bitboard::EMPTY;
            let mut cursor = square.step(direction);
            while let Some(s) = cursor.filter(|&s| board.at(s) == Some(side.opponent())) {
                run.insert(s);
                if variant == Variant::Simple {
                    break;
                }
                cursor = s.step(direction);
            }
            let closed = cursor.is_some_and(|s| board.at(s) == Some(side));
            if variant == Variant::Simple || closed {
                flips |= run;
            }
        }
        flips
    }

    fn check_against_naive<R: RuleSet>(board: &Board) {
        for side in Color::ALL {
            let legal = R::legal_moves(board, side);
            for square in board.shape().squares() {
                let flips = R::flips(board, side, square);
                assert_eq!(
                    flips,
                    naive_flips(R::VARIANT, board, side, square),
                    "{square}"
                );
                assert_eq!(legal.contains(square), !flips.is_empty(), "{square}");
            }
            assert_eq!(legal & !board.shape().mask(), Bitboard::EMPTY);
        }
    }

    #[test]
    fn both_rule_sets_agree_with_a_cell_by_cell_reading() {
        for (rows, columns) in [(4, 4), (8, 8), (5, 16), (16, 16), (16, 6)] {
            let shape = Shape::new(rows, columns).unwrap();
            let mut board = Board::empty(shape);
            for (i, square) in shape.squares().enumerate() {
                let disc = match (i * 7 + i / 3) % 5 {
                    0 | 1 => Some(Color::Black),
                    2 => Some(Color::White),
                    _ => None,
                };
                board.set(square, disc);
            }
            check_against_naive::<Full>(&board);
            check_against_naive::<Simple>(&board);
            check_against_naive::<Full>(&Board::standard(shape));
            check_against_naive::<Simple>(&Board::standard(shape));
        }
    }

    #[test]
    fn variant_names_round_trip() {
        for variant in Variant::ALL {
            assert_eq!(variant.name().parse(), Ok(variant));
        }
        assert_eq!("SIMPLE".parse(), Ok(Variant::Simple));
        assert_eq!(
            "fast".parse::<Variant>().unwrap_err().to_string(),
            "rules must be full or simple, found \"fast\""
        );
    }
}
