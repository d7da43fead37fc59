use rand::{SeedableRng, rngs::StdRng};

use super::*;
use crate::{Board, Color, Shape};

fn start() -> Node8 {
    Node8::from_board(&Board::standard(Shape::STANDARD), Color::Black)
}

#[test]
fn symmetries_are_the_board_s_and_undo_themselves() {
    for r in 0..8u32 {
        for c in 0..8u32 {
            assert_eq!(transpose(1 << (8 * r + c)), 1 << (8 * c + r));
            assert_eq!(mirror_columns(1 << (8 * r + c)), 1 << (8 * r + 7 - c));
        }
    }
    let mut images = HashSet::new();
    for symmetry in Symmetry::ALL {
        for index in 0..64 {
            assert_eq!(symmetry.inverse().square(symmetry.square(index)), index);
        }
        images.insert(symmetry.board(0x0000_0000_0000_0107));
    }
    assert_eq!(
        images.len(),
        8,
        "eight different images of an asymmetric shape"
    );
    // The four first moves are one position.
    let node = start();
    let mut keys = HashSet::new();
    let mut moves = node.moves();
    while let Some(mv) = moves.pop() {
        keys.insert(canonical(&node.play(mv)).0);
    }
    assert_eq!(keys.len(), 1);
}

/// A small book built by the real search: values are negamax through the book, moves come
/// back in the asking position's orientation, and the file round-trips.
#[test]
fn grows_chooses_and_round_trips() {
    let root = start();
    let mut book = Book::new();
    let mut tt = TranspositionTable::new(4);
    book.insert(
        &root,
        search_entry(&root, 4, Selectivity::NONE, Evaluator::Classic, &mut tt),
    );
    let options = GrowOptions {
        positions: 12,
        window: 4 * DISC,
        plies: 3,
        depth: 4,
        selectivity: Selectivity::NONE,
        eval: Evaluator::Classic,
    };
    let added = grow(&mut book, &root, &options, &|_| {});
    assert_eq!(added, book.len() - 1);
    assert!(added > 3, "{added}");

    // Every move of a book position is legal, and a move into the book is worth minus the
    // position it leads to.
    for node in [root, root.play(root.moves().trailing_zeros())] {
        let Some(moves) = book.moves(&node) else {
            continue;
        };
        assert_eq!(moves.len() as u32, node.moves().len());
        for mv in &moves {
            let index = node.index(mv.square).unwrap();
            assert!(node.moves().contains(index));
            let child = node.play(index);
            assert_eq!(mv.in_book, book.value(&child).is_some());
            if mv.in_book {
                assert_eq!(mv.score, -book.value(&child).unwrap());
            }
        }
        assert_eq!(book.value(&node), Some(moves[0].score));
    }
    // The opening is symmetric: f5, d6... are worth the same from any first move.
    let firsts = book.moves(&root).unwrap();
    assert!(
        firsts
            .iter()
            .all(|mv| mv.score == firsts[0].score && mv.in_book)
    );

    let mut rng = StdRng::seed_from_u64(1);
    let chosen = book.choose(&root, 0, &mut rng).unwrap();
    assert!(root.moves().contains(root.index(chosen).unwrap()));
    assert_eq!(book.choose(&Node8::new(1, 2), 0, &mut rng), None);

    let bytes = book.to_bytes();
    let read = Book::from_bytes(&bytes).unwrap();
    assert_eq!(read, book);
    let mut merged = Book::new();
    merged.merge(&read);
    assert_eq!(merged, book);
}

/// A damaged or truncated file, or one of another kind or version, is refused.
#[test]
fn damaged_books_are_refused() {
    let root = start();
    let mut book = Book::new();
    let mut tt = TranspositionTable::new(1);
    book.insert(
        &root,
        search_entry(&root, 2, Selectivity::NONE, Evaluator::Classic, &mut tt),
    );
    let bytes = book.to_bytes();
    assert_eq!(
        Book::from_bytes(&bytes[..bytes.len() - 1]),
        Err(BookError::Checksum)
    );
    assert_eq!(Book::from_bytes(&bytes[..9]), Err(BookError::Length));
    assert_eq!(Book::from_bytes(b"OTHEVAL\0"), Err(BookError::Magic));
    for at in 10..bytes.len() {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x10;
        assert_eq!(
            Book::from_bytes(&damaged),
            Err(BookError::Checksum),
            "byte {at}"
        );
    }
    let mut newer = bytes.clone();
    newer[8] = 2;
    assert_eq!(Book::from_bytes(&newer), Err(BookError::Version(2)));
    // A well-formed file whose moves are not legal is refused though its checksum is right.
    let mut body = bytes[..bytes.len() - 32].to_vec();
    let moves_at = 8 + 2 + 4 + 16 + 3;
    body[moves_at] = 0; // a1: not a legal first move
    let checksum = Sha256::digest(&body);
    body.extend_from_slice(&checksum);
    assert_eq!(Book::from_bytes(&body), Err(BookError::Position(0)));
    // The built-in book reads.
    let _ = Book::builtin();
}
