//! Othello (Reversi) on rectangular boards from 4 × 4 to 16 × 16, under standard rules
//! ([`Full`]) or the course's simplified ones ([`Simple`]), with any first mover, either win
//! rule and any starting position; and the course's character-exact grader protocol
//! ([`protocol`]).
//!
//! ```
//! use othello::{Color, Full, Game, Outcome, Setup, Shape, Status};
//!
//! // The standard start on a 6 x 6 board, Black to move.
//! let mut game = Game::<Full>::new(Setup::standard(Shape::new(6, 6)?));
//! assert_eq!(game.legal_moves().count(), 4);
//!
//! // Play the first legal move each turn until nobody can move.
//! while let Status::ToMove(_side) = game.status() {
//!     let square = game.legal_moves().first().expect("the side to move has a move");
//!     game.play(square)?;
//! }
//! let black = game.count(Color::Black);
//! let white = game.count(Color::White);
//! let expected = if black > white { Outcome::Win(Color::Black) } else if white > black {
//!     Outcome::Win(Color::White)
//! } else {
//!     Outcome::Draw
//! };
//! assert_eq!(game.outcome(), Some(expected));
//! println!("{} moves: {}", game.history().len(), othello::MoveList::from_iter(game.moves()));
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```
//!
//! The layers, each using only those before it: geometry ([`Shape`], [`Square`]), disc sets
//! ([`Bitboard`]), [`Board`], rules ([`RuleSet`]), [`Game`], text formats ([`Setup`],
//! [`MoveList`]), the [`engine`] and the [`protocol`] front end.

#![warn(missing_docs, missing_debug_implementations)]

mod bitboard;
mod board;
pub mod check;
mod color;
pub mod commands;
pub mod engine;
mod game;
mod geometry;
mod line_reader;
mod move_list;
mod obf;
pub mod play;
pub mod protocol;
mod record;
mod rules;
pub mod scenario;
mod setup;

/// The README's examples, run as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub use bitboard::{Bitboard, Squares};
pub use board::{Board, EMPTY_CELL};
pub use color::Color;
pub use game::{Game, MoveError, Outcome, Ply, ReplayError, Status, WinRule};
pub use geometry::{Direction, ParseShapeError, ParseSquareError, Shape, ShapeError, Square};
pub use line_reader::{Line, LineReader, MAX_LINE_LEN, ReadError};
pub use move_list::{MoveList, ParseMoveListError};
pub use obf::{Obf, ParseObfError};
pub use record::{
    GgfExportError, GraderExportError, ParseRecordError, Record, RecordFormat, Stated,
};
pub use rules::{Full, ParseVariantError, RuleSet, Simple, Variant};
pub use setup::{Excerpt, Expected, Setup, SetupError, SetupErrorKind};
