//! Othello (Reversi) on rectangular boards from 4 × 4 to 16 × 16, under standard rules
//! ([`Full`]) or the course's simplified ones ([`Simple`]), with any first mover, either win
//! rule and any starting position; the course's character-exact grader protocol
//! ([`protocol`]); an engine ([`engine`]) with matches, analysis and training beside it; and
//! tools for graders ([`grading`]).
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
//! # Layers
//!
//! Each uses only those before it:
//! 1. **the game core** (`src/core/`): geometry ([`Shape`], [`Square`]), disc sets
//!    ([`Bitboard`]), [`Board`], [`Color`], rules ([`RuleSet`], [`Full`], [`Simple`],
//!    [`Variant`]), [`Setup`], [`Game`] and, for rules chosen at run time, [`AnyGame`];
//! 2. **text formats** (`src/formats/`): the grader's header and board ([`Setup`]'s
//!    `Display`/`FromStr`), [`MoveList`], [`Obf`], game records ([`Record`]: our own format,
//!    GGF, grader inputs) and the bounded [`LineReader`];
//! 3. **the [`engine`]**: perft, evaluation, search, exact solver, MCTS, players; and beside
//!    it, built on it, [`arena`] (matches and Elo ratings), [`analysis`] for people (ranked
//!    moves, exact where the solver reaches; solves; game reviews) and [`training`] (the
//!    learned evaluation's pipeline);
//! 4. **front ends**: the grader [`protocol`] and the [`grading`] tools, in this library
//!    because they run on any reader and writer (tests run them in memory); the console
//!    game, the command-line commands and the web server live in the `othello` binary
//!    (`src/main.rs`, `src/cli/`, `src/play/`, `src/server/`).
//!
//! # What is public
//!
//! The library's API is the game core and the formats (flat, at the crate root), the
//! [`engine`] and what is built beside it ([`arena`], [`analysis`], [`training`]), the
//! grader [`protocol`] and the [`grading`] tools: course staff may build
//! their own harness on [`grading::scenario`] (test cases with their expected output) and
//! [`grading::check`] (running a program the way the course's harness does). The console
//! game (`play`), the command-line commands and the server are not: they are the binary's,
//! with its command line and its pages as their interface, and they change with them.

#![warn(missing_docs, missing_debug_implementations)]

pub mod analysis;
pub mod arena;
mod core;
pub mod engine;
mod formats;
pub mod grading;
pub mod process;
pub mod protocol;
pub mod training;

/// The README's examples, run as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub use crate::core::{
    any_game::AnyGame,
    bitboard::{Bitboard, Squares},
    board::{Board, EMPTY_CELL},
    clock::{Clock, TimeControl},
    color::{ByColor, Color},
    game::{Game, MoveError, Outcome, Ply, ReplayError, Status},
    geometry::{Direction, ParseShapeError, ParseSquareError, Shape, ShapeError, Square},
    rules::{Full, ParseVariantError, RuleSet, Simple, Variant},
    setup::{GameKind, ParseWinRuleError, Setup, WinRule},
};
pub use formats::wthor;
pub use formats::{
    grader::{Excerpt, Expected, SetupError, SetupErrorKind},
    lines::{Line, LineReader, MAX_LINE_LEN, Printable, ReadError, printable},
    move_list::{MoveList, ParseMoveListError},
    obf::{Obf, ParseObfError},
    record::{
        Ending, ExportError, GgfExportError, GraderExportError, LoadError, LoadSettings,
        ParseRecordError, Record, RecordFormat, Setting, Stated,
    },
};
