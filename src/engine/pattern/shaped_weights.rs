//! [`ShapedWeights`]: learned weights for one board shape, rule set and win rule, over the
//! families of a [`PatternSet`]; how a position is scored with them; the file they are kept
//! in.
//!
//! # The file
//!
//! Little-endian throughout:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | `OTHSHAP` and a zero byte |
//! | 2 | format version: 2 |
//! | 1, 1 | rows, columns |
//! | 1 | rule set: 0 FULL, 1 SIMPLE |
//! | 1 | win rule: 0 most discs, 1 fewest discs |
//! | 2 | phases |
//! | 4 | weights per phase (folded layout, [`ShapedWeights::per_phase`]) |
//! | 4 | length of the compressed weights |
//! | n | the weights, phase after phase, as `i16` in evaluation units, DEFLATE-compressed |
//! | 32 | SHA-256 of the header's fields from the version to the weights per phase (12 bytes), then of the uncompressed weights: a damaged header cannot pass the file off as another kind of game's |
//!
//! Reading checks every field, so a truncated, corrupted or mismatched file is refused with
//! a [`WeightsError`].

use std::sync::OnceLock;

use miniz_oxide::{deflate::compress_to_vec, inflate::decompress_to_vec_with_limit};
use sha2::{Digest, Sha256};

use super::{MOBILITY_CAP, POTENTIAL_CAP, PatternSet, WeightsError, fold_map};
use crate::engine::{Node, SquareSet, eval::DISC};
use crate::{Shape, Variant, WinRule};

/// The file's first bytes.
const MAGIC: &[u8; 8] = b"OTHSHAP\0";

/// The format this code reads and writes.
const VERSION: u16 = 2;

/// Global features after the patterns: the side to move's mobility, its opponent's, their
/// potential mobilities, then odd and even empties.
const GLOBALS: usize = 2 * (MOBILITY_CAP as usize + 1) + 2 * (POTENTIAL_CAP as usize + 1) + 2;

/// Learned weights for positions of one shape, rule set and win rule.
#[derive(Clone)]
pub struct ShapedWeights {
    variant: Variant,
    rule: WinRule,
    set: PatternSet,
    phases: usize,
    /// For each family: a configuration's folded index within the family.
    fold: Vec<Vec<u32>>,
    /// Where each family starts among a phase's weights.
    starts: Vec<usize>,
    /// Where the global features start.
    globals: usize,
    /// Each instance's family and where its cells start in `cells`.
    reading: Vec<(usize, usize, usize)>,
    /// Every instance's cells in reading order, by [`crate::Square::index`].
    cells: Vec<u8>,
    /// Where each instance's family starts in a phase of [`ShapedWeights::unfolded`].
    unfolded_starts: Vec<usize>,
    /// Weights a phase in [`ShapedWeights::unfolded`].
    unfolded_per_phase: usize,
    /// Every phase's weights, folded layout.
    weights: Box<[i16]>,
    /// The same weights unfolded (see [`ShapedWeights::unfolded`]), made at the first
    /// evaluation and dropped when the weights change.
    unfolded: OnceLock<Box<[i16]>>,
}

impl PartialEq for ShapedWeights {
    fn eq(&self, other: &ShapedWeights) -> bool {
        // Everything else follows from these; the unfolded copy is a cache.
        (
            self.variant,
            self.rule,
            &self.set,
            self.phases,
            &self.weights,
        ) == (
            other.variant,
            other.rule,
            &other.set,
            other.phases,
            &other.weights,
        )
    }
}

impl Eq for ShapedWeights {}

impl std::fmt::Debug for ShapedWeights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ShapedWeights({} {} {}, {} phases of {})",
            self.set.shape(),
            self.variant.name(),
            self.rule.name(),
            self.phases,
            self.per_phase()
        )
    }
}

/// The file's checksum: of the header's fields that say what the weights are for, then of
/// the weights.
fn checksum(fields: &[u8], raw: &[u8]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(fields);
    hasher.update(raw);
    hasher.finalize().into()
}

/// The phase of a position with `empties` empty squares in a game of `plies` cut in `phases`
/// equal parts.
pub fn phase_of(plies: u32, phases: usize, empties: u32) -> usize {
    let plies = plies.max(1);
    let played = plies.saturating_sub(empties);
    ((played as usize * phases) / plies as usize).min(phases.max(1) - 1)
}

impl ShapedWeights {
    /// Every weight zero: the layout for `shape`, `variant` and `rule`, with `phases` game
    /// phases (at least one), ready to be fitted.
    pub fn zero(variant: Variant, shape: Shape, rule: WinRule, phases: usize) -> ShapedWeights {
        let set = PatternSet::new(shape);
        let (mut fold, mut starts, mut next) = (Vec::new(), Vec::new(), 0);
        for family in set.families() {
            starts.push(next);
            let (map, count) = fold_map(family.size(), family.mirror.as_deref());
            fold.push(map);
            next += count;
        }
        let phases = phases.max(1);
        let mut family_unfolded = Vec::new();
        let mut unfolded_per_phase = 0;
        for family in set.families() {
            family_unfolded.push(unfolded_per_phase);
            unfolded_per_phase += family.size();
        }
        let (mut reading, mut cells, mut unfolded_starts) = (Vec::new(), Vec::new(), Vec::new());
        for instance in set.instances() {
            reading.push((instance.family, cells.len(), instance.cells.len()));
            cells.extend(instance.cells.iter().map(|square| square.index() as u8));
            unfolded_starts.push(family_unfolded[instance.family]);
        }
        ShapedWeights {
            variant,
            rule,
            set,
            phases,
            fold,
            starts,
            globals: next,
            reading,
            cells,
            unfolded_starts,
            unfolded_per_phase: unfolded_per_phase + GLOBALS,
            weights: vec![0; phases * (next + GLOBALS)].into_boxed_slice(),
            unfolded: OnceLock::new(),
        }
    }

    /// The file's first bytes.
    pub const MAGIC: &'static [u8; 8] = MAGIC;

    /// Weights per phase.
    pub fn per_phase(&self) -> usize {
        self.globals + GLOBALS
    }

    /// Game phases.
    pub fn phases(&self) -> usize {
        self.phases
    }

    /// What positions these weights score.
    pub fn applies_to(&self, variant: Variant, shape: Shape, rule: WinRule) -> bool {
        (self.variant, self.set.shape(), self.rule) == (variant, shape, rule)
    }

    /// The phase of a position with `empties` empty squares: the game's plies cut in
    /// [`ShapedWeights::phases`] equal parts.
    pub fn phase(&self, empties: u32) -> usize {
        let cells = self.set.shape().cells() as u32;
        phase_of(cells.saturating_sub(4), self.phases, empties)
    }

    /// The kind of game these weights score.
    pub fn kind(&self) -> crate::GameKind {
        crate::GameKind::new(self.variant, self.set.shape(), self.rule)
    }

    /// The phase of `node` and the index of each of its active weights within that phase
    /// (folded layout): one per pattern instance, then the global features.
    pub fn features<N: Node>(&self, node: &N) -> (usize, Vec<u32>) {
        let mut active = Vec::with_capacity(self.reading.len() + 5);
        self.each_active(node, node.moves(), |k| active.push(k));
        (self.phase(node.empties().len()), active)
    }

    /// The evaluation of `node` for the side to move, in evaluation units: the estimated
    /// final score, kept within the board.
    pub fn evaluate<N: Node>(&self, node: &N) -> i32 {
        self.evaluate_knowing(node, node.moves())
    }

    /// [`ShapedWeights::evaluate`] where the side to move's legal `moves` are known (a
    /// search has them).
    ///
    /// It reads the unfolded weights: one load per pattern instance where the folded
    /// layout needs two (the fold map, then the weight), which made the evaluation 40 % of
    /// a 12 × 12 search.
    pub fn evaluate_knowing<N: Node>(&self, node: &N, moves: N::Set) -> i32 {
        let per_phase = self.unfolded_per_phase;
        let phase = self.phase(node.empties().len());
        let weights = &self.unfolded()[phase * per_phase..][..per_phase];
        let digits = digits(node, self.set.shape().rows());
        let mut sum = 0;
        for (&(_, start, len), &family) in self.reading.iter().zip(&self.unfolded_starts) {
            sum += i32::from(weights[family + index(&self.cells[start..start + len], &digits)]);
        }
        let globals = per_phase - GLOBALS;
        each_global(node, moves, |k| {
            sum += i32::from(weights[globals + k as usize])
        });
        let cells = node.layout().cells.len() as i32;
        sum.clamp(-(cells - 1) * DISC, (cells - 1) * DISC)
    }

    /// Calls `each` with the index of each active weight of `node` (whose side to move has
    /// `moves`) within its phase (folded layout): one per pattern instance, then the global
    /// features.
    fn each_active<N: Node>(&self, node: &N, moves: N::Set, mut each: impl FnMut(u32)) {
        let digits = digits(node, self.set.shape().rows());
        for &(family, start, len) in &self.reading {
            let index = index(&self.cells[start..start + len], &digits);
            each((self.starts[family] + self.fold[family][index] as usize) as u32);
        }
        let globals = self.globals as u32;
        each_global(node, moves, |k| each(globals + k));
    }

    /// Every phase's weights with each family's configurations in full, as the folded
    /// layout's fold map reads them, each phase followed by its global features.
    fn unfolded(&self) -> &[i16] {
        self.unfolded.get_or_init(|| {
            let mut unfolded = Vec::with_capacity(self.phases * self.unfolded_per_phase);
            for phase in 0..self.phases {
                let folded = self.phase_weights(phase);
                for (family, map) in self.fold.iter().enumerate() {
                    let start = self.starts[family];
                    unfolded.extend(map.iter().map(|&k| folded[start + k as usize]));
                }
                unfolded.extend_from_slice(&folded[self.globals..]);
            }
            unfolded.into_boxed_slice()
        })
    }

    /// Phase `phase`'s weights (folded layout).
    pub fn phase_weights(&self, phase: usize) -> &[i16] {
        let per_phase = self.per_phase();
        &self.weights[phase * per_phase..][..per_phase]
    }

    /// Phase `phase`'s weights, to fit them.
    pub fn phase_weights_mut(&mut self, phase: usize) -> &mut [i16] {
        self.unfolded.take();
        let per_phase = self.per_phase();
        &mut self.weights[phase * per_phase..][..per_phase]
    }

    /// The weights as a file (see the module's documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        let raw: Vec<u8> = self.weights.iter().flat_map(|w| w.to_le_bytes()).collect();
        let compressed = compress_to_vec(&raw, 9);
        let shape = self.set.shape();
        let mut bytes = Vec::with_capacity(compressed.len() + 60);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&[
            shape.rows(),
            shape.columns(),
            u8::from(self.variant == Variant::Simple),
            u8::from(self.rule == WinRule::FewestDiscs),
        ]);
        bytes.extend_from_slice(&(self.phases as u16).to_le_bytes());
        bytes.extend_from_slice(&(self.per_phase() as u32).to_le_bytes());
        bytes.extend_from_slice(&(compressed.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&compressed);
        let checksum = checksum(&bytes[8..20], &raw);
        bytes.extend_from_slice(&checksum);
        bytes
    }

    /// Weights from a file's bytes (see the module's documentation).
    ///
    /// # Errors
    /// A [`WeightsError`] naming what is wrong with the file.
    pub fn from_bytes(bytes: &[u8]) -> Result<ShapedWeights, WeightsError> {
        if bytes.len() < 8 || &bytes[..8] != MAGIC {
            return Err(WeightsError::Magic);
        }
        let header = bytes.get(..24).ok_or(WeightsError::Length)?;
        let version = u16::from_le_bytes([header[8], header[9]]);
        if version != VERSION {
            return Err(WeightsError::Version(version));
        }
        let (rows, columns, simple, fewest) = (header[10], header[11], header[12], header[13]);
        let shape = Shape::new(rows, columns).map_err(|_| WeightsError::Length)?;
        let variant = if simple == 1 {
            Variant::Simple
        } else {
            Variant::Full
        };
        let rule = if fewest == 1 {
            WinRule::FewestDiscs
        } else {
            WinRule::MostDiscs
        };
        let phases = u16::from_le_bytes([header[14], header[15]]);
        let per_phase = u32::from_le_bytes(header[16..20].try_into().expect("4 bytes"));
        let length = u32::from_le_bytes(header[20..24].try_into().expect("4 bytes")) as usize;
        let mut weights = ShapedWeights::zero(variant, shape, rule, usize::from(phases));
        if phases == 0 || simple > 1 || fewest > 1 || per_phase as usize != weights.per_phase() {
            return Err(WeightsError::Layout {
                phases,
                per_phase,
                expected: weights.per_phase(),
            });
        }
        if bytes.len() != 24 + length + 32 {
            return Err(WeightsError::Length);
        }
        let expected = weights.weights.len() * 2;
        let raw = decompress_to_vec_with_limit(&bytes[24..24 + length], expected)
            .map_err(|_| WeightsError::Compression)?;
        if raw.len() != expected {
            return Err(WeightsError::Compression);
        }
        if checksum(&bytes[8..20], &raw)[..] != bytes[24 + length..] {
            return Err(WeightsError::Checksum);
        }
        for (weight, pair) in weights.weights.iter_mut().zip(raw.chunks_exact(2)) {
            *weight = i16::from_le_bytes([pair[0], pair[1]]);
        }
        Ok(weights)
    }
}

/// Each square's digit as the side to move of `node` reads it, by
/// [`crate::Square::index`] (row × 16 + column), for the first `rows` rows: 0 empty, 1 its
/// own, 2 the opponent's. Built eight squares at a time from each row's bits.
#[inline]
fn digits<N: Node>(node: &N, rows: u8) -> [u8; 256] {
    /// Byte `k` of `SPREAD[bits]` is bit `k` of `bits`.
    static SPREAD: [u64; 256] = {
        let mut table = [0u64; 256];
        let mut bits = 0;
        while bits < 256 {
            let mut k = 0;
            while k < 8 {
                table[bits] |= ((bits as u64 >> k) & 1) << (8 * k);
                k += 1;
            }
            bits += 1;
        }
        table
    };
    let (player, opponent) = (node.player(), node.opponent());
    let mut digits = [0u8; 256];
    for row in 0..rows {
        let (mine, theirs) = (player.row_bits(row), opponent.row_bits(row));
        for half in 0..2u8 {
            let byte = |bits: u16| usize::from((bits >> (8 * half)) as u8);
            let eight = SPREAD[byte(mine)] + 2 * SPREAD[byte(theirs)];
            let at = usize::from(row) * 16 + 8 * usize::from(half);
            digits[at..at + 8].copy_from_slice(&eight.to_le_bytes());
        }
    }
    digits
}

/// The base-3 index of the configuration on `cells` (the first cell the lowest digit).
#[inline(always)]
fn index(cells: &[u8], digits: &[u8; 256]) -> usize {
    cells.iter().rev().fold(0, |index, &cell| {
        index * 3 + usize::from(digits[usize::from(cell)])
    })
}

/// Calls `each` with the index of each active global feature of `node` (whose side to move
/// has `moves`) among the global features.
#[inline(always)]
fn each_global<N: Node>(node: &N, moves: N::Set, mut each: impl FnMut(u32)) {
    let empty = node.empties();
    let mobility = |moves: N::Set| moves.len().min(MOBILITY_CAP);
    let potential = |discs: N::Set| (discs.neighbours() & empty).len().min(POTENTIAL_CAP);
    let (m, q) = (MOBILITY_CAP + 1, POTENTIAL_CAP + 1);
    each(mobility(moves));
    each(m + mobility(node.pass().moves()));
    each(2 * m + potential(node.opponent()));
    each(2 * m + q + potential(node.player()));
    each(2 * m + 2 * q + u32::from(empty.len().is_multiple_of(2)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Board, Color, Full, Simple, Square, engine::GridNode, engine::SmallNode};

    #[test]
    fn the_file_reads_back_and_damage_is_refused() {
        let mut weights = ShapedWeights::zero(
            Variant::Simple,
            Shape::new(6, 10).unwrap(),
            WinRule::FewestDiscs,
            6,
        );
        for (k, w) in weights.phase_weights_mut(3).iter_mut().enumerate() {
            *w = (k % 200) as i16 - 100;
        }
        let bytes = weights.to_bytes();
        assert_eq!(ShapedWeights::from_bytes(&bytes).unwrap(), weights);
        let mut damaged = bytes.clone();
        let middle = damaged.len() / 2;
        damaged[middle] ^= 0x40;
        assert!(ShapedWeights::from_bytes(&damaged).is_err());
        assert_eq!(
            ShapedWeights::from_bytes(&bytes[..bytes.len() - 1]),
            Err(WeightsError::Length)
        );
        assert_eq!(
            ShapedWeights::from_bytes(b"OTHEVAL\0rest"),
            Err(WeightsError::Magic)
        );
        // A header changed to say another kind of game (the rule set, the win rule, rows
        // and columns swapped) is refused: the checksum covers it.
        for (at, change) in [(12, 1), (13, 1)] {
            let mut other = bytes.clone();
            other[at] ^= change;
            assert_eq!(
                ShapedWeights::from_bytes(&other),
                Err(WeightsError::Checksum),
                "byte {at}"
            );
        }
        let mut swapped = bytes.clone();
        swapped.swap(10, 11);
        assert_eq!(
            ShapedWeights::from_bytes(&swapped),
            Err(WeightsError::Checksum)
        );
    }

    #[test]
    fn symmetric_positions_evaluate_the_same_on_every_representation() {
        // Weights that differ everywhere: a position and its mirror image still agree, as
        // their instances read the same configurations (or mirror ones, which share).
        for (rows, columns, variant) in [
            (6, 6, Variant::Full),
            (6, 10, Variant::Simple),
            (8, 8, Variant::Simple),
        ] {
            let shape = Shape::new(rows, columns).unwrap();
            let mut weights = ShapedWeights::zero(variant, shape, WinRule::MostDiscs, 4);
            for phase in 0..4 {
                for (k, w) in weights.phase_weights_mut(phase).iter_mut().enumerate() {
                    *w = ((k * 7919 + phase * 31) % 61) as i16 - 30;
                }
            }
            let mut board = Board::standard(shape);
            board.set(Square::new(0, 1), Some(Color::Black));
            board.set(Square::new(1, 2), Some(Color::White));
            board.set(Square::new(rows - 1, 2), Some(Color::White));
            let mut flipped = Board::empty(shape);
            for square in shape.squares() {
                let image = Square::new(square.row(), columns - 1 - square.column());
                flipped.set(image, board.at(square));
            }
            let evaluate = |board: &Board| match variant {
                Variant::Full => (
                    weights.evaluate(&GridNode::<Full>::from_board(board, Color::Black)),
                    SmallNode::<Full>::from_board(board, Color::Black)
                        .map(|n| weights.evaluate(&n)),
                ),
                Variant::Simple => (
                    weights.evaluate(&GridNode::<Simple>::from_board(board, Color::Black)),
                    SmallNode::<Simple>::from_board(board, Color::Black)
                        .map(|n| weights.evaluate(&n)),
                ),
            };
            let (grid, small) = evaluate(&board);
            assert_eq!(evaluate(&flipped).0, grid, "{shape}");
            if let Some(small) = small {
                assert_eq!(small, grid, "both representations read the same features");
            }
            assert_ne!(grid, 0);
        }
    }

    /// The search's evaluation (unfolded weights, digits read row by row) against the sum
    /// of the folded weights of [`ShapedWeights::features`], which fitting uses, along random
    /// games on boards of many shapes, in both representations where a board has two.
    #[test]
    fn the_unfolded_evaluation_sums_the_fitted_features() {
        use crate::{AnyGame, Setup};
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for (rows, columns) in [
            (4, 4),
            (6, 6),
            (5, 8),
            (8, 8),
            (7, 13),
            (10, 10),
            (12, 12),
            (16, 16),
        ] {
            let shape = Shape::new(rows, columns).unwrap();
            for variant in Variant::ALL {
                let mut weights = ShapedWeights::zero(variant, shape, WinRule::MostDiscs, 5);
                for phase in 0..5 {
                    for w in weights.phase_weights_mut(phase) {
                        *w = (next() % 401) as i16 - 200;
                    }
                }
                let folded =
                    |weights: &ShapedWeights,
                     node: &dyn Fn(&ShapedWeights) -> (usize, Vec<u32>)| {
                        let (phase, active) = node(weights);
                        let sum: i32 = active
                            .iter()
                            .map(|&k| i32::from(weights.phase_weights(phase)[k as usize]))
                            .sum();
                        let cells = shape.cells() as i32;
                        sum.clamp(-(cells - 1) * DISC, (cells - 1) * DISC)
                    };
                let mut game = AnyGame::new(variant, Setup::standard(shape));
                while let Some(side) = game.side_to_move() {
                    let board = *game.board();
                    let (grid, small, expected) = match variant {
                        Variant::Full => {
                            let node = GridNode::<Full>::from_board(&board, side);
                            let small = SmallNode::<Full>::from_board(&board, side);
                            (
                                weights.evaluate(&node),
                                small.map(|n| weights.evaluate(&n)),
                                folded(&weights, &|w| w.features(&node)),
                            )
                        }
                        Variant::Simple => {
                            let node = GridNode::<Simple>::from_board(&board, side);
                            let small = SmallNode::<Simple>::from_board(&board, side);
                            (
                                weights.evaluate(&node),
                                small.map(|n| weights.evaluate(&n)),
                                folded(&weights, &|w| w.features(&node)),
                            )
                        }
                    };
                    assert_eq!(grid, expected, "{shape} {variant:?}");
                    assert_eq!(small.unwrap_or(expected), expected, "{shape} {variant:?}");
                    // Both paths read the squares through `digits`: checked square by square.
                    let read = |square: Square| match board.at(square) {
                        None => 0,
                        Some(color) if color == side => 1,
                        Some(_) => 2,
                    };
                    let mut read_by =
                        vec![digits(&GridNode::<Full>::from_board(&board, side), rows)];
                    read_by.extend(
                        SmallNode::<Full>::from_board(&board, side).map(|n| digits(&n, rows)),
                    );
                    for digits in read_by {
                        for square in shape.squares() {
                            assert_eq!(digits[square.index()], read(square), "{shape} {square}");
                        }
                    }
                    let moves: Vec<Square> = game.legal_moves().iter().collect();
                    game.play(moves[(next() % moves.len() as u64) as usize])
                        .unwrap();
                }
                // A weight changed after evaluating is seen by the next evaluation.
                let node = GridNode::<Full>::from_board(&Board::standard(shape), Color::Black);
                let before = weights.evaluate(&node);
                let (phase, active) = weights.features(&node);
                weights.phase_weights_mut(phase)[active[0] as usize] += 10;
                // Instances reading the same configuration share the weight.
                let shared = active.iter().filter(|&&k| k == active[0]).count() as i32;
                assert_eq!(
                    weights.evaluate(&node),
                    before + 10 * shared,
                    "{shape} {variant:?}"
                );
            }
        }
    }

    #[test]
    fn phases_cover_the_game() {
        let weights = ShapedWeights::zero(
            Variant::Full,
            Shape::new(10, 10).unwrap(),
            WinRule::MostDiscs,
            12,
        );
        assert_eq!(weights.phase(96), 0);
        assert_eq!(weights.phase(0), 11);
        assert!((1..96).all(|e| weights.phase(e) >= weights.phase(e + 1)));
    }
}
