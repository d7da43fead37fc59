//! Where the midgame search gives way to the exact solver: one decision ([`plan`]) for every
//! search from a root, with the time model it rests on. The engine's moves
//! ([`EnginePlayer`](crate::engine::EnginePlayer)), the rankings people ask for
//! ([`crate::analysis`]) and the search itself ([`search`](super::search)) all ask it, so
//! they change together.
//!
//! Two things are decided:
//! - whether to **solve exactly first** (and within which limits), before any search: what
//!   the caller allows ([`ExactFirst`]), where the solver should finish in the time given;
//! - where a **selective search's iterations stop** to solve at rising confidence
//!   ([`SOLVE_AHEAD`] plies short of the end), where a cut model applies and no depth limit
//!   stops the search short of the end.

use std::{any::TypeId, time::Duration};

use super::{
    super::{Limits, Node, SquareSet},
    SearchOptions, probcut,
};
use crate::Variant;

/// How many plies short of the end a selective search's midgame iterations stop before it
/// solves: at 22 empties, iterations to depth 14, then solves at 73 %, 87 % and up.
pub(crate) const SOLVE_AHEAD: u32 = 8;

/// The share of the move time an exact solve may take (the rest is for the search that
/// follows if it does not finish).
const SOLVE_SHARE: f64 = 0.6;

/// When a caller wants an exact solve before it searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ExactFirst {
    /// Never: the search alone (which may still end in solves, [`Plan::solve_after`]).
    Never,
    /// An engine level's: at up to this many empties, fewer where a solve should not
    /// finish in a share of the time given.
    UpTo(u32),
    /// A ranking for people: wherever a solve should finish in a share of the time given,
    /// the depth asked for reaches the end of the game, or a search that deep would take
    /// longer than a solve (which then gets a few times the search's time).
    WhenCheaper,
}

/// What a search from a root does about the end of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Solve exactly first, within these limits; the search follows only if the solve
    /// does not finish.
    pub(crate) exact: Option<Limits>,
    /// The search's midgame iterations stop at this depth, and solves at rising confidence
    /// follow, to the exact score; `None`: midgame iterations only (a full-width search's
    /// last iteration is then the exact solve's work, done by the midgame search).
    pub(crate) solve_after: Option<u32>,
}

/// The plan for searching `node` with `options`, for a caller that wants `exact` solves
/// first (see the module documentation).
pub(crate) fn plan<N: Node>(node: &N, exact: ExactFirst, options: &SearchOptions) -> Plan {
    let empties = node.empties().len();
    let limits = options.limits;
    let exact = match exact {
        ExactFirst::Never => None,
        ExactFirst::UpTo(most) => {
            let most = match limits.time {
                Some(time) => most.min(solvable_empties(node, time)),
                None => most,
            };
            (empties <= most).then(|| Limits {
                time: limits.time.map(|time| time.mul_f64(SOLVE_SHARE)),
                ..limits
            })
        }
        ExactFirst::WhenCheaper => match (limits.time, limits.depth) {
            (Some(time), _) if empties <= solvable_empties(node, time) => {
                Some(Limits::time(time.mul_f64(SOLVE_SHARE)))
            }
            (None, Some(wanted)) if wanted >= empties => Some(Limits::NONE),
            // A search that deep would take longer than solving: solve, within a few times
            // what the search should take (else search after all).
            (None, Some(wanted))
                if solve_time_estimate(node) <= search_time_estimate(node, wanted) =>
            {
                Some(Limits::time(
                    search_time_estimate(node, wanted).saturating_mul(4),
                ))
            }
            _ => None,
        },
    };
    let solves = !options.selectivity.is_none()
        && limits.depth.is_none_or(|depth| depth >= empties)
        && probcut::model_for(options.eval, node, options.rule).is_some();
    Plan {
        exact,
        solve_after: solves.then(|| empties.saturating_sub(SOLVE_AHEAD).max(1)),
    }
}

/// The most empties at which an exact solve is tried with `time` to move: where a typical
/// solve should take at most a third of it (the solver gets [`SOLVE_SHARE`] of the time,
/// and the search what is left if it runs out).
///
/// The model, measured on positions from random games here: on the 8 × 8 fast path a solve
/// takes about 10 ms at 14 empties, four times as long for every two more. The general
/// representation is slower (about as slow as the fast path three empties further, four on
/// boards of more than 64 squares), and so is SIMPLE (every empty square next to an
/// opponent disc is a move).
fn solvable_empties<N: Node>(node: &N, time: Duration) -> u32 {
    let third_ms = time.as_secs_f64() * 1000.0 / 3.0;
    let fast_path_empties = 14.0 + 2.0 * (third_ms / 10.0).max(1e-3).log(4.0);
    (fast_path_empties.floor() as i64 - i64::from(solve_handicap(node))).clamp(0, 64) as u32
}

/// A rough estimate of how long an exact solve of `node` takes here, by the model the
/// engine uses to decide when to solve: for warning people before a solve that may never
/// end.
///
/// On a board with a shorter side than 8 every empty square costs less (shorter lines, fewer
/// moves): the empties count as fewer, by 0.69 on a side of 4 up to 1 on a side of 8
/// (measured: the 4 × 8 start, 28 empties, in 0.4 s; the 6 × 6 start, 32, in about 5
/// minutes without the symmetry of its first move).
pub(crate) fn solve_time_estimate<N: Node>(node: &N) -> Duration {
    let empties = f64::from(node.empties().len() + solve_handicap(node));
    let effective = empties * (0.69 + 0.105 * (shortest_side(node) - 4.0)).min(1.0);
    let seconds = 0.010 * 4f64.powf((effective - 14.0) / 2.0);
    Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX)
}

/// The board's shorter side, from its squares and its edge squares (the roots of
/// `t² - (rows + columns) t + rows × columns`).
fn shortest_side<N: Node>(node: &N) -> f64 {
    let layout = node.layout();
    let (cells, edges) = (f64::from(layout.cells.len()), f64::from(layout.edges.len()));
    let sum = (edges + 4.0) / 2.0;
    (sum - (sum * sum - 4.0 * cells).max(0.0).sqrt()) / 2.0
}

/// A rough estimate of how long a midgame search of `node` to `depth` plies takes here:
/// about 50 ms at depth 10 on the 8 × 8 fast path, twice as long for every ply more
/// (measured on the start and on FFO #40: 0.02-0.08 s at 10, 0.24-0.94 s at 14, 3.8 s at
/// 16), slower on the general representation as for solves. With
/// [`solve_time_estimate`], it tells when an exact solve is the cheaper way to look that
/// deep.
pub(crate) fn search_time_estimate<N: Node>(node: &N, depth: u32) -> Duration {
    let plies = f64::from(depth) + 2.0 * f64::from(solve_handicap(node)) / 3.0;
    let seconds = 0.050 * 2f64.powf(plies - 10.0);
    Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX)
}

/// How many empties further the fast path solves as fast as `node`'s representation.
fn solve_handicap<N: Node>(node: &N) -> u32 {
    if TypeId::of::<N::Set>() == TypeId::of::<u64>() {
        0
    } else if N::VARIANT == Variant::Simple || node.layout().cells.len() <= 64 {
        3
    } else {
        4
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        Board, Color, Full, Shape, Simple,
        engine::{GridNode, Node8},
    };

    #[test]
    fn exact_solves_are_tried_where_they_should_fit_in_the_time() {
        let ms = Duration::from_millis;
        let start = |shape: Shape| Board::standard(shape);
        let fast = Node8::from_board(&start(Shape::STANDARD), Color::Black);
        let solvable = |time| solvable_empties(&fast, time);
        assert_eq!(
            [ms(10), ms(100), ms(1000), ms(5000)].map(solvable),
            [12, 15, 19, 21]
        );
        let full_8x8 = GridNode::<Full>::from_board(&start(Shape::STANDARD), Color::Black);
        let full_16x16 =
            GridNode::<Full>::from_board(&start(Shape::new(16, 16).unwrap()), Color::Black);
        let simple =
            GridNode::<Simple>::from_board(&start(Shape::new(16, 16).unwrap()), Color::Black);
        assert_eq!(solvable_empties(&full_8x8, ms(100)), 12);
        assert_eq!(solvable_empties(&full_16x16, ms(100)), 11);
        assert_eq!(solvable_empties(&simple, ms(100)), 12);
        assert_eq!(
            solvable_empties(&fast, Duration::ZERO),
            4,
            "only trivial solves"
        );
        // Smaller boards cost less an empty square: the 6 x 6 start, solved in minutes.
        let six = crate::engine::SmallNode::<Full>::from_board(
            &start(Shape::new(6, 6).unwrap()),
            Color::Black,
        )
        .unwrap();
        let minutes = solve_time_estimate(&six).as_secs_f64() / 60.0;
        assert!((1.0..15.0).contains(&minutes), "{minutes} minutes");
    }
}
