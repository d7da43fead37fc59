//! Monte Carlo tree search: UCT with uniformly random playouts, reproducible from a seeded
//! random number generator.

use rand::{Rng, RngExt};

use super::{Index, Node, SquareSet, Stopper};
use crate::{Square, WinRule};

/// The exploration constant of UCT (√2, the textbook value for results in [0, 1]).
const EXPLORATION: f64 = std::f64::consts::SQRT_2;

/// One node of the search tree.
struct TreeNode<N: Node> {
    position: N,
    parent: Option<usize>,
    /// The move that led here (`None` for the root and for a pass).
    mv: Option<Index<N>>,
    children: Vec<usize>,
    /// Moves not yet expanded (`None` stands for a forced pass).
    untried: Vec<Option<Index<N>>>,
    visits: u32,
    /// Results won by the side that moved into this node (1 a win, ½ a draw).
    wins: f64,
    /// Whether the side to move here is the root's side to move.
    root_to_move: bool,
}

/// Runs `playouts` iterations of UCT from `node` (fewer if `stopper` stops it first: it
/// counts every position played, so a time limit is checked within a playout or two) and
/// returns the most visited move, or `None` if the side to move has no legal move.
pub(crate) fn mcts<N: Node>(
    node: &N,
    rule: WinRule,
    playouts: u32,
    rng: &mut impl Rng,
    stopper: &mut Stopper<'_>,
) -> Option<Square> {
    let root_moves = node.moves();
    match root_moves.len() {
        0 => return None,
        1 => return root_moves.first().map(|mv| node.square(mv)),
        _ => {}
    }
    let mut tree = vec![TreeNode {
        position: *node,
        parent: None,
        mv: None,
        children: Vec::new(),
        untried: options(node),
        visits: 0,
        wins: 0.0,
        root_to_move: true,
    }];
    for done in 0..playouts.max(1) {
        if done > 0 && stopper.stopped() {
            break;
        }
        // Selection: follow the best UCT child while the node is fully expanded.
        let mut current = 0;
        while tree[current].untried.is_empty() && !tree[current].children.is_empty() {
            let parent_visits = f64::from(tree[current].visits).ln();
            current = *tree[current]
                .children
                .iter()
                .max_by(|&&a, &&b| {
                    let uct = |i: usize| {
                        let child = &tree[i];
                        let visits = f64::from(child.visits);
                        child.wins / visits + EXPLORATION * (parent_visits / visits).sqrt()
                    };
                    uct(a).total_cmp(&uct(b))
                })
                .expect("a child");
        }
        // Expansion: one untried move, chosen at random.
        if !tree[current].untried.is_empty() {
            let pick = rng.random_range(0..tree[current].untried.len());
            let mv = tree[current].untried.swap_remove(pick);
            let parent = &tree[current];
            let position = match mv {
                Some(mv) => parent.position.play(mv),
                None => parent.position.pass(),
            };
            let child = TreeNode {
                position,
                parent: Some(current),
                mv,
                children: Vec::new(),
                untried: options(&position),
                visits: 0,
                wins: 0.0,
                root_to_move: !parent.root_to_move,
            };
            tree.push(child);
            let index = tree.len() - 1;
            tree[current].children.push(index);
            current = index;
        }
        // Simulation, then the result for the root's side: 1 win, ½ draw, 0 loss.
        let (sign, end_is_root_to_move) = playout(
            &tree[current].position,
            rule,
            tree[current].root_to_move,
            rng,
            stopper,
        );
        let root_result = match sign.signum() * if end_is_root_to_move { 1 } else { -1 } {
            1 => 1.0,
            0 => 0.5,
            _ => 0.0,
        };
        // Backpropagation: each node scores for the side that moved into it.
        let mut at = Some(current);
        while let Some(index) = at {
            let entry = &mut tree[index];
            entry.visits += 1;
            // The side that moved into this node is the one to move at its parent.
            entry.wins += if entry.root_to_move {
                1.0 - root_result
            } else {
                root_result
            };
            at = entry.parent;
        }
    }
    tree[0]
        .children
        .iter()
        .max_by_key(|&&i| tree[i].visits)
        .and_then(|&i| tree[i].mv)
        .map(|mv| node.square(mv))
}

/// The moves to expand at a position: its legal moves, a pass if it has none but the game
/// goes on, nothing if the game is over.
fn options<N: Node>(node: &N) -> Vec<Option<Index<N>>> {
    let mut moves = node.moves();
    if moves.is_empty() {
        return match node.after_pass() {
            Some(_) => vec![None],
            None => Vec::new(),
        };
    }
    let mut options = Vec::with_capacity(moves.len() as usize);
    while let Some(mv) = moves.pop() {
        options.push(Some(mv));
    }
    options
}

/// Plays uniformly random moves to the end; returns the sign of the final score for the
/// side to move at the end, and whether that side is the root's side to move.
fn playout<N: Node>(
    start: &N,
    rule: WinRule,
    root_to_move: bool,
    rng: &mut impl Rng,
    stopper: &mut Stopper<'_>,
) -> (i32, bool) {
    let (mut node, mut root_side) = (*start, root_to_move);
    loop {
        // Counted only: a playout runs to its end, so that every one finished is whole.
        stopper.tick();
        let mut moves = node.moves();
        if moves.is_empty() {
            let Some(passed) = node.after_pass() else {
                return (node.final_score(rule), root_side);
            };
            node = passed;
            root_side = !root_side;
            continue;
        }
        let pick = rng.random_range(0..moves.len());
        for _ in 0..pick {
            moves.pop();
        }
        let mv = moves.first().expect("a move");
        node = node.play(mv);
        root_side = !root_side;
    }
}

#[cfg(test)]
mod tests {
    use rand::{SeedableRng, rngs::StdRng};

    use super::*;
    use crate::{
        Board, Color, Shape, Simple,
        engine::{GridNode, Limits, Node8, TranspositionTable, endgame::exact_score},
    };

    /// `playouts` of UCT from `node`, seeded, without other limits.
    fn search<N: Node>(node: &N, playouts: u32, seed: u64) -> Option<Square> {
        let mut stopper = Stopper::new(&Limits::NONE, None);
        mcts(
            node,
            WinRule::MostDiscs,
            playouts,
            &mut StdRng::seed_from_u64(seed),
            &mut stopper,
        )
    }

    /// Issues 21.4 and 22.6: a node limit (and so a time limit) cuts the playouts short.
    #[test]
    fn regression_22_6_a_limit_stops_the_playouts() {
        let node = Node8::from_board(&Board::standard(Shape::STANDARD), Color::Black);
        let mut stopper = Stopper::new(&Limits::nodes(5_000), None);
        let rng = &mut StdRng::seed_from_u64(3);
        let best = mcts(&node, WinRule::MostDiscs, 1_000_000, rng, &mut stopper);
        assert!(best.is_some());
        // A playout is about 60 positions: the limit stops it within a few hundred.
        assert!(stopper.nodes() < 5_000 + 200, "{}", stopper.nodes());
        let signal = crate::engine::Signal::new();
        signal.stop();
        let mut stopper = Stopper::new(&Limits::NONE, Some(&signal));
        let rng = &mut StdRng::seed_from_u64(3);
        assert!(mcts(&node, WinRule::MostDiscs, 1_000_000, rng, &mut stopper).is_some());
        assert!(stopper.nodes() < 200, "one playout, then the signal");
    }

    #[test]
    fn same_seed_same_move_and_always_legal() {
        let node = Node8::from_board(&Board::standard(Shape::STANDARD), Color::Black);
        let first = search(&node, 300, 7);
        let again = search(&node, 300, 7);
        assert_eq!(first, again);
        let mv = node.index(first.unwrap()).unwrap();
        assert!(node.moves().contains(mv));
    }

    /// Random 8x8 endgames with six empties in which exactly one move wins.
    fn single_winning_moves() -> Vec<(Node8, u32)> {
        let mut found = Vec::new();
        let mut state = 0x853c_49e6_748f_ea9bu64;
        while found.len() < 5 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let empty = {
                let mut empty = 0u64;
                let mut bits = state;
                while empty.count_ones() < 6 {
                    bits = bits.rotate_left(7).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                    empty |= 1 << (bits % 64);
                }
                empty
            };
            let player = state.rotate_left(17) & !empty;
            let node = Node8::new(player, !empty & !player);
            let mut winners = Vec::new();
            let mut moves = node.moves();
            while let Some(mv) = moves.pop() {
                let mut tt = TranspositionTable::new(1);
                let child = node.play(mv);
                let score = -exact_score(&child, &mut tt);
                if score > 0 {
                    winners.push(mv);
                }
            }
            if winners.len() == 1 && node.moves().count_ones() >= 3 {
                found.push((node, winners[0]));
            }
        }
        found
    }

    #[test]
    fn finds_the_only_winning_move() {
        for (node, winner) in single_winning_moves() {
            let best = search(&node, 3000, 1);
            assert_eq!(best, Some(node.square(winner)), "{node:?}");
        }
    }

    #[test]
    fn no_move_when_the_side_to_move_has_none() {
        let node =
            GridNode::<Simple>::from_board(&Board::empty(Shape::new(4, 4).unwrap()), Color::Black);
        assert_eq!(search(&node, 10, 1), None);
    }
}
