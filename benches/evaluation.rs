//! What the learned evaluation costs and gains, each figure measured against the
//! hand-written evaluation in the same run (rounds alternate, medians reported):
//!
//! 1. a static evaluation, on positions from random games;
//! 2. the pattern indices of a position computed afresh (as the search does at its leaves)
//!    against kept up to date from the position before (`IncrementalIndices`);
//! 3. nodes a second of a fixed-depth search from positions of every phase;
//! 4. the exact solver on FFO #40-#49 with its far-from-the-end ordering searches on
//!    either evaluation (`--solver`; minutes).
//!
//! ```text
//! cargo bench --bench evaluation                  # 1-3 with the built-in weights
//! cargo bench --bench evaluation -- WEIGHTS.bin   # with a weights file
//! cargo bench --bench evaluation -- --solver      # 4 as well
//! ```

use std::{
    hint::black_box,
    time::{Duration, Instant},
};

use othello::{
    Obf, WinRule,
    engine::{
        Goal, Limits, Node, Node8, SearchOptions, TranspositionTable, endgame,
        eval::Evaluator,
        pattern::{IncrementalIndices, PatternWeights, instance_indices},
        search,
    },
};
use rand::{RngExt, SeedableRng, rngs::StdRng};

/// A move that led to a position: its square, its flips, and whether the side that did
/// not move then had to pass (so the mover is to move again).
type Step = Option<(u32, u64, bool)>;

/// Positions of random games, each with the move that led to it (None at the start).
fn walk(games: usize, seed: u64) -> Vec<(Node8, Step)> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut node = Node8::new(0x0000_0008_1000_0000, 0x0000_0010_0800_0000);
        out.push((node, None));
        loop {
            let mut moves = node.moves();
            if moves == 0 {
                node = node.pass();
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
            node = node.play(mv);
            let passed = node.moves() == 0 && node.pass().moves() != 0;
            if passed {
                node = node.pass();
            }
            out.push((node, Some((mv, flips, passed))));
        }
    }
    out
}

/// The median of `rounds` timings of `work`, per item.
fn median_per_item(rounds: usize, items: usize, mut work: impl FnMut() -> u64) -> f64 {
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            black_box(work());
            start.elapsed()
        })
        .collect();
    times.sort();
    times[rounds / 2].as_secs_f64() / items as f64
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let solver = args.iter().any(|a| a == "--solver");
    let weights: &'static PatternWeights = match args.iter().find(|a| !a.starts_with("--")) {
        Some(path) => Box::leak(Box::new(
            PatternWeights::from_bytes(&std::fs::read(path).expect("a weights file"))
                .expect("a valid weights file"),
        )),
        None => othello::engine::pattern::builtin(),
    };
    let learned = Evaluator::Patterns(weights);
    let rule = WinRule::MostDiscs;

    let positions = walk(4000, 1);
    let count = positions.len();
    println!("{count} positions from 4,000 random games; medians of 9 rounds");
    let (mut classic, mut patterns) = (Vec::new(), Vec::new());
    for round in 0..9 {
        let run = |eval: Evaluator, into: &mut Vec<f64>| {
            into.push(median_per_item(1, count, || {
                positions
                    .iter()
                    .map(|(node, _)| eval.evaluate(node, rule) as u64)
                    .sum()
            }))
        };
        if round % 2 == 0 {
            run(Evaluator::Classic, &mut classic);
            run(learned, &mut patterns);
        } else {
            run(learned, &mut patterns);
            run(Evaluator::Classic, &mut classic);
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (c, p) = (median(&mut classic), median(&mut patterns));
    println!(
        "static evaluation: classic {:.0} ns, learned {:.0} ns ({:.2}x)",
        c * 1e9,
        p * 1e9,
        p / c
    );

    // Indices: afresh for each position, or updated from the one before.
    let fresh = median_per_item(9, count, || {
        positions
            .iter()
            .map(|(node, _)| u64::from(instance_indices(node.player(), node.opponent())[0]))
            .sum()
    });
    let incremental = median_per_item(9, count, || {
        let mut kept = IncrementalIndices::new(0x0000_0008_1000_0000, 0x0000_0010_0800_0000);
        let mut sum = 0u64;
        for (node, step) in &positions {
            kept = match step {
                None => IncrementalIndices::new(node.player(), node.opponent()),
                Some((mv, flips, false)) => kept.play(*mv, *flips),
                Some((mv, flips, true)) => kept.play(*mv, *flips).pass(),
            };
            sum += u64::from(kept.indices()[0]);
        }
        sum
    });
    println!(
        "pattern indices: afresh {:.0} ns, updated from the parent {:.0} ns",
        fresh * 1e9,
        incremental * 1e9
    );

    // Search: the same depth from positions of every phase.
    let roots: Vec<Node8> = positions
        .iter()
        .step_by(count / 40)
        .map(|(node, _)| *node)
        .filter(|node| node.moves() != 0 && node.empties().count_ones() > 14)
        .take(30)
        .collect();
    let depth = 8;
    let nodes_per_second = |eval: Evaluator| {
        let mut tt = TranspositionTable::new(16);
        let (mut nodes, start) = (0u64, Instant::now());
        for root in &roots {
            tt.clear();
            let options = SearchOptions::new(rule, Limits::depth(depth), eval);
            nodes += search(root, &options, &mut tt, None, &mut |_| {}).nodes;
        }
        (nodes, start.elapsed().as_secs_f64())
    };
    let (cn, ct) = nodes_per_second(Evaluator::Classic);
    let (pn, pt) = nodes_per_second(learned);
    println!(
        "depth-{depth} search from {} positions: classic {cn} nodes in {ct:.2} s ({:.2} M/s), learned {pn} nodes in {pt:.2} s ({:.2} M/s)",
        roots.len(),
        cn as f64 / ct / 1e6,
        pn as f64 / pt / 1e6
    );

    if solver {
        let suite = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/data/ffo40-59.obf"
        ))
        .expect("../shared/data/ffo40-59.obf");
        let positions: Vec<Obf> = suite
            .lines()
            .filter(|line| !line.starts_with('%') && !line.trim().is_empty())
            .take(10)
            .map(|line| line.split(';').next().unwrap().parse().unwrap())
            .collect();
        for (name, eval) in [("classic", Evaluator::Classic), ("learned", learned)] {
            let (mut nodes, start) = (0u64, Instant::now());
            for obf in &positions {
                let node = Node8::from_board(&obf.setup.board, obf.setup.first_mover);
                let mut tt = TranspositionTable::new(256);
                let options = endgame::SolveOptions {
                    eval,
                    ..endgame::SolveOptions::exact(rule)
                };
                let solution =
                    endgame::solve_with(&node, Goal::Exact, &options, &mut tt, &Limits::NONE, None)
                        .unwrap();
                nodes += solution.nodes;
            }
            let seconds = start.elapsed().as_secs_f64();
            println!(
                "FFO #40-#49 ordered by {name}: {seconds:.1} s, {nodes} nodes, {:.1} M nodes/s",
                nodes as f64 / seconds / 1e6
            );
        }
    }
}
