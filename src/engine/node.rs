//! What the engine sees of a position: square sets, the board's layout, and [`Node`].

use std::{
    fmt,
    ops::{BitAnd, BitOr, BitXor, Not},
};

use crate::{Bitboard, Square, Variant, WinRule};

/// A set of squares of one board representation: a `u64` on 8 × 8, a [`Bitboard`] elsewhere.
pub trait SquareSet:
    Copy
    + Eq
    + fmt::Debug
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
{
    /// One square, in this representation's own numbering.
    type Index: Copy + Eq + fmt::Debug + Send + Sync + 'static;

    /// The empty set.
    const EMPTY: Self;

    /// The set holding `index` only.
    fn single(index: Self::Index) -> Self;

    /// Whether `index` is in the set.
    fn contains(self, index: Self::Index) -> bool;

    /// Whether the set is empty.
    fn is_empty(self) -> bool;

    /// Number of squares.
    fn len(self) -> u32;

    /// The lowest square, if any.
    fn first(self) -> Option<Self::Index>;

    /// Removes and returns the lowest square.
    #[inline]
    fn pop(&mut self) -> Option<Self::Index> {
        let index = self.first()?;
        *self = *self ^ Self::single(index);
        Some(index)
    }

    /// Every square adjacent (in eight directions) to a square of the set, within the grid.
    fn neighbours(self) -> Self;

    /// The set as a `u64` (bit `row * 8 + column`) where it is one of the 8 x 8 board.
    #[inline(always)]
    fn bits8(self) -> Option<u64> {
        None
    }

    /// The squares of row `row`, bit `c` for column `c`: pattern evaluation reads a board
    /// row by row, whatever the representation.
    fn row_bits(self, row: u8) -> u16;
}

impl SquareSet for u64 {
    type Index = u32;

    const EMPTY: u64 = 0;

    #[inline(always)]
    fn bits8(self) -> Option<u64> {
        Some(self)
    }

    #[inline(always)]
    fn single(index: u32) -> u64 {
        1 << index
    }

    #[inline(always)]
    fn contains(self, index: u32) -> bool {
        self >> index & 1 != 0
    }

    #[inline(always)]
    fn is_empty(self) -> bool {
        self == 0
    }

    #[inline(always)]
    fn len(self) -> u32 {
        self.count_ones()
    }

    #[inline(always)]
    fn first(self) -> Option<u32> {
        (self != 0).then(|| self.trailing_zeros())
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<u32> {
        let index = self.first()?;
        *self &= *self - 1;
        Some(index)
    }

    #[inline(always)]
    fn neighbours(self) -> u64 {
        const NOT_FIRST_COLUMN: u64 = 0xfefe_fefe_fefe_fefe;
        const NOT_LAST_COLUMN: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        let sideways = ((self << 1) & NOT_FIRST_COLUMN) | ((self >> 1) & NOT_LAST_COLUMN);
        let band = self | sideways;
        sideways | band << 8 | band >> 8
    }

    #[inline(always)]
    fn row_bits(self, row: u8) -> u16 {
        u16::from((self >> (u32::from(row) * 8)) as u8)
    }
}

impl SquareSet for Bitboard {
    type Index = Square;

    const EMPTY: Bitboard = Bitboard::EMPTY;

    #[inline]
    fn single(square: Square) -> Bitboard {
        Bitboard::from_square(square)
    }

    #[inline]
    fn contains(self, square: Square) -> bool {
        Bitboard::contains(self, square)
    }

    #[inline]
    fn is_empty(self) -> bool {
        Bitboard::is_empty(self)
    }

    #[inline]
    fn len(self) -> u32 {
        self.count()
    }

    #[inline]
    fn first(self) -> Option<Square> {
        Bitboard::first(self)
    }

    #[inline]
    fn neighbours(self) -> Bitboard {
        Bitboard::neighbours(self)
    }

    #[inline(always)]
    fn row_bits(self, row: u8) -> u16 {
        Bitboard::row_bits(self, row)
    }
}

/// The squares that matter to evaluation on one board shape.
#[derive(Clone, Copy, Debug)]
pub struct Layout<S> {
    /// The board's shape.
    pub shape: crate::Shape,
    /// Every square of the board.
    pub cells: S,
    /// Squares on the board's border.
    pub edges: S,
    /// The four corners with the squares next to them.
    pub corners: [Corner<S>; 4],
    /// The board cut in four (the middle row and column, on odd sides, go to the top and
    /// left parts): endgames fill these regions more or less apart, and whoever moves last
    /// in a region tends to gain.
    pub quadrants: [S; 4],
}

/// A corner and its neighbours: the diagonal one (the X-square) and the two on the edges
/// (the C-squares). Owning them while the corner is empty tends to give the corner away.
#[derive(Clone, Copy, Debug)]
pub struct Corner<S> {
    /// The corner square.
    pub corner: S,
    /// The square diagonally next to it.
    pub x_square: S,
    /// The two edge squares next to it.
    pub c_squares: S,
}

/// A position seen from the side to move: what perft and search need, and nothing else.
pub trait Node: Copy + fmt::Debug + Send + Sync + 'static {
    /// Sets of squares in this representation.
    type Set: SquareSet;

    /// The rule set the moves follow.
    const VARIANT: Variant;

    /// The legal moves of the side to move.
    fn moves(&self) -> Self::Set;

    /// The discs the side to move turns over by playing `mv` (empty if the move is illegal).
    fn flips(&self, mv: Index<Self>) -> Self::Set;

    /// The squares next to `mv` (in eight directions): a move flips nothing unless one of
    /// them holds an opponent disc, which the solver checks before computing flips.
    #[inline(always)]
    fn around(&self, mv: Index<Self>) -> Self::Set {
        Self::Set::single(mv).neighbours()
    }

    /// How many discs the side to move turns over by playing `mv` when `mv` is the last
    /// empty square (every other square taken): the solver's last ply counts them without
    /// playing the move.
    #[inline(always)]
    fn last_flips(&self, mv: Index<Self>) -> u32 {
        self.flips(mv).len()
    }

    /// The position after the side to move plays `mv`, one of [`moves`](Node::moves).
    #[must_use]
    #[inline(always)]
    fn play(&self, mv: Index<Self>) -> Self {
        self.make(mv, self.flips(mv))
    }

    /// The position after the side to move plays `mv` turning over `flips` (which must be
    /// [`flips`](Node::flips)`(mv)`, non-empty): saves computing them twice.
    #[must_use]
    fn make(&self, mv: Index<Self>, flips: Self::Set) -> Self;

    /// The position with the other side to move and the same discs.
    #[must_use]
    fn pass(&self) -> Self;

    /// Discs of the side to move.
    fn player(&self) -> Self::Set;

    /// Discs of the opponent.
    fn opponent(&self) -> Self::Set;

    /// The board's layout.
    fn layout(&self) -> &'static Layout<Self::Set>;

    /// A 64-bit hash of the discs (side to move first), for transposition tables.
    fn hash(&self) -> u64;

    /// The square `mv` stands for.
    fn square(&self, mv: Index<Self>) -> Square;

    /// The move on `square`, in this representation, if the square is on the board.
    fn index(&self, square: Square) -> Option<Index<Self>>;

    /// Discs of the side to move that can never be flipped again (see [`RuleSet::stable`];
    /// none unless the representation says otherwise): the evaluation counts them and they
    /// bound the final score, which lets the solver cut.
    ///
    /// [`RuleSet::stable`]: crate::RuleSet::stable
    fn stable(&self) -> Self::Set {
        Self::Set::EMPTY
    }

    /// The discs of the side to move and of the opponent as `u64` (bit `row * 8 +
    /// column`) when this is the standard 8 × 8 board under FULL rules: what the learned
    /// evaluation reads. `None` elsewhere.
    #[inline(always)]
    fn bits8(&self) -> Option<(u64, u64)> {
        None
    }

    /// The legal moves as a `u64` where [`Node::bits8`] is `Some` (from this
    /// representation's own move generator).
    #[inline(always)]
    fn moves8(&self) -> Option<u64> {
        None
    }

    /// The empty squares of the board.
    #[inline(always)]
    fn empties(&self) -> Self::Set {
        self.layout().cells & !(self.player() | self.opponent())
    }

    /// For a side to move that has no move: the position after its pass, or `None` when
    /// the opponent has no move either and the game is over.
    #[inline(always)]
    fn after_pass(&self) -> Option<Self> {
        let passed = self.pass();
        (!passed.moves().is_empty()).then_some(passed)
    }

    /// Whether neither side can move.
    #[inline(always)]
    fn is_game_over(&self) -> bool {
        self.moves().is_empty() && self.after_pass().is_none()
    }

    /// The side to move's [`final_score`] if the game ended here, in discs.
    #[inline(always)]
    fn final_score(&self, rule: WinRule) -> i32 {
        final_score(
            rule,
            self.player().len(),
            self.opponent().len(),
            self.empties().len(),
        )
    }
}

/// The side to move's final score from disc counts and empties left, in discs: under
/// [`WinRule::MostDiscs`] the empty squares go to the winner (the usual Othello scoring, as
/// in the FFO suite); under [`WinRule::FewestDiscs`] it is the opponent's discs minus ours,
/// so positive still means winning. Every evaluation estimates this.
#[inline]
pub fn final_score(rule: WinRule, player: u32, opponent: u32, empties: u32) -> i32 {
    let (p, o, e) = (player as i32, opponent as i32, empties as i32);
    match rule {
        WinRule::MostDiscs => match p.cmp(&o) {
            std::cmp::Ordering::Greater => p - o + e,
            std::cmp::Ordering::Less => p - o - e,
            std::cmp::Ordering::Equal => 0,
        },
        WinRule::FewestDiscs => o - p,
    }
}

/// One square (a move) of node type `N`.
pub(crate) type Index<N> = <<N as Node>::Set as SquareSet>::Index;

/// Splitmix64: the generator behind the hash tables (a constant function, so the tables are
/// built at compile time).
const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

/// Zobrist keys for tabulation hashing: `ZOBRIST[i][b]` is the key of byte value `b` at byte
/// position `i` of the position's disc sets (side to move first). XOR-ing one key per byte is
/// Zobrist hashing with bytes as the pieces: as strong, and far fewer lookups than one per
/// disc.
pub(crate) static ZOBRIST: [[u64; 256]; 64] = {
    let mut table = [[0u64; 256]; 64];
    let mut state = 0x0123_4567_89ab_cdef;
    let mut position = 0;
    while position < 64 {
        let mut value = 0;
        while value < 256 {
            let (next, key) = splitmix(state);
            state = next;
            table[position][value] = key;
            value += 1;
        }
        position += 1;
    }
    table
};

/// The tabulation hash of a sequence of 64-bit words (at most eight).
#[inline(always)]
pub(crate) fn hash_words(words: &[u64]) -> u64 {
    let mut hash = 0;
    for (w, &word) in words.iter().enumerate() {
        for (b, byte) in word.to_le_bytes().into_iter().enumerate() {
            hash ^= ZOBRIST[w * 8 + b][usize::from(byte)];
        }
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        Bitboard, Board, Color, Full, Shape,
        engine::{GridNode, Node8},
    };

    /// The 8 × 8 part of a grid set, as a `u64`.
    fn to_u64(set: Bitboard) -> u64 {
        set.iter()
            .filter(|&s| Shape::STANDARD.contains(s))
            .fold(0, |bits, s| {
                bits | 1u64 << (u32::from(s.row()) * 8 + u32::from(s.column()))
            })
    }

    #[test]
    fn both_representations_agree_on_8x8() {
        let board = Board::standard(Shape::STANDARD);
        let fast = Node8::from_board(&board, Color::Black);
        let grid = GridNode::<Full>::from_board(&board, Color::Black);
        let (a, b) = (fast.layout(), grid.layout());
        assert_eq!(a.cells, to_u64(b.cells));
        assert_eq!(a.edges, to_u64(b.edges));
        for (x, y) in a.quadrants.iter().zip(&b.quadrants) {
            assert_eq!(*x, to_u64(*y));
        }
        for (x, y) in a.corners.iter().zip(&b.corners) {
            assert_eq!(x.corner, to_u64(y.corner));
            assert_eq!(x.x_square, to_u64(y.x_square));
            assert_eq!(x.c_squares, to_u64(y.c_squares));
        }
        assert_eq!(b.edges.count(), 28);
        let mut bits = 0x8100_2400_0018_0081u64;
        let set: Bitboard = std::iter::from_fn(|| bits.pop())
            .map(|i| fast.square(i))
            .collect();
        assert_eq!(
            SquareSet::neighbours(0x8100_2400_0018_0081u64),
            to_u64(set.neighbours())
        );
        for square in Shape::STANDARD.squares() {
            assert_eq!(fast.square(fast.index(square).unwrap()), square);
        }
        assert_ne!(fast.hash(), fast.pass().hash());
    }

    #[test]
    fn layouts_of_small_and_odd_boards() {
        let board = Board::standard(Shape::new(4, 5).unwrap());
        let node = GridNode::<Full>::from_board(&board, Color::Black);
        let layout = node.layout();
        assert_eq!(layout.cells.count(), 20);
        assert_eq!(layout.edges.count(), 14);
        let top_right = layout.corners[1];
        assert_eq!(top_right.corner.first(), Some(crate::Square::new(0, 4)));
        assert_eq!(top_right.x_square.first(), Some(crate::Square::new(1, 3)));
        assert_eq!(top_right.c_squares.count(), 2);
    }
}
