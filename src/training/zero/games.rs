//! Many games at once, their searches' leaves evaluated by the net in one batch: self-play
//! (the positions to learn from) and matches (the gate, and the strength against fixed
//! opponents).

use rand::{Rng, RngExt, SeedableRng, rngs::StdRng};

use super::replay::ZeroSample;
use crate::WinRule;
use crate::engine::zero::{Encoded, Leaf, Net, NetError, Noise, Tree, encode, policy_index};
use crate::engine::{Index, Node, SquareSet};

/// How self-play searches and chooses its moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelfPlaySettings {
    /// Simulations of each move's search.
    pub simulations: u32,
    /// Moves (plies) of each game played in proportion to visits; after them, the most
    /// visited move.
    pub temperature_plies: u32,
    /// The root's Dirichlet noise.
    pub noise: Noise,
    /// Games played at once (their leaves go to the net together).
    pub parallel: usize,
}

/// A game in progress: its position, and how many moves and passes have been made (whose
/// parity says whether the side to move is the one that moved first).
struct Running<N: Node> {
    node: N,
    plies: u32,
    tree: Option<Tree<N>>,
    /// Positions so far, with the parity of the side to move at each.
    samples: Vec<(ZeroSample, u32)>,
}

/// The position after `node` passes where its side must, `None` when the game is over.
fn settle<N: Node>(node: N, plies: &mut u32) -> Option<N> {
    if !node.moves().is_empty() {
        return Some(node);
    }
    let passed = node.after_pass()?;
    *plies += 1;
    Some(passed)
}

/// Plays `mv` in `node` and the passes that follow; true when that ends the game (`node`
/// is then the final position, its side to move given by `plies`' parity).
fn play<N: Node>(node: &mut N, plies: &mut u32, mv: Index<N>) -> bool {
    *plies += 1;
    let next = node.play(mv);
    match settle(next, plies) {
        Some(settled) => {
            *node = settled;
            false
        }
        None => {
            *node = next;
            true
        }
    }
}

/// One round of search in each of `trees`: every tree walks to a leaf, and the leaves that
/// need the net are evaluated in one batch.
fn simulate<N: Node>(
    net: &Net,
    trees: &mut [&mut Tree<N>],
    rng: &mut impl Rng,
) -> Result<(), NetError> {
    let mut waiting: Vec<(usize, Encoded)> = Vec::new();
    for (i, tree) in trees.iter_mut().enumerate() {
        if let Leaf::Evaluate(encoded) = tree.select() {
            waiting.push((i, encoded));
        }
    }
    let positions: Vec<&Encoded> = waiting.iter().map(|(_, encoded)| encoded).collect();
    let verdicts = net.evaluate(&positions)?;
    for ((i, encoded), verdict) in waiting.iter().zip(&verdicts) {
        trees[*i].expand(encoded, verdict, rng);
    }
    Ok(())
}

/// `games` games of self-play from `start` by `net`, with the positions to learn from.
///
/// # Errors
/// If the net fails.
pub fn self_play<N: Node>(
    net: &Net,
    start: N,
    rule: WinRule,
    games: usize,
    settings: &SelfPlaySettings,
    seed: u64,
) -> Result<Vec<ZeroSample>, NetError> {
    let mut rng = StdRng::seed_from_u64(seed);
    let shape = start.layout().shape;
    let squares = shape.cells();
    let mut samples = Vec::new();
    let mut started = 0;
    let mut running: Vec<Running<N>> = Vec::new();
    loop {
        while running.len() < settings.parallel && started < games {
            started += 1;
            let mut plies = 0;
            if let Some(node) = settle(start, &mut plies) {
                running.push(Running {
                    node,
                    plies,
                    tree: None,
                    samples: Vec::new(),
                });
            }
        }
        if running.is_empty() {
            return Ok(samples);
        }
        for game in &mut running {
            if game.tree.is_none() {
                game.tree = Some(Tree::new(game.node, rule, Some(settings.noise)));
            }
        }
        let mut trees: Vec<&mut Tree<N>> = running
            .iter_mut()
            .filter_map(|game| game.tree.as_mut())
            .collect();
        simulate(net, &mut trees, &mut rng)?;
        let mut finished = Vec::new();
        for (i, game) in running.iter_mut().enumerate() {
            let tree = game.tree.as_ref().expect("a tree");
            let single = game.node.moves().len() == 1;
            if tree.simulations() < settings.simulations && !single {
                continue;
            }
            let temperature = if game.plies < settings.temperature_plies {
                1.0
            } else {
                0.0
            };
            let mut policy = vec![0.0; squares + 1];
            let visits = tree.visits();
            let total: u32 = visits.iter().map(|&(_, _, n)| n).sum();
            let mv = if single {
                let mv = game.node.moves().first().expect("one move");
                policy[policy_index(shape, game.node.square(mv))] = 1.0;
                mv
            } else {
                for &(at, _, n) in &visits {
                    policy[at] = n as f32 / total.max(1) as f32;
                }
                tree.choose(temperature, &mut rng)
                    .expect("a move where there are moves")
            };
            game.samples.push((
                ZeroSample {
                    planes: encode(&game.node).planes,
                    policy,
                    value: 0.0,
                },
                game.plies % 2,
            ));
            game.tree = None;
            if play(&mut game.node, &mut game.plies, mv) {
                finished.push(i);
            }
        }
        for &i in finished.iter().rev() {
            let game = running.swap_remove(i);
            let result = game.node.final_score(rule).signum() as f32;
            let last = game.plies % 2;
            samples.extend(game.samples.into_iter().map(|(mut sample, parity)| {
                sample.value = if parity == last { result } else { -result };
                sample
            }));
        }
    }
}

/// Who plays a seat in a match.
#[derive(Clone, Copy, Debug)]
pub enum Seat<'a> {
    /// The net, searching this many simulations a move (the most visited move).
    Net(&'a Net, u32),
    /// Any legal move, uniformly.
    Random,
    /// The move that flips the most discs, ties at random.
    Greedy,
}

/// A match's result for its first seat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games the first seat won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games the first seat lost.
    pub losses: u32,
}

impl Tally {
    /// Games played.
    pub fn games(self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The first seat's score, a draw counting half: 0 to 1.
    pub fn score(self) -> f64 {
        (f64::from(self.wins) + f64::from(self.draws) / 2.0) / f64::from(self.games().max(1))
    }
}

/// A game of a match: its position, its plies, which seat moves first, its search.
struct Game<N: Node> {
    node: N,
    plies: u32,
    first_moves_first: bool,
    tree: Option<Tree<N>>,
}

impl<N: Node> Game<N> {
    /// The seat to move: 0 the match's first, 1 its second.
    fn turn(&self) -> usize {
        usize::from(self.plies.is_multiple_of(2) != self.first_moves_first)
    }
}

/// How a match is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchSettings {
    /// Pairs of games: each pair from one opening, the seats taking each colour once.
    pub pairs: usize,
    /// Random moves that open each pair's games.
    pub opening_plies: u32,
    /// Games played at once (their nets' leaves evaluated together).
    pub parallel: usize,
    /// Seed of the openings and of the random players' moves.
    pub seed: u64,
}

/// A match between `first` and `second` from `start`, as `settings` say.
///
/// # Errors
/// If a net fails.
pub fn play_match<N: Node>(
    first: Seat<'_>,
    second: Seat<'_>,
    start: N,
    rule: WinRule,
    settings: &MatchSettings,
) -> Result<Tally, NetError> {
    let MatchSettings {
        pairs,
        opening_plies,
        parallel,
        seed,
    } = *settings;
    let mut rng = StdRng::seed_from_u64(seed);
    let mut queue: Vec<Game<N>> = Vec::new();
    for _ in 0..pairs {
        let mut plies = 0;
        let mut node = settle(start, &mut plies);
        for _ in 0..opening_plies {
            let Some(at) = node else { break };
            let mv = random_move(&at, &mut rng);
            plies += 1;
            node = settle(at.play(mv), &mut plies);
        }
        // An opening that ends the game: the game starts from the start instead.
        let (node, plies) = match node {
            Some(node) => (node, plies),
            None => {
                let mut plies = 0;
                (
                    settle(start, &mut plies).expect("a game at the start"),
                    plies,
                )
            }
        };
        for first_moves_first in [true, false] {
            queue.push(Game {
                node,
                plies,
                first_moves_first,
                tree: None,
            });
        }
    }
    let mut tally = Tally::default();
    let mut running: Vec<Game<N>> = Vec::new();
    queue.reverse();
    loop {
        while running.len() < parallel.max(1) {
            match queue.pop() {
                Some(game) => running.push(game),
                None => break,
            }
        }
        if running.is_empty() {
            return Ok(tally);
        }
        // The nets' searches one round on, each net's leaves in one batch.
        let seats = [first, second];
        for (which, seat) in seats.into_iter().enumerate() {
            let Seat::Net(net, _) = seat else { continue };
            let mut trees: Vec<&mut Tree<N>> = running
                .iter_mut()
                .filter(|game| game.turn() == which && game.node.moves().len() > 1)
                .map(|game| {
                    let node = game.node;
                    game.tree.get_or_insert_with(|| Tree::new(node, rule, None))
                })
                .collect();
            simulate(net, &mut trees, &mut rng)?;
        }
        let mut finished = Vec::new();
        for (i, game) in running.iter_mut().enumerate() {
            let seat = seats[game.turn()];
            let mv = match seat {
                Seat::Net(_, simulations) => {
                    if game.node.moves().len() == 1 {
                        game.node.moves().first().expect("one move")
                    } else {
                        let tree = game.tree.as_ref().expect("a search");
                        if tree.simulations() < simulations {
                            continue;
                        }
                        tree.choose(0.0, &mut rng).expect("a move")
                    }
                }
                Seat::Random => random_move(&game.node, &mut rng),
                Seat::Greedy => greedy_move(&game.node, &mut rng),
            };
            game.tree = None;
            if play(&mut game.node, &mut game.plies, mv) {
                finished.push(i);
            }
        }
        for &i in finished.iter().rev() {
            let game = running.swap_remove(i);
            let score = game.node.final_score(rule);
            // The score is the side to move's; turned to the first seat's.
            let score = if game.turn() == 0 { score } else { -score };
            match score.signum() {
                1 => tally.wins += 1,
                0 => tally.draws += 1,
                _ => tally.losses += 1,
            }
        }
    }
}

/// A legal move of `node` (which has one), uniformly.
fn random_move<N: Node>(node: &N, rng: &mut impl Rng) -> Index<N> {
    let mut moves = node.moves();
    let pick = rng.random_range(0..moves.len());
    for _ in 0..pick {
        moves.pop();
    }
    moves.pop().expect("a move")
}

/// The move of `node` (which has one) that flips the most discs, ties at random.
fn greedy_move<N: Node>(node: &N, rng: &mut impl Rng) -> Index<N> {
    let mut moves = node.moves();
    let mut best = Vec::new();
    let mut most = 0;
    while let Some(mv) = moves.pop() {
        let flips = node.flips(mv).len();
        if flips > most {
            most = flips;
            best.clear();
        }
        if flips == most {
            best.push(mv);
        }
    }
    best[rng.random_range(0..best.len())]
}
