//! Pattern families for any board shape, from 4 × 4 to 16 × 16: the 8 × 8 families of
//! [`super`] (edges with their X-squares, corners 3 × 3 and 2 × 5, diagonals, inner lines)
//! drawn for `rows` × `columns`, and carried by the symmetries the rectangle has (four, or
//! eight on a square board) to make their instances.
//!
//! A family is drawn once, from the top left corner; where the board is not square its
//! transpose (the left edge where the family reads the top one) is a family of its own, as
//! the two differ in length and in what lies around them. Lines longer than 8 cells are read
//! from each corner, 8 cells long, so that a family never has more than 3^10 configurations.
//! Where two symmetries carry a family onto the same cells (a whole edge read backwards), the
//! family is its own mirror image: a configuration and its mirror share one weight.

use crate::{Shape, Square};

use super::super::symmetry::Symmetry;

/// Longest line a family reads.
const LONGEST_LINE: u8 = 8;

/// A pattern family of one board shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapedFamily {
    /// A short name, for people: `edge + 2X`, `corner 3x3`, `line 2 (columns)`.
    pub name: String,
    /// Its cells in reading order (its first instance).
    pub cells: Vec<Square>,
    /// `Some(order)` if the family is its own mirror image: reading cell `order[k]` where
    /// it reads cell `k` gives a configuration that shares the weight.
    pub mirror: Option<Vec<usize>>,
}

impl ShapedFamily {
    /// Configurations: 3 to the number of cells.
    pub fn size(&self) -> usize {
        3usize.pow(self.cells.len() as u32)
    }
}

/// One instance of a family: its cells, read in the family's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapedInstance {
    /// Its family.
    pub family: usize,
    /// Its cells, in the family's reading order.
    pub cells: Vec<Square>,
}

/// The pattern families and instances of one board shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternSet {
    shape: Shape,
    families: Vec<ShapedFamily>,
    instances: Vec<ShapedInstance>,
    /// For each square (by [`Square::index`]): the instances it is a cell of, with its
    /// digit's power of 3 there.
    terms: Vec<Vec<(u16, u32)>>,
}

impl PatternSet {
    /// The families of `shape`.
    pub fn new(shape: Shape) -> PatternSet {
        let (rows, columns) = (shape.rows(), shape.columns());
        let symmetries = Symmetry::of(rows, columns);
        let mut families: Vec<ShapedFamily> = Vec::new();
        let mut instances: Vec<ShapedInstance> = Vec::new();
        // The cell sets of the instances made so far: a family drawn again (a transpose on a
        // square board) is dropped.
        let mut seen: Vec<Vec<Square>> = Vec::new();
        for (name, cells) in drawings(rows, columns) {
            let mut own: Vec<Vec<Square>> = Vec::new();
            let mut mirror = None;
            for &symmetry in symmetries {
                let image: Vec<Square> = cells
                    .iter()
                    .map(|&square| symmetry.apply(square, rows, columns))
                    .collect();
                let mut set = image.clone();
                set.sort();
                match own.iter().position(|other| sorted(other) == set) {
                    Some(first) => {
                        // Two readings of the same cells: the family is its own mirror.
                        // The second reads at `k` the cell the first reads at `order[k]`.
                        let order: Vec<usize> = image
                            .iter()
                            .map(|square| own[first].iter().position(|s| s == square).unwrap())
                            .collect();
                        if mirror.is_none() && order.iter().enumerate().any(|(k, &o)| k != o) {
                            mirror = Some(order);
                        }
                    }
                    None => own.push(image),
                }
            }
            if own.iter().any(|cells| seen.contains(&sorted(cells))) {
                continue;
            }
            let family = families.len();
            for cells in own {
                seen.push(sorted(&cells));
                instances.push(ShapedInstance { family, cells });
            }
            families.push(ShapedFamily {
                name,
                cells,
                mirror,
            });
        }
        let mut terms = vec![Vec::new(); 256];
        for (index, instance) in instances.iter().enumerate() {
            for (k, square) in instance.cells.iter().enumerate() {
                terms[square.index()].push((index as u16, 3u32.pow(k as u32)));
            }
        }
        PatternSet {
            shape,
            families,
            instances,
            terms,
        }
    }

    /// The board shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The families, each once.
    pub fn families(&self) -> &[ShapedFamily] {
        &self.families
    }

    /// Every instance of every family.
    pub fn instances(&self) -> &[ShapedInstance] {
        &self.instances
    }

    /// Each instance's base-3 index within its family, as the side to move reads the board:
    /// `digit(square)` is 0 for an empty square, 1 for a disc of the side to move, 2 for
    /// one of its opponent.
    pub fn indices(&self, digit: impl Fn(Square) -> u32) -> Vec<u32> {
        self.instances
            .iter()
            .map(|instance| {
                instance
                    .cells
                    .iter()
                    .rev()
                    .fold(0, |index, &square| index * 3 + digit(square))
            })
            .collect()
    }

    /// The instances `square` is a cell of, with its digit's power of 3 in each.
    pub fn terms(&self, square: Square) -> &[(u16, u32)] {
        &self.terms[square.index()]
    }
}

/// Each instance's index as both sides read the board, kept up to date move by move (for a
/// search that evaluates at every node): the same as [`PatternSet::indices`] on the
/// position reached, without reading every cell again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapedIndices {
    /// As the side to move reads the board.
    mine: Vec<u32>,
    /// As its opponent reads it.
    theirs: Vec<u32>,
}

impl ShapedIndices {
    /// The indices of a position: `digit` as for [`PatternSet::indices`].
    pub fn new(set: &PatternSet, digit: impl Fn(Square) -> u32) -> ShapedIndices {
        let other = |square| [0, 2, 1][digit(square) as usize];
        ShapedIndices {
            mine: set.indices(&digit),
            theirs: set.indices(other),
        }
    }

    /// The indices after the side to move plays `mv` turning over `flips`, as the new side
    /// to move reads them.
    pub fn play(
        &self,
        set: &PatternSet,
        mv: Square,
        flips: impl IntoIterator<Item = Square>,
    ) -> ShapedIndices {
        let (mut mine, mut theirs) = (self.mine.clone(), self.theirs.clone());
        // The new disc: empty (0) becomes the mover's (1 as it reads, 2 as the other does).
        for &(instance, power) in set.terms(mv) {
            mine[usize::from(instance)] += power;
            theirs[usize::from(instance)] += 2 * power;
        }
        // Each flip: the other side's (2 as the mover reads, 1 as the other does) becomes
        // the mover's.
        for square in flips {
            for &(instance, power) in set.terms(square) {
                mine[usize::from(instance)] -= power;
                theirs[usize::from(instance)] += power;
            }
        }
        ShapedIndices {
            mine: theirs,
            theirs: mine,
        }
    }

    /// The indices with the other side to move (a pass).
    pub fn pass(&self) -> ShapedIndices {
        ShapedIndices {
            mine: self.theirs.clone(),
            theirs: self.mine.clone(),
        }
    }

    /// Each instance's index as the side to move reads the board.
    pub fn indices(&self) -> &[u32] {
        &self.mine
    }
}

/// The cells, sorted: an instance's cell set.
fn sorted(cells: &[Square]) -> Vec<Square> {
    let mut set = cells.to_vec();
    set.sort();
    set
}

/// The families drawn on a `rows` × `columns` board from its top left corner, with their
/// transposes (on every board: a square board drops them as repeats).
fn drawings(rows: u8, columns: u8) -> Vec<(String, Vec<Square>)> {
    let mut drawn = Vec::new();
    for transposed in [false, true] {
        // Drawn on the board as if its rows were `across` long and it had `down` of them;
        // transposed, every cell's row and column swap back.
        let (down, across) = if transposed {
            (columns, rows)
        } else {
            (rows, columns)
        };
        let at = |row: u8, column: u8| {
            if transposed {
                Square::new(column, row)
            } else {
                Square::new(row, column)
            }
        };
        let suffix = if transposed { " (columns)" } else { "" };
        let line = |row: u8| -> Vec<Square> {
            (0..across.min(LONGEST_LINE))
                .map(|column| at(row, column))
                .collect()
        };
        // The edge with its X-squares: both where the whole edge is read, one otherwise.
        let mut edge = line(0);
        edge.push(at(1, 1));
        if across <= LONGEST_LINE {
            edge.push(at(1, across - 2));
        }
        drawn.push((format!("edge + X{suffix}"), edge));
        drawn.push((
            format!("corner 3x3{suffix}"),
            (0..3)
                .flat_map(|row| (0..3).map(move |column| (row, column)))
                .map(|(row, column)| at(row, column))
                .collect(),
        ));
        let wide = across.min(5);
        drawn.push((
            format!("corner 2x{wide}{suffix}"),
            (0..2)
                .flat_map(|row| (0..wide).map(move |column| (row, column)))
                .map(|(row, column)| at(row, column))
                .collect(),
        ));
        // Diagonals from the corner and beside it, four cells long at least.
        for start in 0..across {
            let length = down.min(across - start).min(LONGEST_LINE);
            if length < 4 || start > 3 {
                break;
            }
            drawn.push((
                format!("diagonal {length} from column {}{suffix}", start + 1),
                (0..length).map(|k| at(k, start + k)).collect(),
            ));
        }
        // The inner lines parallel to the edge, up to the board's middle.
        for row in 1..(down / 2).min(4) {
            drawn.push((format!("line {}{suffix}", row + 1), line(row)));
        }
    }
    drawn
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every shape the library supports.
    fn shapes() -> impl Iterator<Item = Shape> {
        (4..=16).flat_map(|rows| (4..=16).map(move |columns| Shape::new(rows, columns).unwrap()))
    }

    #[test]
    fn instances_lie_on_the_board_and_are_carried_by_its_symmetries() {
        for shape in shapes() {
            let set = PatternSet::new(shape);
            let (rows, columns) = (shape.rows(), shape.columns());
            assert!(!set.families.is_empty());
            for instance in &set.instances {
                let family = &set.families[instance.family];
                assert_eq!(instance.cells.len(), family.cells.len());
                assert!(family.cells.len() <= 10, "{shape}: {}", family.name);
                let mut distinct = sorted(&instance.cells);
                distinct.dedup();
                assert_eq!(
                    distinct.len(),
                    instance.cells.len(),
                    "{shape}: {}",
                    family.name
                );
                assert!(instance.cells.iter().all(|&s| shape.contains(s)));
            }
            // Each symmetry carries every instance onto an instance of the same family.
            for &symmetry in Symmetry::of(rows, columns) {
                for instance in &set.instances {
                    let image: Vec<Square> = instance
                        .cells
                        .iter()
                        .map(|&s| symmetry.apply(s, rows, columns))
                        .collect();
                    assert!(
                        set.instances
                            .iter()
                            .any(|other| other.family == instance.family
                                && sorted(&other.cells) == sorted(&image)),
                        "{shape}: {symmetry:?} of {}",
                        set.families[instance.family].name
                    );
                }
            }
        }
    }

    #[test]
    fn the_8x8_board_has_the_8x8_families() {
        let set = PatternSet::new(Shape::STANDARD);
        let count = |name: &str| {
            let family = set.families.iter().position(|f| f.name == name).unwrap();
            set.instances.iter().filter(|i| i.family == family).count()
        };
        assert_eq!(count("edge + X"), 4);
        assert_eq!(count("corner 3x3"), 4);
        assert_eq!(count("corner 2x5"), 8);
        assert_eq!(count("diagonal 8 from column 1"), 2);
        assert_eq!(count("diagonal 7 from column 2"), 4);
        assert_eq!(count("line 4"), 4);
        assert!(set.families.iter().all(|f| !f.name.contains("columns")));
        assert!(set.families[0].mirror.is_some(), "an edge reads both ways");
    }

    #[test]
    fn a_rectangle_has_families_along_its_rows_and_its_columns() {
        let set = PatternSet::new(Shape::new(6, 10).unwrap());
        let names: Vec<&str> = set.families.iter().map(|f| f.name.as_str()).collect();
        assert!(names.contains(&"edge + X"));
        assert!(names.contains(&"edge + X (columns)"));
        let edge = &set.families[0];
        // The long edge (10) is read 8 cells from each corner, with one X-square.
        assert_eq!(edge.cells.len(), 9);
        assert!(edge.mirror.is_none());
        let family = names.iter().position(|&n| n == "edge + X").unwrap();
        assert_eq!(
            set.instances.iter().filter(|i| i.family == family).count(),
            4
        );
        let side = names
            .iter()
            .position(|&n| n == "edge + X (columns)")
            .unwrap();
        assert_eq!(
            set.families[side].cells.len(),
            8,
            "the short edge whole, both X"
        );
        assert_eq!(set.instances.iter().filter(|i| i.family == side).count(), 2);
    }

    /// The digit of `square` on `board` as `side` reads it.
    fn digit(board: &crate::Board, side: crate::Color) -> impl Fn(Square) -> u32 + '_ {
        move |square| match board.at(square) {
            None => 0,
            Some(color) if color == side => 1,
            Some(_) => 2,
        }
    }

    #[test]
    fn incremental_indices_equal_the_recomputation_on_every_shape_and_rule() {
        use crate::{AnyGame, Setup, Variant};
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for shape in shapes().filter(|s| (s.rows() + s.columns()) % 3 == 0) {
            let set = PatternSet::new(shape);
            for variant in Variant::ALL {
                let mut game = AnyGame::new(variant, Setup::standard(shape));
                let side = game.side_to_move().unwrap();
                let mut kept = ShapedIndices::new(&set, digit(game.board(), side));
                let mut to_move = side;
                while let Some(side) = game.side_to_move() {
                    if side != to_move {
                        kept = kept.pass();
                    }
                    let moves: Vec<Square> = game.legal_moves().iter().collect();
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let mv = moves[(state % moves.len() as u64) as usize];
                    let before = *game.board();
                    game.play(mv).unwrap();
                    let flips = before
                        .occupied()
                        .iter()
                        .filter(|&s| before.at(s) != game.board().at(s));
                    kept = kept.play(&set, mv, flips);
                    to_move = side.opponent();
                    let fresh = set.indices(digit(game.board(), to_move));
                    assert_eq!(kept.indices(), &fresh[..], "{shape} {variant:?} after {mv}");
                }
            }
        }
    }

    #[test]
    fn mirror_images_read_the_same_cells() {
        for shape in shapes() {
            let set = PatternSet::new(shape);
            for (index, family) in set.families.iter().enumerate() {
                let Some(order) = &family.mirror else {
                    continue;
                };
                let instance = set.instances.iter().find(|i| i.family == index).unwrap();
                let mirrored: Vec<Square> = order.iter().map(|&k| instance.cells[k]).collect();
                assert_eq!(sorted(&mirrored), sorted(&instance.cells));
                // Reading it twice in mirror order gives the first reading back.
                let twice: Vec<usize> = order.iter().map(|&k| order[k]).collect();
                assert!(
                    twice.iter().enumerate().all(|(k, &o)| k == o),
                    "{shape}: {}",
                    family.name
                );
            }
        }
    }
}
