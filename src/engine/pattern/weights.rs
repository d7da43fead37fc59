//! [`PatternWeights`]: the weights of every phase, how a position is scored with them, and
//! the file they are kept in.
//!
//! # The weights file
//!
//! Little-endian throughout:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | `OTHEVAL` and a zero byte |
//! | 2 | format version: 2 (1: the first layout, of generations 1 to 5) |
//! | 2 | phases ([`PHASES`]) |
//! | 4 | weights per phase, folded layout ([`folded_len`]) |
//! | 4 | length of the compressed weights |
//! | n | the weights, phase after phase, as `i16` in evaluation units, DEFLATE-compressed |
//! | 32 | SHA-256 of the uncompressed weights |
//!
//! A version 1 file holds the first layout: 15 phases of the first eleven families. It is
//! read into this layout with the new families at zero and each phase copied to the phases
//! it covers, so it evaluates as it always did.
//!
//! Reading checks every field, the length and the checksum, so a truncated, corrupted or
//! mismatched file is refused with a [`WeightsError`] rather than played with.

use std::sync::OnceLock;

use miniz_oxide::{deflate::compress_to_vec, inflate::decompress_to_vec_with_limit};
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::{
    FAMILY_STARTS, FIRST_LAYOUT_FAMILIES, FIRST_LAYOUT_PHASES, FULL_LEN, Features, GLOBALS,
    GLOBALS_FULL, PHASES, PLIES_PER_PHASE, folded_len, layout,
};
use crate::engine::eval::DISC;

/// The file's first bytes.
const MAGIC: &[u8; 8] = b"OTHEVAL\0";

/// The format this code writes; it reads version 1 too.
const VERSION: u16 = 2;

/// The first layout's phases were four plies long: each of today's phases lies in one.
const _: () = assert!(4 % PLIES_PER_PHASE == 0);

/// Why a weights file was refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum WeightsError {
    /// Not a weights file.
    #[error("not a weights file (it starts with neither OTHEVAL nor OTHSHAP)")]
    Magic,
    /// A version this program does not read.
    #[error("weights file version {0}, which this program does not read")]
    Version(u16),
    /// Weights for other features than this program's.
    #[error(
        "the file has {phases} phases of {per_phase} weights; this program's layout has {expected} weights a phase"
    )]
    Layout {
        /// Phases in the file.
        phases: u16,
        /// Weights per phase in the file.
        per_phase: u32,
        /// Weights per phase here.
        expected: usize,
    },
    /// Another number of phases than a file of its version has.
    #[error("the file has {phases} phases; a version {version} file has {expected}")]
    Phases {
        /// The file's format version.
        version: u16,
        /// Phases in the file.
        phases: u16,
        /// Phases of a file of that version.
        expected: usize,
    },
    /// Shorter or longer than its header says.
    #[error("the weights file is truncated or has bytes after its end")]
    Length,
    /// The compressed weights do not decompress to the size announced.
    #[error("the weights do not decompress")]
    Compression,
    /// The weights are not those the checksum was made of.
    #[error("the weights file is corrupted (its checksum does not match)")]
    Checksum,
}

/// Learned weights, every phase, in the full layout (one per configuration: a lookup per
/// feature, no folding at play time).
#[derive(Clone, PartialEq, Eq)]
pub struct PatternWeights {
    weights: Box<[i16]>,
}

impl std::fmt::Debug for PatternWeights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PatternWeights({} weights)", self.weights.len())
    }
}

impl PatternWeights {
    /// The first eight bytes of a weights file.
    pub const MAGIC: &'static [u8; 8] = MAGIC;

    /// Every weight zero: evaluates every position as even.
    #[cfg(test)]
    pub(crate) fn zero() -> PatternWeights {
        PatternWeights {
            weights: vec![0; PHASES * FULL_LEN].into_boxed_slice(),
        }
    }

    /// Weights from the folded layout: `phases[p][k]` is weight `k` of phase `p`, in
    /// evaluation units (rounded, and kept within 16 bits).
    ///
    /// # Panics
    /// Unless there are [`PHASES`] phases of [`folded_len`] weights.
    pub(crate) fn from_folded(phases: &[Vec<i16>]) -> PatternWeights {
        let layout = layout();
        assert_eq!(phases.len(), PHASES, "one set of weights per phase");
        let mut weights = Vec::with_capacity(PHASES * FULL_LEN);
        for folded in phases {
            assert_eq!(folded.len(), layout.folded_len(), "a phase's weights");
            for (family, map) in layout.fold.iter().enumerate() {
                let start = layout.folded_start[family];
                weights.extend(map.iter().map(|&k| folded[start + k as usize]));
            }
            weights.extend_from_slice(&folded[layout.globals_folded..]);
        }
        PatternWeights {
            weights: weights.into_boxed_slice(),
        }
    }

    /// The weights in the folded layout, phase by phase.
    pub(crate) fn to_folded(&self) -> Vec<Vec<i16>> {
        let layout = layout();
        self.weights
            .chunks(FULL_LEN)
            .map(|full| {
                let mut folded = vec![0i16; layout.folded_len()];
                for (family, map) in layout.fold.iter().enumerate() {
                    let (start, from) =
                        (layout.folded_start[family], FAMILY_STARTS[family] as usize);
                    for (configuration, &k) in map.iter().enumerate() {
                        folded[start + k as usize] = full[from + configuration];
                    }
                }
                folded[layout.globals_folded..].copy_from_slice(&full[GLOBALS_FULL as usize..]);
                folded
            })
            .collect()
    }

    /// The evaluation of the position with `player` to move against `opponent`, in
    /// evaluation units: the estimated final disc difference, kept within the board.
    #[cfg(test)]
    #[inline(always)]
    pub(crate) fn evaluate(&self, player: u64, opponent: u64) -> i32 {
        self.score(&Features::of(player, opponent))
    }

    /// [`PatternWeights::evaluate`] with both sides' legal moves given.
    #[inline(always)]
    pub(crate) fn evaluate_with_moves(
        &self,
        player: u64,
        opponent: u64,
        moves: u64,
        replies: u64,
    ) -> i32 {
        self.score(&Features::with_moves(player, opponent, moves, replies))
    }

    #[inline(always)]
    fn score(&self, features: &Features) -> i32 {
        let phase = &self.weights[features.phase * FULL_LEN..][..FULL_LEN];
        let sum: i32 = features
            .indices
            .iter()
            .map(|&index| i32::from(phase[index as usize]))
            .sum();
        sum.clamp(-63 * DISC, 63 * DISC)
    }
}

/// The file of the weights compiled into the program.
pub(super) const BUILTIN_FILE: &[u8] = include_bytes!("../../../data/eval-full-8x8.bin");

/// The weights compiled into the program: `data/eval-full-8x8.bin`, trained by
/// `othello train` (the README says how), loaded at their first use.
pub fn builtin() -> &'static PatternWeights {
    static BUILTIN: OnceLock<PatternWeights> = OnceLock::new();
    BUILTIN.get_or_init(|| {
        PatternWeights::from_bytes(BUILTIN_FILE)
            .expect("the weights shipped with the program are intact (a test reads them)")
    })
}

impl PatternWeights {
    /// The weights as a file (see the module's documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        let raw: Vec<u8> = self
            .to_folded()
            .iter()
            .flatten()
            .flat_map(|weight| weight.to_le_bytes())
            .collect();
        let compressed = compress_to_vec(&raw, 9);
        let mut bytes = Vec::with_capacity(compressed.len() + 52);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&(PHASES as u16).to_le_bytes());
        bytes.extend_from_slice(&(folded_len() as u32).to_le_bytes());
        bytes.extend_from_slice(&(compressed.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&compressed);
        bytes.extend_from_slice(&Sha256::digest(&raw));
        bytes
    }

    /// Weights from a file's bytes (see the module's documentation).
    ///
    /// # Errors
    /// [`WeightsError`] for anything but a whole, intact file of this program's layout.
    pub fn from_bytes(bytes: &[u8]) -> Result<PatternWeights, WeightsError> {
        if bytes.len() < 20 || &bytes[..8] != MAGIC {
            return Err(WeightsError::Magic);
        }
        let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let version = u16_at(8);
        let (expected_phases, expected_len) = match version {
            1 => (FIRST_LAYOUT_PHASES, first_layout_len()),
            VERSION => (PHASES, folded_len()),
            _ => return Err(WeightsError::Version(version)),
        };
        let (phases, per_phase) = (u16_at(10), u32_at(12));
        if usize::from(phases) != expected_phases {
            return Err(WeightsError::Phases {
                version,
                phases,
                expected: expected_phases,
            });
        }
        if per_phase as usize != expected_len {
            return Err(WeightsError::Layout {
                phases,
                per_phase,
                expected: expected_len,
            });
        }
        let compressed = u32_at(16) as usize;
        if bytes.len() != 20 + compressed + 32 {
            return Err(WeightsError::Length);
        }
        let expected = expected_phases * expected_len * 2;
        let raw = decompress_to_vec_with_limit(&bytes[20..20 + compressed], expected)
            .map_err(|_| WeightsError::Compression)?;
        if raw.len() != expected {
            return Err(WeightsError::Compression);
        }
        if Sha256::digest(&raw)[..] != bytes[20 + compressed..] {
            return Err(WeightsError::Checksum);
        }
        let weights: Vec<i16> = raw
            .chunks_exact(2)
            .map(|pair| i16::from_le_bytes([pair[0], pair[1]]))
            .collect();
        let phases: Vec<Vec<i16>> = weights.chunks(expected_len).map(<[i16]>::to_vec).collect();
        Ok(PatternWeights::from_folded(&match version {
            1 => from_first_layout(&phases),
            _ => phases,
        }))
    }
}

/// Weights per phase in the first layout's folded form: its families, then the globals.
fn first_layout_len() -> usize {
    layout().folded_start[FIRST_LAYOUT_FAMILIES] + GLOBALS
}

/// The first layout's phases (folded) in this one's: the same weights for the families both
/// have, zero for the new ones, each old phase for the phases it covers.
fn from_first_layout(old: &[Vec<i16>]) -> Vec<Vec<i16>> {
    let layout = layout();
    let patterns = layout.folded_start[FIRST_LAYOUT_FAMILIES];
    (0..PHASES)
        .map(|phase| {
            let from = &old[(phase * PLIES_PER_PHASE as usize / 4).min(FIRST_LAYOUT_PHASES - 1)];
            let mut folded = vec![0; layout.folded_len()];
            folded[..patterns].copy_from_slice(&from[..patterns]);
            folded[layout.globals_folded..].copy_from_slice(&from[patterns..]);
            folded
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng, rngs::StdRng};

    use super::*;

    fn random_weights(seed: u64) -> PatternWeights {
        let mut rng = StdRng::seed_from_u64(seed);
        let phases: Vec<Vec<i16>> = (0..PHASES)
            .map(|_| {
                (0..folded_len())
                    .map(|_| {
                        if rng.random_bool(0.7) {
                            0
                        } else {
                            rng.random_range(-900..900)
                        }
                    })
                    .collect()
            })
            .collect();
        PatternWeights::from_folded(&phases)
    }

    #[test]
    fn a_saved_and_reloaded_file_is_identical() {
        let weights = random_weights(1);
        let bytes = weights.to_bytes();
        let again = PatternWeights::from_bytes(&bytes).unwrap();
        assert_eq!(again, weights);
        assert_eq!(again.to_bytes(), bytes);
    }

    #[test]
    fn the_shipped_weights_load() {
        let weights = builtin();
        assert_eq!(
            PatternWeights::from_bytes(&weights.to_bytes()).as_ref(),
            Ok(weights)
        );
        assert_ne!(*weights, PatternWeights::zero(), "trained, not empty");
    }

    /// A file of the first layout (`phases` folded), as generations 1 to 5 were written.
    fn first_layout_file(phases: &[Vec<i16>]) -> Vec<u8> {
        let raw: Vec<u8> = phases
            .iter()
            .flatten()
            .flat_map(|weight| weight.to_le_bytes())
            .collect();
        let compressed = compress_to_vec(&raw, 1);
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&1u16.to_le_bytes());
        bytes.extend_from_slice(&(phases.len() as u16).to_le_bytes());
        bytes.extend_from_slice(&(phases[0].len() as u32).to_le_bytes());
        bytes.extend_from_slice(&(compressed.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&compressed);
        bytes.extend_from_slice(&Sha256::digest(&raw));
        bytes
    }

    #[test]
    fn a_first_layout_file_evaluates_as_it_did() {
        let mut rng = StdRng::seed_from_u64(11);
        let old: Vec<Vec<i16>> = (0..FIRST_LAYOUT_PHASES)
            .map(|_| {
                (0..first_layout_len())
                    .map(|_| rng.random_range(-400..400))
                    .collect()
            })
            .collect();
        let weights = PatternWeights::from_bytes(&first_layout_file(&old)).unwrap();
        let layout = layout();
        let patterns = layout.folded_start[FIRST_LAYOUT_FAMILIES];
        let old_instances: usize = super::super::FAMILIES[..FIRST_LAYOUT_FAMILIES]
            .iter()
            .map(|family| family.symmetries.len())
            .sum();
        for (player, opponent) in super::super::tests::positions(2000, 12) {
            // The first layout's sum: its instances and the globals, its phase of four plies.
            let empties = (!(player | opponent)).count_ones();
            let phase = &old[((60 - empties.min(60)) / 4).min(14) as usize];
            let folded = Features::of(player, opponent).folded();
            let patterns_sum: i32 = folded[..old_instances]
                .iter()
                .map(|&k| i32::from(phase[k as usize]))
                .sum();
            let globals_sum: i32 = folded[super::super::INSTANCES..]
                .iter()
                .map(|&k| i32::from(phase[k as usize - (layout.globals_folded - patterns)]))
                .sum();
            let expected = (patterns_sum + globals_sum).clamp(-63 * DISC, 63 * DISC);
            assert_eq!(weights.evaluate(player, opponent), expected);
        }
        // Written again, it is a file of today's layout, read back the same.
        let bytes = weights.to_bytes();
        assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), VERSION);
        assert_eq!(PatternWeights::from_bytes(&bytes), Ok(weights));
        // A first-layout body under today's header is refused, saying what was expected.
        let mut wrong = first_layout_file(&old);
        wrong[8] = 2;
        assert_eq!(
            PatternWeights::from_bytes(&wrong).unwrap_err().to_string(),
            "the file has 15 phases; a version 2 file has 30"
        );
        wrong[10] = 30;
        assert!(matches!(
            PatternWeights::from_bytes(&wrong),
            Err(WeightsError::Layout { .. })
        ));
        // And today's phase count on a first-layout file.
        let mut wrong = first_layout_file(&old);
        wrong[10] = 30;
        assert_eq!(
            PatternWeights::from_bytes(&wrong).unwrap_err().to_string(),
            "the file has 30 phases; a version 1 file has 15"
        );
    }

    #[test]
    fn damaged_files_are_refused() {
        let bytes = random_weights(2).to_bytes();
        assert_eq!(
            PatternWeights::from_bytes(b"hello"),
            Err(WeightsError::Magic)
        );
        let mut version = bytes.clone();
        version[8] = 9;
        assert_eq!(
            PatternWeights::from_bytes(&version),
            Err(WeightsError::Version(9))
        );
        let mut layout = bytes.clone();
        layout[12] ^= 1;
        assert!(matches!(
            PatternWeights::from_bytes(&layout),
            Err(WeightsError::Layout { .. })
        ));
        assert_eq!(
            PatternWeights::from_bytes(&bytes[..bytes.len() - 1]),
            Err(WeightsError::Length)
        );
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 0x40;
        assert_eq!(
            PatternWeights::from_bytes(&flipped),
            Err(WeightsError::Checksum)
        );
        let mut garbled = bytes.clone();
        garbled[30] ^= 0xff;
        assert!(PatternWeights::from_bytes(&garbled).is_err());
    }
}
