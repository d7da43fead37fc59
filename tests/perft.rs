//! Perft: the leaf counts in `fixtures/perft/*.perft`, and the move generators against the
//! naive reference on random positions of every shape under both rule sets.
//!
//! Depths above 9 are `--ignored`: `cargo test --release --test perft -- --ignored`.

mod reference;

use std::path::Path;

use othello::{
    Board, Color, Full, RuleSet, Setup, Shape, Simple, Variant,
    engine::{GridNode, Node8, perft, perft_nodes},
    on_rules,
};
use proptest::prelude::*;

/// Depths up to this run in `cargo test`.
const QUICK_DEPTH: u32 = 9;

struct PerftCase {
    file: String,
    variant: Variant,
    board: Board,
    side: Color,
    depth: u32,
    leaves: u64,
}

/// Every `perft` line of every fixture file.
fn cases() -> Vec<PerftCase> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut cases = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(root.join("perft"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "perft"))
        .collect();
    files.sort();
    for path in files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let (mut variant, mut position) = (Variant::Full, None);
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (key, value) = line.split_once(' ').expect("key value");
            match key {
                "rules" => variant = value.parse().unwrap(),
                "position" => {
                    let setup = match value.strip_prefix("standard ") {
                        Some(size) => {
                            let (rows, columns) = size.split_once('x').unwrap();
                            let shape = Shape::new(rows.parse().unwrap(), columns.parse().unwrap())
                                .unwrap();
                            Setup::standard(shape)
                        }
                        None => std::fs::read_to_string(root.join(value))
                            .unwrap()
                            .parse::<Setup>()
                            .unwrap(),
                    };
                    position = Some((setup.board, setup.first_mover));
                }
                "perft" => {
                    let (depth, leaves) = value.split_once(' ').unwrap();
                    let (board, side) = position.expect("a position before perft lines");
                    cases.push(PerftCase {
                        file: file.clone(),
                        variant,
                        board,
                        side,
                        depth: depth.parse().unwrap(),
                        leaves: leaves.parse().unwrap(),
                    });
                }
                _ => panic!("{file}: unknown line {line:?}"),
            }
        }
    }
    cases
}

fn run(case: &PerftCase) -> u64 {
    on_rules!(case.variant, |R| perft::<R>(
        &case.board,
        case.side,
        case.depth
    ))
}

#[test]
fn fixture_counts_up_to_depth_9() {
    let cases = cases();
    assert!(
        cases
            .iter()
            .any(|c| c.file == "full-8x8.perft" && c.depth == QUICK_DEPTH)
    );
    for case in cases.iter().filter(|c| c.depth <= QUICK_DEPTH) {
        assert_eq!(run(case), case.leaves, "{} depth {}", case.file, case.depth);
    }
}

#[test]
#[ignore = "slow: cargo test --release --test perft -- --ignored"]
fn fixture_counts_beyond_depth_9() {
    for case in cases().iter().filter(|c| c.depth > QUICK_DEPTH) {
        assert_eq!(run(case), case.leaves, "{} depth {}", case.file, case.depth);
    }
}

/// Perft straight from the rules' wording, on a grid of characters.
fn naive_perft(grid: &reference::Grid, simple: bool, side: char, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let other = if side == 'B' { 'W' } else { 'B' };
    let moves = reference::legal_moves(grid, simple, side);
    if moves.is_empty() {
        if reference::legal_moves(grid, simple, other).is_empty() {
            return 1;
        }
        return naive_perft(grid, simple, other, depth - 1);
    }
    moves
        .into_iter()
        .map(|(r, c)| {
            let mut child = grid.clone();
            for (fr, fc) in reference::flips(grid, simple, side, r, c) {
                child[fr][fc] = side;
            }
            child[r][c] = side;
            naive_perft(&child, simple, other, depth - 1)
        })
        .sum()
}

fn grid_of(board: &Board) -> reference::Grid {
    board
        .to_string()
        .lines()
        .map(|row| row.split(' ').map(|c| c.chars().next().unwrap()).collect())
        .collect()
}

/// A random board of `shape`: each cell empty, black or white.
fn random_board(shape: Shape, cells: &[u8], density: u8) -> Board {
    let mut board = Board::empty(shape);
    for (square, &cell) in shape.squares().zip(cells) {
        if cell % 100 < density {
            let color = if cell % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            board.set(square, Some(color));
        }
    }
    board
}

fn grid_perft<R: RuleSet>(board: &Board, side: Color, depth: u32) -> u64 {
    perft_nodes(&GridNode::<R>::from_board(board, side), depth)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn the_general_generator_agrees_with_the_naive_one(
        rows in 4u8..=16,
        columns in 4u8..=16,
        cells in prop::collection::vec(any::<u8>(), 256),
        density in 5u8..90,
        white in any::<bool>(),
    ) {
        let shape = Shape::new(rows, columns).unwrap();
        let board = random_board(shape, &cells, density);
        let side = if white { Color::White } else { Color::Black };
        let grid = grid_of(&board);
        let letter = side.letter();
        // Dense boards have few moves, so they can go deeper within the same time.
        let depth = if density > 60 { 3 } else { 2 };
        prop_assert_eq!(grid_perft::<Full>(&board, side, depth), naive_perft(&grid, false, letter, depth));
        prop_assert_eq!(grid_perft::<Simple>(&board, side, depth), naive_perft(&grid, true, letter, depth));
    }

    #[test]
    fn the_8x8_fast_path_agrees_with_the_general_generator(
        cells in prop::collection::vec(any::<u8>(), 64),
        density in 5u8..95,
        white in any::<bool>(),
    ) {
        let board = random_board(Shape::STANDARD, &cells, density);
        let side = if white { Color::White } else { Color::Black };
        // `perft::<Full>` takes the fast path on 8x8 (with AVX2 where the processor has it).
        prop_assert_eq!(perft::<Full>(&board, side, 3), grid_perft::<Full>(&board, side, 3));
        prop_assert_eq!(
            perft_nodes(&Node8::from_board(&board, side), 3),
            grid_perft::<Full>(&board, side, 3)
        );
    }
}
