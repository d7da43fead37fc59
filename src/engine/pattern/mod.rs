//! The learned evaluation of the standard 8 × 8 board under FULL rules, most discs wins: a
//! sum of weights looked up by board patterns, as Logistello, Edax and Egaroucid evaluate,
//! fitted to positions scored by the exact solver and by deeper searches (`othello train`).
//!
//! The features of a position, from the side to move:
//! - 58 pattern instances in 14 families: the edge with its two X-squares, the corner 3 × 3,
//!   the corner 2 × 5, the diagonals of length 8 down to 4, the 2nd, 3rd and 4th lines
//!   from an edge, and (since generation 6) the corner triangle, the edge block with its
//!   corners and the cross about a corner's diagonal. Each instance is its family's cells carried by one of the board's
//!   symmetries, read in the family's cell order as a base-3 number (an empty cell is 0,
//!   a disc of the side to move 1, the opponent's 2). The instances of a family share its
//!   weights, and where a family maps onto itself (an edge read backwards) a configuration
//!   and its mirror image share one too: symmetric positions evaluate equal.
//! - The mobility of each side (legal moves, up to `MOBILITY_CAP`), the potential
//!   mobility of each side (empty squares next to the other side's discs, up to
//!   `POTENTIAL_CAP`), and the parity of the empty squares (a constant for odd and one
//!   for even).
//!
//! Each of the [`PHASES`] game phases ([`PLIES_PER_PHASE`] plies each, by the number of empty
//! squares) has weights of its own. Files of the first layout (11 families, 15 phases of four
//! plies: generations 1 to 5) are read into this one, the new families at zero and each old
//! phase copied to the phases it covers, so they evaluate exactly as they did. Weights are in evaluation units ([`DISC`](super::eval::DISC) a disc) and the sum
//! estimates the final disc difference.
//!
//! Pattern indices come from `pext` (one instruction per colour and instance) where the
//! processor has BMI2 and runs it fast, and from a loop over the cells elsewhere; both are
//! checked against a reference reading of the board in the tests.

use std::sync::OnceLock;

use super::Node8;

mod shaped;
mod shaped_weights;
mod shipped;
mod weights;

pub use shaped::{PatternSet, ShapedFamily, ShapedIndices, ShapedInstance};
pub use shaped_weights::{ShapedWeights, phase_of};
pub use shipped::{builtin_file, shipped, shipped_kinds};
pub use weights::{PatternWeights, WeightsError, builtin};

/// Plies in a game phase.
pub const PLIES_PER_PHASE: u32 = 2;

/// Game phases with weights of their own: by empty squares, [`PLIES_PER_PHASE`] plies each.
pub const PHASES: usize = (60 / PLIES_PER_PHASE) as usize;

/// Mobility counts above this share its weight.
pub(crate) const MOBILITY_CAP: u32 = 30;

/// Potential mobility counts above this share its weight.
pub(crate) const POTENTIAL_CAP: u32 = 40;

/// Pattern instances in a position.
pub(crate) const INSTANCES: usize = 58;

/// Features of a position: the pattern instances, two mobilities, two potential
/// mobilities, and parity (odd or even empties: a constant of each kind).
pub(crate) const ACTIVE: usize = INSTANCES + 5;

/// The phase of a position with `empties` empty squares.
#[inline]
pub(crate) fn phase(empties: u32) -> usize {
    ((60 - empties.min(60)) / PLIES_PER_PHASE).min(PHASES as u32 - 1) as usize
}

/// One of the eight symmetries of the square board, as a map of (row, column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Symmetry {
    /// Unchanged.
    Identity,
    /// A quarter turn clockwise.
    Rotate90,
    /// A half turn.
    Rotate180,
    /// Three quarter turns clockwise.
    Rotate270,
    /// Top and bottom swapped.
    FlipVertical,
    /// Left and right swapped.
    FlipHorizontal,
    /// Rows and columns swapped (about the a1-h8 diagonal).
    Transpose,
    /// About the h1-a8 diagonal.
    AntiTranspose,
}

impl Symmetry {
    /// All eight.
    pub(crate) const ALL: [Symmetry; 8] = [
        Symmetry::Identity,
        Symmetry::Rotate90,
        Symmetry::Rotate180,
        Symmetry::Rotate270,
        Symmetry::FlipVertical,
        Symmetry::FlipHorizontal,
        Symmetry::Transpose,
        Symmetry::AntiTranspose,
    ];

    const ROTATIONS: [Symmetry; 4] = [
        Symmetry::Identity,
        Symmetry::Rotate90,
        Symmetry::Rotate180,
        Symmetry::Rotate270,
    ];

    /// Where (row, column) goes.
    pub(crate) const fn apply(self, row: u32, column: u32) -> (u32, u32) {
        match self {
            Symmetry::Identity => (row, column),
            Symmetry::Rotate90 => (column, 7 - row),
            Symmetry::Rotate180 => (7 - row, 7 - column),
            Symmetry::Rotate270 => (7 - column, row),
            Symmetry::FlipVertical => (7 - row, column),
            Symmetry::FlipHorizontal => (row, 7 - column),
            Symmetry::Transpose => (column, row),
            Symmetry::AntiTranspose => (7 - column, 7 - row),
        }
    }

    /// A set of squares (bit `row * 8 + column`) carried by the symmetry.
    #[cfg(test)]
    pub(crate) fn bits(self, bits: u64) -> u64 {
        let mut out = 0;
        let mut rest = bits;
        while rest != 0 {
            let index = rest.trailing_zeros();
            rest &= rest - 1;
            let (row, column) = self.apply(index / 8, index % 8);
            out |= 1 << (row * 8 + column);
        }
        out
    }
}

/// A pattern family: cells in reading order, the symmetries whose images are its
/// instances, and the order in which the family reads itself when it maps onto itself.
#[derive(Debug)]
pub(crate) struct Family {
    /// A short name, for people reading the table.
    #[allow(dead_code, reason = "a label for people reading the table")]
    pub(crate) name: &'static str,
    /// (row, column) of each cell, in reading order.
    pub(crate) cells: &'static [(u32, u32)],
    /// The instances: the cells carried by each of these.
    pub(crate) symmetries: &'static [Symmetry],
    /// `Some(order)` if the family is its own mirror image: reading cell `order[k]` where
    /// it reads cell `k` gives a configuration that shares the weight.
    pub(crate) mirror: Option<&'static [usize]>,
}

impl Family {
    /// Configurations: 3 to the number of cells.
    pub(crate) const fn size(&self) -> usize {
        3usize.pow(self.cells.len() as u32)
    }
}

const REVERSE_10: [usize; 10] = [7, 6, 5, 4, 3, 2, 1, 0, 9, 8];
const REVERSE: [usize; 8] = [7, 6, 5, 4, 3, 2, 1, 0];
const CORNER_TRANSPOSE: [usize; 9] = [0, 3, 6, 1, 4, 7, 2, 5, 8];

/// The families, as Edax reads them. Each family's cells, as listed (its instance under
/// [`Symmetry::Identity`]), are in increasing bit order: `pext` gathers them in reading order
/// (the board is read through each symmetry first).
pub(crate) static FAMILIES: [Family; 14] = FAMILY_LIST;

/// The families of the first layout (generations 1 to 5): the list's first eleven.
pub(crate) const FIRST_LAYOUT_FAMILIES: usize = 11;

/// The phases of the first layout, four plies each.
pub(crate) const FIRST_LAYOUT_PHASES: usize = 15;

const FAMILY_LIST: [Family; 14] = [
    Family {
        name: "edge + 2X",
        cells: &[
            (0, 0),
            (0, 1),
            (0, 2),
            (0, 3),
            (0, 4),
            (0, 5),
            (0, 6),
            (0, 7),
            (1, 1),
            (1, 6),
        ],
        symmetries: &Symmetry::ROTATIONS,
        mirror: Some(&REVERSE_10),
    },
    Family {
        name: "corner 3x3",
        cells: &[
            (0, 0),
            (0, 1),
            (0, 2),
            (1, 0),
            (1, 1),
            (1, 2),
            (2, 0),
            (2, 1),
            (2, 2),
        ],
        symmetries: &Symmetry::ROTATIONS,
        mirror: Some(&CORNER_TRANSPOSE),
    },
    Family {
        name: "corner 2x5",
        cells: &[
            (0, 0),
            (0, 1),
            (0, 2),
            (0, 3),
            (0, 4),
            (1, 0),
            (1, 1),
            (1, 2),
            (1, 3),
            (1, 4),
        ],
        symmetries: &Symmetry::ALL,
        mirror: None,
    },
    Family {
        name: "diagonal 8",
        cells: &[
            (0, 0),
            (1, 1),
            (2, 2),
            (3, 3),
            (4, 4),
            (5, 5),
            (6, 6),
            (7, 7),
        ],
        symmetries: &[Symmetry::Identity, Symmetry::Rotate90],
        mirror: Some(&REVERSE),
    },
    Family {
        name: "diagonal 7",
        cells: &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7)],
        symmetries: &Symmetry::ROTATIONS,
        mirror: Some(&[6, 5, 4, 3, 2, 1, 0]),
    },
    Family {
        name: "diagonal 6",
        cells: &[(0, 2), (1, 3), (2, 4), (3, 5), (4, 6), (5, 7)],
        symmetries: &Symmetry::ROTATIONS,
        mirror: Some(&[5, 4, 3, 2, 1, 0]),
    },
    Family {
        name: "diagonal 5",
        cells: &[(0, 3), (1, 4), (2, 5), (3, 6), (4, 7)],
        symmetries: &Symmetry::ROTATIONS,
        mirror: Some(&[4, 3, 2, 1, 0]),
    },
    Family {
        name: "diagonal 4",
        cells: &[(0, 4), (1, 5), (2, 6), (3, 7)],
        symmetries: &Symmetry::ROTATIONS,
        mirror: Some(&[3, 2, 1, 0]),
    },
    Family {
        name: "line 2",
        cells: &[
            (1, 0),
            (1, 1),
            (1, 2),
            (1, 3),
            (1, 4),
            (1, 5),
            (1, 6),
            (1, 7),
        ],
        symmetries: &Symmetry::ROTATIONS,
        mirror: Some(&REVERSE),
    },
    Family {
        name: "line 3",
        cells: &[
            (2, 0),
            (2, 1),
            (2, 2),
            (2, 3),
            (2, 4),
            (2, 5),
            (2, 6),
            (2, 7),
        ],
        symmetries: &Symmetry::ROTATIONS,
        mirror: Some(&REVERSE),
    },
    Family {
        name: "line 4",
        cells: &[
            (3, 0),
            (3, 1),
            (3, 2),
            (3, 3),
            (3, 4),
            (3, 5),
            (3, 6),
            (3, 7),
        ],
        symmetries: &Symmetry::ROTATIONS,
        mirror: Some(&REVERSE),
    },
    // Generation 6's families: shapes about a corner the lines above cut across.
    Family {
        name: "triangle",
        cells: &[
            (0, 0),
            (0, 1),
            (0, 2),
            (0, 3),
            (1, 0),
            (1, 1),
            (1, 2),
            (2, 0),
            (2, 1),
            (3, 0),
        ],
        symmetries: &Symmetry::ROTATIONS,
        mirror: Some(&[0, 4, 7, 9, 1, 5, 8, 2, 6, 3]),
    },
    Family {
        name: "edge block",
        cells: &[
            (0, 0),
            (0, 2),
            (0, 3),
            (0, 4),
            (0, 5),
            (0, 7),
            (1, 2),
            (1, 3),
            (1, 4),
            (1, 5),
        ],
        symmetries: &Symmetry::ROTATIONS,
        mirror: Some(&[5, 4, 3, 2, 1, 0, 9, 8, 7, 6]),
    },
    Family {
        name: "cross",
        cells: &[
            (0, 0),
            (0, 1),
            (1, 0),
            (1, 1),
            (1, 2),
            (2, 1),
            (2, 2),
            (2, 3),
            (3, 2),
            (3, 3),
        ],
        symmetries: &Symmetry::ROTATIONS,
        mirror: Some(&[0, 2, 1, 3, 5, 4, 6, 8, 7, 9]),
    },
];

/// One pattern instance, ready for extraction.
#[derive(Debug)]
struct Instance {
    /// Its family.
    family: usize,
    /// Bit index of each cell, in the family's reading order.
    cells: Vec<u32>,
}

#[cfg(test)]
impl Instance {
    /// Its cells as a set.
    fn mask(&self) -> u64 {
        self.cells.iter().fold(0, |mask, &cell| mask | 1 << cell)
    }
}

/// Where each part of a phase's weights starts, in the full layout (every configuration)
/// and in the folded one (one weight per configuration and mirror image).
#[derive(Debug)]
struct Layout {
    instances: Vec<Instance>,
    /// Full index (within a family) to folded index (within that family).
    fold: Vec<Vec<u32>>,
    /// Start of each family in the folded layout.
    folded_start: Vec<usize>,
    /// Start of the global features in the folded layout (in the full one:
    /// [`GLOBALS_FULL`]).
    globals_folded: usize,
    /// For each square: the instances it is a cell of, with its digit's power of 3 there.
    terms: Vec<Vec<(u8, u16)>>,
}

/// Global features after the patterns: player's mobility, opponent's mobility, player's
/// potential mobility, opponent's, then odd and even empties.
const GLOBALS: usize = 2 * (MOBILITY_CAP as usize + 1) + 2 * (POTENTIAL_CAP as usize + 1) + 2;

impl Layout {
    fn new() -> Layout {
        let mut instances = Vec::new();
        let (mut fold, mut folded_start) = (Vec::new(), Vec::new());
        let mut folded = 0;
        for (index, family) in FAMILIES.iter().enumerate() {
            for &symmetry in family.symmetries {
                let cells: Vec<u32> = family
                    .cells
                    .iter()
                    .map(|&(row, column)| {
                        let (row, column) = symmetry.apply(row, column);
                        row * 8 + column
                    })
                    .collect();
                instances.push(Instance {
                    family: index,
                    cells,
                });
            }
            folded_start.push(folded);
            let (map, count) = fold_map(family.size(), family.mirror);
            fold.push(map);
            folded += count;
        }
        let mut terms = vec![Vec::new(); 64];
        for (index, instance) in instances.iter().enumerate() {
            for (k, &cell) in instance.cells.iter().enumerate() {
                terms[cell as usize].push((index as u8, 3u16.pow(k as u32)));
            }
        }
        Layout {
            instances,
            fold,
            folded_start,
            globals_folded: folded,
            terms,
        }
    }

    /// Weights of one phase in the folded layout.
    fn folded_len(&self) -> usize {
        self.globals_folded + GLOBALS
    }
}

/// A family's folded layout: each of its `size` configurations' weight (a configuration
/// and its mirror image by `mirror`, where the family has one, share one), and how many
/// weights that makes.
fn fold_map(size: usize, mirror_order: Option<&[usize]>) -> (Vec<u32>, usize) {
    let mut map = vec![u32::MAX; size];
    let mut count = 0;
    for configuration in 0..size {
        let mirrored = mirror_order.map_or(configuration, |order| mirror(configuration, order));
        let representative = configuration.min(mirrored);
        if map[representative] == u32::MAX {
            map[representative] = count;
            count += 1;
        }
        map[configuration] = map[representative];
    }
    (map, count as usize)
}

/// The configuration whose digit `k` is `configuration`'s digit `order[k]`.
fn mirror(configuration: usize, order: &[usize]) -> usize {
    let digits: Vec<usize> = (0..order.len())
        .map(|k| configuration / 3usize.pow(k as u32) % 3)
        .collect();
    order
        .iter()
        .enumerate()
        .map(|(k, &from)| digits[from] * 3usize.pow(k as u32))
        .sum()
}

fn layout() -> &'static Layout {
    static LAYOUT: OnceLock<Layout> = OnceLock::new();
    LAYOUT.get_or_init(Layout::new)
}

/// Weights per phase in the folded layout (the one training fits and files store).
pub(crate) fn folded_len() -> usize {
    layout().folded_len()
}

/// The features of a position: its phase and, for each feature, its index among that
/// phase's weights (full layout, or folded with [`Features::folded`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Features {
    /// The game phase.
    pub(crate) phase: usize,
    /// The active weights of that phase, full layout.
    pub(crate) indices: [u32; ACTIVE],
}

impl Features {
    /// The features of the position with `player` to move against `opponent`.
    #[inline(always)]
    pub(crate) fn of(player: u64, opponent: u64) -> Features {
        use super::Node;
        let node = Node8::new(player, opponent);
        Features::with_moves(player, opponent, node.moves(), node.pass().moves())
    }

    /// [`Features::of`] with both sides' legal moves given (a search has them, from its
    /// own faster move generator).
    #[inline(always)]
    pub(crate) fn with_moves(player: u64, opponent: u64, moves: u64, replies: u64) -> Features {
        let mut indices = [0u32; ACTIVE];
        pattern_indices(player, opponent, &mut indices);
        for (slot, &(family, _)) in indices.iter_mut().zip(&INSTANCE_PLAN) {
            *slot += FAMILY_STARTS[usize::from(family)];
        }
        use super::SquareSet;
        let empty = !(player | opponent);
        let empties = empty.count_ones();
        let mobility = |moves: u64| moves.count_ones().min(MOBILITY_CAP);
        let potential = |discs: u64| (discs.neighbours() & empty).count_ones().min(POTENTIAL_CAP);
        let (m, q) = (MOBILITY_CAP + 1, POTENTIAL_CAP + 1);
        let globals = GLOBALS_FULL;
        indices[INSTANCES] = globals + mobility(moves);
        indices[INSTANCES + 1] = globals + m + mobility(replies);
        indices[INSTANCES + 2] = globals + 2 * m + potential(opponent);
        indices[INSTANCES + 3] = globals + 2 * m + q + potential(player);
        indices[INSTANCES + 4] = globals + 2 * m + 2 * q + u32::from(empties.is_multiple_of(2));
        Features {
            phase: phase(empties),
            indices,
        }
    }

    /// The same features in the folded layout.
    pub(crate) fn folded(&self) -> [u32; ACTIVE] {
        let layout = layout();
        let mut folded = [0u32; ACTIVE];
        for (k, instance) in layout.instances.iter().enumerate() {
            let family = instance.family;
            let within = (self.indices[k] - FAMILY_STARTS[family]) as usize;
            folded[k] = layout.folded_start[family] as u32 + layout.fold[family][within];
        }
        let shift = (layout.globals_folded as u32).wrapping_sub(GLOBALS_FULL);
        for (slot, &index) in folded[INSTANCES..]
            .iter_mut()
            .zip(&self.indices[INSTANCES..])
        {
            *slot = index.wrapping_add(shift);
        }
        folded
    }
}

/// The base-3 index of each pattern instance (within its family) into `indices`.
#[inline]
fn pattern_indices(player: u64, opponent: u64, indices: &mut [u32; ACTIVE]) {
    #[cfg(target_arch = "x86_64")]
    if super::fast_pext() {
        // SAFETY: the processor has BMI2 (checked by `fast_pext`).
        unsafe { pattern_indices_pext(player, opponent, indices) };
        return;
    }
    pattern_indices_portable(player, opponent, indices);
}

/// Cell by cell.
fn pattern_indices_portable(player: u64, opponent: u64, indices: &mut [u32; ACTIVE]) {
    for (slot, instance) in indices.iter_mut().zip(&layout().instances) {
        let mut index = 0;
        for &cell in instance.cells.iter().rev() {
            let digit = (player >> cell & 1) + 2 * (opponent >> cell & 1);
            index = index * 3 + digit as u32;
        }
        *slot = index;
    }
}

/// The board `bits` read through each symmetry, in the order of [`Symmetry::ALL`]: square
/// `c` of image `k` holds what square `Symmetry::ALL[k].apply(c)` of `bits` holds. An
/// instance of a family is the family's own cells read on the image of its symmetry.
#[inline(always)]
fn images(bits: u64) -> [u64; 8] {
    // (row, column) -> (column, row), by three delta swaps.
    let mut t = bits;
    let d = (t ^ (t >> 7)) & 0x00aa_00aa_00aa_00aa;
    t ^= d ^ (d << 7);
    let d = (t ^ (t >> 14)) & 0x0000_cccc_0000_cccc;
    t ^= d ^ (d << 14);
    let d = (t ^ (t >> 28)) & 0x0000_0000_f0f0_f0f0;
    t ^= d ^ (d << 28);
    // Each row's columns reversed.
    let mirror = |mut x: u64| {
        x = ((x >> 1) & 0x5555_5555_5555_5555) | ((x & 0x5555_5555_5555_5555) << 1);
        x = ((x >> 2) & 0x3333_3333_3333_3333) | ((x & 0x3333_3333_3333_3333) << 2);
        ((x >> 4) & 0x0f0f_0f0f_0f0f_0f0f) | ((x & 0x0f0f_0f0f_0f0f_0f0f) << 4)
    };
    let (mirrored, mirrored_t) = (mirror(bits), mirror(t));
    [
        bits,
        t.swap_bytes(),
        mirrored.swap_bytes(),
        mirrored_t,
        bits.swap_bytes(),
        mirrored,
        t,
        mirrored_t.swap_bytes(),
    ]
}

/// The bit mask of each family's cells (its instance under the identity).
const FAMILY_MASKS: [u64; FAMILY_LIST.len()] = {
    let mut masks = [0; FAMILY_LIST.len()];
    let mut family = 0;
    while family < FAMILY_LIST.len() {
        let cells = FAMILY_LIST[family].cells;
        let mut k = 0;
        while k < cells.len() {
            masks[family] |= 1 << (cells[k].0 * 8 + cells[k].1);
            k += 1;
        }
        family += 1;
    }
    masks
};

/// Where each family starts in a phase's weights (the full layout), and where the global
/// features start after them.
const FAMILY_STARTS: [u32; FAMILY_LIST.len()] = {
    let mut starts = [0; FAMILY_LIST.len()];
    let mut family = 1;
    while family < FAMILY_LIST.len() {
        starts[family] = starts[family - 1] + FAMILY_LIST[family - 1].size() as u32;
        family += 1;
    }
    starts
};
const GLOBALS_FULL: u32 = {
    let last = FAMILY_LIST.len() - 1;
    FAMILY_STARTS[last] + FAMILY_LIST[last].size() as u32
};

/// Weights of one phase in the full layout.
const FULL_LEN: usize = GLOBALS_FULL as usize + GLOBALS;

/// Each instance: its family and its symmetry's place in [`Symmetry::ALL`], in the order of
/// the layout's instances.
const INSTANCE_PLAN: [(u8, u8); INSTANCES] = {
    let mut plan = [(0, 0); INSTANCES];
    let (mut family, mut next) = (0, 0);
    while family < FAMILY_LIST.len() {
        let symmetries = FAMILY_LIST[family].symmetries;
        let mut k = 0;
        while k < symmetries.len() {
            let mut place = 0;
            while !matches_symmetry(Symmetry::ALL[place], symmetries[k]) {
                place += 1;
            }
            plan[next] = (family as u8, place as u8);
            next += 1;
            k += 1;
        }
        family += 1;
    }
    assert!(next == INSTANCES);
    plan
};

const fn matches_symmetry(a: Symmetry, b: Symmetry) -> bool {
    a as u8 == b as u8
}

/// Ten cells read lowest bit first as base-3 digits of 1: a family's configuration from the
/// bits `pext` gathers.
const TERNARY: [u16; 1024] = {
    let mut table = [0; 1024];
    let mut bits = 0;
    while bits < 1024 {
        let (mut value, mut power, mut rest) = (0, 1, bits);
        while rest != 0 {
            value += (rest & 1) as u16 * power;
            power *= 3;
            rest >>= 1;
        }
        table[bits] = value;
        bits += 1;
    }
    table
};

/// With `pext`: the board's eight images under the symmetries, then for each instance its
/// family's cells gathered from its image (one instruction per colour), read as base 3 from
/// one small table.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn pattern_indices_pext(player: u64, opponent: u64, indices: &mut [u32; ACTIVE]) {
    use std::arch::x86_64::_pext_u64;
    let (mine, theirs) = (images(player), images(opponent));
    macro_rules! read {
        ($($k:literal)*) => {$(
            let (family, symmetry) = INSTANCE_PLAN[$k];
            let mask = FAMILY_MASKS[family as usize];
            let p = _pext_u64(mine[symmetry as usize], mask) as usize;
            let o = _pext_u64(theirs[symmetry as usize], mask) as usize;
            indices[$k] = u32::from(TERNARY[p]) + 2 * u32::from(TERNARY[o]);
        )*};
    }
    read!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29
        30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57);
}

/// The pattern indices of a position kept up to date move by move instead of computed
/// afresh: the other way engines get them. Each index is kept twice, as the side to move
/// reads it (its discs 1, the opponent's 2) and as the opponent does, since the two swap
/// roles at every move. The search recomputes indices at its leaves instead, which costs
/// less here (see docs/benchmarks/history.md, "What it costs"); this stays to measure
/// that, and is checked against the recomputation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IncrementalIndices {
    mine: [u16; INSTANCES],
    theirs: [u16; INSTANCES],
}

impl IncrementalIndices {
    /// The indices of the position with `player` to move against `opponent`.
    pub fn new(player: u64, opponent: u64) -> IncrementalIndices {
        let (mut mine, mut theirs) = ([0u32; ACTIVE], [0u32; ACTIVE]);
        pattern_indices(player, opponent, &mut mine);
        pattern_indices(opponent, player, &mut theirs);
        IncrementalIndices {
            mine: std::array::from_fn(|k| mine[k] as u16),
            theirs: std::array::from_fn(|k| theirs[k] as u16),
        }
    }

    /// The indices after the side to move plays `mv` (a bit index) turning over `flips`,
    /// as the new side to move reads them.
    #[inline]
    pub fn play(&self, mv: u32, flips: u64) -> IncrementalIndices {
        let terms = &layout().terms;
        let (mut mine, mut theirs) = (self.mine, self.theirs);
        // The new disc: empty (0) becomes the mover's (1 as it reads, 2 as the other does).
        for &(instance, power) in &terms[mv as usize] {
            mine[usize::from(instance)] += power;
            theirs[usize::from(instance)] += 2 * power;
        }
        // Each flip: the other side's (2 as the mover reads, 1 as the other does) becomes
        // the mover's.
        let mut rest = flips;
        while rest != 0 {
            let square = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            for &(instance, power) in &terms[square] {
                mine[usize::from(instance)] -= power;
                theirs[usize::from(instance)] += power;
            }
        }
        IncrementalIndices {
            mine: theirs,
            theirs: mine,
        }
    }

    /// The indices with the other side to move (a pass).
    pub fn pass(&self) -> IncrementalIndices {
        IncrementalIndices {
            mine: self.theirs,
            theirs: self.mine,
        }
    }

    /// Each instance's index as the side to move reads it (within its family).
    pub fn indices(&self) -> &[u16; INSTANCES] {
        &self.mine
    }
}

/// Each pattern instance's index within its family, as the side to move (`player`) reads
/// it: what [`IncrementalIndices`] keeps up to date.
pub fn instance_indices(player: u64, opponent: u64) -> [u16; INSTANCES] {
    let mut indices = [0u32; ACTIVE];
    pattern_indices(player, opponent, &mut indices);
    std::array::from_fn(|k| indices[k] as u16)
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng, rngs::StdRng};

    use super::*;
    use crate::{Board, Color, Shape, Square};

    /// Random positions from random games (so every phase is seen).
    pub(super) fn positions(count: usize, seed: u64) -> Vec<(u64, u64)> {
        use super::super::Node;
        let mut rng = StdRng::seed_from_u64(seed);
        let mut out = Vec::new();
        while out.len() < count {
            let mut node = Node8::from_board(&Board::standard(Shape::STANDARD), Color::Black);
            loop {
                let mut moves = node.moves();
                if moves == 0 {
                    node = node.pass();
                    if node.moves() == 0 {
                        break;
                    }
                    continue;
                }
                let pick = rng.random_range(0..moves.count_ones());
                for _ in 0..pick {
                    moves &= moves - 1;
                }
                node = node.play(moves.trailing_zeros());
                out.push((node.player(), node.opponent()));
            }
        }
        out.truncate(count);
        out
    }

    /// The index of each instance read from a `Board`, square by square.
    fn reference(player: u64, opponent: u64) -> Vec<u32> {
        let node = Node8::new(player, opponent);
        let board = node.to_board(Color::Black);
        let mut indices = Vec::new();
        for family in &FAMILIES {
            for &symmetry in family.symmetries {
                let mut index = 0;
                for (k, &(row, column)) in family.cells.iter().enumerate() {
                    let (row, column) = symmetry.apply(row, column);
                    let digit = match board.at(Square::new(row as u8, column as u8)) {
                        None => 0,
                        Some(Color::Black) => 1,
                        Some(Color::White) => 2,
                    };
                    index += digit * 3u32.pow(k as u32);
                }
                indices.push(index);
            }
        }
        indices
    }

    #[test]
    fn fifty_eight_distinct_instances_in_fourteen_families() {
        let layout = layout();
        assert_eq!(layout.instances.len(), INSTANCES);
        let mut masks: Vec<u64> = layout.instances.iter().map(Instance::mask).collect();
        masks.sort_unstable();
        masks.dedup();
        assert_eq!(masks.len(), INSTANCES, "no instance twice");
        for instance in &layout.instances {
            let family = &FAMILIES[instance.family];
            assert_eq!(instance.mask().count_ones() as usize, family.cells.len());
        }
    }

    #[test]
    fn families_follow_one_another_in_the_full_layout() {
        let mut start = 0;
        for (family, &constant) in FAMILIES.iter().zip(&FAMILY_STARTS) {
            assert_eq!(constant as usize, start, "{}", family.name);
            start += family.size();
        }
        assert_eq!(GLOBALS_FULL as usize, start);
        assert_eq!(FULL_LEN, start + GLOBALS);
    }

    #[test]
    fn images_read_the_board_through_each_symmetry() {
        for (player, _) in positions(200, 3) {
            for (symmetry, image) in Symmetry::ALL.into_iter().zip(images(player)) {
                for square in 0..64u32 {
                    let (row, column) = symmetry.apply(square / 8, square % 8);
                    assert_eq!(
                        image >> square & 1,
                        player >> (row * 8 + column) & 1,
                        "{symmetry:?}, square {square}"
                    );
                }
            }
        }
    }

    #[test]
    fn each_instance_is_its_familys_cells_carried_by_its_symmetry() {
        let layout = layout();
        for (instance, &(family, place)) in layout.instances.iter().zip(&INSTANCE_PLAN) {
            assert_eq!(instance.family, usize::from(family));
            let carried = Symmetry::ALL[usize::from(place)].bits(FAMILY_MASKS[instance.family]);
            assert_eq!(carried, instance.mask());
            // Read in increasing bit order: pext gathers the cells in reading order.
            let cells = FAMILIES[instance.family].cells;
            assert!(
                cells
                    .windows(2)
                    .all(|w| w[0].0 * 8 + w[0].1 < w[1].0 * 8 + w[1].1)
            );
        }
    }

    #[test]
    fn pattern_indices_equal_a_reading_of_the_board() {
        for (player, opponent) in positions(3000, 1) {
            let expected = reference(player, opponent);
            let mut portable = [0u32; ACTIVE];
            pattern_indices_portable(player, opponent, &mut portable);
            assert_eq!(&portable[..INSTANCES], &expected[..]);
            let mut chosen = [0u32; ACTIVE];
            pattern_indices(player, opponent, &mut chosen);
            assert_eq!(&chosen[..INSTANCES], &expected[..]);
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("bmi2") {
                let mut pext = [0u32; ACTIVE];
                // SAFETY: BMI2 was just detected.
                unsafe { pattern_indices_pext(player, opponent, &mut pext) };
                assert_eq!(&pext[..INSTANCES], &expected[..]);
            }
        }
    }

    #[test]
    fn incremental_indices_equal_the_recomputation_over_random_games() {
        use super::super::Node;
        let mut rng = StdRng::seed_from_u64(6);
        for _ in 0..200 {
            let mut node = Node8::from_board(&Board::standard(Shape::STANDARD), Color::Black);
            let mut kept = IncrementalIndices::new(node.player(), node.opponent());
            loop {
                assert_eq!(
                    *kept.indices(),
                    instance_indices(node.player(), node.opponent()),
                    "{node:?}"
                );
                let mut moves = node.moves();
                if moves == 0 {
                    node = node.pass();
                    kept = kept.pass();
                    if node.moves() == 0 {
                        break;
                    }
                    continue;
                }
                for _ in 0..rng.random_range(0..moves.count_ones()) {
                    moves &= moves - 1;
                }
                let mv = moves.trailing_zeros();
                let flips = node.flips(mv);
                kept = kept.play(mv, flips);
                node = node.play(mv);
            }
        }
    }

    #[test]
    fn every_feature_is_inside_its_phase_and_folds() {
        let layout = layout();
        for (player, opponent) in positions(500, 2) {
            let features = Features::of(player, opponent);
            assert!(features.phase < PHASES);
            assert!(
                features
                    .indices
                    .iter()
                    .all(|&index| (index as usize) < FULL_LEN)
            );
            assert!(
                features
                    .folded()
                    .iter()
                    .all(|&index| (index as usize) < layout.folded_len())
            );
        }
    }

    #[test]
    fn symmetric_positions_evaluate_equal() {
        let mut rng = StdRng::seed_from_u64(3);
        let phases: Vec<Vec<i16>> = (0..PHASES)
            .map(|_| {
                (0..folded_len())
                    .map(|_| rng.random_range(-300..300))
                    .collect()
            })
            .collect();
        let weights = PatternWeights::from_folded(&phases);
        for (player, opponent) in positions(400, 4) {
            let score = weights.evaluate(player, opponent);
            for symmetry in Symmetry::ALL {
                let (p, o) = (symmetry.bits(player), symmetry.bits(opponent));
                assert_eq!(weights.evaluate(p, o), score, "{symmetry:?}");
            }
        }
    }

    #[test]
    fn a_search_evaluates_as_the_weights_do() {
        use crate::{WinRule, engine::eval::Evaluator};
        let mut rng = StdRng::seed_from_u64(8);
        let phases: Vec<Vec<i16>> = (0..PHASES)
            .map(|_| {
                (0..folded_len())
                    .map(|_| rng.random_range(-99..99))
                    .collect()
            })
            .collect();
        let weights: &'static PatternWeights =
            Box::leak(Box::new(PatternWeights::from_folded(&phases)));
        for (player, opponent) in positions(500, 9) {
            let node = Node8::new(player, opponent);
            let expected = weights.evaluate(player, opponent);
            assert_eq!(
                Evaluator::Patterns(weights).evaluate(&node, WinRule::MostDiscs),
                expected
            );
            #[cfg(target_arch = "x86_64")]
            if let Some(fast) = super::super::node8::Avx2Node8::new(node) {
                assert_eq!(
                    Evaluator::Patterns(weights).evaluate(&fast, WinRule::MostDiscs),
                    expected
                );
            }
        }
    }

    #[test]
    fn folding_round_trips() {
        let mut rng = StdRng::seed_from_u64(5);
        let phases: Vec<Vec<i16>> = (0..PHASES)
            .map(|_| (0..folded_len()).map(|_| rng.random()).collect())
            .collect();
        let weights = PatternWeights::from_folded(&phases);
        assert_eq!(weights.to_folded(), phases);
    }

    #[test]
    fn phases_by_empty_squares() {
        assert_eq!(phase(60), 0);
        assert_eq!(phase(59), 0);
        assert_eq!(phase(58), 1);
        assert_eq!(phase(57), 1);
        assert_eq!(phase(4), 28);
        assert_eq!(phase(2), 29);
        assert_eq!(phase(0), 29);
        assert_eq!(
            PatternWeights::zero().evaluate(0x10_0000_0000, 0x0800_0000),
            0
        );
    }
}
