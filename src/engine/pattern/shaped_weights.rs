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
#[derive(Clone, PartialEq, Eq)]
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
    /// Every phase's weights, folded layout.
    weights: Box<[i16]>,
}

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
        let (mut reading, mut cells) = (Vec::new(), Vec::new());
        for instance in set.instances() {
            reading.push((instance.family, cells.len(), instance.cells.len()));
            cells.extend(instance.cells.iter().map(|square| square.index() as u8));
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
            weights: vec![0; phases * (next + GLOBALS)].into_boxed_slice(),
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
    pub fn evaluate_knowing<N: Node>(&self, node: &N, moves: N::Set) -> i32 {
        let weights = self.phase_weights(self.phase(node.empties().len()));
        let mut sum = 0;
        self.each_active(node, moves, |k| sum += i32::from(weights[k as usize]));
        let cells = node.layout().cells.len() as i32;
        sum.clamp(-(cells - 1) * DISC, (cells - 1) * DISC)
    }

    /// Calls `each` with the index of each active weight of `node` (whose side to move has
    /// `moves`) within its phase: one per pattern instance, then the global features.
    #[inline]
    fn each_active<N: Node>(&self, node: &N, moves: N::Set, mut each: impl FnMut(u32)) {
        // Each square's digit as the side to move reads it: 0 empty, 1 its own, 2 the
        // opponent's.
        let mut digits = [0u8; 256];
        for (mut set, digit) in [(node.player(), 1), (node.opponent(), 2)] {
            while let Some(index) = set.pop() {
                digits[node.square(index).index()] = digit;
            }
        }
        for &(family, start, len) in &self.reading {
            let index = self.cells[start..start + len]
                .iter()
                .rev()
                .fold(0, |index, &cell| {
                    index * 3 + usize::from(digits[usize::from(cell)])
                });
            each((self.starts[family] + self.fold[family][index] as usize) as u32);
        }
        let empty = node.empties();
        let mobility = |moves: N::Set| moves.len().min(MOBILITY_CAP);
        let potential = |discs: N::Set| (discs.neighbours() & empty).len().min(POTENTIAL_CAP);
        let (m, q) = (MOBILITY_CAP + 1, POTENTIAL_CAP + 1);
        let globals = self.globals as u32;
        each(globals + mobility(moves));
        each(globals + m + mobility(node.pass().moves()));
        each(globals + 2 * m + potential(node.opponent()));
        each(globals + 2 * m + q + potential(node.player()));
        each(globals + 2 * m + 2 * q + u32::from(empty.len().is_multiple_of(2)));
    }

    /// Phase `phase`'s weights (folded layout).
    pub fn phase_weights(&self, phase: usize) -> &[i16] {
        let per_phase = self.per_phase();
        &self.weights[phase * per_phase..][..per_phase]
    }

    /// Phase `phase`'s weights, to fit them.
    pub fn phase_weights_mut(&mut self, phase: usize) -> &mut [i16] {
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
