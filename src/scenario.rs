//! Reproducible grader inputs for every situation the grader protocol specifies, and the
//! reference output for each (what `othello gen` writes).
//!
//! A run is described by [`GenOptions`]; scenario number `index` of a run comes from
//! [`generate`] and depends on the options and `index` alone, so any scenario can be made
//! again without the others. Random numbers come from `rand`'s `StdRng` (fixed by
//! `Cargo.lock`), seeded per scenario and per purpose from the run's seed, so that the same
//! seed plays the same games whatever the rate of invalid lines or the truncation setting.
//!
//! ```
//! use othello::scenario::{GenOptions, ScenarioKind, expected_output, generate};
//!
//! let options = GenOptions { kinds: vec![ScenarioKind::Tie], seed: 7, ..GenOptions::default() };
//! let scenario = generate(&options, 0);
//! assert_eq!(scenario, generate(&options, 0));
//! let (output, status) = expected_output(options.variant, scenario.input.as_bytes());
//! assert_eq!(status, 0);
//! assert!(String::from_utf8(output)?.ends_with("WINNER: NONE\n"));
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use std::{fmt, str::FromStr};

use rand::{RngExt, SeedableRng, rngs::StdRng};
use thiserror::Error;

mod invalid;

use invalid::{InvalidKind, invalid_line};

use crate::{
    Bitboard, Board, Color, Full, Game, RuleSet, Setup, Shape, Simple, Square, Variant, WinRule,
    engine::arena::mix, protocol,
};

/// The situations a scenario is built to exercise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScenarioKind {
    /// The standard start ([`Board::standard`]) on the chosen size, a random first mover.
    Standard,
    /// A random position of varied density (from sparse to full), with both colours or only
    /// one; the game may even be over at once.
    Random,
    /// The named first mover has no legal move at the start but the other side has: a pass
    /// before the first move.
    StuckFirst,
    /// Neither side can move at the start: `WINNER:` comes right after the first state block.
    OverAtStart,
    /// A game with at least one pass between two moves.
    Passes,
    /// A position with only 1 to 6 empty squares left.
    NearlyFull,
    /// A game that ends with equal disc counts (`WINNER: NONE`).
    Tie,
}

impl ScenarioKind {
    /// Every kind, in the order a run rotates through them.
    pub const ALL: [ScenarioKind; 7] = [
        ScenarioKind::Standard,
        ScenarioKind::Random,
        ScenarioKind::StuckFirst,
        ScenarioKind::OverAtStart,
        ScenarioKind::Passes,
        ScenarioKind::NearlyFull,
        ScenarioKind::Tie,
    ];

    /// The kebab-case name used on the command line: `standard`, `random`, `stuck-first`,
    /// `over-at-start`, `passes`, `nearly-full`, `tie`.
    pub const fn name(self) -> &'static str {
        match self {
            ScenarioKind::Standard => "standard",
            ScenarioKind::Random => "random",
            ScenarioKind::StuckFirst => "stuck-first",
            ScenarioKind::OverAtStart => "over-at-start",
            ScenarioKind::Passes => "passes",
            ScenarioKind::NearlyFull => "nearly-full",
            ScenarioKind::Tie => "tie",
        }
    }

    /// Whether scenarios of this kind may stop before the game is over: not
    /// [`OverAtStart`](ScenarioKind::OverAtStart) (there is no move to leave out) and not
    /// [`Tie`](ScenarioKind::Tie) (its point is the end of the game).
    pub const fn can_truncate(self) -> bool {
        !matches!(self, ScenarioKind::OverAtStart | ScenarioKind::Tie)
    }
}

impl fmt::Display for ScenarioKind {
    /// The kebab-case [`name`](ScenarioKind::name).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ScenarioKind {
    type Err = ParseScenarioKindError;

    /// A kind's [`name`](ScenarioKind::name), in any case.
    fn from_str(text: &str) -> Result<ScenarioKind, ParseScenarioKindError> {
        ScenarioKind::ALL
            .into_iter()
            .find(|kind| kind.name().eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| ParseScenarioKindError {
                found: text.to_owned(),
            })
    }
}

/// A name that is not one of [`ScenarioKind::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "scenario kind must be one of standard, random, stuck-first, over-at-start, passes, \
     nearly-full, tie, found {found:?}"
)]
pub struct ParseScenarioKindError {
    /// The rejected name.
    pub found: String,
}

/// What a run of scenarios is made of.
#[derive(Clone, Debug, PartialEq)]
pub struct GenOptions {
    /// The rule set the scenarios are for: moves are legal, and invalid lines refused, under
    /// these rules.
    pub variant: Variant,
    /// Board sizes, each chosen with equal probability per scenario (a size listed twice
    /// counts twice). Rows and columns must be even, as the grader requires.
    pub sizes: Vec<Shape>,
    /// The kinds, taken in rotation: scenario `index` has kind `kinds[index % kinds.len()]`,
    /// so every kind gets its share even in a short run.
    pub kinds: Vec<ScenarioKind>,
    /// Probability of an invalid move line before each move (0 for none); after one, another
    /// follows with the same probability, at most [`MAX_INVALID_RUN`] in a row. Values
    /// outside 0..=1 are clamped (NaN counts as 0).
    pub invalid_rate: f64,
    /// Whether some scenarios (one in four of the kinds that
    /// [can be truncated](ScenarioKind::can_truncate)) stop before the game is over.
    pub truncate: bool,
    /// The seed of the run.
    pub seed: u64,
    /// Also write lines whose verdict is this program's own choice where the course's spec
    /// is silent: invalid lines a plain student program may accept (over-long lines,
    /// unusual whitespace, non-ASCII digits), and legal moves written other than as
    /// `row column` (padded, tabs, leading zeros, a `+`). Without it every invalid line is
    /// one that every reasonable reading of the spec refuses, and every move is canonical.
    pub edge_cases: bool,
}

impl Default for GenOptions {
    /// FULL rules, 8 × 8 boards, every kind, invalid rate 0.1, no truncation, seed 1, no
    /// edge cases.
    fn default() -> GenOptions {
        GenOptions {
            variant: Variant::Full,
            sizes: vec![Shape::STANDARD],
            kinds: ScenarioKind::ALL.to_vec(),
            invalid_rate: 0.1,
            truncate: false,
            seed: 1,
            edge_cases: false,
        }
    }
}

/// The most invalid lines generated in a row before one move.
pub const MAX_INVALID_RUN: usize = 5;

/// One grader input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// What it was built to exercise.
    pub kind: ScenarioKind,
    /// The header and board: size, first mover, win rule (both rules occur over a run) and
    /// the starting discs.
    pub setup: Setup,
    /// The whole grader input: the setup's text ([`Setup`]'s `Display`), then one line per
    /// move (`row column`, 1-based), with invalid lines mixed in. Every line ends with `\n`.
    pub input: String,
    /// Whether the input plays the game to its end; `false` if it stops before (the
    /// reference then exits with status 3).
    pub complete: bool,
}

/// Scenario number `index` of the run described by `options`: deterministic from the
/// options and `index` alone.
///
/// The kind is `options.kinds[index % len]`; the size, first mover, win rule, position and
/// moves are random. Kinds that need a special position are searched for among random
/// positions and games, a bounded number of times, then built by a construction that
/// always works (see [`ScenarioKind`] and the constructions below), so generation never
/// loops forever and works on every size from 4 × 4 to 16 × 16.
///
/// # Panics
/// If `options.sizes` or `options.kinds` is empty, or a size has an odd side (the grader
/// refuses odd sizes).
pub fn generate(options: &GenOptions, index: u64) -> Scenario {
    build(options, index).0
}

/// What the reference prints for `input` under `variant` (the grader protocol run in memory),
/// and its exit status: 0 for a finished game, 2 for a malformed header or board, 3 for input
/// that ended before the game was over.
pub fn expected_output(variant: Variant, input: &[u8]) -> (Vec<u8>, u8) {
    let mut output = Vec::new();
    let status = match protocol::run(input, &mut output, variant) {
        Ok(_) => 0,
        Err(error) => error.exit_status(),
    };
    (output, status)
}

/// The random stream for the size, win rule, position and game. Each purpose has a stream
/// of its own, derived from the run's seed and the scenario's index, so that changing one
/// option (the invalid rate, truncation) leaves what the others decide unchanged.
const GAME_STREAM: u64 = 0;
/// The stream for invalid lines.
const LINE_STREAM: u64 = 1;
/// The stream for the truncation decision.
const TRUNCATE_STREAM: u64 = 2;

/// The share of truncatable scenarios that stop before the end when truncation is on.
const TRUNCATE_PROBABILITY: f64 = 0.25;

/// Random positions drawn for [`ScenarioKind::Random`] to find one where a side can move.
const RANDOM_ATTEMPTS: usize = 5;
/// Random positions tried for [`ScenarioKind::StuckFirst`] before the construction.
const STUCK_ATTEMPTS: usize = 60;
/// Random positions tried for [`ScenarioKind::OverAtStart`] before a game's final position.
const OVER_ATTEMPTS: usize = 30;
/// Random games tried for [`ScenarioKind::Passes`] before the construction.
const PASS_ATTEMPTS: usize = 40;
/// Random games tried for [`ScenarioKind::Tie`] before the construction.
const TIE_RESTARTS: usize = 8;
/// Endings replayed from a late position of each such game.
const TIE_LOCAL_TRIES: usize = 40;
/// The most plies taken back to replay an ending.
const TIE_UNDO_DEPTH: usize = 10;
/// Random fillings tried for [`ScenarioKind::NearlyFull`] to find one where a side can move.
const NEARLY_FULL_ATTEMPTS: usize = 20;
/// The most empty squares a [`ScenarioKind::NearlyFull`] position has.
const NEARLY_FULL_MAX_EMPTY: u32 = 6;

/// What each input line after the board is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineRole {
    /// A legal move: the reference answers `VALID`.
    Move,
    /// A line the reference answers `INVALID`.
    Invalid(InvalidKind),
}

/// A scenario, and the role of each of its move lines.
fn build(options: &GenOptions, index: u64) -> (Scenario, Vec<LineRole>) {
    assert!(!options.kinds.is_empty(), "no scenario kinds to generate");
    assert!(!options.sizes.is_empty(), "no board sizes to generate");
    if let Some(odd) = options
        .sizes
        .iter()
        .find(|shape| shape.rows() % 2 == 1 || shape.columns() % 2 == 1)
    {
        panic!("the grader accepts only even board sizes, not {odd}");
    }
    match options.variant {
        Variant::Full => build_rules::<Full>(options, index),
        Variant::Simple => build_rules::<Simple>(options, index),
    }
}

/// A start and the moves of a game from it, before lines are written.
struct Plan {
    setup: Setup,
    /// The game's moves, all legal, to its end.
    moves: Vec<Square>,
    /// The fewest moves a truncated input may keep; `None` if it may not be truncated.
    earliest_cut: Option<usize>,
}

impl Plan {
    fn new<R: RuleSet>(game: &Game<R>, earliest_cut: Option<usize>) -> Plan {
        Plan {
            setup: *game.setup(),
            moves: game.moves().collect(),
            earliest_cut,
        }
    }
}

fn build_rules<R: RuleSet>(options: &GenOptions, index: u64) -> (Scenario, Vec<LineRole>) {
    let kind = options.kinds[(index % options.kinds.len() as u64) as usize];
    let mut rng = StdRng::seed_from_u64(mix(options.seed, index, GAME_STREAM));
    let shape = options.sizes[rng.random_range(0..options.sizes.len())];
    let win_rule = if rng.random_bool(0.5) {
        WinRule::MostDiscs
    } else {
        WinRule::FewestDiscs
    };
    let mut plan = match kind {
        ScenarioKind::Standard => standard::<R>(shape, &mut rng),
        ScenarioKind::Random => random::<R>(shape, &mut rng),
        ScenarioKind::StuckFirst => stuck_first::<R>(shape, &mut rng),
        ScenarioKind::OverAtStart => over_at_start::<R>(shape, &mut rng),
        ScenarioKind::Passes => passes::<R>(shape, &mut rng),
        ScenarioKind::NearlyFull => nearly_full::<R>(shape, &mut rng),
        ScenarioKind::Tie => tie::<R>(shape, &mut rng),
    };
    plan.setup.win_rule = win_rule;

    let mut truncate_rng = StdRng::seed_from_u64(mix(options.seed, index, TRUNCATE_STREAM));
    let cut = match plan.earliest_cut {
        Some(earliest)
            if options.truncate
                && earliest < plan.moves.len()
                && truncate_rng.random_bool(TRUNCATE_PROBABILITY) =>
        {
            Some(truncate_rng.random_range(earliest..plan.moves.len()))
        }
        _ => None,
    };

    let rate = if options.invalid_rate.is_nan() {
        0.0
    } else {
        options.invalid_rate.clamp(0.0, 1.0)
    };
    let mut line_rng = StdRng::seed_from_u64(mix(options.seed, index, LINE_STREAM));
    let mut input = plan.setup.to_string();
    let mut roles = Vec::new();
    let mut game = Game::<R>::new(plan.setup);
    let kept = cut.unwrap_or(plan.moves.len());
    for (number, &square) in plan.moves.iter().enumerate() {
        for _ in 0..MAX_INVALID_RUN {
            if !line_rng.random_bool(rate) {
                break;
            }
            let (line, kind) = invalid_line(&game, &mut line_rng, options.edge_cases);
            input.push_str(&line);
            input.push('\n');
            roles.push(LineRole::Invalid(kind));
        }
        if number == kept {
            break;
        }
        if options.edge_cases && line_rng.random_bool(EDGE_CASE_MOVES) {
            input.push_str(&padded_move_text(
                square.row(),
                square.column(),
                &mut line_rng,
            ));
        } else {
            input.push_str(&move_text(square.row(), square.column()));
        }
        input.push('\n');
        roles.push(LineRole::Move);
        game.play(square).expect("planned moves are legal");
    }
    debug_assert_eq!(game.is_over(), cut.is_none());
    let scenario = Scenario {
        kind,
        setup: plan.setup,
        input,
        complete: cut.is_none(),
    };
    (scenario, roles)
}

/// The grader's move line for a 0-based row and column.
fn move_text(row: u8, column: u8) -> String {
    format!("{} {}", u32::from(row) + 1, u32::from(column) + 1)
}

/// With edge cases: the share of legal moves written other than as `row column`.
const EDGE_CASE_MOVES: f64 = 0.2;

/// A legal move the reference accepts, written another way: padded with spaces or tabs,
/// with leading zeros or a `+` sign.
fn padded_move_text(row: u8, column: u8, rng: &mut StdRng) -> String {
    let (row, column) = (u32::from(row) + 1, u32::from(column) + 1);
    match rng.random_range(0..4) {
        0 => format!("  {row}   {column}  "),
        1 => format!("{row}\t{column}"),
        2 => format!("0{row} 00{column}"),
        _ => format!("+{row} +{column}"),
    }
}

/// A square of `squares` chosen uniformly, if there is one.
fn pick(squares: Bitboard, rng: &mut StdRng) -> Option<Square> {
    match squares.count() {
        0 => None,
        count => squares.iter().nth(rng.random_range(0..count) as usize),
    }
}

fn random_color(rng: &mut StdRng) -> Color {
    if rng.random_bool(0.5) {
        Color::Black
    } else {
        Color::White
    }
}

/// Plays uniformly random legal moves until the game is over.
fn play_out<R: RuleSet>(game: &mut Game<R>, rng: &mut StdRng) {
    while let Some(square) = pick(game.legal_moves(), rng) {
        game.play(square).expect("a legal move");
    }
}

/// A random game to its end from `board`, with `first` named to move first.
fn random_game<R: RuleSet>(board: Board, first: Color, rng: &mut StdRng) -> Game<R> {
    let mut game = Game::new(Setup {
        board,
        first_mover: first,
        win_rule: WinRule::MostDiscs,
    });
    play_out(&mut game, rng);
    game
}

/// A random arrangement: a density from sparse to full, and both colours in some
/// proportion, or (one time in five) only one colour.
fn random_board(shape: Shape, rng: &mut StdRng) -> Board {
    let density: f64 = match rng.random_range(0..8) {
        0 => rng.random_range(0.02..0.15),
        1 => rng.random_range(0.85..=1.0),
        _ => rng.random_range(0.1..0.9),
    };
    let black_share: f64 = match rng.random_range(0..10) {
        0 => 0.0,
        1 => 1.0,
        _ => rng.random_range(0.2..0.8),
    };
    let mut board = Board::empty(shape);
    for square in shape.squares() {
        if rng.random_bool(density) {
            let color = if rng.random_bool(black_share) {
                Color::Black
            } else {
                Color::White
            };
            board.set(square, Some(color));
        }
    }
    board
}

/// A start for a random game: the standard start three times in four, else a random
/// position.
fn some_start(shape: Shape, rng: &mut StdRng) -> Board {
    if rng.random_range(0..4) == 0 {
        random_board(shape, rng)
    } else {
        Board::standard(shape)
    }
}

/// Every empty square filled with a random colour (one random share of black per board).
fn fill_randomly(board: &mut Board, rng: &mut StdRng) {
    let black_share: f64 = rng.random_range(0.2..0.8);
    for square in board.empty_squares() {
        let color = if rng.random_bool(black_share) {
            Color::Black
        } else {
            Color::White
        };
        board.set(square, Some(color));
    }
}

/// The index of the first move played by the side that also played the move before: the
/// opponent passed in between.
fn first_pass<R: RuleSet>(game: &Game<R>) -> Option<usize> {
    let history = game.history();
    (1..history.len()).find(|&i| history[i].side() == history[i - 1].side())
}

/// Places discs by 0-based coordinates on a board seen through a random reflection, so
/// that constructions land in any corner.
struct Mirror {
    shape: Shape,
    flip_rows: bool,
    flip_columns: bool,
}

impl Mirror {
    fn random(shape: Shape, rng: &mut StdRng) -> Mirror {
        Mirror {
            shape,
            flip_rows: rng.random_bool(0.5),
            flip_columns: rng.random_bool(0.5),
        }
    }

    /// The square at `row` and `column`, counted from the chosen corner.
    fn square(&self, row: u8, column: u8) -> Square {
        let row = if self.flip_rows {
            self.shape.rows() - 1 - row
        } else {
            row
        };
        let column = if self.flip_columns {
            self.shape.columns() - 1 - column
        } else {
            column
        };
        Square::new(row, column)
    }

    /// The square `row` rows and `column` columns in from the corner opposite the chosen one.
    fn far_square(&self, row: u8, column: u8) -> Square {
        self.square(
            self.shape.rows() - 1 - row,
            self.shape.columns() - 1 - column,
        )
    }
}

fn standard<R: RuleSet>(shape: Shape, rng: &mut StdRng) -> Plan {
    let first = random_color(rng);
    Plan::new(
        &random_game::<R>(Board::standard(shape), first, rng),
        Some(0),
    )
}

/// A random position; up to [`RANDOM_ATTEMPTS`] are drawn to find one where a side can
/// move (sparse FULL positions often have none), else the last is kept.
fn random<R: RuleSet>(shape: Shape, rng: &mut StdRng) -> Plan {
    let mut board = random_board(shape, rng);
    for _ in 1..RANDOM_ATTEMPTS {
        if Color::ALL.into_iter().any(|side| R::can_move(&board, side)) {
            break;
        }
        board = random_board(shape, rng);
    }
    let first = random_color(rng);
    Plan::new(&random_game::<R>(board, first, rng), Some(0))
}

/// A position where one side cannot move and the other can: half the attempts take the
/// position of a random game from the standard start where a side first has to pass, the
/// others random positions. Then the construction: a disc of the stuck side's opponent in a
/// corner, walled in by three discs of the stuck side, every other square empty. The stuck
/// side can neither flip a corner disc (FULL) nor play next to it (SIMPLE); the other side
/// can play beside a wall disc under both rule sets.
fn stuck_first<R: RuleSet>(shape: Shape, rng: &mut StdRng) -> Plan {
    let stuck = |board: &Board| {
        Color::ALL
            .into_iter()
            .find(|&side| !R::can_move(board, side) && R::can_move(board, side.opponent()))
    };
    for attempt in 0..STUCK_ATTEMPTS {
        let board = if attempt % 2 == 0 {
            let first = random_color(rng);
            let mut game = Game::<R>::new(Setup {
                board: Board::standard(shape),
                first_mover: first,
                win_rule: WinRule::MostDiscs,
            });
            let mut found = None;
            while let Some(square) = pick(game.legal_moves(), rng) {
                let side = game.side_to_move();
                game.play(square).expect("a legal move");
                if game.side_to_move().is_some() && game.side_to_move() == side {
                    found = Some(*game.board());
                    break;
                }
            }
            match found {
                Some(board) => board,
                None => continue,
            }
        } else {
            random_board(shape, rng)
        };
        if let Some(first) = stuck(&board) {
            return Plan::new(&random_game::<R>(board, first, rng), Some(0));
        }
    }
    let (board, first) = stuck_construction(shape, rng);
    debug_assert_eq!(stuck(&board), Some(first));
    Plan::new(&random_game::<R>(board, first, rng), Some(0))
}

/// [`stuck_first`]'s construction: the board, and the stuck side.
fn stuck_construction(shape: Shape, rng: &mut StdRng) -> (Board, Color) {
    let first = random_color(rng);
    let mirror = Mirror::random(shape, rng);
    let mut board = Board::empty(shape);
    board.set(mirror.square(0, 0), Some(first.opponent()));
    for (row, column) in [(0, 1), (1, 0), (1, 1)] {
        board.set(mirror.square(row, column), Some(first));
    }
    (board, first)
}

/// A position where neither side can move, in one of four styles: the final position of a
/// random game from the standard start; that of a random game from a random position;
/// random positions until one is over (else a final position again); or a special case:
/// the empty board, a board of one colour (FULL) or a full board (SIMPLE).
fn over_at_start<R: RuleSet>(shape: Shape, rng: &mut StdRng) -> Plan {
    let is_over = |board: &Board| Color::ALL.into_iter().all(|side| !R::can_move(board, side));
    let final_board = |start: Board, rng: &mut StdRng| {
        let first = random_color(rng);
        *random_game::<R>(start, first, rng).board()
    };
    let board = match rng.random_range(0..4) {
        0 => final_board(Board::standard(shape), rng),
        1 => {
            let start = random_board(shape, rng);
            final_board(start, rng)
        }
        2 => {
            let found = (0..OVER_ATTEMPTS)
                .map(|_| random_board(shape, rng))
                .find(|board| is_over(board));
            match found {
                Some(board) => board,
                None => final_board(Board::standard(shape), rng),
            }
        }
        _ => {
            let mut board = Board::empty(shape);
            match rng.random_range(0..3) {
                0 => {}
                _ if R::VARIANT == Variant::Full => {
                    let color = random_color(rng);
                    let density: f64 = rng.random_range(0.05..=1.0);
                    for square in shape.squares() {
                        if rng.random_bool(density) {
                            board.set(square, Some(color));
                        }
                    }
                }
                _ => fill_randomly(&mut board, rng),
            }
            board
        }
    };
    debug_assert!(is_over(&board));
    let first = random_color(rng);
    Plan::new(&random_game::<R>(board, first, rng), None)
}

/// A random game with a pass between two moves, from the standard start or a random
/// position. Then the construction: two empty squares in a corner, walled in by discs of
/// one side (Y), and a third empty square in the opposite corner where the other side (X)
/// can move, flipping the one Y disc beside it. X plays there first; then Y has no move
/// (every neighbour of its two empty squares is a Y disc or empty, which gives Y nothing to
/// flip under either rule set) while X can still play the corner, so Y passes.
fn passes<R: RuleSet>(shape: Shape, rng: &mut StdRng) -> Plan {
    for _ in 0..PASS_ATTEMPTS {
        let start = some_start(shape, rng);
        let first = random_color(rng);
        let game = random_game::<R>(start, first, rng);
        if let Some(pass) = first_pass(&game) {
            return Plan::new(&game, Some(pass));
        }
    }
    let game = pass_construction::<R>(shape, rng);
    debug_assert_eq!(first_pass(&game), Some(1));
    Plan::new(&game, Some(1))
}

/// [`passes`]' construction, played to its end.
fn pass_construction<R: RuleSet>(shape: Shape, rng: &mut StdRng) -> Game<R> {
    let x = random_color(rng);
    let y = x.opponent();
    let mirror = Mirror::random(shape, rng);
    let mut board = Board::empty(shape);
    for (row, column) in [(0, 2), (1, 0), (1, 1), (1, 2)] {
        board.set(mirror.square(row, column), Some(y));
    }
    board.set(mirror.square(2, 0), Some(x));
    board.set(mirror.far_square(1, 0), Some(y));
    for (row, column) in [(2, 0), (1, 1), (0, 1)] {
        board.set(mirror.far_square(row, column), Some(x));
    }
    let empties = [
        mirror.square(0, 0),
        mirror.square(0, 1),
        mirror.far_square(0, 0),
    ];
    let mut filled = board;
    fill_randomly(&mut filled, rng);
    for square in empties {
        filled.set(square, None);
    }
    let mut game = Game::<R>::new(Setup {
        board: filled,
        first_mover: x,
        win_rule: WinRule::MostDiscs,
    });
    game.play(mirror.far_square(0, 0))
        .expect("the constructed first move is legal");
    play_out(&mut game, rng);
    game
}

/// A position with 1 to [`NEARLY_FULL_MAX_EMPTY`] empty squares: half the time reached by a
/// random game from the standard start (if that game does not end first), else a random
/// filling, preferring one where some side can move.
fn nearly_full<R: RuleSet>(shape: Shape, rng: &mut StdRng) -> Plan {
    let empties = rng.random_range(1..=NEARLY_FULL_MAX_EMPTY);
    let mut board = None;
    if rng.random_bool(0.5) {
        let mut game = Game::<R>::new(Setup::standard(shape));
        while let Some(square) = pick(game.legal_moves(), rng) {
            game.play(square).expect("a legal move");
            if game.board().empty_squares().count() <= empties {
                break;
            }
        }
        let left = game.board().empty_squares().count();
        if !game.is_over() && (1..=NEARLY_FULL_MAX_EMPTY).contains(&left) {
            board = Some(*game.board());
        }
    }
    let board = board.unwrap_or_else(|| {
        let mut candidate = Board::empty(shape);
        for _ in 0..NEARLY_FULL_ATTEMPTS {
            candidate = Board::empty(shape);
            fill_randomly(&mut candidate, rng);
            for _ in 0..empties {
                let square = pick(candidate.occupied(), rng).expect("a full board");
                candidate.set(square, None);
            }
            if Color::ALL
                .into_iter()
                .any(|side| R::can_move(&candidate, side))
            {
                break;
            }
        }
        candidate
    });
    let first = random_color(rng);
    Plan::new(&random_game::<R>(board, first, rng), Some(0))
}

/// A game ending in a tie: random games from the standard start or a random position, each
/// followed by endings replayed from a few plies before its end, until one ties. Then the
/// construction: a full board but for a corner, where the side to move (X) flips exactly one
/// disc under either rule set (an opponent disc beside the corner with an X disc behind it;
/// X discs on the corner's other two neighbours), with the counts arranged so that this last
/// move leaves them equal.
fn tie<R: RuleSet>(shape: Shape, rng: &mut StdRng) -> Plan {
    let is_tie = |game: &Game<R>| {
        game.is_over()
            && !game.history().is_empty()
            && game.count(Color::Black) == game.count(Color::White)
    };
    for _ in 0..TIE_RESTARTS {
        let start = some_start(shape, rng);
        let first = random_color(rng);
        let mut game = random_game::<R>(start, first, rng);
        if game.history().is_empty() {
            continue;
        }
        for _ in 0..TIE_LOCAL_TRIES {
            if is_tie(&game) {
                return Plan::new(&game, None);
            }
            let depth = rng.random_range(1..=game.history().len().min(TIE_UNDO_DEPTH));
            for _ in 0..depth {
                game.undo();
            }
            play_out(&mut game, rng);
        }
        if is_tie(&game) {
            return Plan::new(&game, None);
        }
    }
    let game = tie_construction::<R>(shape, rng);
    debug_assert!(is_tie(&game));
    Plan::new(&game, None)
}

/// [`tie`]'s construction, played to its end.
fn tie_construction<R: RuleSet>(shape: Shape, rng: &mut StdRng) -> Game<R> {
    let x = random_color(rng);
    let y = x.opponent();
    let mirror = Mirror::random(shape, rng);
    let cells = shape.cells() as u32;
    let mut board = Board::empty(shape);
    board.set(mirror.square(0, 1), Some(y));
    for (row, column) in [(0, 2), (1, 0), (1, 1)] {
        board.set(mirror.square(row, column), Some(x));
    }
    board.set(mirror.square(0, 0), Some(x)); // kept empty below
    // X needs cells / 2 - 2 discs before its move (it gains two), Y cells / 2 + 1.
    let mut x_to_place = cells / 2 - 2 - 3;
    let mut free: Vec<Square> = board.empty_squares().iter().collect();
    while x_to_place > 0 {
        let at = rng.random_range(0..free.len());
        board.set(free.swap_remove(at), Some(x));
        x_to_place -= 1;
    }
    for square in free {
        board.set(square, Some(y));
    }
    board.set(mirror.square(0, 0), None);
    let mut game = Game::<R>::new(Setup {
        board,
        first_mover: x,
        win_rule: WinRule::MostDiscs,
    });
    play_out(&mut game, rng);
    game
}

#[cfg(test)]
mod tests;
