//! Perft speed on the standard 8x8 start, side by side with the `magpie` crate (a fast Rust
//! Othello library with the same perft convention), measured in the same run.
//!
//! ```text
//! cargo bench --bench perft            # depth 11, 5 rounds
//! cargo bench --bench perft -- 12 3    # depth 12, 3 rounds
//! ```
//! Each round times both, in alternating order; the report gives medians and their ratio.

use std::time::{Duration, Instant};

use magpie::othello::{Board as MagpieBoard, Stone};
use othello::{Board, Color, Full, Shape, engine::perft};

fn main() {
    let numbers: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let depth = numbers.first().copied().unwrap_or(11);
    let rounds = numbers.get(1).copied().unwrap_or(5) as usize;
    let start = Board::standard(Shape::STANDARD);

    let ours = || perft::<Full>(&start, Color::Black, depth);
    let theirs = || magpie_perft(&MagpieBoard::standard(), Stone::Black, false, depth);
    let (mut our_times, mut their_times) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let time = |f: &dyn Fn() -> u64, times: &mut Vec<Duration>| {
            let begin = Instant::now();
            let leaves = std::hint::black_box(f());
            times.push(begin.elapsed());
            leaves
        };
        let (a, b) = if round % 2 == 0 {
            (time(&ours, &mut our_times), time(&theirs, &mut their_times))
        } else {
            let b = time(&theirs, &mut their_times);
            (time(&ours, &mut our_times), b)
        };
        assert_eq!(a, b, "leaf counts differ at depth {depth}");
    }
    let median = |times: &mut Vec<Duration>| {
        times.sort();
        times[times.len() / 2].as_secs_f64()
    };
    let (ours, theirs) = (median(&mut our_times), median(&mut their_times));
    let leaves = perft::<Full>(&start, Color::Black, depth) as f64;
    println!("perft {depth} from the 8x8 start ({leaves} leaves), medians of {rounds} rounds:");
    println!(
        "  othello {ours:>8.3} s  {:>7.1} Mleaves/s",
        leaves / ours / 1e6
    );
    println!(
        "  magpie  {theirs:>8.3} s  {:>7.1} Mleaves/s",
        leaves / theirs / 1e6
    );
    println!("  magpie / othello: {:.2}x", theirs / ours);
}

/// Perft with magpie's board API: a pass counts as one ply, a finished game is one leaf.
fn magpie_perft(board: &MagpieBoard, stone: Stone, passed: bool, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = board.moves_for(stone);
    if moves.count_set() == 0 {
        return if passed {
            1
        } else {
            magpie_perft(board, stone.flip(), true, depth - 1)
        };
    }
    if depth == 1 {
        return u64::from(moves.count_set());
    }
    moves
        .hot_bits()
        .map(|position| {
            let mut child = board.clone();
            child.play(stone, position);
            magpie_perft(&child, stone.flip(), false, depth - 1)
        })
        .sum()
}
