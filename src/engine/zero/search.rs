//! PUCT: the tree search AlphaZero uses, a net's priors guiding which moves to look at and
//! its values standing in for playouts. The search is split at the net: [`Tree::select`]
//! walks to a leaf and hands back the position to evaluate, [`Tree::expand`] takes the
//! net's verdict, so that many trees (parallel games) share one batched evaluation.

use rand::{Rng, RngExt};
use rand_distr::{Distribution, Gamma};

use super::net::{Encoded, Verdict, encode};
use crate::WinRule;
use crate::engine::{Index, Node, SquareSet};

/// How the search weighs the net's priors against what it has found (PUCT's constant).
pub const EXPLORATION: f32 = 1.5;

/// Dirichlet noise mixed into the root's priors in self-play, so that every move gets
/// tried sometimes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Noise {
    /// The Dirichlet's concentration (smaller: the noise goes to fewer moves).
    pub alpha: f32,
    /// The share of the priors it replaces.
    pub fraction: f32,
}

/// One position of the tree.
#[derive(Clone, Debug)]
struct TreeNode<N: Node> {
    position: N,
    parent: Option<usize>,
    /// The move that led here (`None`: a pass), and its place in the policy.
    mv: Option<Index<N>>,
    policy: usize,
    prior: f32,
    visits: u32,
    /// Results summed from the side of the player who moved into this node.
    total: f32,
    /// Its children, `first..first + count` once expanded.
    first: usize,
    count: usize,
    expanded: bool,
}

/// What [`Tree::select`] found at the end of its walk.
#[derive(Debug)]
pub enum Leaf {
    /// A position the net must evaluate: give its verdict to [`Tree::expand`].
    Evaluate(Encoded),
    /// A finished game, scored exactly and backed up already.
    Scored,
}

/// A PUCT search tree from one position.
#[derive(Clone, Debug)]
pub struct Tree<N: Node> {
    nodes: Vec<TreeNode<N>>,
    rule: WinRule,
    noise: Option<Noise>,
    /// The leaf [`Tree::select`] handed out, waiting for [`Tree::expand`].
    pending: Option<usize>,
}

impl<N: Node> Tree<N> {
    /// A tree from `root` (a position where the side to move has a legal move, or at
    /// least a pass), with `noise` for the root's priors where given.
    pub fn new(root: N, rule: WinRule, noise: Option<Noise>) -> Tree<N> {
        Tree {
            nodes: vec![TreeNode {
                position: root,
                parent: None,
                mv: None,
                policy: 0,
                prior: 1.0,
                visits: 0,
                total: 0.0,
                first: 0,
                count: 0,
                expanded: false,
            }],
            rule,
            noise,
            pending: None,
        }
    }

    /// Simulations run so far (the root's visits).
    pub fn simulations(&self) -> u32 {
        self.nodes[0].visits
    }

    /// Walks from the root by PUCT to a leaf: a finished game is scored and backed up
    /// here; any other leaf is handed back for the net.
    ///
    /// # Panics
    /// If the previous leaf was not expanded first.
    pub fn select(&mut self) -> Leaf {
        assert!(
            self.pending.is_none(),
            "expand the leaf before selecting again"
        );
        let mut at = 0;
        while self.nodes[at].expanded {
            let node = &self.nodes[at];
            let root = (node.visits.max(1) as f32).sqrt();
            let children = node.first..node.first + node.count;
            at = children
                .max_by(|&a, &b| {
                    let score = |i: usize| {
                        let child = &self.nodes[i];
                        let q = if child.visits == 0 {
                            0.0
                        } else {
                            child.total / child.visits as f32
                        };
                        q + EXPLORATION * child.prior * root / (1.0 + child.visits as f32)
                    };
                    score(a).total_cmp(&score(b))
                })
                .expect("an expanded node has a child");
        }
        let position = self.nodes[at].position;
        if position.moves().is_empty() && position.after_pass().is_none() {
            let score = position.final_score(self.rule);
            self.backup(at, score.signum() as f32);
            return Leaf::Scored;
        }
        self.pending = Some(at);
        Leaf::Evaluate(encode(&position))
    }

    /// Gives the pending leaf (`encoded`, from [`Tree::select`]) the net's `verdict`: its
    /// children get the priors, and its value is backed up to the root.
    ///
    /// # Panics
    /// If no leaf is pending.
    pub fn expand(&mut self, encoded: &Encoded, verdict: &Verdict, rng: &mut impl Rng) {
        let at = self.pending.take().expect("a leaf from select");
        let position = self.nodes[at].position;
        let squares = position.layout().shape.cells();
        let first = self.nodes.len();
        let mut priors = verdict.priors.clone();
        if at == 0
            && let Some(noise) = self.noise
        {
            mix_noise(&mut priors, noise, rng);
        }
        for (&policy, &prior) in encoded.legal.iter().zip(&priors) {
            let (mv, child) = if policy == squares {
                (None, position.pass())
            } else {
                let square = crate::Square::new(
                    (policy / usize::from(position.layout().shape.columns())) as u8,
                    (policy % usize::from(position.layout().shape.columns())) as u8,
                );
                let mv = position.index(square).expect("a square of the board");
                (Some(mv), position.play(mv))
            };
            self.nodes.push(TreeNode {
                position: child,
                parent: Some(at),
                mv,
                policy,
                prior,
                visits: 0,
                total: 0.0,
                first: 0,
                count: 0,
                expanded: false,
            });
        }
        let node = &mut self.nodes[at];
        node.first = first;
        node.count = encoded.legal.len();
        node.expanded = true;
        self.backup(at, verdict.value);
    }

    /// Adds `value` (for the side to move at `at`) to `at` and its ancestors, each from
    /// the side of the player who moved into it.
    fn backup(&mut self, mut at: usize, mut value: f32) {
        loop {
            let node = &mut self.nodes[at];
            node.visits += 1;
            node.total -= value;
            value = -value;
            match node.parent {
                Some(parent) => at = parent,
                None => break,
            }
        }
    }

    /// The root's moves with their visits: `(policy index, move, visits)` (the move
    /// `None` for a pass).
    pub fn visits(&self) -> Vec<(usize, Option<Index<N>>, u32)> {
        let root = &self.nodes[0];
        self.nodes[root.first..root.first + root.count]
            .iter()
            .map(|child| (child.policy, child.mv, child.visits))
            .collect()
    }

    /// The root's value for its side to move, from -1 to 1, as the search found it.
    pub fn value(&self) -> f32 {
        let root = &self.nodes[0];
        if root.visits == 0 {
            0.0
        } else {
            -root.total / root.visits as f32
        }
    }

    /// The move to play: the most visited (ties to the higher prior), or with
    /// `temperature` above zero one drawn in proportion to visits^(1/temperature).
    pub fn choose(&self, temperature: f32, rng: &mut impl Rng) -> Option<Index<N>> {
        let root = &self.nodes[0];
        let children = &self.nodes[root.first..root.first + root.count];
        if temperature > 0.0 {
            let weights: Vec<f64> = children
                .iter()
                .map(|child| f64::from(child.visits).powf(1.0 / f64::from(temperature)))
                .collect();
            let sum: f64 = weights.iter().sum();
            if sum > 0.0 {
                let mut pick = rng.random_range(0.0..sum);
                for (child, weight) in children.iter().zip(&weights) {
                    if pick < *weight {
                        return child.mv;
                    }
                    pick -= weight;
                }
            }
        }
        children
            .iter()
            .max_by(|a, b| a.visits.cmp(&b.visits).then(a.prior.total_cmp(&b.prior)))
            .and_then(|child| child.mv)
    }
}

/// Mixes Dirichlet(`noise.alpha`) noise into `priors`.
fn mix_noise(priors: &mut [f32], noise: Noise, rng: &mut impl Rng) {
    if priors.len() < 2 {
        return;
    }
    let Ok(gamma) = Gamma::new(f64::from(noise.alpha), 1.0) else {
        return;
    };
    let draws: Vec<f64> = priors.iter().map(|_| gamma.sample(rng)).collect();
    let sum: f64 = draws.iter().sum();
    if sum <= 0.0 || !sum.is_finite() {
        return;
    }
    for (prior, draw) in priors.iter_mut().zip(draws) {
        *prior = (1.0 - noise.fraction) * *prior + noise.fraction * (draw / sum) as f32;
    }
}
