//! Self-play's positions for the net to learn from: each with the search's visit shares
//! (the policy target) and the game's result (the value target), kept in a file per
//! iteration; the board's symmetries multiply them in training.

use std::{
    io::{self, Read, Write},
    path::Path,
};

use crate::Shape;
use crate::engine::symmetry::Symmetry;
use crate::engine::zero::{PLANES, policy_index};

/// One position of self-play.
#[derive(Clone, Debug, PartialEq)]
pub struct ZeroSample {
    /// The net's input planes (see [`crate::engine::zero::encode`]).
    pub planes: Vec<f32>,
    /// The share of the search's visits each move got (squares, then the pass).
    pub policy: Vec<f32>,
    /// The game's result for the side to move: 1 won, 0 drawn, -1 lost.
    pub value: f32,
}

/// What an iteration's file starts with.
const MAGIC: &[u8; 8] = b"OTHZERO1";

impl ZeroSample {
    /// The sample seen through `symmetry` of a `shape` board (one the board has).
    pub(crate) fn transformed(&self, symmetry: Symmetry, shape: Shape) -> ZeroSample {
        let squares = shape.cells();
        let mut planes = vec![0.0; self.planes.len()];
        let mut policy = vec![0.0; self.policy.len()];
        for from in 0..squares {
            let square = crate::Square::new(
                (from / usize::from(shape.columns())) as u8,
                (from % usize::from(shape.columns())) as u8,
            );
            let to = policy_index(shape, symmetry.apply(square, shape.rows(), shape.columns()));
            for plane in 0..PLANES {
                planes[plane * squares + to] = self.planes[plane * squares + from];
            }
            policy[to] = self.policy[from];
        }
        policy[squares] = self.policy[squares];
        ZeroSample {
            planes,
            policy,
            value: self.value,
        }
    }
}

/// Writes `samples` of a `shape` board to `path` (through a temporary file).
///
/// # Errors
/// If the file cannot be written.
pub fn write_samples(path: &Path, shape: Shape, samples: &[ZeroSample]) -> io::Result<()> {
    let squares = shape.cells();
    let mut bytes = Vec::with_capacity(16 + samples.len() * (3 * squares + 4 * squares + 8));
    bytes.extend_from_slice(MAGIC);
    bytes.extend([shape.rows(), shape.columns(), 0, 0]);
    bytes.extend((samples.len() as u32).to_le_bytes());
    for sample in samples {
        // The first three planes as bytes; the fourth is all ones.
        bytes.extend(
            sample.planes[..3 * squares]
                .iter()
                .map(|&v| u8::from(v > 0.5)),
        );
        for share in &sample.policy {
            bytes.extend(share.to_le_bytes());
        }
        bytes.extend(sample.value.to_le_bytes());
    }
    let partial = path.with_extension("partial");
    std::fs::File::create(&partial)?.write_all(&bytes)?;
    std::fs::rename(partial, path)
}

/// The samples of `path`, written by [`write_samples`] for a `shape` board.
///
/// # Errors
/// If it cannot be read, or is not such a file.
pub fn read_samples(path: &Path, shape: Shape) -> io::Result<Vec<ZeroSample>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.read_to_end(&mut bytes)?;
    let bad = |what: &str| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {what}", path.display()),
        )
    };
    if bytes.len() < 16 || &bytes[..8] != MAGIC {
        return Err(bad("not a file of self-play positions"));
    }
    if bytes[8..10] != [shape.rows(), shape.columns()] {
        return Err(bad("positions of another board"));
    }
    let count = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes")) as usize;
    let squares = shape.cells();
    let record = 3 * squares + 4 * (squares + 1) + 4;
    if bytes.len() != 16 + count * record {
        return Err(bad("cut short or damaged"));
    }
    let float = |at: usize| f32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    Ok((0..count)
        .map(|i| {
            let at = 16 + i * record;
            let mut planes: Vec<f32> = bytes[at..at + 3 * squares]
                .iter()
                .map(|&b| f32::from(b))
                .collect();
            planes.resize(PLANES * squares, 1.0);
            let policy = (0..=squares)
                .map(|m| float(at + 3 * squares + 4 * m))
                .collect();
            ZeroSample {
                planes,
                policy,
                value: float(at + record - 4),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::zero::encode;
    use crate::engine::{Node, SmallNode, SquareSet};
    use crate::{Board, Color, Full};

    /// A position some moves into a game on `shape`, with a policy over its legal moves.
    fn sample(shape: Shape) -> ZeroSample {
        let board = Board::standard(shape);
        let mut node = SmallNode::<Full>::from_board(&board, Color::Black).expect("small");
        for _ in 0..3 {
            let mv = node.moves().first().expect("a move");
            node = node.play(mv);
        }
        let encoded = encode(&node);
        let mut policy = vec![0.0; shape.cells() + 1];
        for (i, &at) in encoded.legal.iter().enumerate() {
            policy[at] = (i + 1) as f32;
        }
        ZeroSample {
            planes: encoded.planes,
            policy,
            value: -1.0,
        }
    }

    #[test]
    fn symmetries_move_the_policy_with_the_legal_moves_and_undo() {
        for shape in [Shape::new(6, 6), Shape::new(4, 6), Shape::new(8, 4)] {
            let shape = shape.expect("a shape");
            let original = sample(shape);
            let squares = shape.cells();
            for &symmetry in Symmetry::of(shape.rows(), shape.columns()) {
                let moved = original.transformed(symmetry, shape);
                assert_eq!(moved.value, original.value);
                // The policy is where the legal moves went; discs are kept in number.
                for at in 0..squares {
                    assert_eq!(
                        moved.policy[at] > 0.0,
                        moved.planes[2 * squares + at] > 0.5,
                        "{shape} {symmetry:?}"
                    );
                }
                let discs = |s: &ZeroSample| s.planes[..2 * squares].iter().sum::<f32>();
                assert_eq!(discs(&moved), discs(&original));
                let mut policy = moved.policy.clone();
                let mut before = original.policy.clone();
                policy.sort_by(f32::total_cmp);
                before.sort_by(f32::total_cmp);
                assert_eq!(policy, before);
            }
            // A half turn twice is no turn at all.
            let twice = original
                .transformed(Symmetry::Rotate180, shape)
                .transformed(Symmetry::Rotate180, shape);
            assert_eq!(twice, original);
            // The identity changes nothing.
            assert_eq!(original.transformed(Symmetry::Identity, shape), original);
        }
    }

    #[test]
    fn samples_read_back_as_written_and_other_files_are_refused() {
        let shape = Shape::new(4, 6).expect("a shape");
        let dir = tempfile::tempdir().expect("a directory");
        let path = dir.path().join("0001.bin");
        let samples = vec![
            sample(shape),
            sample(shape).transformed(Symmetry::Rotate180, shape),
        ];
        write_samples(&path, shape, &samples).expect("written");
        assert_eq!(read_samples(&path, shape).expect("read"), samples);
        let error =
            read_samples(&path, Shape::new(6, 4).expect("a shape")).expect_err("another board");
        assert!(error.to_string().contains("another board"), "{error}");
        let bytes = std::fs::read(&path).expect("bytes");
        std::fs::write(&path, &bytes[..bytes.len() - 1]).expect("cut");
        let error = read_samples(&path, shape).expect_err("cut short");
        assert!(error.to_string().contains("cut short"), "{error}");
    }
}
