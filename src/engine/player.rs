//! Players: whatever picks a move in a [`Game`], named by a spec such as `greedy`,
//! `minimax:4`, `mcts:2000` or `engine:7`.

use std::{fmt, str::FromStr, sync::Arc, time::Duration};

use rand::{RngExt, SeedableRng, rngs::StdRng};
use thiserror::Error;

use super::{
    Goal, Limits, Node, Node8, SearchOptions, SearchReport, Selectivity, Signal, SquareSet,
    Stopper, TranspositionTable,
    book::Book,
    endgame,
    endgame::SolveOptions,
    eval::DISC,
    eval::Evaluator,
    mcts::mcts,
    on_node,
    search::{
        plan::{ExactFirst, plan},
        search,
    },
    zero::{self, NetChoice, UnfitNet, ZeroSpec},
};
use crate::{Game, GameKind, RuleSet, Square, Status, WinRule};

/// A kind of player, as named on the command line (the kinds, their numbers and what they
/// are: [`PLAYER_KINDS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlayerSpec {
    /// `random`: any legal move, uniformly.
    Random,
    /// `greedy`: the move that flips the most discs (ties at random).
    Greedy,
    /// `minimax:D`: plain alpha-beta to depth D on the disc difference.
    Minimax(u32),
    /// `mcts:N`: Monte Carlo tree search with N random playouts per move.
    Mcts(u32),
    /// `engine` or `engine:L`: the engine at level L, 1 to 10 (10 when omitted).
    Engine(u8),
    /// `classic` or `classic:L`: the engine at level L with the hand-written evaluation
    /// instead of the learned one (the same search), for comparing them.
    Classic(u8),
    /// `zero` or `zero:N`: the neural net trained by `othello zero` guiding a tree search of
    /// N simulations a move; the net shipped for the game, or one a front end loaded from a
    /// file (`zero:FILE`, `zero:FILE:N`).
    Zero(ZeroSpec),
}

impl PlayerSpec {
    /// The engine's strongest level, used for plain `engine`.
    pub const MAX_LEVEL: u8 = 10;

    /// The most playouts `mcts:N` takes: its tree keeps a position for each, a few hundred
    /// bytes on the largest boards, so this bounds it to a few hundred MB.
    pub(crate) const MAX_PLAYOUTS: u32 = 1_000_000;

    /// The most simulations `zero:N` takes: its tree keeps a node for each.
    pub const MAX_SIMULATIONS: u32 = 100_000;

    /// Whether this player can play games of `kind`: every one can, but a `zero` player
    /// needs a net for it.
    ///
    /// # Errors
    /// For a `zero` player without a net for `kind`.
    pub fn fits(self, kind: GameKind) -> Result<(), UnfitNet> {
        match self {
            PlayerSpec::Zero(spec) => spec.net_for(kind).map(|_| ()),
            _ => Ok(()),
        }
    }
}

/// One kind of player in [`PLAYER_KINDS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayerKind {
    /// Its name in a spec: `random`, `minimax`, `engine`, ...
    pub name: &'static str,
    /// The number it takes after a colon, if any (`D` in `minimax:D`).
    pub argument: Option<SpecArgument>,
    /// What it is, for help: a phrase that names the argument by its letter.
    pub about: &'static str,
    /// Its name in the web page's menu of players; `None` where the page does not offer it.
    pub label: Option<&'static str>,
}

/// The number a [`PlayerKind`] takes after a colon.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpecArgument {
    /// Its letter in help: `D` in `minimax:D`.
    pub letter: &'static str,
    /// What it counts, one lower-case word: `depth`, `playouts`, `level`.
    pub name: &'static str,
    /// The smallest value.
    pub min: u32,
    /// The largest value.
    pub max: u32,
    /// The value when the spec leaves the number out (`engine` is `engine:10`); `None`:
    /// the number must be given.
    pub omitted: Option<u32>,
    /// A value to start from where someone is asked for one (the web page's field).
    pub suggested: u32,
}

impl PlayerKind {
    /// How a spec of this kind is written, with its range: `random`, `minimax:D (1-60)`,
    /// `engine or engine:L (1-10)`.
    pub(crate) fn usage(&self) -> String {
        match self.argument {
            None => self.name.to_owned(),
            Some(argument) => {
                let name = self.name;
                let (letter, min, max) = (argument.letter, argument.min, argument.max);
                match argument.omitted {
                    None => format!("{name}:{letter} ({min}-{max})"),
                    Some(_) => format!("{name} or {name}:{letter} ({min}-{max})"),
                }
            }
        }
    }
}

/// Every kind of player, as people name them: the one list the command line's help, the
/// parser (its ranges and its error) and the web server's menus of players are made from.
pub const PLAYER_KINDS: [PlayerKind; 7] = [
    PlayerKind {
        name: "random",
        argument: None,
        about: "any legal move, uniformly",
        label: Some("random"),
    },
    PlayerKind {
        name: "greedy",
        argument: None,
        about: "the move that flips the most discs (ties at random)",
        label: Some("greedy"),
    },
    PlayerKind {
        name: "minimax",
        argument: Some(SpecArgument {
            letter: "D",
            name: "depth",
            min: 1,
            max: 60,
            omitted: None,
            suggested: 4,
        }),
        about: "plain alpha-beta to depth D on the disc difference",
        label: Some("minimax"),
    },
    PlayerKind {
        name: "mcts",
        argument: Some(SpecArgument {
            letter: "N",
            name: "playouts",
            min: 1,
            max: PlayerSpec::MAX_PLAYOUTS,
            omitted: None,
            suggested: 2000,
        }),
        about: "Monte Carlo tree search with N random playouts per move",
        label: Some("MCTS"),
    },
    PlayerKind {
        name: "engine",
        argument: Some(ENGINE_LEVEL),
        about: "the engine at level L, its strongest (10) when omitted",
        label: Some("the engine"),
    },
    PlayerKind {
        name: "classic",
        argument: Some(ENGINE_LEVEL),
        about: "the engine at level L with the hand-written evaluation instead of the learned \
                one (the same search)",
        label: None,
    },
    PlayerKind {
        name: "zero",
        argument: Some(SpecArgument {
            letter: "N",
            name: "simulations",
            min: 1,
            max: PlayerSpec::MAX_SIMULATIONS,
            omitted: Some(zero::DEFAULT_SIMULATIONS),
            suggested: zero::DEFAULT_SIMULATIONS,
        }),
        about: "the neural net trained by `othello zero` (the one shipped for the board), \
                guiding a tree search of N simulations a move; on the command line, \
                zero:FILE or zero:FILE:N plays a net file",
        label: Some("zero (neural net)"),
    },
];

/// The level the engine players take.
const ENGINE_LEVEL: SpecArgument = SpecArgument {
    letter: "L",
    name: "level",
    min: 1,
    max: PlayerSpec::MAX_LEVEL as u32,
    omitted: Some(PlayerSpec::MAX_LEVEL as u32),
    suggested: PlayerSpec::MAX_LEVEL as u32,
};

impl fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerSpec::Random => write!(f, "random"),
            PlayerSpec::Greedy => write!(f, "greedy"),
            PlayerSpec::Minimax(depth) => write!(f, "minimax:{depth}"),
            PlayerSpec::Mcts(playouts) => write!(f, "mcts:{playouts}"),
            PlayerSpec::Engine(PlayerSpec::MAX_LEVEL) => write!(f, "engine"),
            PlayerSpec::Engine(level) => write!(f, "engine:{level}"),
            PlayerSpec::Classic(PlayerSpec::MAX_LEVEL) => write!(f, "classic"),
            PlayerSpec::Classic(level) => write!(f, "classic:{level}"),
            PlayerSpec::Zero(spec) => spec.fmt(f),
        }
    }
}

impl FromStr for PlayerSpec {
    type Err = ParsePlayerError;

    /// A kind's name from [`PLAYER_KINDS`], with its number after a colon where it takes
    /// one (in its range; left out where the kind allows).
    fn from_str(text: &str) -> Result<PlayerSpec, ParsePlayerError> {
        let error = || ParsePlayerError(text.to_owned());
        let (name, given) = match text.split_once(':') {
            Some((name, given)) => (name, Some(given)),
            None => (text, None),
        };
        let kind = PLAYER_KINDS
            .iter()
            .find(|kind| kind.name == name)
            .ok_or_else(error)?;
        let value = match (kind.argument, given) {
            (None, None) => 0,
            (Some(argument), None) => argument.omitted.ok_or_else(error)?,
            (Some(argument), Some(given)) => {
                let value: u32 = given.parse().map_err(|_| error())?;
                (argument.min..=argument.max)
                    .contains(&value)
                    .then_some(value)
                    .ok_or_else(error)?
            }
            (None, Some(_)) => return Err(error()),
        };
        Ok(match kind.name {
            "random" => PlayerSpec::Random,
            "greedy" => PlayerSpec::Greedy,
            "minimax" => PlayerSpec::Minimax(value),
            "mcts" => PlayerSpec::Mcts(value),
            "engine" => PlayerSpec::Engine(value as u8),
            "classic" => PlayerSpec::Classic(value as u8),
            _ => PlayerSpec::Zero(ZeroSpec {
                net: NetChoice::Shipped,
                simulations: value,
            }),
        })
    }
}

/// A player spec that is not one of those listed in [`PLAYER_KINDS`].
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown player {0:?}: expected {usage}", usage = kinds_usage())]
pub struct ParsePlayerError(pub String);

/// Every kind's [`PlayerKind::usage`], in a list: `random, greedy, minimax:D (1-60), ...`.
fn kinds_usage() -> String {
    PLAYER_KINDS
        .iter()
        .map(PlayerKind::usage)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Who plays one side of the board: a person, or the computer as a player spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Occupant {
    /// A person at the keyboard.
    Human,
    /// The computer, playing as the spec says.
    Computer(PlayerSpec),
}

impl fmt::Display for Occupant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Occupant::Human => f.write_str("human"),
            Occupant::Computer(spec) => spec.fmt(f),
        }
    }
}

impl FromStr for Occupant {
    type Err = ParsePlayerError;

    /// `human`, or a player spec (`greedy`, `engine:5`, ...).
    fn from_str(text: &str) -> Result<Occupant, ParsePlayerError> {
        if text.eq_ignore_ascii_case("human") {
            Ok(Occupant::Human)
        } else {
            text.parse().map(Occupant::Computer)
        }
    }
}

/// Something that chooses moves.
pub trait Player<R: RuleSet> {
    /// What kind of player this is.
    fn spec(&self) -> PlayerSpec;

    /// The move to play in `game`, or `None` if the side to move has none, within
    /// `limits`: every player that searches stops at the time, node or depth limit given
    /// (and at its [`Player::watch`] signal) with the best move it has, so no spec can run
    /// away with a machine; a player given no limit at all searches as its spec says (the
    /// engine then takes `DEFAULT_MOVE_TIME`, one second). `progress` hears about each finished
    /// search iteration.
    fn choose(
        &mut self,
        game: &Game<R>,
        limits: &Limits,
        progress: &mut dyn FnMut(&SearchReport),
    ) -> Option<Square>;

    /// Lets another thread cut the choice short: when `signal` is stopped, a searching
    /// player returns the best move it has found so far (players that do not search take
    /// no notice; their choices are short anyway).
    fn watch(&mut self, signal: Arc<Signal>) {
        let _ = signal;
    }
}

/// A player for `spec`; `seed` makes its random choices reproducible; `hash` is the
/// engine's transposition table size in MiB (`None`: sized to the time per move, see
/// `EnginePlayer`).
pub fn new_player<R: RuleSet>(
    spec: PlayerSpec,
    seed: u64,
    hash: Option<usize>,
) -> Box<dyn Player<R>> {
    let rng = StdRng::seed_from_u64(seed);
    match spec {
        PlayerSpec::Random => Box::new(RandomPlayer { rng }),
        PlayerSpec::Greedy => Box::new(GreedyPlayer { rng }),
        PlayerSpec::Minimax(depth) => Box::new(MinimaxPlayer {
            depth,
            signal: None,
        }),
        PlayerSpec::Mcts(playouts) => Box::new(MctsPlayer {
            playouts,
            rng,
            signal: None,
        }),
        PlayerSpec::Engine(level) => Box::new(EnginePlayer::new(level, hash).seeded(seed)),
        PlayerSpec::Classic(level) => Box::new(EnginePlayer::classic(level, hash).seeded(seed)),
        PlayerSpec::Zero(spec) => Box::new(ZeroPlayer {
            spec,
            rng,
            hash,
            signal: None,
        }),
    }
}

/// What may be set on an engine player besides its level: to measure one version of the
/// engine against another (weights of another training generation, another selectivity),
/// or for a user who wants it otherwise. Players that are not engines ignore it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EngineSettings {
    /// Learned weights in place of the built-in ones (an `engine` player only): an
    /// [`Evaluator`] loaded from a weights file.
    pub weights: Option<Evaluator>,
    /// How selective its searches are (default: its level's).
    pub selectivity: Option<Selectivity>,
    /// Threads each of its searches uses (default: one).
    pub threads: Option<usize>,
    /// Never play from the opening book (matches that measure the search).
    pub no_book: bool,
    /// How many times the time or nodes it is given per move it may use (default: once):
    /// a handicap between players, or a measure of what more search is worth.
    pub odds: Option<u32>,
}

/// [`new_player`] with `settings` applied to an engine player.
pub fn new_player_with<R: RuleSet>(
    spec: PlayerSpec,
    seed: u64,
    hash: Option<usize>,
    settings: &EngineSettings,
) -> Box<dyn Player<R>> {
    let engine = match (spec, settings.weights) {
        (PlayerSpec::Engine(level), Some(weights)) => {
            EnginePlayer::with_weights(level, hash, weights)
        }
        (PlayerSpec::Engine(level), None) => EnginePlayer::new(level, hash),
        (PlayerSpec::Classic(level), _) => EnginePlayer::classic(level, hash),
        (spec, _) => return new_player(spec, seed, hash),
    };
    let mut engine = engine
        .seeded(seed)
        .with_threads(settings.threads.unwrap_or(1));
    if settings.no_book {
        engine = engine.without_book();
    }
    engine.odds = settings.odds.unwrap_or(1).max(1);
    Box::new(match settings.selectivity {
        Some(selectivity) => engine.with_selectivity(selectivity),
        None => engine,
    })
}

/// Picks uniformly among the legal moves.
struct RandomPlayer {
    rng: StdRng,
}

impl<R: RuleSet> Player<R> for RandomPlayer {
    fn spec(&self) -> PlayerSpec {
        PlayerSpec::Random
    }

    fn choose(
        &mut self,
        game: &Game<R>,
        _: &Limits,
        _: &mut dyn FnMut(&SearchReport),
    ) -> Option<Square> {
        let moves = game.legal_moves();
        let count = moves.count() as usize;
        (count > 0).then(|| {
            moves
                .iter()
                .nth(self.rng.random_range(0..count))
                .expect("in range")
        })
    }
}

/// Flips as many discs as it can, choosing at random between equals.
struct GreedyPlayer {
    rng: StdRng,
}

impl<R: RuleSet> Player<R> for GreedyPlayer {
    fn spec(&self) -> PlayerSpec {
        PlayerSpec::Greedy
    }

    fn choose(
        &mut self,
        game: &Game<R>,
        _: &Limits,
        _: &mut dyn FnMut(&SearchReport),
    ) -> Option<Square> {
        let Status::ToMove(side) = game.status() else {
            return None;
        };
        let flips = |square| R::flips(game.board(), side, square).count();
        let most = game.legal_moves().iter().map(flips).max()?;
        let best: Vec<Square> = game
            .legal_moves()
            .iter()
            .filter(|&s| flips(s) == most)
            .collect();
        Some(best[self.rng.random_range(0..best.len())])
    }
}

/// Plain alpha-beta to a fixed depth on the disc difference (the usual teaching bot):
/// no table, moves in square order, the first best move wins ties. Within a time or node
/// limit it deepens one ply at a time and keeps the deepest search it finished, which at
/// the full depth is the same move as a single search to it.
/// The net trained by `othello zero` guiding a PUCT search ([`zero::think`]).
struct ZeroPlayer {
    spec: ZeroSpec,
    /// For ties between equally visited moves.
    rng: StdRng,
    /// For the engine that stands in where the net cannot play.
    hash: Option<usize>,
    signal: Option<Arc<Signal>>,
}

impl<R: RuleSet> Player<R> for ZeroPlayer {
    fn spec(&self) -> PlayerSpec {
        PlayerSpec::Zero(self.spec)
    }

    fn watch(&mut self, signal: Arc<Signal>) {
        self.signal = Some(signal);
    }

    /// The net's move; where it has no net for the game (front ends refuse that up front,
    /// [`PlayerSpec::fits`]; a game loaded into a console session may still change the
    /// board) or the net fails, the engine with the hand-written evaluation moves instead,
    /// within the same limits, rather than the game stopping.
    fn choose(
        &mut self,
        game: &Game<R>,
        limits: &Limits,
        progress: &mut dyn FnMut(&SearchReport),
    ) -> Option<Square> {
        let Status::ToMove(side) = game.status() else {
            return None;
        };
        let rule = game.setup().win_rule;
        let kind = GameKind::new(R::VARIANT, game.board().shape(), rule);
        if let Ok(net) = self.spec.net_for(kind) {
            let (simulations, signal) = (self.spec.simulations, self.signal.as_deref());
            let rng = &mut self.rng;
            let chosen = on_node!(rules = R, game.board(), side, |node| {
                zero::think(net, &node, rule, simulations, limits, signal, rng)
            });
            if let Ok(thought) = chosen {
                return thought.square;
            }
        }
        let mut engine = EnginePlayer::classic(PlayerSpec::MAX_LEVEL, self.hash);
        if let Some(signal) = &self.signal {
            Player::<R>::watch(&mut engine, Arc::clone(signal));
        }
        engine.choose(game, limits, progress)
    }
}

struct MinimaxPlayer {
    depth: u32,
    signal: Option<Arc<Signal>>,
}

impl<R: RuleSet> Player<R> for MinimaxPlayer {
    fn spec(&self) -> PlayerSpec {
        PlayerSpec::Minimax(self.depth)
    }

    fn watch(&mut self, signal: Arc<Signal>) {
        self.signal = Some(signal);
    }

    fn choose(
        &mut self,
        game: &Game<R>,
        limits: &Limits,
        _: &mut dyn FnMut(&SearchReport),
    ) -> Option<Square> {
        let Status::ToMove(side) = game.status() else {
            return None;
        };
        let depth = self.depth.min(limits.depth.unwrap_or(u32::MAX)).max(1);
        let rule = game.setup().win_rule;
        let mut stopper = Stopper::new(limits, self.signal.as_deref());
        on_node!(rules = R, game.board(), side, |node| {
            minimax_deepening(&node, rule, depth, &mut stopper)
        })
    }
}

/// The best move of `node` by [`minimax`] to `depth`, deeper and deeper from depth 1: the
/// last one `stopper` let finish.
fn minimax_deepening<N: Node>(
    node: &N,
    rule: WinRule,
    depth: u32,
    stopper: &mut Stopper<'_>,
) -> Option<Square> {
    let mut chosen = node.moves().first().map(|mv| node.square(mv));
    for depth in 1..=depth {
        match minimax_root(node, rule, depth, stopper) {
            Some(best) => chosen = best,
            None => break,
        }
    }
    chosen
}

/// The best move of `node` by [`minimax`] to `depth`; `None` if `stopper` stopped it first.
fn minimax_root<N: Node>(
    node: &N,
    rule: WinRule,
    depth: u32,
    stopper: &mut Stopper<'_>,
) -> Option<Option<Square>> {
    let mut moves = node.moves();
    let mut best: Option<(i32, Square)> = None;
    while let Some(mv) = moves.pop() {
        let score = -minimax(
            &node.play(mv),
            rule,
            depth - 1,
            -i32::MAX,
            i32::MAX,
            stopper,
        )?;
        if best.is_none_or(|(top, _)| score > top) {
            best = Some((score, node.square(mv)));
        }
    }
    Some(best.map(|(_, square)| square))
}

/// Negamax alpha-beta on the disc difference (in the win rule's direction); `None` once
/// `stopper` says stop.
fn minimax<N: Node>(
    node: &N,
    rule: WinRule,
    depth: u32,
    mut alpha: i32,
    beta: i32,
    stopper: &mut Stopper<'_>,
) -> Option<i32> {
    if stopper.tick() {
        return None;
    }
    let mut moves = node.moves();
    if moves.is_empty() {
        let Some(passed) = node.after_pass() else {
            // Finished games outrank any disc count seen mid-game.
            return Some(node.final_score(rule) * 1000);
        };
        return minimax(&passed, rule, depth, -beta, -alpha, stopper).map(|score| -score);
    }
    if depth == 0 {
        let difference = node.player().len() as i32 - node.opponent().len() as i32;
        return Some(match rule {
            WinRule::MostDiscs => difference,
            WinRule::FewestDiscs => -difference,
        });
    }
    let mut best = -i32::MAX;
    while let Some(mv) = moves.pop() {
        best = best.max(-minimax(
            &node.play(mv),
            rule,
            depth - 1,
            -beta,
            -alpha,
            stopper,
        )?);
        alpha = alpha.max(best);
        if alpha >= beta {
            break;
        }
    }
    Some(best)
}

/// Monte Carlo tree search with a fixed number of playouts (fewer if a limit comes first).
struct MctsPlayer {
    playouts: u32,
    rng: StdRng,
    signal: Option<Arc<Signal>>,
}

impl<R: RuleSet> Player<R> for MctsPlayer {
    fn spec(&self) -> PlayerSpec {
        PlayerSpec::Mcts(self.playouts)
    }

    fn watch(&mut self, signal: Arc<Signal>) {
        self.signal = Some(signal);
    }

    fn choose(
        &mut self,
        game: &Game<R>,
        limits: &Limits,
        _: &mut dyn FnMut(&SearchReport),
    ) -> Option<Square> {
        let Status::ToMove(side) = game.status() else {
            return None;
        };
        let mut stopper = Stopper::new(limits, self.signal.as_deref());
        let (playouts, rule, rng) = (self.playouts, game.setup().win_rule, &mut self.rng);
        on_node!(rules = R, game.board(), side, |node| {
            mcts(&node, rule, playouts, rng, &mut stopper)
        })
    }
}

/// What each engine level may do: iteration depth, and up to how many empties it solves
/// the game exactly (both further bounded by the time given).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Level {
    /// Deepest midgame iteration.
    pub(crate) depth: u32,
    /// Most empty squares for an exact solve.
    pub(crate) solve_empties: u32,
    /// How far off its judgement is: each root move's score gets a random error of about
    /// this much (a normal spread, in evaluation units) before the best is picked, so that
    /// low levels slip now and then as people do, more often between moves that are close.
    pub(crate) noise: i32,
    /// Whether it plays from the opening book, and how far from the best book move it may
    /// stray (evaluation units; picked evenly among those within), so games vary.
    pub(crate) book: Option<i32>,
    /// How selective its midgame searches are.
    pub(crate) selectivity: Selectivity,
}

/// The selectivity of levels 6 to 10.
const LEVEL_SELECTIVITY: Selectivity = Selectivity::DEFAULT;

/// Levels 1 to 10, weakest first. Level 10 has no depth limit: only time bounds it. Levels
/// 1 to 5 misjudge moves a little (see [`Level::noise`]): from about 6 discs to under one.
pub(crate) const LEVELS: [Level; 10] = [
    Level {
        depth: 1,
        solve_empties: 0,
        noise: 600,
        book: None,
        selectivity: Selectivity::NONE,
    },
    Level {
        depth: 2,
        solve_empties: 4,
        noise: 400,
        book: None,
        selectivity: Selectivity::NONE,
    },
    Level {
        depth: 3,
        solve_empties: 6,
        noise: 250,
        book: None,
        selectivity: Selectivity::NONE,
    },
    Level {
        depth: 4,
        solve_empties: 8,
        noise: 150,
        book: Some(4 * DISC),
        selectivity: Selectivity::NONE,
    },
    Level {
        depth: 5,
        solve_empties: 10,
        noise: 75,
        book: Some(4 * DISC),
        selectivity: Selectivity::NONE,
    },
    Level {
        depth: 6,
        solve_empties: 12,
        noise: 0,
        book: Some(2 * DISC),
        selectivity: LEVEL_SELECTIVITY,
    },
    Level {
        depth: 8,
        solve_empties: 14,
        noise: 0,
        book: Some(2 * DISC),
        selectivity: LEVEL_SELECTIVITY,
    },
    Level {
        depth: 10,
        solve_empties: 16,
        noise: 0,
        book: Some(2 * DISC),
        selectivity: LEVEL_SELECTIVITY,
    },
    Level {
        depth: 12,
        solve_empties: 18,
        noise: 0,
        book: Some(2 * DISC),
        selectivity: LEVEL_SELECTIVITY,
    },
    Level {
        depth: 64,
        solve_empties: 22,
        noise: 0,
        book: Some(DISC),
        selectivity: LEVEL_SELECTIVITY,
    },
];

/// Time per move of an engine that is given none: one second.
pub(crate) const DEFAULT_MOVE_TIME: Duration = Duration::from_secs(1);

/// The engine: iterative-deepening search with the evaluation, and the exact solver near
/// the end when the time allows.
///
/// Its transposition table is kept from move to move. Unless a size is given, it is made
/// at the first move for the time given: [`TranspositionTable::megabytes_for_time`], at
/// most [`MAX_DEFAULT_HASH`] MiB (many engines may play at once, in a match or a server).
pub(crate) struct EnginePlayer {
    level: u8,
    /// For the low levels' slips.
    rng: StdRng,
    /// `engine` (the default evaluation) or `classic` (the hand-written one).
    classic: bool,
    eval: Evaluator,
    /// How selective its searches are, in place of its level's.
    selectivity: Option<Selectivity>,
    /// Whether it may play from the built-in opening book (as its level says).
    book: bool,
    /// Threads per search.
    threads: usize,
    /// The multiple of the time or nodes it is given that it uses (see
    /// [`EngineSettings::odds`]).
    odds: u32,
    hash: Option<usize>,
    tt: Option<TranspositionTable>,
    signal: Option<Arc<Signal>>,
}

/// The largest table, in MiB, an engine makes when no size is given.
pub(crate) const MAX_DEFAULT_HASH: usize = 32;

impl EnginePlayer {
    /// The engine at `level` (1 to 10), with a table of `hash` MiB (`None`: sized to the
    /// time per move).
    pub(crate) fn new(level: u8, hash: Option<usize>) -> EnginePlayer {
        EnginePlayer::with_evaluator(level, hash, false)
    }

    /// The same player with its random slips (levels 1 to 5) drawn from `seed`.
    #[must_use]
    pub(crate) fn seeded(mut self, seed: u64) -> EnginePlayer {
        self.rng = StdRng::seed_from_u64(seed);
        self
    }

    /// The engine at `level` with `eval` (learned weights from a file) in place of the
    /// built-in weights.
    pub(crate) fn with_weights(level: u8, hash: Option<usize>, eval: Evaluator) -> EnginePlayer {
        EnginePlayer {
            eval,
            ..EnginePlayer::with_evaluator(level, hash, false)
        }
    }

    /// The engine at `level` with the hand-written evaluation (`classic:L`).
    pub(crate) fn classic(level: u8, hash: Option<usize>) -> EnginePlayer {
        EnginePlayer::with_evaluator(level, hash, true)
    }

    fn with_evaluator(level: u8, hash: Option<usize>, classic: bool) -> EnginePlayer {
        EnginePlayer {
            level: level.clamp(1, PlayerSpec::MAX_LEVEL),
            rng: StdRng::seed_from_u64(u64::from(level)),
            classic,
            eval: if classic {
                Evaluator::Classic
            } else {
                Evaluator::default()
            },
            selectivity: None,
            book: true,
            threads: 1,
            odds: 1,
            hash,
            tt: None,
            signal: None,
        }
    }

    /// The same player searching with `selectivity`.
    #[must_use]
    pub(crate) fn with_selectivity(mut self, selectivity: Selectivity) -> EnginePlayer {
        self.selectivity = Some(selectivity);
        self
    }

    /// The same player without the opening book (to measure the search alone).
    #[must_use]
    pub(crate) fn without_book(mut self) -> EnginePlayer {
        self.book = false;
        self
    }

    /// The same player searching with `threads` threads (at least one) at level 10. Levels
    /// with a depth limit (1 to 9) search on one thread whatever this says: a parallel
    /// search's result varies from run to run, and theirs must not (the same seed plays
    /// the same game).
    #[must_use]
    pub(crate) fn with_threads(mut self, threads: usize) -> EnginePlayer {
        self.threads = threads.max(1);
        self
    }
}

impl<R: RuleSet> Player<R> for EnginePlayer {
    fn spec(&self) -> PlayerSpec {
        if self.classic {
            PlayerSpec::Classic(self.level)
        } else {
            PlayerSpec::Engine(self.level)
        }
    }

    fn watch(&mut self, signal: Arc<Signal>) {
        self.signal = Some(signal);
    }

    fn choose(
        &mut self,
        game: &Game<R>,
        limits: &Limits,
        progress: &mut dyn FnMut(&SearchReport),
    ) -> Option<Square> {
        let Status::ToMove(side) = game.status() else {
            return None;
        };
        let mut limits = limits.times(self.odds);
        if limits == Limits::NONE {
            limits.time = Some(DEFAULT_MOVE_TIME);
        }
        let hash = self.hash;
        let tt = self.tt.get_or_insert_with(|| {
            TranspositionTable::new(hash.unwrap_or_else(|| {
                TranspositionTable::megabytes_for_time(limits.time.unwrap_or(DEFAULT_MOVE_TIME))
                    .min(MAX_DEFAULT_HASH)
            }))
        });
        let level = LEVELS[usize::from(self.level - 1)];
        let turn = EngineTurn {
            level,
            eval: self.eval,
            selectivity: self.selectivity.unwrap_or(level.selectivity),
            book: if self.book { level.book } else { None },
            threads: if level.depth < LEVELS[LEVELS.len() - 1].depth {
                1
            } else {
                self.threads
            },
            limits,
            rule: game.setup().win_rule,
            tt,
            progress,
            signal: self.signal.as_deref(),
            rng: &mut self.rng,
        };
        on_node!(rules = R, game.board(), side, |node| turn.choose(&node))
    }
}

/// One move of an [`EnginePlayer`]: what it needs for its search.
struct EngineTurn<'a> {
    level: Level,
    eval: Evaluator,
    selectivity: Selectivity,
    /// How far from the best book move it may stray; `None`: no book.
    book: Option<i32>,
    threads: usize,
    limits: Limits,
    rule: WinRule,
    tt: &'a mut TranspositionTable,
    progress: &'a mut dyn FnMut(&SearchReport),
    signal: Option<&'a Signal>,
    rng: &'a mut StdRng,
}

impl EngineTurn<'_> {
    /// The move: solved exactly near the end, else searched (with the level's slips).
    fn choose<N: Node>(self, node: &N) -> Option<Square> {
        let moves = node.moves();
        if moves.len() <= 1 {
            return moves.first().map(|mv| node.square(mv));
        }
        if let (Some(margin), Some((player, opponent)), WinRule::MostDiscs) =
            (self.book, node.bits8(), self.rule)
            && let Some(square) =
                Book::builtin().choose(&Node8::new(player, opponent), margin, self.rng)
        {
            return Some(square);
        }
        let noisy = self.level.noise > 0;
        let options = SearchOptions {
            rule: self.rule,
            limits: Limits {
                depth: Some(self.level.depth.min(self.limits.depth.unwrap_or(u32::MAX))),
                ..self.limits
            },
            // A slip needs every move's score.
            ranked_moves: if noisy { moves.len() as usize } else { 1 },
            eval: self.eval,
            selectivity: self.selectivity,
            threads: self.threads,
        };
        let exact = ExactFirst::UpTo(self.level.solve_empties);
        if let Some(limits) = plan(node, exact, &options).exact {
            // Most of the time for the exact solve; the rest for a search if it fails.
            let options = SolveOptions {
                eval: self.eval,
                threads: self.threads,
                ..SolveOptions::exact(self.rule)
            };
            if let Ok(solution) =
                endgame::solve_with(node, Goal::Exact, &options, self.tt, &limits, self.signal)
            {
                return solution.best;
            }
        }
        let report = search(node, &options, self.tt, self.signal, self.progress);
        if !noisy {
            return report.best;
        }
        let noise = f64::from(self.level.noise);
        report
            .ranked
            .iter()
            .map(|ranked| {
                // A normal spread from two uniform draws (Box-Muller).
                let (u, v): (f64, f64) = (self.rng.random(), self.rng.random());
                let error = (-2.0 * (1.0 - u).ln()).sqrt() * (std::f64::consts::TAU * v).cos();
                (f64::from(ranked.score) + noise * error, ranked.square)
            })
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, square)| square)
            .or(report.best)
    }
}

impl fmt::Debug for EnginePlayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EnginePlayer(level {})", self.level)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Board, Color, Full, Setup, Shape, Simple, engine::final_score};

    #[test]
    fn specs_round_trip_and_refuse_nonsense() {
        for text in [
            "random",
            "greedy",
            "minimax:4",
            "mcts:2000",
            "engine",
            "engine:3",
            "classic",
            "classic:7",
        ] {
            assert_eq!(text.parse::<PlayerSpec>().unwrap().to_string(), text);
        }
        assert_eq!(
            "engine:10".parse::<PlayerSpec>().unwrap().to_string(),
            "engine"
        );
        for bad in [
            "",
            "engine:0",
            "engine:11",
            "classic:0",
            "classic:x",
            "minimax",
            "minimax:x",
            "mcts:0",
            "greedy:2",
            "human",
        ] {
            assert!(bad.parse::<PlayerSpec>().is_err(), "{bad}");
        }
    }

    /// The list of kinds makes the parser's error, as it always read.
    #[test]
    fn an_unknown_spec_is_told_every_kind_with_its_range() {
        assert_eq!(
            "genius".parse::<PlayerSpec>().unwrap_err().to_string(),
            "unknown player \"genius\": expected random, greedy, minimax:D (1-60), \
             mcts:N (1-1000000), engine or engine:L (1-10), classic or classic:L (1-10), \
             zero or zero:N (1-100000)"
        );
        for kind in PLAYER_KINDS {
            let spec = match kind.argument {
                Some(argument) => format!("{}:{}", kind.name, argument.suggested),
                None => kind.name.to_owned(),
            };
            assert!(spec.parse::<PlayerSpec>().is_ok(), "{spec}");
        }
    }

    /// Plays a whole game between two specs; every chosen move must be legal.
    fn play_out<R: RuleSet>(
        setup: Setup,
        black: PlayerSpec,
        white: PlayerSpec,
        seed: u64,
    ) -> Game<R> {
        let mut players = crate::ByColor::new(
            new_player::<R>(black, seed, None),
            new_player::<R>(white, seed + 1, None),
        );
        let mut game = Game::<R>::new(setup);
        while let Status::ToMove(side) = game.status() {
            let player = &mut players[side];
            let square = player
                .choose(&game, &Limits::nodes(2_000), &mut |_| {})
                .expect("a move when one exists");
            game.play(square).expect("a legal move");
        }
        game
    }

    #[test]
    fn every_player_finishes_games_on_every_kind_of_board() {
        let specs = [
            PlayerSpec::Random,
            PlayerSpec::Greedy,
            PlayerSpec::Minimax(2),
            PlayerSpec::Mcts(30),
            PlayerSpec::Engine(3),
            PlayerSpec::Engine(10),
        ];
        for (i, &black) in specs.iter().enumerate() {
            let white = specs[(i + 1) % specs.len()];
            play_out::<Full>(Setup::standard(Shape::STANDARD), black, white, i as u64);
            play_out::<Simple>(
                Setup::standard(Shape::new(6, 8).unwrap()),
                black,
                white,
                i as u64,
            );
            let mut fewest = Setup::standard(Shape::new(4, 6).unwrap());
            fewest.win_rule = WinRule::FewestDiscs;
            play_out::<Full>(fewest, black, white, i as u64);
        }
    }

    #[test]
    fn low_levels_slip_now_and_then_and_high_ones_do_not() {
        // After f5 d6 c3 d3 c4: several moves of different merit for Black.
        let game = Game::<Full>::replay(
            Setup::standard(Shape::STANDARD),
            ["f5", "d6", "c3", "d3", "c4"].map(|s| s.parse().unwrap()),
        )
        .unwrap();
        let choices = |level: u8| -> std::collections::BTreeSet<Square> {
            (0..40)
                .map(|seed| {
                    let mut engine = new_player_with::<Full>(
                        PlayerSpec::Engine(level),
                        seed,
                        Some(1),
                        &no_book(),
                    );
                    engine
                        .choose(&game, &Limits::depth(6), &mut |_| {})
                        .unwrap()
                })
                .collect()
        };
        assert!(choices(1).len() >= 3, "{:?}", choices(1));
        assert_eq!(choices(6).len(), 1, "{:?}", choices(6));
        assert!(LEVELS.windows(2).all(|pair| pair[0].noise >= pair[1].noise));
    }

    /// A player given odds searches that many times the nodes it is allowed, the others
    /// exactly theirs.
    #[test]
    fn odds_give_an_engine_more_search() {
        let game = Game::<Simple>::new(Setup::standard(Shape::STANDARD));
        let searched = |odds: Option<u32>| {
            let settings = EngineSettings { odds, ..no_book() };
            let mut player = new_player_with::<Simple>(PlayerSpec::Classic(10), 1, None, &settings);
            let signal = Arc::new(Signal::new());
            player.watch(Arc::clone(&signal));
            player
                .choose(&game, &Limits::nodes(20_000), &mut |_| {})
                .unwrap();
            signal.nodes()
        };
        let (once, four_times) = (searched(None), searched(Some(4)));
        // The limit is checked every few nodes, so a search may overrun it by a few.
        assert!((20_000..20_200).contains(&once), "{once}");
        assert!((80_000..80_200).contains(&four_times), "{four_times}");
        assert_eq!(searched(Some(1)), once);
    }

    fn no_book() -> EngineSettings {
        EngineSettings {
            no_book: true,
            ..EngineSettings::default()
        }
    }

    /// In the opening book the engine plays a book move, at once and, where several are
    /// as good, not always the same one; without the book it searches.
    #[test]
    fn book_moves_vary_and_can_be_turned_off() {
        let game = Game::<Full>::new(Setup::standard(Shape::STANDARD));
        let mut chosen = std::collections::BTreeSet::new();
        for seed in 0..24 {
            let mut engine = new_player::<Full>(PlayerSpec::Engine(10), seed, Some(1));
            let mut searched = false;
            let square = engine
                .choose(&game, &Limits::depth(4), &mut |_| searched = true)
                .unwrap();
            assert!(game.is_legal(square) && !searched);
            chosen.insert(square);
        }
        assert!(chosen.len() > 1, "the four first moves are one: {chosen:?}");
        let mut engine = new_player_with::<Full>(PlayerSpec::Engine(10), 0, Some(1), &no_book());
        let mut searched = false;
        engine.choose(&game, &Limits::depth(4), &mut |_| searched = true);
        assert!(searched);
    }

    #[test]
    fn a_stopped_signal_cuts_the_engine_short_with_a_legal_move() {
        let game = Game::<Full>::new(Setup::standard(Shape::STANDARD));
        let mut engine = new_player_with::<Full>(PlayerSpec::Engine(10), 0, Some(1), &no_book());
        let signal = Arc::new(Signal::new());
        signal.stop();
        engine.watch(Arc::clone(&signal));
        let mut depths = Vec::new();
        let chosen = engine
            .choose(
                &game,
                &Limits::time(Duration::from_secs(3600)),
                &mut |report| depths.push(report.depth),
            )
            .unwrap();
        assert!(game.is_legal(chosen));
        assert_eq!(
            depths,
            [1],
            "only the first iteration, which always finishes"
        );
    }

    /// Issues 21.4 and 22.6: minimax:60 and mcts:N obey the limits every player gets.
    #[test]
    fn regression_21_4_every_player_obeys_its_limits() {
        let game = Game::<Full>::new(Setup::standard(Shape::new(16, 16).unwrap()));
        for spec in [
            PlayerSpec::Minimax(60),
            PlayerSpec::Mcts(PlayerSpec::MAX_PLAYOUTS),
        ] {
            let mut player = new_player::<Full>(spec, 1, None);
            let chosen = player
                .choose(&game, &Limits::nodes(50_000), &mut |_| {})
                .unwrap();
            assert!(game.is_legal(chosen), "{spec}");
            // And a stop from another thread.
            let signal = Arc::new(Signal::new());
            signal.stop();
            player.watch(Arc::clone(&signal));
            let chosen = player.choose(&game, &Limits::NONE, &mut |_| {}).unwrap();
            assert!(game.is_legal(chosen), "{spec}");
        }
        // Within its depth, minimax deepening to D chooses what a search to D does.
        let game = Game::<Full>::replay(
            Setup::standard(Shape::STANDARD),
            ["f5", "d6", "c3"].map(|s| s.parse().unwrap()),
        )
        .unwrap();
        let mut minimax = new_player::<Full>(PlayerSpec::Minimax(5), 1, None);
        let deepened = minimax.choose(&game, &Limits::NONE, &mut |_| {});
        let node = crate::engine::Node8::from_board(game.board(), Color::White);
        let mut stopper = Stopper::new(&Limits::NONE, None);
        let direct = minimax_root(&node, WinRule::MostDiscs, 5, &mut stopper).unwrap();
        assert_eq!(deepened, direct);
        assert_eq!(
            "mcts:1000001".parse::<PlayerSpec>(),
            Err(ParsePlayerError("mcts:1000001".into()))
        );
    }

    #[test]
    fn greedy_takes_the_most_flips_and_seeds_repeat() {
        // Black at a1; b1..f1 white: g1 flips five, the other moves fewer.
        let mut board = Board::empty(Shape::STANDARD);
        board.set("a1".parse().unwrap(), Some(Color::Black));
        for square in ["b1", "c1", "d1", "e1", "f1", "a2"] {
            board.set(square.parse().unwrap(), Some(Color::White));
        }
        let setup = Setup {
            board,
            first_mover: Color::Black,
            win_rule: WinRule::MostDiscs,
        };
        let game = Game::<Full>::new(setup);
        let mut greedy = new_player::<Full>(PlayerSpec::Greedy, 1, None);
        assert_eq!(
            greedy.choose(&game, &Limits::NONE, &mut |_| {}),
            Some("g1".parse().unwrap())
        );
        let a = play_out::<Full>(
            Setup::standard(Shape::STANDARD),
            PlayerSpec::Random,
            PlayerSpec::Greedy,
            9,
        );
        let b = play_out::<Full>(
            Setup::standard(Shape::STANDARD),
            PlayerSpec::Random,
            PlayerSpec::Greedy,
            9,
        );
        assert_eq!(a.history(), b.history());
    }

    #[test]
    fn the_engine_plays_a_perfect_endgame() {
        // Ten empties: the engine must choose a move the solver scores as best.
        let board = Board::patterned(|i| i % 6 != 1 && i > 3, |i| (i * 7) % 5 < 2);
        let setup = Setup {
            board,
            first_mover: Color::Black,
            win_rule: WinRule::MostDiscs,
        };
        let game = Game::<Full>::new(setup);
        let mut engine = new_player::<Full>(PlayerSpec::Engine(10), 0, None);
        let choice = engine
            .choose(&game, &Limits::depth(64), &mut |_| {})
            .unwrap();
        let best = crate::engine::Node8::from_board(game.board(), Color::Black);
        let mut tt = TranspositionTable::new(1);
        let solved = endgame::exact_score(&best, &mut tt);
        let after = Game::<Full>::replay(setup, [choice]).unwrap();
        // Black's final score after the engine's move, with best play from there.
        let score = match after.status() {
            Status::ToMove(side) => {
                let child = crate::engine::Node8::from_board(after.board(), side);
                let rest = endgame::exact_score(&child, &mut tt);
                if side == Color::Black { rest } else { -rest }
            }
            Status::Over(_) => {
                let board = after.board();
                let (b, w) = (board.count(Color::Black), board.count(Color::White));
                final_score(WinRule::MostDiscs, b, w, board.empty_squares().count())
            }
        };
        assert_eq!(score, solved);
    }
}
