//! The symmetries of a rectangular board: four on any rectangle (the identity, the two
//! mirrors and the half turn), eight on a square one (the quarter turns and the two
//! diagonal mirrors too). A position that one of them maps onto itself has moves worth the
//! same: the solver searches one of each.

use super::node::{Node, SquareSet};
use crate::Square;

/// One symmetry of a `rows` × `columns` board, as a map of (row, column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Symmetry {
    /// Unchanged.
    Identity,
    /// A half turn.
    Rotate180,
    /// Top and bottom swapped.
    FlipVertical,
    /// Left and right swapped.
    FlipHorizontal,
    /// A quarter turn clockwise (square boards only).
    Rotate90,
    /// Three quarter turns clockwise (square boards only).
    Rotate270,
    /// Rows and columns swapped (square boards only).
    Transpose,
    /// About the other diagonal (square boards only).
    AntiTranspose,
}

impl Symmetry {
    /// All eight; the first four are those of every rectangle.
    pub(crate) const ALL: [Symmetry; 8] = [
        Symmetry::Identity,
        Symmetry::Rotate180,
        Symmetry::FlipVertical,
        Symmetry::FlipHorizontal,
        Symmetry::Rotate90,
        Symmetry::Rotate270,
        Symmetry::Transpose,
        Symmetry::AntiTranspose,
    ];

    /// The symmetries of a `rows` × `columns` board.
    pub(crate) fn of(rows: u8, columns: u8) -> &'static [Symmetry] {
        if rows == columns {
            &Symmetry::ALL
        } else {
            &Symmetry::ALL[..4]
        }
    }

    /// Where `square` goes on a `rows` × `columns` board (which must have this symmetry).
    pub(crate) fn apply(self, square: Square, rows: u8, columns: u8) -> Square {
        let (row, column) = (square.row(), square.column());
        let (last_row, last_column) = (rows - 1, columns - 1);
        let (row, column) = match self {
            Symmetry::Identity => (row, column),
            Symmetry::Rotate180 => (last_row - row, last_column - column),
            Symmetry::FlipVertical => (last_row - row, column),
            Symmetry::FlipHorizontal => (row, last_column - column),
            Symmetry::Rotate90 => (column, last_row - row),
            Symmetry::Rotate270 => (last_column - column, row),
            Symmetry::Transpose => (column, row),
            Symmetry::AntiTranspose => (last_column - column, last_row - row),
        };
        Square::new(row, column)
    }
}

/// The board's size and the symmetries other than the identity that map `node` onto
/// itself (none, almost always).
fn fixing<N: Node>(node: &N) -> (u8, u8, Vec<Symmetry>) {
    let squares = |set: N::Set| {
        let mut set = set;
        std::iter::from_fn(move || set.pop()).map(|index| node.square(index))
    };
    let (rows, columns) = squares(node.layout().cells).fold((0, 0), |(rows, columns), s| {
        (rows.max(s.row() + 1), columns.max(s.column() + 1))
    });
    let maps_onto_itself = |symmetry: Symmetry, set: N::Set| {
        squares(set).all(|square| {
            node.index(symmetry.apply(square, rows, columns))
                .is_some_and(|index| set.contains(index))
        })
    };
    let fixing = Symmetry::of(rows, columns)[1..]
        .iter()
        .copied()
        .filter(|&symmetry| {
            maps_onto_itself(symmetry, node.player()) && maps_onto_itself(symmetry, node.opponent())
        })
        .collect();
    (rows, columns, fixing)
}

/// The moves of `node` to skip because a symmetry of the position carries them onto a
/// move of lower index that is kept (each orbit keeps its lowest move): they are worth the
/// same. Empty when the position has no symmetry but the identity (almost always).
pub(crate) fn mirrored_moves<N: Node>(node: &N) -> N::Set {
    let (rows, columns, fixing) = fixing(node);
    let mut mirrored = N::Set::EMPTY;
    if fixing.is_empty() {
        return mirrored;
    }
    let mut moves = node.moves();
    while let Some(index) = moves.pop() {
        let square = node.square(index);
        if fixing
            .iter()
            .any(|symmetry| symmetry.apply(square, rows, columns) < square)
        {
            mirrored = mirrored | N::Set::single(index);
        }
    }
    mirrored
}

/// `square` and every square a symmetry of `node` maps it onto, in order: moves there are
/// worth the same as a move on `square`.
pub(crate) fn equivalent_squares<N: Node>(node: &N, square: Square) -> Vec<Square> {
    let (rows, columns, fixing) = fixing(node);
    let mut squares: Vec<Square> = std::iter::once(square)
        .chain(
            fixing
                .iter()
                .map(|symmetry| symmetry.apply(square, rows, columns)),
        )
        .collect();
    squares.sort();
    squares.dedup();
    squares
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        Board, Color, Full, Shape, Simple, engine::GridNode, engine::Node8, engine::SmallNode,
    };

    #[test]
    fn symmetries_map_the_board_onto_itself() {
        for (rows, columns) in [(4, 6), (6, 6), (5, 7), (16, 4)] {
            let shape = Shape::new(rows, columns).unwrap();
            for &symmetry in Symmetry::of(rows, columns) {
                let mut seen: Vec<Square> = shape
                    .squares()
                    .map(|s| symmetry.apply(s, rows, columns))
                    .collect();
                seen.sort();
                seen.dedup();
                assert_eq!(seen.len(), shape.squares().count(), "{symmetry:?}");
                assert!(seen.iter().all(|&s| shape.contains(s)));
            }
        }
    }

    #[test]
    fn the_start_keeps_one_move_of_each_kind() {
        // On a square board the four first moves are one orbit; on a rectangle, two.
        let square = Board::standard(Shape::new(6, 6).unwrap());
        let node = SmallNode::<Full>::from_board(&square, Color::Black).unwrap();
        assert_eq!(node.moves().len() - mirrored_moves(&node).len(), 1);
        let node = Node8::from_board(&Board::standard(Shape::STANDARD), Color::Black);
        assert_eq!(mirrored_moves(&node).len(), 3);
        let wide = Board::standard(Shape::new(4, 6).unwrap());
        let node = SmallNode::<Full>::from_board(&wide, Color::Black).unwrap();
        assert_eq!(node.moves().len() - mirrored_moves(&node).len(), 2);
        let big = Board::standard(Shape::new(10, 12).unwrap());
        let node = GridNode::<Simple>::from_board(&big, Color::Black);
        let kept = node.moves().count() - mirrored_moves(&node).count();
        assert_eq!(
            kept * 2,
            node.moves().count(),
            "a half turn pairs the moves"
        );
        // After a move the start's symmetry is gone (but for a diagonal on a square).
        let after = node.play(node.moves().first().unwrap());
        assert!(mirrored_moves(&after).is_empty());
    }
}
