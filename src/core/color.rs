//! The two sides.

use std::{fmt, ops::Not};

/// A side, and the colour of its discs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// Black, written `B`.
    Black,
    /// White, written `W`.
    White,
}

impl Color {
    /// Both colours, Black first.
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    /// The other side.
    #[must_use]
    #[inline]
    pub const fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The letter the grader protocol and the board text use: `B` or `W`.
    pub const fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }

    /// The colour written as `letter` (`B` or `W`, upper case only).
    pub const fn from_letter(letter: u8) -> Option<Color> {
        match letter {
            b'B' => Some(Color::Black),
            b'W' => Some(Color::White),
            _ => None,
        }
    }

    /// 0 for Black, 1 for White.
    #[inline]
    pub(crate) const fn index(self) -> usize {
        self as usize
    }
}

impl Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        self.opponent()
    }
}

impl fmt::Display for Color {
    /// The letter, `B` or `W`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}
