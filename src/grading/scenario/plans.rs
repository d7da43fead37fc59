//! The start and the moves of each kind of scenario: searched for among random positions
//! and games a bounded number of times, then built by a construction that always works, so
//! that generation never loops forever and works on every size from 4 × 4 to 16 × 16.

use rand::{RngExt, rngs::StdRng};

use crate::{Bitboard, Board, Color, Game, RuleSet, Setup, Shape, Square, Variant, WinRule};

/// Random positions drawn for [`ScenarioKind::Random`](super::ScenarioKind::Random) to find one where a side can move.
const RANDOM_ATTEMPTS: usize = 5;
/// Random positions tried for [`ScenarioKind::StuckFirst`](super::ScenarioKind::StuckFirst) before the construction.
const STUCK_ATTEMPTS: usize = 60;
/// Random positions tried for [`ScenarioKind::OverAtStart`](super::ScenarioKind::OverAtStart) before a game's final position.
const OVER_ATTEMPTS: usize = 30;
/// Random games tried for [`ScenarioKind::Passes`](super::ScenarioKind::Passes) before the construction.
const PASS_ATTEMPTS: usize = 40;
/// Random games tried for [`ScenarioKind::Tie`](super::ScenarioKind::Tie) before the construction.
const TIE_RESTARTS: usize = 8;
/// Endings replayed from a late position of each such game.
const TIE_LOCAL_TRIES: usize = 40;
/// The most plies taken back to replay an ending.
const TIE_UNDO_DEPTH: usize = 10;
/// Random fillings tried for [`ScenarioKind::NearlyFull`](super::ScenarioKind::NearlyFull) to find one where a side can move.
const NEARLY_FULL_ATTEMPTS: usize = 20;
/// The most empty squares a [`ScenarioKind::NearlyFull`](super::ScenarioKind::NearlyFull) position has.
const NEARLY_FULL_MAX_EMPTY: u32 = 6;

/// A start and the moves of a game from it, before lines are written.
pub(super) struct Plan {
    pub(super) setup: Setup,
    /// The game's moves, all legal, to its end.
    pub(super) moves: Vec<Square>,
    /// The fewest moves a truncated input may keep; `None` if it may not be truncated.
    pub(super) earliest_cut: Option<usize>,
}

impl Plan {
    pub(super) fn new<R: RuleSet>(game: &Game<R>, earliest_cut: Option<usize>) -> Plan {
        Plan {
            setup: *game.setup(),
            moves: game.moves().collect(),
            earliest_cut,
        }
    }
}

/// A square of `squares` chosen uniformly, if there is one.
pub(super) fn pick(squares: Bitboard, rng: &mut StdRng) -> Option<Square> {
    match squares.count() {
        0 => None,
        count => squares.iter().nth(rng.random_range(0..count) as usize),
    }
}

pub(super) fn random_color(rng: &mut StdRng) -> Color {
    if rng.random_bool(0.5) {
        Color::Black
    } else {
        Color::White
    }
}

/// Plays uniformly random legal moves until the game is over.
pub(super) fn play_out<R: RuleSet>(game: &mut Game<R>, rng: &mut StdRng) {
    while let Some(square) = pick(game.legal_moves(), rng) {
        game.play(square).expect("a legal move");
    }
}

/// A random game to its end from `board`, with `first` named to move first.
pub(super) fn random_game<R: RuleSet>(board: Board, first: Color, rng: &mut StdRng) -> Game<R> {
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
pub(super) fn random_board(shape: Shape, rng: &mut StdRng) -> Board {
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
pub(super) fn some_start(shape: Shape, rng: &mut StdRng) -> Board {
    if rng.random_range(0..4) == 0 {
        random_board(shape, rng)
    } else {
        Board::standard(shape)
    }
}

/// Every empty square filled with a random colour (one random share of black per board).
pub(super) fn fill_randomly(board: &mut Board, rng: &mut StdRng) {
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
pub(super) fn first_pass<R: RuleSet>(game: &Game<R>) -> Option<usize> {
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

pub(super) fn standard<R: RuleSet>(shape: Shape, rng: &mut StdRng) -> Plan {
    let first = random_color(rng);
    Plan::new(
        &random_game::<R>(Board::standard(shape), first, rng),
        Some(0),
    )
}

/// A random position; up to [`RANDOM_ATTEMPTS`] are drawn to find one where a side can
/// move (sparse FULL positions often have none), else the last is kept.
pub(super) fn random<R: RuleSet>(shape: Shape, rng: &mut StdRng) -> Plan {
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
pub(super) fn stuck_first<R: RuleSet>(shape: Shape, rng: &mut StdRng) -> Plan {
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
pub(super) fn stuck_construction(shape: Shape, rng: &mut StdRng) -> (Board, Color) {
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
pub(super) fn over_at_start<R: RuleSet>(shape: Shape, rng: &mut StdRng) -> Plan {
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
pub(super) fn passes<R: RuleSet>(shape: Shape, rng: &mut StdRng) -> Plan {
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
pub(super) fn pass_construction<R: RuleSet>(shape: Shape, rng: &mut StdRng) -> Game<R> {
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
pub(super) fn nearly_full<R: RuleSet>(shape: Shape, rng: &mut StdRng) -> Plan {
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
pub(super) fn tie<R: RuleSet>(shape: Shape, rng: &mut StdRng) -> Plan {
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
pub(super) fn tie_construction<R: RuleSet>(shape: Shape, rng: &mut StdRng) -> Game<R> {
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
