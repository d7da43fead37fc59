//! The standard 8 × 8 board under FULL rules as two `u64`: bit `row * 8 + column`.

use std::fmt;

#[cfg(test)]
use super::node::SquareSet;
use super::node::{Corner, Layout, Node, hash_words};
use crate::{Board, Color, Shape, Square, Variant};

/// Columns 1 to 6: a run flanked within one row never includes the edge columns.
const INNER_COLUMNS: u64 = 0x7e7e_7e7e_7e7e_7e7e;

/// An 8 × 8 FULL position: the discs of the side to move (`player`) and of its opponent.
///
/// Move generation shifts whole bit sets (all runs in a direction at once); the discs a move
/// flips come from precomputed rays, one bit operation chain per direction. Both are checked
/// against the general [`GridNode`](super::GridNode) in the tests.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Node8 {
    player: u64,
    opponent: u64,
}

impl Node8 {
    /// A position from the discs of the side to move and of its opponent (disjoint sets).
    pub const fn new(player: u64, opponent: u64) -> Node8 {
        Node8 { player, opponent }
    }

    /// `board` (which must be 8 × 8) with `side` to move.
    ///
    /// # Panics
    /// If the board is not 8 × 8.
    pub fn from_board(board: &Board, side: Color) -> Node8 {
        assert_eq!(board.shape(), Shape::STANDARD, "Node8 needs an 8x8 board");
        Node8::new(grid_bits(board, side), grid_bits(board, side.opponent()))
    }

    /// The board, with the side to move given as `side`.
    #[cfg(test)]
    pub(crate) fn to_board(self, side: Color) -> Board {
        let mut board = Board::empty(Shape::STANDARD);
        for (bits, color) in [(self.player, side), (self.opponent, side.opponent())] {
            let mut bits = bits;
            while let Some(index) = bits.pop() {
                board.set(square_of(index), Some(color));
            }
        }
        board
    }

    /// Discs of the side to move.
    #[cfg(test)]
    pub(crate) const fn player(self) -> u64 {
        self.player
    }

    /// Discs of the opponent.
    #[cfg(test)]
    pub(crate) const fn opponent(self) -> u64 {
        self.opponent
    }

    /// Discs of the side to move that can never be flipped (see [`stable`]).
    #[inline]
    pub(crate) fn stable(self) -> u64 {
        stable(self.player, self.opponent, 0)
    }

    /// The discs that turn over when the side to move plays `index` (an empty square; the
    /// result is empty if the move is illegal).
    #[inline(always)]
    pub(crate) fn flips(self, index: u32) -> u64 {
        let (p, o) = (self.player, self.opponent);
        let rays = &RAYS[index as usize];
        let mut flips = 0;
        // Rays towards higher bits: the run ends at the lowest non-opponent square.
        for &ray in &rays[..4] {
            let beyond = ray & !o;
            let end = beyond & beyond.wrapping_neg();
            let run = ray & end.wrapping_sub(1);
            flips |= if end & p != 0 { run } else { 0 };
        }
        // Rays towards lower bits: the run ends at the highest non-opponent square.
        for &ray in &rays[4..] {
            let beyond = ray & !o;
            let end = (1u64 << 63)
                .checked_shr(beyond.leading_zeros())
                .unwrap_or(0);
            let run = ray & !(end.wrapping_shl(1).wrapping_sub(1));
            flips |= if end & p != 0 { run } else { 0 };
        }
        flips
    }
}

/// How many discs `player` turns over at `index`, the last empty square (so every square
/// not `player`'s is the opponent's). Along each of the four lines through the square the
/// count depends only on where the player's discs are on that line: `pext` gathers them
/// and a table gives the count (where `pext` runs in hardware; else the flips are made).
#[inline(always)]
pub(super) fn last_flips(player: u64, index: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if super::fast_pext() {
        let lines = &LAST_LINES[index as usize];
        let mut count = 0;
        for &(mask, position) in lines {
            // SAFETY: `fast_pext` checked that the processor has BMI2.
            let bits = unsafe { std::arch::x86_64::_pext_u64(player, mask) };
            count += u32::from(LAST_FLIPS[position as usize][bits as usize]);
        }
        return count;
    }
    let opponent = !player & !(1u64 << index);
    Node8::new(player, opponent).flips(index).count_ones()
}

/// `AROUND[square]`: the squares next to it.
pub(super) static AROUND: [u64; 64] = {
    let mut around = [0u64; 64];
    let mut square = 0;
    while square < 64 {
        let (row, column) = ((square / 8) as i32, (square % 8) as i32);
        let mut dr = -1;
        while dr <= 1 {
            let mut dc = -1;
            while dc <= 1 {
                let (r, c) = (row + dr, column + dc);
                if (dr != 0 || dc != 0) && r >= 0 && r < 8 && c >= 0 && c < 8 {
                    around[square] |= 1 << (r * 8 + c);
                }
                dc += 1;
            }
            dr += 1;
        }
        square += 1;
    }
    around
};

/// `LAST_FLIPS[position][line]`: the discs turned over by a disc placed at `position` on a
/// line of eight where the player's discs are the bits of `line` and every other square is
/// the opponent's. Shorter lines fit too: the squares past their end hold no player disc,
/// so no run ends there.
static LAST_FLIPS: [[u8; 256]; 8] = {
    let mut table = [[0u8; 256]; 8];
    let mut position = 0;
    while position < 8 {
        let mut line = 0;
        while line < 256 {
            let mut count = 0;
            // Towards the higher end, then the lower: a run of the opponent's discs ended
            // by one of the player's.
            let mut run = 0;
            let mut at = position + 1;
            while at < 8 && line >> at & 1 == 0 {
                run += 1;
                at += 1;
            }
            if at < 8 {
                count += run;
            }
            run = 0;
            let mut at = position as i32 - 1;
            while at >= 0 && line >> at & 1 == 0 {
                run += 1;
                at -= 1;
            }
            if at >= 0 {
                count += run;
            }
            table[position][line] = count;
            line += 1;
        }
        position += 1;
    }
    table
};

/// `LAST_LINES[square]`: the four lines through the square (row, column, diagonal,
/// anti-diagonal) as bit masks, each with the square's position along it (counted from its
/// lowest bit).
static LAST_LINES: [[(u64, u8); 4]; 64] = {
    let mut lines = [[(0u64, 0u8); 4]; 64];
    let mut square = 0;
    while square < 64 {
        let (row, column) = (square / 8, square % 8);
        let mut masks = [0u64; 4];
        let mut positions = [0u8; 4];
        let mut other = 0;
        while other < 64 {
            let (r, c) = (other / 8, other % 8);
            let axes = [
                r == row,
                c == column,
                r + column == c + row,
                r + c == row + column,
            ];
            let mut axis = 0;
            while axis < 4 {
                if axes[axis] {
                    if other < square {
                        positions[axis] += 1;
                    }
                    masks[axis] |= 1 << other;
                }
                axis += 1;
            }
            other += 1;
        }
        let mut axis = 0;
        while axis < 4 {
            lines[square][axis] = (masks[axis], positions[axis]);
            axis += 1;
        }
        square += 1;
    }
    lines
};

/// Discs of `player` that can never be flipped under FULL rules: those that, along each of
/// the four axes, sit on a full line, at the board's edge, or next to another such disc.
/// Found by growing the set from nothing until it stops changing (corners first).
///
/// `outside` holds the squares of the 8 × 8 grid that are not on the board (a smaller board
/// sits in its top left corner): they count as occupied, so a line is full when its squares
/// on the board are, and as stable, so a square next to them is at the board's edge.
#[inline]
pub(super) fn stable(player: u64, opponent: u64, outside: u64) -> u64 {
    let occupied = player | opponent | outside;
    let (rows, columns, diagonals, anti_diagonals) = full_lines(occupied);
    // Squares protected along an axis by the edge or a full line.
    let horizontal = rows | 0x8181_8181_8181_8181;
    let vertical = columns | 0xff00_0000_0000_00ff;
    let diagonal = diagonals | 0xff81_8181_8181_81ff;
    let anti_diagonal = anti_diagonals | 0xff81_8181_8181_81ff;
    let mut stable = outside;
    loop {
        let along_row = horizontal
            | (stable << 1 & !0x0101_0101_0101_0101)
            | (stable >> 1 & 0x7f7f_7f7f_7f7f_7f7f);
        let along_column = vertical | stable << 8 | stable >> 8;
        let along_diagonal = diagonal
            | (stable << 9 & !0x0101_0101_0101_0101)
            | (stable >> 9 & 0x7f7f_7f7f_7f7f_7f7f);
        let along_anti = anti_diagonal
            | (stable << 7 & 0x7f7f_7f7f_7f7f_7f7f)
            | (stable >> 7 & !0x0101_0101_0101_0101);
        let grown = (player & along_row & along_column & along_diagonal & along_anti) | outside;
        if grown == stable {
            return stable & !outside;
        }
        stable = grown;
    }
}

/// The squares on full rows, full columns, full diagonals and full anti-diagonals.
#[inline]
fn full_lines(occupied: u64) -> (u64, u64, u64, u64) {
    let mut rows = 0;
    for row in 0..8 {
        let line = 0xffu64 << (8 * row);
        if occupied & line == line {
            rows |= line;
        }
    }
    let mut column_bits = occupied;
    for shift in [8, 16, 32] {
        column_bits &= column_bits >> shift;
    }
    let columns = (column_bits & 0xff) * 0x0101_0101_0101_0101;
    let (mut diagonals, mut anti_diagonals) = (0, 0);
    for line in &DIAGONALS {
        if occupied & line[0] == line[0] {
            diagonals |= line[0];
        }
        if occupied & line[1] == line[1] {
            anti_diagonals |= line[1];
        }
    }
    (rows, columns, diagonals, anti_diagonals)
}

/// The 15 diagonals (down-right) and 15 anti-diagonals (down-left) of the board.
static DIAGONALS: [[u64; 2]; 15] = {
    let mut lines = [[0u64; 2]; 15];
    let mut square = 0;
    while square < 64 {
        let (row, column) = (square / 8, square % 8);
        lines[7 + column - row][0] |= 1 << square;
        lines[row + column][1] |= 1 << square;
        square += 1;
    }
    lines
};

/// The discs of `color` in the top left 8 × 8 of `board` as bits `row * 8 + column`: a
/// board up to 8 × 8 whole.
pub(super) fn grid_bits(board: &Board, color: Color) -> u64 {
    let discs = board.discs(color);
    (0..8).fold(0u64, |bits, row| {
        bits | (u64::from(discs.row_bits(row)) & 0xff) << (8 * row)
    })
}

/// The square of bit `index`.
#[inline]
pub(crate) const fn square_of(index: u32) -> Square {
    Square::new((index / 8) as u8, (index % 8) as u8)
}

/// The FULL moves of `player` against `opponent` on the 8 × 8 grid (on a smaller board in
/// its top left corner, squares off the board among them).
#[inline(always)]
pub(super) fn moves(player: u64, opponent: u64) -> u64 {
    let inner = opponent & INNER_COLUMNS;
    let moves = axis_moves(player, inner, 1)
        | axis_moves(player, opponent, 8)
        | axis_moves(player, inner, 7)
        | axis_moves(player, inner, 9);
    moves & !(player | opponent)
}

/// The moves along one axis (`shift` 1, 7, 8 or 9) in both of its directions.
///
/// `mask` holds the opponent discs a run may use (inner columns only when the axis is not
/// vertical). Runs grow by one step, then by two twice, covering the longest possible run of
/// six discs.
#[inline(always)]
fn axis_moves(player: u64, mask: u64, shift: u32) -> u64 {
    let mut up = mask & (player << shift);
    let mut down = mask & (player >> shift);
    up |= mask & (up << shift);
    down |= mask & (down >> shift);
    let pairs_up = mask & (mask << shift);
    let pairs_down = pairs_up >> shift;
    up |= pairs_up & (up << (2 * shift));
    down |= pairs_down & (down >> (2 * shift));
    up |= pairs_up & (up << (2 * shift));
    down |= pairs_down & (down >> (2 * shift));
    (up << shift) | (down >> shift)
}

/// Corners, their X- and C-squares, and edges of the 8 × 8 board.
static LAYOUT: Layout<u64> = Layout {
    shape: crate::Shape::STANDARD,
    cells: !0,
    edges: 0xff00_0000_0000_00ff | 0x8181_8181_8181_8181,
    corners: [
        corner(0, 9, 1, 8),
        corner(7, 14, 6, 15),
        corner(56, 49, 48, 57),
        corner(63, 54, 55, 62),
    ],
    quadrants: [
        0x0000_0000_0f0f_0f0f,
        0x0000_0000_f0f0_f0f0,
        0x0f0f_0f0f_0000_0000,
        0xf0f0_f0f0_0000_0000,
    ],
};

/// A corner with its X-square and C-squares, by bit index.
const fn corner(corner: u32, x_square: u32, c1: u32, c2: u32) -> Corner<u64> {
    Corner {
        corner: 1 << corner,
        x_square: 1 << x_square,
        c_squares: 1 << c1 | 1 << c2,
    }
}

impl Node for Node8 {
    type Set = u64;
    const VARIANT: Variant = Variant::Full;

    #[inline(always)]
    fn moves(&self) -> u64 {
        moves(self.player, self.opponent)
    }

    #[inline(always)]
    fn flips(&self, index: u32) -> u64 {
        Node8::flips(*self, index)
    }

    #[inline(always)]
    fn last_flips(&self, index: u32) -> u32 {
        last_flips(self.player, index)
    }

    #[inline(always)]
    fn around(&self, index: u32) -> u64 {
        AROUND[index as usize]
    }

    #[inline(always)]
    fn make(&self, index: u32, flips: u64) -> Node8 {
        Node8 {
            player: self.opponent ^ flips,
            opponent: self.player | flips | 1 << index,
        }
    }

    #[inline(always)]
    fn pass(&self) -> Node8 {
        Node8 {
            player: self.opponent,
            opponent: self.player,
        }
    }

    #[inline(always)]
    fn player(&self) -> u64 {
        self.player
    }

    #[inline(always)]
    fn opponent(&self) -> u64 {
        self.opponent
    }

    #[inline(always)]
    fn layout(&self) -> &'static Layout<u64> {
        &LAYOUT
    }

    #[inline(always)]
    fn stable(&self) -> u64 {
        Node8::stable(*self)
    }

    #[inline(always)]
    fn bits8(&self) -> Option<(u64, u64)> {
        Some((self.player, self.opponent))
    }

    #[inline(always)]
    fn moves8(&self) -> Option<u64> {
        Some(Node::moves(self))
    }

    #[inline]
    fn hash(&self) -> u64 {
        hash_words(&[self.player, self.opponent])
    }

    #[inline]
    fn square(&self, index: u32) -> Square {
        square_of(index)
    }

    #[inline]
    fn index(&self, square: Square) -> Option<u32> {
        Shape::STANDARD
            .contains(square)
            .then(|| u32::from(square.row()) * 8 + u32::from(square.column()))
    }
}

/// [`Node8`] with move generation in AVX2 registers: the four axes side by side in one
/// 256-bit register (35 % faster perft here than [`Node8`] alone).
///
/// One exists only where the processor has AVX2: [`Avx2Node8::new`] checks.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Avx2Node8(Node8);

#[cfg(target_arch = "x86_64")]
impl Avx2Node8 {
    /// `node`, if this processor has AVX2.
    pub(crate) fn new(node: Node8) -> Option<Avx2Node8> {
        std::arch::is_x86_feature_detected!("avx2").then_some(Avx2Node8(node))
    }
}

#[cfg(target_arch = "x86_64")]
impl Node for Avx2Node8 {
    type Set = u64;
    const VARIANT: Variant = Variant::Full;

    #[inline(always)]
    fn moves(&self) -> u64 {
        // SAFETY: an `Avx2Node8` is only made after AVX2 was detected (`Avx2Node8::new`).
        unsafe { avx2_moves(self.0.player, self.0.opponent) }
    }

    #[inline(always)]
    fn flips(&self, index: u32) -> u64 {
        // SAFETY: an `Avx2Node8` is only made after AVX2 was detected (`Avx2Node8::new`).
        unsafe { avx2_flips(self.0.player, self.0.opponent, index) }
    }

    #[inline(always)]
    fn last_flips(&self, index: u32) -> u32 {
        last_flips(self.0.player, index)
    }

    #[inline(always)]
    fn around(&self, index: u32) -> u64 {
        AROUND[index as usize]
    }

    #[inline(always)]
    fn make(&self, index: u32, flips: u64) -> Avx2Node8 {
        Avx2Node8(self.0.make(index, flips))
    }

    #[inline(always)]
    fn pass(&self) -> Avx2Node8 {
        Avx2Node8(self.0.pass())
    }

    #[inline(always)]
    fn player(&self) -> u64 {
        self.0.player
    }

    #[inline(always)]
    fn opponent(&self) -> u64 {
        self.0.opponent
    }

    #[inline(always)]
    fn layout(&self) -> &'static Layout<u64> {
        &LAYOUT
    }

    #[inline(always)]
    fn stable(&self) -> u64 {
        self.0.stable()
    }

    #[inline(always)]
    fn bits8(&self) -> Option<(u64, u64)> {
        Some((self.0.player, self.0.opponent))
    }

    #[inline(always)]
    fn moves8(&self) -> Option<u64> {
        Some(Node::moves(self))
    }

    #[inline]
    fn hash(&self) -> u64 {
        self.0.hash()
    }

    #[inline]
    fn square(&self, index: u32) -> Square {
        square_of(index)
    }

    #[inline]
    fn index(&self, square: Square) -> Option<u32> {
        self.0.index(square)
    }
}

/// [`Node8::moves`] with the four axes in the four lanes of one register.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn avx2_moves(player: u64, opponent: u64) -> u64 {
    use std::arch::x86_64::{
        _mm_cvtsi128_si64, _mm_extract_epi64, _mm_or_si128, _mm256_add_epi64, _mm256_and_si256,
        _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_or_si256, _mm256_set_epi64x,
        _mm256_set1_epi64x, _mm256_sllv_epi64, _mm256_srlv_epi64,
    };
    let (p, o) = (player as i64, opponent as i64);
    let inner = o & INNER_COLUMNS as i64;
    // Lanes, low to high: shift 1 (rows), 8 (columns), 7 and 9 (diagonals).
    let mask = _mm256_set_epi64x(inner, inner, o, inner);
    let shift = _mm256_set_epi64x(9, 7, 8, 1);
    let shift2 = _mm256_add_epi64(shift, shift);
    let from = _mm256_set1_epi64x(p);
    // As `axis_moves`: runs grow by one step, then by two steps twice.
    let mut up = _mm256_and_si256(mask, _mm256_sllv_epi64(from, shift));
    let mut down = _mm256_and_si256(mask, _mm256_srlv_epi64(from, shift));
    up = _mm256_or_si256(up, _mm256_and_si256(mask, _mm256_sllv_epi64(up, shift)));
    down = _mm256_or_si256(down, _mm256_and_si256(mask, _mm256_srlv_epi64(down, shift)));
    let pairs_up = _mm256_and_si256(mask, _mm256_sllv_epi64(mask, shift));
    let pairs_down = _mm256_srlv_epi64(pairs_up, shift);
    for _ in 0..2 {
        up = _mm256_or_si256(
            up,
            _mm256_and_si256(pairs_up, _mm256_sllv_epi64(up, shift2)),
        );
        down = _mm256_or_si256(
            down,
            _mm256_and_si256(pairs_down, _mm256_srlv_epi64(down, shift2)),
        );
    }
    let moves = _mm256_or_si256(_mm256_sllv_epi64(up, shift), _mm256_srlv_epi64(down, shift));
    let halves = _mm_or_si128(
        _mm256_castsi256_si128(moves),
        _mm256_extracti128_si256::<1>(moves),
    );
    let moves = (_mm_cvtsi128_si64(halves) | _mm_extract_epi64::<1>(halves)) as u64;
    moves & !(player | opponent)
}

/// [`Node8::flips`] with the eight rays from the square in two registers, as the scalar
/// code walks them: towards higher bits a run of opponent discs ends at the ray's lowest
/// non-opponent square (`x & -x`); towards lower bits at its highest, found without a
/// leading-zero count (AVX2 has none) by smearing the non-opponent squares down their rays
/// (steps of 1, 2 and 4 squares cover a ray of 7): the run is what the smear leaves.
/// A run flips where the square that ends it is the player's. Shorter dependency chains
/// than growing the runs step by step as [`avx2_moves`] grows moves: 0.88x the time of
/// `othello perft 12` (docs/benchmarks/history.md, "On a Zen 3: flips along rays").
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn avx2_flips(player: u64, opponent: u64, index: u32) -> u64 {
    use std::arch::x86_64::{
        __m256i, _mm_cvtsi128_si64, _mm_extract_epi64, _mm_or_si128, _mm256_and_si256,
        _mm256_andnot_si256, _mm256_castsi256_si128, _mm256_cmpeq_epi64, _mm256_extracti128_si256,
        _mm256_loadu_si256, _mm256_or_si256, _mm256_set_epi64x, _mm256_set1_epi64x,
        _mm256_setzero_si256, _mm256_srlv_epi64, _mm256_sub_epi64,
    };
    let rays = &RAYS[index as usize];
    // SAFETY: each half of a square's rays is four u64, 32 bytes.
    let (up_rays, down_rays) = unsafe {
        (
            _mm256_loadu_si256(rays[..4].as_ptr().cast::<__m256i>()),
            _mm256_loadu_si256(rays[4..].as_ptr().cast::<__m256i>()),
        )
    };
    let o = _mm256_set1_epi64x(opponent as i64);
    let p = _mm256_set1_epi64x(player as i64);
    let zero = _mm256_setzero_si256();
    let one = _mm256_set1_epi64x(1);
    // Towards higher bits: the run ends at the lowest non-opponent square.
    let beyond = _mm256_andnot_si256(o, up_rays);
    let end = _mm256_and_si256(beyond, _mm256_sub_epi64(zero, beyond));
    let unflanked = _mm256_cmpeq_epi64(_mm256_and_si256(end, p), zero);
    let up = _mm256_andnot_si256(
        unflanked,
        _mm256_and_si256(up_rays, _mm256_sub_epi64(end, one)),
    );
    // Towards lower bits: every ray square at or below the highest non-opponent one is
    // marked by smearing it down the ray; the run is the ray squares left unmarked.
    let step = _mm256_set_epi64x(9, 8, 7, 1);
    let step2 = _mm256_set_epi64x(18, 16, 14, 2);
    let step4 = _mm256_set_epi64x(36, 32, 28, 4);
    let beyond = _mm256_andnot_si256(o, down_rays);
    let mut below = _mm256_or_si256(beyond, _mm256_srlv_epi64(beyond, step));
    below = _mm256_or_si256(below, _mm256_srlv_epi64(below, step2));
    below = _mm256_or_si256(below, _mm256_srlv_epi64(below, step4));
    let end = _mm256_andnot_si256(_mm256_srlv_epi64(below, step), beyond);
    let unflanked = _mm256_cmpeq_epi64(_mm256_and_si256(end, p), zero);
    let down = _mm256_andnot_si256(unflanked, _mm256_andnot_si256(below, down_rays));
    let flips = _mm256_or_si256(up, down);
    let halves = _mm_or_si128(
        _mm256_castsi256_si128(flips),
        _mm256_extracti128_si256::<1>(flips),
    );
    (_mm_cvtsi128_si64(halves) | _mm_extract_epi64::<1>(halves)) as u64
}

/// Steps in bit index, towards higher bits first: east, south-west, south, south-east; then
/// west, north-east, north, north-west.
const STEPS: [(i32, i32); 8] = [
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
    (0, -1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
];

/// `RAYS[square][direction]`: the squares beyond `square` in that direction, to the edge.
static RAYS: [[u64; 8]; 64] = {
    let mut rays = [[0u64; 8]; 64];
    let mut square = 0;
    while square < 64 {
        let mut direction = 0;
        while direction < 8 {
            let (dr, dc) = STEPS[direction];
            let (mut row, mut col) = ((square / 8) as i32 + dr, (square % 8) as i32 + dc);
            while row >= 0 && row < 8 && col >= 0 && col < 8 {
                rays[square][direction] |= 1 << (row * 8 + col);
                row += dr;
                col += dc;
            }
            direction += 1;
        }
        square += 1;
    }
    rays
};

impl fmt::Debug for Node8 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Node8 (X to move) [")?;
        for row in 0..8 {
            let line: String = (0..8)
                .map(|col| {
                    let bit = 1u64 << (row * 8 + col);
                    if self.player & bit != 0 {
                        'X'
                    } else if self.opponent & bit != 0 {
                        'O'
                    } else {
                        '-'
                    }
                })
                .collect();
            write!(f, "\n  {line}")?;
        }
        write!(f, "\n]")
    }
}

/// The general rules agree: used to check this fast path.
#[cfg(test)]
pub(crate) fn check_against_rules(node: Node8) {
    use crate::{Full, RuleSet};

    let board = node.to_board(Color::Black);
    let legal = Full::legal_moves(&board, Color::Black);
    let mut moves = node.moves();
    assert_eq!(SquareSet::len(moves), legal.count(), "{node:?}");
    while let Some(index) = moves.pop() {
        let square = square_of(index);
        assert!(legal.contains(square), "{node:?} {square}");
        let expected = Full::flips(&board, Color::Black, square);
        let mut flips = node.flips(index);
        assert_eq!(SquareSet::len(flips), expected.count(), "{node:?} {square}");
        while let Some(flip) = flips.pop() {
            assert!(expected.contains(square_of(flip)), "{node:?} {square}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position() {
        let node = Node8::from_board(&Board::standard(Shape::STANDARD), Color::Black);
        let moves: Vec<Square> = {
            let mut m = node.moves();
            std::iter::from_fn(|| m.pop().map(square_of)).collect()
        };
        assert_eq!(moves, ["d3", "c4", "f5", "e6"].map(|s| s.parse().unwrap()));
        check_against_rules(node);
    }

    #[test]
    fn last_flips_are_counted_as_the_move_would_turn_them() {
        let mut state = 0x1234_5678_9abc_def1u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let player = next();
            let index = (next() % 64) as u32;
            let player = player & !(1 << index);
            let opponent = !player & !(1u64 << index);
            let expected = Node8::new(player, opponent).flips(index).count_ones();
            assert_eq!(
                last_flips(player, index),
                expected,
                "{player:#x} at {index}"
            );
            assert_eq!(Node8::new(player, opponent).last_flips(index), expected);
            assert_eq!(
                Node8::new(player, opponent).around(index),
                SquareSet::neighbours(1u64 << index)
            );
        }
    }

    #[test]
    fn board_round_trip() {
        let board = Board::standard(Shape::STANDARD);
        assert_eq!(
            Node8::from_board(&board, Color::White).to_board(Color::White),
            board
        );
    }

    #[test]
    fn stable_discs_never_flip() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut found = 0;
        for _ in 0..3000 {
            // Dense random positions, so that some discs are stable.
            let filled = next() | next() | next();
            let player = filled & next();
            let start = Node8::new(player, filled & !player);
            let stable = start.stable();
            assert_eq!(stable & !player, 0);
            found += stable.count_ones();
            for _ in 0..3 {
                // A random continuation to the end; `mine` tracks the original player.
                let (mut node, mut mine) = (start, true);
                loop {
                    let mut moves = node.moves();
                    if moves == 0 {
                        node = node.pass();
                        mine = !mine;
                        if node.moves() == 0 {
                            break;
                        }
                        continue;
                    }
                    let pick = next() as u32 % moves.count_ones();
                    let mv = (0..pick).fold(moves.pop(), |_, _| moves.pop()).unwrap();
                    node = node.play(mv);
                    mine = !mine;
                    let discs = if mine { node.player } else { node.opponent };
                    assert_eq!(stable & !discs, 0, "a stable disc flipped: {start:?}");
                }
            }
        }
        assert!(found > 1000, "the test should see stable discs: {found}");
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn avx2_flips_equal_the_scalar_ones() {
        let mut state = 0x0bad_cafe_dead_beefu64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let Some(_) = Avx2Node8::new(Node8::default()) else {
            return; // no AVX2 here: nothing to compare
        };
        for _ in 0..200_000 {
            let (a, b) = (next(), next());
            let player = a & !b & next();
            let opponent = b & !player;
            let node = Node8::new(player, opponent);
            let fast = Avx2Node8::new(node).expect("AVX2");
            for index in 0..64 {
                if (player | opponent) >> index & 1 == 0 {
                    assert_eq!(
                        Node::flips(&fast, index),
                        node.flips(index),
                        "{node:?} {index}"
                    );
                }
            }
        }
    }

    #[test]
    fn agrees_with_the_general_rules_on_pseudo_random_positions() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..5000 {
            let (a, b) = (next(), next());
            let player = a & !b & next();
            let opponent = b & !player;
            check_against_rules(Node8::new(player, opponent));
        }
    }
}
