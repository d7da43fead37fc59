//! The two sides, and a value for each.

use std::{
    fmt,
    ops::{Index, IndexMut, Not},
};

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
/// A value for each side: Black's and White's, indexed by [`Color`] (in place of a
/// `[T; 2]` indexed by `color as usize`).
///
/// ```
/// use othello::{ByColor, Color};
///
/// let mut clocks = ByColor::new(300, 300);
/// clocks[Color::White] -= 20;
/// assert_eq!(clocks[Color::White], 280);
/// assert_eq!(clocks.map(|left| left / 60), ByColor::new(5, 4));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByColor<T> {
    /// Black's.
    pub black: T,
    /// White's.
    pub white: T,
}

impl<T> ByColor<T> {
    /// Black's value and White's.
    pub const fn new(black: T, white: T) -> ByColor<T> {
        ByColor { black, white }
    }

    /// Each side's value from `f`.
    pub fn from_fn(mut f: impl FnMut(Color) -> T) -> ByColor<T> {
        ByColor {
            black: f(Color::Black),
            white: f(Color::White),
        }
    }

    /// Each value through `f`.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> ByColor<U> {
        ByColor {
            black: f(self.black),
            white: f(self.white),
        }
    }

    /// The values by reference.
    pub const fn as_ref(&self) -> ByColor<&T> {
        ByColor {
            black: &self.black,
            white: &self.white,
        }
    }

    /// Each side with its value, Black first.
    pub fn iter(&self) -> impl Iterator<Item = (Color, &T)> {
        [(Color::Black, &self.black), (Color::White, &self.white)].into_iter()
    }

    /// Black's and White's, as an array.
    pub fn into_array(self) -> [T; 2] {
        [self.black, self.white]
    }

    /// Gives Black White's value and White Black's.
    pub fn swap_sides(&mut self) {
        std::mem::swap(&mut self.black, &mut self.white);
    }

    /// Whether either side has `value`.
    pub fn contains(&self, value: &T) -> bool
    where
        T: PartialEq,
    {
        self.black == *value || self.white == *value
    }
}

impl<T> Index<Color> for ByColor<T> {
    type Output = T;
    #[inline]
    fn index(&self, color: Color) -> &T {
        match color {
            Color::Black => &self.black,
            Color::White => &self.white,
        }
    }
}

impl<T> IndexMut<Color> for ByColor<T> {
    #[inline]
    fn index_mut(&mut self, color: Color) -> &mut T {
        match color {
            Color::Black => &mut self.black,
            Color::White => &mut self.white,
        }
    }
}

impl<T> From<[T; 2]> for ByColor<T> {
    /// Black's, then White's.
    fn from([black, white]: [T; 2]) -> ByColor<T> {
        ByColor { black, white }
    }
}
