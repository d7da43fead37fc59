//! Static evaluation: how good a position looks for the side to move, in hundredths of a
//! disc, on any board shape, under either rule set and either win rule.
//!
//! A hand-weighted sum of classic features, with one set of weights per rule set (the games
//! play very differently; the rules themselves live in [`crate::RuleSet`]):
//! - FULL: mobility and potential mobility (having moves, and leaving the opponent few),
//!   corners and the squares next to empty corners, discs that can never flip, parity (who
//!   is due the last move), and the disc difference, which gains weight as the board fills.
//! - SIMPLE: nearly every empty square is a move for both sides and any disc next to an
//!   empty square can flip, so mobility means little: the disc difference, settled discs
//!   (no empty neighbour: they never flip), squares where we can flip something against
//!   squares where the opponent can, corners (only three neighbours) and parity.
//! - Both: a penalty for having so few discs that a wipeout threatens.
//!
//! Edges as such get no weight: a plain count of edge discs made the search choose worse
//! moves (measured against exact solves of 300 positions at 20 empties: mean loss per move
//! 3.61 discs without the term, 3.80 with +20 a disc, 3.49 with -20, noise about 0.3), and
//! what matters about edges is already counted by the corner, C-square and stability terms.
//! Weights are named constants below; the game phase (how full the board is) scales those
//! that change over a game. The sum is an estimate of the final disc difference, so it is
//! kept inside what the board allows (see `within_board`): scores read as discs on every
//! shape.

use super::{
    Node, SquareSet,
    pattern::{PatternWeights, ShapedWeights},
};
use crate::{GameKind, Variant, WinRule};

/// Which evaluation a search scores its leaves with.
#[derive(Clone, Copy, Debug)]
pub enum Evaluator {
    /// The hand-written one below, on every shape under both rule sets (the player spec
    /// `classic`).
    Classic,
    /// Learned: these pattern weights on the standard 8 × 8 board under FULL rules when
    /// most discs win, the weights shipped for other kinds of game
    /// ([`super::pattern::shipped`]) where there are some, the hand-written evaluation
    /// elsewhere. The engine's own (the default).
    Patterns(&'static PatternWeights),
    /// Learned weights for one kind of game (a weights file of another kind than standard
    /// Othello); the hand-written evaluation on every other kind.
    Shaped(&'static ShapedWeights),
}

impl Evaluator {
    /// The evaluation of `node` for the side to move under `rule`, in evaluation units.
    #[inline(always)]
    pub fn evaluate<N: Node>(self, node: &N, rule: WinRule) -> i32 {
        if let Evaluator::Patterns(weights) = self
            && rule == WinRule::MostDiscs
            && let Some((player, opponent)) = node.bits8()
        {
            let moves = |node: &N| node.moves8().unwrap_or(0);
            return weights.evaluate_with_moves(player, opponent, moves(node), moves(&node.pass()));
        }
        match self.shaped(node, rule) {
            Some(weights) => weights.evaluate(node),
            None => evaluate(node, rule),
        }
    }

    /// [`Evaluator::evaluate`] where the side to move's legal moves are known (a search
    /// has them): one move generation fewer.
    #[inline(always)]
    pub(crate) fn evaluate_knowing<N: Node>(self, node: &N, moves: N::Set, rule: WinRule) -> i32 {
        if let Evaluator::Patterns(weights) = self
            && rule == WinRule::MostDiscs
            && let Some((player, opponent)) = node.bits8()
            && let Some(moves) = moves.bits8()
        {
            let replies = node.pass().moves8().unwrap_or(0);
            return weights.evaluate_with_moves(player, opponent, moves, replies);
        }
        match self.shaped(node, rule) {
            Some(weights) => weights.evaluate_knowing(node, moves),
            None => evaluate(node, rule),
        }
    }

    /// The learned weights of another kind than standard Othello that score `node` under
    /// `rule`, if any.
    #[inline(always)]
    pub(crate) fn shaped<N: Node>(self, node: &N, rule: WinRule) -> Option<&'static ShapedWeights> {
        let kind = || GameKind::new(N::VARIANT, node.layout().shape, rule);
        match self {
            Evaluator::Classic => None,
            Evaluator::Patterns(_) => super::pattern::shipped(kind()),
            Evaluator::Shaped(weights) => (weights.kind() == kind()).then_some(weights),
        }
    }

    /// Whether this evaluation scores positions of `kind` with learned weights.
    pub fn learned_for(self, kind: GameKind) -> bool {
        match self {
            Evaluator::Classic => false,
            Evaluator::Patterns(_) => {
                kind == GameKind::STANDARD || super::pattern::shipped(kind).is_some()
            }
            Evaluator::Shaped(weights) => weights.kind() == kind,
        }
    }

    /// The evaluation this choice scores positions of `variant` on `shape` under `rule`
    /// with, for people (hints, solves and the server say it): `learned patterns (built
    /// in)` where learned weights apply, else `classic`, with why where weights were asked
    /// for.
    pub fn describe(self, variant: Variant, shape: crate::Shape, rule: WinRule) -> String {
        let kind = GameKind::new(variant, shape, rule);
        match self {
            Evaluator::Patterns(weights) if kind == GameKind::STANDARD => {
                if std::ptr::eq(weights, super::pattern::builtin()) {
                    "learned patterns (built in)".to_owned()
                } else {
                    "learned patterns (from a file)".to_owned()
                }
            }
            Evaluator::Patterns(_) if self.learned_for(kind) => {
                format!("learned patterns for {kind} (built in)")
            }
            Evaluator::Shaped(_) if self.learned_for(kind) => {
                format!("learned patterns for {kind} (from a file)")
            }
            Evaluator::Patterns(_) => format!(
                "classic (no learned weights for {shape} {} with {} discs winning)",
                variant.name().to_uppercase(),
                rule.name()
            ),
            Evaluator::Shaped(weights) => format!(
                "classic (the weights file is for {}, not {kind})",
                weights.kind()
            ),
            Evaluator::Classic => "classic".to_owned(),
        }
    }
}

impl Default for Evaluator {
    /// The engine's own: the learned weights compiled into the program
    /// ([`crate::engine::pattern::builtin`], [`crate::engine::pattern::shipped`]) where
    /// they apply, the hand-written evaluation elsewhere.
    fn default() -> Evaluator {
        Evaluator::Patterns(crate::engine::pattern::builtin())
    }
}

impl PartialEq for Evaluator {
    fn eq(&self, other: &Evaluator) -> bool {
        match (self, other) {
            (Evaluator::Classic, Evaluator::Classic) => true,
            (Evaluator::Patterns(a), Evaluator::Patterns(b)) => std::ptr::eq(*a, *b),
            (Evaluator::Shaped(a), Evaluator::Shaped(b)) => std::ptr::eq(*a, *b),
            _ => false,
        }
    }
}

impl Eq for Evaluator {}

pub use super::score::{DISC, Score};

/// FULL: mobility, the difference in legal moves relative to their sum (so that 6 against 2
/// counts like 12 against 4), at full weight.
const MOBILITY: i32 = 1200;
/// FULL: potential mobility, empty squares next to the opponent's discs, per square of
/// difference.
const POTENTIAL_MOBILITY: i32 = 40;
/// FULL: a corner owned.
const CORNER: i32 = 900;
/// FULL: a disc on the square diagonally next to an empty corner (it tends to give the
/// corner away).
const X_SQUARE: i32 = 350;
/// FULL: a disc on an edge square next to an empty corner.
const C_SQUARE: i32 = 120;
/// FULL: a disc that can never be flipped.
const STABLE: i32 = 150;
/// FULL: the side to move is due the last move (an odd number of empty squares), at full
/// weight when the board is full.
const PARITY: i32 = 100;
/// FULL: disc difference per disc, from this at the start ...
const DISCS_EARLY: i32 = -10;
/// ... to this when the board is full (most discs wins only counts at the end).
const DISCS_LATE: i32 = 60;

/// SIMPLE weights, tuned by matches at 30 ms a move on 8 × 8 (100 games each; the FULL
/// weights scored 45 % against `mcts:2000` and 84.5 % against `greedy`, these 91–94 % and
/// 100 %): disc difference per disc, from this at the start ...
const SIMPLE_DISCS_EARLY: i32 = 0;
/// ... to this when the board is full.
const SIMPLE_DISCS_LATE: i32 = 100;
/// SIMPLE: a settled disc (no empty neighbour), on top of its weight as a disc.
const SIMPLE_SETTLED: i32 = 500;
/// SIMPLE: per square of difference between the empty squares next to the opponent's
/// discs (where we can flip) and those next to ours.
const SIMPLE_ATTACK: i32 = 40;
/// SIMPLE: a corner disc (the least exposed square).
const SIMPLE_CORNER: i32 = 50;

/// Few discs risk a wipeout (losing every disc ends the game at once). On large boards the
/// opening stays small for long while the disc difference counts for little, and the
/// search cannot see far enough: below one disc per this many cells ...
const CELLS_PER_SAFE_DISC: i32 = 20;
/// ... each missing disc costs this much, squared (on 16 × 16, one disc left: 121 times).
/// Measured: engine against greedy on 16 × 16 at 30 ms a move lost 7 of 30 games, all by
/// wipeout, without this term; none with it. Smaller weights scaled to the board (a
/// sixteenth or an eighth of its cells at most, in discs) let wipeouts back in (1 and 2
/// of 30 lost).
const WIPEOUT: i32 = 100;

/// The evaluation of `node` for the side to move under `rule`.
///
/// Under [`WinRule::FewestDiscs`] every term about owning discs (corners, stable discs, the
/// disc difference, the wipeout threat) changes sign; mobility and parity keep their
/// meaning: having choices and the last move are good either way.
#[inline(always)]
pub(crate) fn evaluate<N: Node>(node: &N, rule: WinRule) -> i32 {
    let layout = node.layout();
    let (player, opponent, empty) = (node.player(), node.opponent(), node.empties());
    let cells = layout.cells.len() as i32;
    let empties = empty.len() as i32;
    // 0 at the empty board, 1000 when full.
    let phase = (cells - empties) * 1000 / cells;
    let difference = |set: N::Set| (set & player).len() as i32 - (set & opponent).len() as i32;
    let attack =
        (opponent.neighbours() & empty).len() as i32 - (player.neighbours() & empty).len() as i32;
    let parity = if empties % 2 == 1 { PARITY } else { -PARITY } * phase / 1000;
    let safe = cells / CELLS_PER_SAFE_DISC;
    let danger = |discs: N::Set| WIPEOUT * (safe - discs.len() as i32).max(0).pow(2);
    let wipeout = danger(opponent) - danger(player);

    let (choices, owning) = match N::VARIANT {
        Variant::Full => {
            let my_moves = node.moves().len() as i32;
            let their_moves = node.pass().moves().len() as i32;
            let mobility = MOBILITY * (my_moves - their_moves) / (my_moves + their_moves + 2);
            let mut ownership = 0;
            for corner in &layout.corners {
                if (corner.corner & empty).is_empty() {
                    ownership += CORNER * difference(corner.corner);
                } else {
                    ownership -= X_SQUARE * difference(corner.x_square)
                        + C_SQUARE * difference(corner.c_squares);
                }
            }
            let stable = STABLE * (node.stable().len() as i32 - node.pass().stable().len() as i32);
            let disc_weight = DISCS_EARLY + (DISCS_LATE - DISCS_EARLY) * phase / 1000;
            let discs = disc_weight * (player.len() as i32 - opponent.len() as i32);
            (
                mobility + POTENTIAL_MOBILITY * attack,
                ownership + stable + discs,
            )
        }
        Variant::Simple => {
            let corners = layout
                .corners
                .iter()
                .fold(N::Set::EMPTY, |set, corner| set | corner.corner);
            let settled = node.stable().len() as i32 - node.pass().stable().len() as i32;
            let disc_weight =
                SIMPLE_DISCS_EARLY + (SIMPLE_DISCS_LATE - SIMPLE_DISCS_EARLY) * phase / 1000;
            let discs = disc_weight * (player.len() as i32 - opponent.len() as i32);
            (
                SIMPLE_ATTACK * attack,
                SIMPLE_SETTLED * settled + SIMPLE_CORNER * difference(corners) + discs,
            )
        }
    };
    let score = match rule {
        WinRule::MostDiscs => choices + parity + owning + wipeout,
        WinRule::FewestDiscs => choices + parity - owning - wipeout,
    };
    within_board(score, cells)
}

/// `score` kept strictly inside what a final score can be on a board of `cells` squares
/// (the evaluation estimates one): unchanged up to half the largest, then compressed
/// smoothly towards it. Monotone, so positions keep their order.
fn within_board(score: i32, cells: i32) -> i32 {
    let limit = i64::from((cells - 1) * DISC);
    let knee = limit / 2;
    let magnitude = i64::from(score).abs();
    if magnitude <= knee {
        return score;
    }
    let (over, room) = (magnitude - knee, limit - knee);
    let squashed = knee + over * room / (over + room);
    squashed as i32 * score.signum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        Board, Color, Full, Shape, Square,
        engine::{GridNode, Node8, SmallNode},
    };

    /// The positions of a game on `shape` played by always taking the first legal move.
    fn game_nodes<N: Node>(start: N) -> Vec<N> {
        let mut nodes = vec![];
        let mut node = start;
        loop {
            let moves = node.moves();
            match moves.first() {
                Some(mv) => {
                    nodes.push(node);
                    node = node.play(mv);
                }
                None => match node.after_pass() {
                    Some(passed) => node = passed,
                    None => return nodes,
                },
            }
        }
    }

    #[test]
    fn the_engine_scores_each_kind_of_game_with_its_shipped_weights_or_classic() {
        let shape = Shape::new(6, 6).unwrap();
        let board = Board::standard(shape);
        let start = SmallNode::<Full>::from_board(&board, Color::Black).unwrap();
        let kind = GameKind::new(Variant::Full, shape, WinRule::MostDiscs);
        let shipped = super::super::pattern::shipped(kind).expect("6x6 weights are shipped");
        let fewest = super::super::pattern::shipped(GameKind::new(
            Variant::Full,
            shape,
            WinRule::FewestDiscs,
        ))
        .expect("6x6 fewest-discs weights are shipped");
        let learned = Evaluator::default();
        let mut differ = 0;
        for node in game_nodes(start) {
            let score = learned.evaluate(&node, WinRule::MostDiscs);
            assert_eq!(score, shipped.evaluate(&node));
            assert_eq!(
                learned.evaluate_knowing(&node, node.moves(), WinRule::MostDiscs),
                score
            );
            // The same board on the 256-bit representation scores the same.
            let grid = GridNode::<Full>::from_board(&node_board(&node), Color::Black);
            assert_eq!(learned.evaluate(&grid, WinRule::MostDiscs), score);
            // Fewest discs has weights of its own; SIMPLE rules none: the hand-written
            // evaluation.
            assert_eq!(
                learned.evaluate(&node, WinRule::FewestDiscs),
                fewest.evaluate(&node)
            );
            let simple = GridNode::<crate::Simple>::from_board(&node_board(&node), Color::Black);
            assert_eq!(
                learned.evaluate(&simple, WinRule::MostDiscs),
                evaluate(&simple, WinRule::MostDiscs)
            );
            differ += usize::from(score != evaluate(&node, WinRule::MostDiscs));
        }
        assert!(
            differ > 10,
            "the learned weights are not the hand-written ones"
        );
        // A weights file scores its own kind only.
        let file = Evaluator::Shaped(shipped);
        assert!(file.learned_for(kind));
        assert!(!file.learned_for(GameKind::STANDARD));
        let standard = Node8::from_board(&Board::standard(Shape::STANDARD), Color::Black);
        assert_eq!(
            file.evaluate(&standard, WinRule::MostDiscs),
            evaluate(&standard, WinRule::MostDiscs)
        );
        assert_eq!(
            learned.describe(Variant::Full, shape, WinRule::MostDiscs),
            "learned patterns for 6x6 FULL most (built in)"
        );
        assert_eq!(
            file.describe(Variant::Full, shape, WinRule::MostDiscs),
            "learned patterns for 6x6 FULL most (from a file)"
        );
        assert_eq!(
            file.describe(Variant::Full, Shape::STANDARD, WinRule::MostDiscs),
            "classic (the weights file is for 6x6 FULL most, not 8x8 FULL most)"
        );
        assert_eq!(
            learned.describe(Variant::Simple, shape, WinRule::MostDiscs),
            "classic (no learned weights for 6x6 SIMPLE with most discs winning)"
        );
    }

    /// `node`'s discs as a board, the side to move as Black.
    fn node_board<N: Node>(node: &N) -> Board {
        let mut board = Board::empty(node.layout().shape);
        for (mut set, color) in [
            (node.player(), Color::Black),
            (node.opponent(), Color::White),
        ] {
            while let Some(index) = set.pop() {
                board.set(node.square(index), Some(color));
            }
        }
        board
    }

    fn node(cells: &[(&str, Color)]) -> Node8 {
        let mut board = Board::standard(Shape::STANDARD);
        for &(square, color) in cells {
            board.set(square.parse::<Square>().unwrap(), Some(color));
        }
        Node8::from_board(&board, Color::Black)
    }

    #[test]
    fn symmetric_start_is_balanced_but_for_parity() {
        let start = node(&[]);
        let score = evaluate(&start, WinRule::MostDiscs);
        assert!(score.abs() <= PARITY, "{score}");
        let grid = GridNode::<Full>::from_board(&Board::standard(Shape::STANDARD), Color::Black);
        assert_eq!(evaluate(&grid, WinRule::MostDiscs), score);
    }

    #[test]
    fn corners_are_good_and_x_squares_bad_under_most_discs() {
        let corner = node(&[("a1", Color::Black)]);
        let x_square = node(&[("b2", Color::Black)]);
        let base = evaluate(&node(&[]), WinRule::MostDiscs);
        assert!(evaluate(&corner, WinRule::MostDiscs) > base + CORNER / 2);
        assert!(evaluate(&x_square, WinRule::MostDiscs) < base);
        // Fewest discs: owning the corner is a liability.
        assert!(evaluate(&corner, WinRule::FewestDiscs) < evaluate(&corner, WinRule::MostDiscs));
    }

    #[test]
    fn scores_stay_inside_the_board_and_keep_their_order() {
        assert_eq!(within_board(1234, 64), 1234);
        assert_eq!(within_board(-3150, 64), -3150);
        let mut last = i32::MIN;
        for score in (-1_000_000..1_000_000).step_by(997) {
            let bounded = within_board(score, 64);
            assert!(bounded.abs() < 64 * DISC, "{score} -> {bounded}");
            assert!(bounded >= last, "monotone at {score}");
            assert_eq!(within_board(-score, 64), -bounded, "symmetric at {score}");
            last = bounded;
        }
        // Every evaluation of random positions on every shape is inside its board.
        for (rows, columns) in [(4, 4), (8, 8), (16, 16), (6, 10)] {
            let shape = Shape::new(rows, columns).unwrap();
            let cells = shape.cells() as i32;
            for seed in 0..50u64 {
                let mut board = Board::empty(shape);
                for (i, square) in shape.squares().enumerate() {
                    let roll = (seed.wrapping_mul(31) + i as u64 * 7919) % 5;
                    let disc = match roll {
                        0 | 1 => Some(Color::Black),
                        2 => Some(Color::White),
                        _ => None,
                    };
                    board.set(square, disc);
                }
                for rule in [WinRule::MostDiscs, WinRule::FewestDiscs] {
                    let full = GridNode::<Full>::from_board(&board, Color::White);
                    let simple = GridNode::<crate::Simple>::from_board(&board, Color::Black);
                    for score in [evaluate(&full, rule), evaluate(&simple, rule)] {
                        assert!(score.abs() < cells * DISC, "{score} on {shape}");
                    }
                }
            }
        }
    }

    #[test]
    fn knowing_the_moves_changes_no_score() {
        let start = Board::standard(Shape::STANDARD);
        for seed in 0..40u64 {
            let mut node = Node8::from_board(&start, Color::Black);
            let mut grid = GridNode::<Full>::from_board(&start, Color::Black);
            for ply in 0..60u64 {
                for evaluator in [Evaluator::default(), Evaluator::Classic] {
                    for rule in [WinRule::MostDiscs, WinRule::FewestDiscs] {
                        assert_eq!(
                            evaluator.evaluate_knowing(&node, node.moves(), rule),
                            evaluator.evaluate(&node, rule)
                        );
                        assert_eq!(
                            evaluator.evaluate_knowing(&grid, grid.moves(), rule),
                            evaluator.evaluate(&grid, rule)
                        );
                    }
                }
                let mut moves = node.moves();
                if moves == 0 {
                    if node.pass().moves() == 0 {
                        break;
                    }
                    node = node.pass();
                    grid = grid.pass();
                    continue;
                }
                for _ in 0..(seed * 7 + ply * 13) % u64::from(moves.count_ones()) {
                    moves &= moves - 1;
                }
                let square = node.square(moves.trailing_zeros());
                node = node.play(node.index(square).unwrap());
                grid = grid.play(grid.index(square).unwrap());
            }
        }
    }

    #[test]
    fn works_on_every_shape() {
        for (rows, columns) in [(4, 4), (4, 16), (16, 16), (5, 7)] {
            let board = Board::standard(Shape::new(rows, columns).unwrap());
            let node = GridNode::<crate::Simple>::from_board(&board, Color::White);
            let score = evaluate(&node, WinRule::FewestDiscs);
            assert!(score.abs() < 10 * DISC, "{score}");
        }
    }
}
