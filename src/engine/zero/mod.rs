//! The last rung of the ladder from a random bot to deep reinforcement learning: a
//! policy/value network ([`Net`], a small residual convolutional net over one board shape)
//! guiding a PUCT tree search ([`Tree`]), as in AlphaZero. The net is learned from
//! self-play by `crate::training::zero`; here it is read, run and searched with.

mod net;
mod nets;
mod search;

use std::time::Instant;

use rand::Rng;

pub use net::{Encoded, Net, NetConfig, NetError, PLANES, Verdict, encode, policy_index};
pub use nets::{
    LoadedNet, NetChoice, ShippedRecord, UnfitNet, ZeroSpec, shipped, shipped_kinds, shipped_record,
};
pub use search::{EXPLORATION, Leaf, Noise, Tree};

use super::{Limits, Node, Signal, SquareSet};
use crate::{Square, WinRule};

/// What one search of the net's player costs at most, in simulations, when its level or
/// its limits do not say (`zero:FILE` alone).
pub const DEFAULT_SIMULATIONS: u32 = 400;

/// What one search of the net found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thought {
    /// The move (`None`: the side to move has none).
    pub square: Option<Square>,
    /// Simulations run (none where there was no choice to make).
    pub simulations: u64,
    /// The root's value for the side to move, -1 (lost) to 1 (won), as the search found it
    /// (0 where no search ran).
    pub value: f32,
}

/// The net's move in `node` after a search of `simulations` (fewer where `limits` or the
/// `signal` stop it first: a simulation counts as a node, and the clock is read at every
/// one; the first simulation always runs, so there is a move to give).
///
/// # Errors
/// If the net fails.
pub fn think<N: Node>(
    net: &Net,
    node: &N,
    rule: WinRule,
    simulations: u32,
    limits: &Limits,
    signal: Option<&Signal>,
    rng: &mut impl Rng,
) -> Result<Thought, NetError> {
    let moves = node.moves();
    if moves.len() <= 1 {
        return Ok(Thought {
            square: moves.first().map(|mv| node.square(mv)),
            simulations: 0,
            value: 0.0,
        });
    }
    let start = Instant::now();
    let deadline = limits.time.map(|time| start + time);
    let most = u64::from(simulations.max(1)).min(limits.nodes.unwrap_or(u64::MAX).max(1));
    let mut tree = Tree::new(*node, rule, None);
    let mut done = 0;
    while done < most {
        if done > 0
            && (deadline.is_some_and(|deadline| Instant::now() >= deadline)
                || signal.is_some_and(Signal::is_stopped))
        {
            break;
        }
        if let Leaf::Evaluate(encoded) = tree.select() {
            let verdict = net.evaluate(&[&encoded])?.remove(0);
            tree.expand(&encoded, &verdict, rng);
        }
        done += 1;
    }
    Ok(Thought {
        square: tree.choose(0.0, rng).map(|mv| node.square(mv)),
        simulations: done,
        value: tree.value(),
    })
}

#[cfg(test)]
mod tests;
