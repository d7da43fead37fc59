//! Positions met more than once kept once: the same opening reached in many games, a
//! position and its mirror image (which the evaluation scores alike, as its patterns are
//! read under the board's symmetries). A fit that counts a common position a thousand times
//! spends its weights on it; one that sees a held-out position among its training positions
//! reports too small an error.
//!
//! A position's copies become one record, at the first copy's place (so the output keeps the
//! input's order and its first game's number), scored by its best kind of label: an exact
//! score before a searched one, a deeper search before a shallower one, a search before a
//! game's result; copies with labels of that same kind are averaged (results of many games
//! from one position average towards its value, which is why such labels can be noisy).
//!
//! Positions are told apart by a 128-bit hash of their smallest image under the board's
//! symmetries: two different positions share one with a chance of about n² / 2¹²⁹, nil for
//! any number of positions a file can hold.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use super::{Discs, Label, Sample};
use crate::engine::symmetry::Symmetry;
use crate::{GameKind, Square};

/// Where each square goes under each of a board's symmetries.
#[derive(Clone, Debug)]
struct Images {
    kind: GameKind,
    /// One map of square numbers (reading order) for each symmetry but the identity.
    maps: Vec<Vec<u16>>,
}

impl Images {
    fn new(kind: GameKind) -> Images {
        let (rows, columns) = (kind.shape.rows(), kind.shape.columns());
        let maps = Symmetry::of(rows, columns)[1..]
            .iter()
            .map(|symmetry| {
                (0..kind.shape.cells())
                    .map(|k| {
                        let (row, column) = (k / usize::from(columns), k % usize::from(columns));
                        let image =
                            symmetry.apply(Square::new(row as u8, column as u8), rows, columns);
                        u16::from(image.row()) * u16::from(columns) + u16::from(image.column())
                    })
                    .collect()
            })
            .collect();
        Images { kind, maps }
    }

    /// The smallest of the position's images (the discs of the side to move, then the
    /// opponent's, compared as words): the same for a position and each of its mirror images.
    fn canonical(&self, player: Discs, opponent: Discs) -> ([u64; 4], [u64; 4]) {
        if self.kind.shape.rows() == 8 && self.kind.shape.columns() == 8 {
            let (player, opponent) = canonical8(player.bits8(), opponent.bits8());
            return ([player, 0, 0, 0], [opponent, 0, 0, 0]);
        }
        let mut best = (player.words(), opponent.words());
        for map in &self.maps {
            best = best.min((image(map, player).words(), image(map, opponent).words()));
        }
        best
    }

    /// The hash that names the position up to symmetry.
    fn key(&self, player: Discs, opponent: Discs) -> u128 {
        let canonical = self.canonical(player, opponent);
        let half = |salt: u64| {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            salt.hash(&mut hasher);
            canonical.hash(&mut hasher);
            hasher.finish()
        };
        u128::from(half(0x9e37_79b9_7f4a_7c15)) << 64 | u128::from(half(0x2545_f491_4f6c_dd1d))
    }
}

/// `discs` carried by a symmetry's `map` of squares.
fn image(map: &[u16], discs: Discs) -> Discs {
    let mut out = Discs::default();
    for k in discs.squares() {
        out.insert(usize::from(map[k]));
    }
    out
}

/// Top and bottom swapped on the standard board (bit `row * 8 + column`).
const fn flip_vertical(bits: u64) -> u64 {
    bits.swap_bytes()
}

/// Left and right swapped.
const fn flip_horizontal(bits: u64) -> u64 {
    bits.reverse_bits().swap_bytes()
}

/// Rows and columns swapped (three delta swaps).
const fn transpose(mut bits: u64) -> u64 {
    let t = 0x0f0f_0f0f_0000_0000 & (bits ^ (bits << 28));
    bits ^= t ^ (t >> 28);
    let t = 0x3333_0000_3333_0000 & (bits ^ (bits << 14));
    bits ^= t ^ (t >> 14);
    let t = 0x5500_5500_5500_5500 & (bits ^ (bits << 7));
    bits ^ t ^ (t >> 7)
}

/// The smallest of the eight images of a standard-board position, by bit operations.
fn canonical8(player: u64, opponent: u64) -> (u64, u64) {
    let mut best = (player, opponent);
    let mut image = (player, opponent);
    for step in 0..7 {
        // Walks the eight symmetries: flips and a transpose, each image once.
        image = match step {
            0 | 2 | 4 | 6 => (flip_vertical(image.0), flip_vertical(image.1)),
            1 | 5 => (flip_horizontal(image.0), flip_horizontal(image.1)),
            _ => (transpose(image.0), transpose(image.1)),
        };
        best = best.min(image);
    }
    best
}

/// How one position's copies are kept: where the first is, and the label kept so far.
#[derive(Clone, Copy, Debug)]
struct Kept {
    /// The first copy's place in the input; [`EXCLUDED`] for a position left out.
    first: u64,
    /// How good the label is (see [`rank`]).
    rank: u16,
    /// The sum of the copies' scores of that rank, and their number.
    sum: i64,
    count: u32,
}

/// The `first` of a position left out.
const EXCLUDED: u64 = u64::MAX;

/// The order of labels: an exact score first, then the deepest search, then a result.
fn rank(label: Label) -> u16 {
    match label {
        Label::None => 0,
        Label::Result => 1,
        Label::Searched(depth) => 2 + u16::from(depth),
        Label::Exact => 1000,
    }
}

/// What a pass over the positions found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DedupCounts {
    /// Positions read.
    pub read: u64,
    /// Positions kept (each once).
    pub kept: u64,
    /// Copies merged into a position kept before them.
    pub merged: u64,
    /// Positions left out because the excluded set holds them.
    pub excluded: u64,
}

/// Positions seen so far, each once up to symmetry (see the module's documentation).
///
/// Two passes: [`Dedup::add`] every position in order, then [`Dedup::keep`] each again in
/// the same order, which returns the record to write at a position's first copy.
#[derive(Debug)]
pub struct Dedup {
    images: Images,
    seen: HashMap<u128, Kept>,
    counts: DedupCounts,
}

impl Dedup {
    /// None seen yet, of `kind`.
    pub fn new(kind: GameKind) -> Dedup {
        Dedup {
            images: Images::new(kind),
            seen: HashMap::new(),
            counts: DedupCounts::default(),
        }
    }

    /// Leaves out `sample`'s position (and its mirror images): a held-out set's, so that
    /// no position of it is fitted to. Call before [`Dedup::add`].
    pub fn exclude(&mut self, sample: &Sample) {
        let key = self.images.key(sample.player, sample.opponent);
        self.seen.insert(
            key,
            Kept {
                first: EXCLUDED,
                rank: 0,
                sum: 0,
                count: 0,
            },
        );
    }

    /// The first pass: `sample`, the input's `index`-th.
    pub fn add(&mut self, index: u64, sample: &Sample) {
        let key = self.images.key(sample.player, sample.opponent);
        let (rank, score) = (rank(sample.label), i64::from(sample.score));
        self.counts.read += 1;
        let kept = self.seen.entry(key).or_insert(Kept {
            first: index,
            rank,
            sum: 0,
            count: 0,
        });
        if kept.first == EXCLUDED {
            self.counts.excluded += 1;
            return;
        }
        if kept.count > 0 {
            self.counts.merged += 1;
        } else {
            self.counts.kept += 1;
        }
        if rank > kept.rank {
            (kept.rank, kept.sum, kept.count) = (rank, score, 1);
        } else if rank == kept.rank {
            kept.sum += score;
            kept.count += 1;
        }
    }

    /// The second pass: the record to write for the input's `index`-th sample, `None` for
    /// a later copy or a position left out.
    pub fn keep(&self, index: u64, sample: &Sample) -> Option<Sample> {
        let key = self.images.key(sample.player, sample.opponent);
        let kept = self.seen.get(&key)?;
        if kept.first != index {
            return None;
        }
        let mut first = *sample;
        if kept.count > 1 {
            // The mean, halves away from zero.
            let count = i64::from(kept.count);
            let mean = (2 * kept.sum + kept.sum.signum() * count) / (2 * count);
            first.score = mean.clamp(i64::from(i16::MIN), i64::from(i16::MAX)) as i16;
        } else {
            first.score = kept.sum as i16;
        }
        // The first copy's own label may be a lesser one than the kept score's.
        if rank(first.label) != kept.rank {
            first.label = label_of_rank(kept.rank);
        }
        Some(first)
    }

    /// What the first pass counted.
    pub fn counts(&self) -> DedupCounts {
        self.counts
    }
}

fn label_of_rank(rank: u16) -> Label {
    match rank {
        0 => Label::None,
        1 => Label::Result,
        1000 => Label::Exact,
        searched => Label::Searched((searched - 2) as u8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::eval::Evaluator;
    use crate::training::selfplay::{SelfPlayOptions, game_table, self_play_game};
    use crate::{Shape, Variant, WinRule};
    use rand::{RngExt, SeedableRng, rngs::StdRng};

    #[test]
    fn the_standard_boards_bit_images_are_the_symmetries_images() {
        let images = Images::new(GameKind::STANDARD);
        let mut rng = StdRng::seed_from_u64(3);
        for _ in 0..200 {
            let (player, opponent) = (rng.random::<u64>(), rng.random::<u64>() & 0x00ff_ff00);
            let opponent = opponent & !player;
            let (a, b) = (Discs::from_bits8(player), Discs::from_bits8(opponent));
            let generic = images
                .maps
                .iter()
                .fold((a.words(), b.words()), |best, map| {
                    best.min((image(map, a).words(), image(map, b).words()))
                });
            assert_eq!(images.canonical(a, b), generic);
        }
    }

    /// A position's mirror images are the position; a game's positions are all different.
    #[test]
    fn mirror_images_are_one_position_on_every_shape() {
        for (rows, columns) in [(8, 8), (6, 6), (4, 6), (10, 10), (6, 8)] {
            let kind = GameKind::new(
                Variant::Full,
                Shape::new(rows, columns).unwrap(),
                WinRule::MostDiscs,
            );
            let options = SelfPlayOptions {
                kind,
                depth: 1,
                eval: Evaluator::Classic,
                ..SelfPlayOptions::new(1)
            };
            let game = self_play_game(0, &options, &mut game_table());
            let images = Images::new(kind);
            for sample in &game {
                let key = images.key(sample.player, sample.opponent);
                for map in &images.maps {
                    assert_eq!(
                        images.key(image(map, sample.player), image(map, sample.opponent)),
                        key,
                        "{kind}"
                    );
                }
            }
            let keys: std::collections::HashSet<u128> = game
                .iter()
                .map(|s| images.key(s.player, s.opponent))
                .collect();
            assert_eq!(keys.len(), game.len(), "one game never repeats a position");
        }
    }

    /// The records `dedup` keeps of `samples`.
    fn both_passes(dedup: &mut Dedup, samples: &[Sample]) -> Vec<Sample> {
        for (index, sample) in samples.iter().enumerate() {
            dedup.add(index as u64, sample);
        }
        samples
            .iter()
            .enumerate()
            .filter_map(|(index, sample)| dedup.keep(index as u64, sample))
            .collect()
    }

    fn labelled(player: u64, game: u32, score: i16, label: Label) -> Sample {
        Sample {
            score,
            label,
            ..Sample::standard(player, 0x0000_0010_0800_0000, game)
        }
    }

    #[test]
    fn copies_keep_the_first_place_and_the_best_labels_mean() {
        // Bit 0 is a1; its mirror image under a half turn is h8 (bit 63).
        // The opponent's two centre discs are their own image under a half turn.
        let a = 0x0000_0008_1000_0001;
        let a_turned = 1 << 63 | 0x0000_0008_1000_0000;
        let b = 0x0000_0008_1000_0002;
        let samples = [
            labelled(a, 0, 300, Label::Result),
            labelled(b, 0, -100, Label::Result),
            labelled(a, 1, 500, Label::Result),
            labelled(a_turned, 2, 200, Label::Result),
            labelled(b, 3, 700, Label::Searched(8)),
            labelled(b, 4, 300, Label::Searched(6)),
            labelled(b, 5, 900, Label::Searched(8)),
        ];
        let mut dedup = Dedup::new(GameKind::STANDARD);
        let kept = both_passes(&mut dedup, &samples);
        // a: the mean of three results, (300 + 500 + 200) / 3 = 333.3; b: the two deepest
        // searches' mean, at b's first place with its first game.
        assert_eq!(
            kept,
            [
                labelled(a, 0, 333, Label::Result),
                labelled(b, 0, 800, Label::Searched(8)),
            ]
        );
        assert_eq!(
            dedup.counts(),
            DedupCounts {
                read: 7,
                kept: 2,
                merged: 5,
                excluded: 0,
            }
        );
    }

    #[test]
    fn excluded_positions_and_their_images_are_left_out() {
        let (a, b, theirs) = (
            0x0000_0008_1000_0001,
            0x0000_0008_1000_0002,
            0x0000_0010_0800_0000,
        );
        let mut dedup = Dedup::new(GameKind::STANDARD);
        // a with left and right swapped: a1 goes to h1.
        dedup.exclude(&Sample::standard(
            flip_horizontal(a),
            flip_horizontal(theirs),
            9,
        ));
        let samples = [
            labelled(a, 0, 300, Label::Result),
            labelled(b, 0, 100, Label::Result),
            labelled(a, 1, 100, Label::Exact),
        ];
        let kept = both_passes(&mut dedup, &samples);
        assert_eq!(kept, [samples[1]]);
        assert_eq!(dedup.counts().excluded, 2);
        assert_eq!(dedup.counts().kept, 1);
    }
}
