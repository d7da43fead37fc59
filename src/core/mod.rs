//! The game core: geometry, disc sets, the board, the rule sets, colours, where a game
//! starts and the game itself. Nothing here reads or writes text beyond `Display` and
//! `FromStr` of squares and shapes; everything above builds on it.

pub(crate) mod any_game;
pub(crate) mod bitboard;
pub(crate) mod board;
pub(crate) mod clock;
pub(crate) mod color;
pub(crate) mod game;
pub(crate) mod geometry;
pub(crate) mod rules;
pub(crate) mod setup;
