//! The skeleton both searches share: a node of negamax alpha-beta with principal variation
//! search and the transposition table. What differs between the midgame search and the
//! exact solver (the horizon, what a table entry is worth, enhanced transposition cutoffs,
//! selective cuts, move ordering, what is stored) is a [`Strategy`]; each calls [`search_node`] after its
//! own shortcuts (the solver's last empties and stability cutoff).
//!
//! Everything here is `#[inline(always)]`: each strategy's recursion is compiled into one
//! function per processor copy (portable, or for `popcnt`/BMI/AVX2), as if written out.

use super::{
    super::{
        Index, Node, Selectivity, SquareSet, TranspositionTable,
        tt::{Bound, Entry},
    },
    parallel::{self, Deferred},
};
use crate::Square;

/// The recursive search, passed down so that each compiled copy calls itself.
pub(super) trait Recurse<S, N>: Fn(&mut S, &N, i32, i32, u32) -> i32 + Copy {}
impl<S, N, F: Fn(&mut S, &N, i32, i32, u32) -> i32 + Copy> Recurse<S, N> for F {}

/// What a search brings to the skeleton. `depth` is the plies left to search; the
/// solver's is the number of empty squares.
pub(super) trait Strategy<N: Node> {
    /// The move lists of the nodes on the current path, one after the other.
    fn move_stack(&mut self) -> &mut Vec<(i32, Index<N>)>;

    /// The transposition table.
    fn table(&self) -> &TranspositionTable;

    /// Whether the search was stopped (its scores then mean nothing and are not stored).
    fn stopped(&self) -> bool;

    /// The score of a finished game.
    fn game_over(&self, node: &N) -> i32;

    /// The score of a node the search does not look below (the midgame's horizon), whose
    /// side to move has `moves`.
    fn horizon(&self, node: &N, moves: N::Set, depth: u32) -> Option<i32>;

    /// The score `entry` gives a search `depth` deep, if it looked far enough and was at
    /// least as sure.
    fn known(&self, entry: &Entry, depth: u32) -> Option<i32>;

    /// The depth and selectivity an entry is stored with.
    fn stored(&self, depth: u32) -> (u8, Selectivity);

    /// A score the search is sure enough of without looking at the children (a selective
    /// cut: `beta` or more, or `alpha` or less), where it looks for one.
    fn probable_cut(
        &mut self,
        node: &N,
        alpha: i32,
        beta: i32,
        depth: u32,
        recurse: impl Recurse<Self, N>,
    ) -> Option<i32>
    where
        Self: Sized;

    /// A score at least `beta` known from a child's table entry before any child is
    /// searched (enhanced transposition cutoff), where the search looks for one.
    fn refuted_by_child(&mut self, node: &N, moves: N::Set, beta: i32, depth: u32) -> Option<i32>;

    /// Whether, `depth` deep, threads share the work (see [`parallel`]): busy children are
    /// put off and the node's own children marked busy while searched.
    fn shares_work(&self, depth: u32) -> bool;

    /// Pushes `moves` sorted best first onto the move stack (`hint`, the table's move,
    /// first); returns where they start.
    fn order(&mut self, node: &N, moves: N::Set, hint: Option<Square>, depth: u32) -> usize;
}

/// The score of `node` between `alpha` and `beta` (fail-soft), `depth` deep: a pass or the
/// end of the game, the horizon, the table, cutoffs known without searching the children
/// (from theirs in the table, or predicted by a shallow search), the children in order, the
/// table again.
#[inline(always)]
pub(super) fn search_node<N: Node, S: Strategy<N>>(
    search: &mut S,
    node: &N,
    mut alpha: i32,
    mut beta: i32,
    depth: u32,
    recurse: impl Recurse<S, N>,
) -> i32 {
    let moves = node.moves();
    if moves.is_empty() {
        return match node.after_pass() {
            Some(passed) => -recurse(search, &passed, -beta, -alpha, depth),
            None => search.game_over(node),
        };
    }
    if let Some(score) = search.horizon(node, moves, depth) {
        return score;
    }

    let key = node.hash();
    let original_alpha = alpha;
    let mut hint = None;
    if let Some(entry) = search.table().probe(key) {
        if let Some(score) = search.known(&entry, depth) {
            match entry.bound {
                Bound::Exact => return score,
                Bound::Lower => alpha = alpha.max(score),
                Bound::Upper => beta = beta.min(score),
            }
            if alpha >= beta {
                return score;
            }
        }
        hint = entry.best;
    }
    if let Some(score) = search.refuted_by_child(node, moves, beta, depth) {
        return score;
    }
    if let Some(score) = search.probable_cut(node, alpha, beta, depth, recurse) {
        return score;
    }

    let start = search.order(node, moves, hint, depth);
    let end = search.move_stack().len();
    let (mut best_score, mut best) = (i32::MIN, None);
    let shared = search.shares_work(depth);
    let mut deferred = Deferred::default();
    let mut cut = false;
    for i in start..end {
        let mv = search.move_stack()[i].1;
        let child = node.play(mv);
        let first = best.is_none();
        if shared && !first && parallel::is_busy(child.hash()) && deferred.push(i) {
            continue;
        }
        let _busy = shared.then(|| parallel::mark_busy(child.hash()));
        let score = child_score(search, &child, alpha, beta, depth - 1, first, recurse);
        if score > best_score {
            (best_score, best) = (score, Some(mv));
            alpha = alpha.max(score);
            if alpha >= beta {
                cut = true;
                break;
            }
        }
    }
    if !cut {
        for i in deferred.indices() {
            let mv = search.move_stack()[i].1;
            let child = node.play(mv);
            let score = child_score(search, &child, alpha, beta, depth - 1, false, recurse);
            if score > best_score {
                (best_score, best) = (score, Some(mv));
                alpha = alpha.max(score);
                if alpha >= beta {
                    break;
                }
            }
        }
    }
    search.move_stack().truncate(start);
    if !search.stopped() {
        let bound = if best_score <= original_alpha {
            Bound::Upper
        } else if best_score >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let best = best.map(|mv| node.square(mv));
        let stored = search.stored(depth);
        search.table().store(key, best_score, stored, bound, best);
    }
    best_score
}

/// A child's score for its parent, searched `depth` deep: the first child with the whole
/// window; each other first with a null window on `alpha`, and again with the whole window
/// only if it may beat `alpha`.
#[inline(always)]
pub(super) fn child_score<N: Node, S>(
    search: &mut S,
    child: &N,
    alpha: i32,
    beta: i32,
    depth: u32,
    first: bool,
    recurse: impl Recurse<S, N>,
) -> i32 {
    if first {
        return -recurse(search, child, -beta, -alpha, depth);
    }
    let probe = -recurse(search, child, -alpha - 1, -alpha, depth);
    if probe > alpha && probe < beta {
        -recurse(search, child, -beta, -alpha, depth)
    } else {
        probe
    }
}

/// Extends `pv` from `node` on by the best moves the table holds (passes are implicit),
/// each checked to be legal, up to `length` moves; where the table has none, `missing`
/// may supply one.
pub(super) fn follow_table<N: Node>(
    tt: &TranspositionTable,
    node: &N,
    pv: &mut Vec<Square>,
    length: usize,
    mut missing: impl FnMut(&N) -> Option<Index<N>>,
) {
    let mut node = *node;
    while pv.len() < length {
        if node.moves().is_empty() {
            match node.after_pass() {
                Some(passed) => node = passed,
                None => return,
            }
        }
        let stored = tt
            .probe(node.hash())
            .and_then(|entry| entry.best)
            .and_then(|square| node.index(square))
            .filter(|&mv| node.moves().contains(mv));
        let Some(mv) = stored.or_else(|| missing(&node)) else {
            return;
        };
        pv.push(node.square(mv));
        node = node.play(mv);
    }
}
