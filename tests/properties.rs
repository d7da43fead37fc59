//! Properties of random games on every shape under both rule sets, the grader protocol
//! against a naive reference implementation, and random bytes thrown at the protocol and
//! at the WTHOR readers (their fuzz targets).

mod common;
mod reference;

use othello::{
    Bitboard, Board, Color, Full, Game, MoveList, RuleSet, Setup, Shape, Simple, Square, Status,
    Variant, WinRule, protocol,
};
use proptest::{prelude::*, test_runner::TestCaseError};

/// Any shape the library accepts, odd sides included.
fn any_shape() -> impl Strategy<Value = Shape> {
    (4u8..=16, 4u8..=16).prop_map(|(rows, columns)| Shape::new(rows, columns).unwrap())
}

/// The shapes the grader accepts: even sides.
fn grader_shape() -> impl Strategy<Value = Shape> {
    (2u8..=8, 2u8..=8).prop_map(|(rows, columns)| Shape::new(2 * rows, 2 * columns).unwrap())
}

/// The standard start or a random position of random density, any first mover and win rule.
fn setup(shape: impl Strategy<Value = Shape>) -> impl Strategy<Value = Setup> {
    (
        shape,
        prop::option::weighted(0.7, (0u8..=100, prop::collection::vec(any::<u8>(), 256))),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(shape, random, white_first, fewest_wins)| {
            let mut board = Board::standard(shape);
            if let Some((density, cells)) = random {
                board = Board::empty(shape);
                for (square, cell) in shape.squares().zip(cells) {
                    if cell % 101 < density {
                        let color = if cell % 2 == 0 {
                            Color::Black
                        } else {
                            Color::White
                        };
                        board.set(square, Some(color));
                    }
                }
            }
            Setup {
                board,
                first_mover: if white_first {
                    Color::White
                } else {
                    Color::Black
                },
                win_rule: if fewest_wins {
                    WinRule::FewestDiscs
                } else {
                    WinRule::MostDiscs
                },
            }
        })
}

/// Move choices: each picks one of the legal moves; cycled until the game ends.
fn choices() -> impl Strategy<Value = Vec<u16>> {
    prop::collection::vec(any::<u16>(), 1..48)
}

/// What a player can see of a game: position, whose turn, legal moves, moves so far.
fn observable<R: RuleSet>(game: &Game<R>) -> (Board, Status, Bitboard, Vec<Square>) {
    (
        *game.board(),
        game.status(),
        game.legal_moves(),
        game.moves().collect(),
    )
}

/// Plays a random game to its end, checking the invariants of every move.
fn random_game<R: RuleSet>(setup: Setup, choices: &[u16]) -> Result<Game<R>, TestCaseError> {
    let mut game = Game::<R>::new(setup);
    let shape = setup.board.shape();
    let empties_at_start = setup.board.empty_squares().count() as usize;
    for &choice in choices.iter().cycle().take(empties_at_start) {
        let Status::ToMove(side) = game.status() else {
            break;
        };
        let before = game.clone();
        let board = *before.board();
        for square in shape.squares() {
            let flips = R::flips(&board, side, square);
            prop_assert_eq!(game.is_legal(square), !flips.is_empty(), "{}", square);
        }
        let legal: Vec<Square> = game.legal_moves().iter().collect();
        let square = legal[usize::from(choice) % legal.len()];
        let ply = game
            .play(square)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let after = game.board();
        prop_assert_eq!(after.occupied().count(), board.occupied().count() + 1);
        prop_assert_eq!(
            ply.flips() & !board.discs(!side),
            Bitboard::EMPTY,
            "only opponent discs flip"
        );
        prop_assert_eq!(
            after.discs(side),
            board.discs(side) | ply.flips() | square.into()
        );
        prop_assert_eq!(after.discs(!side), board.discs(!side) & !ply.flips());
        let next = [!side, side].into_iter().find(|&s| R::can_move(after, s));
        prop_assert_eq!(
            game.side_to_move(),
            next,
            "the turn passes only when it must"
        );
        let mut undone = game.clone();
        prop_assert_eq!(undone.undo(), Some(ply));
        prop_assert_eq!(
            observable(&undone),
            observable(&before),
            "undo restores the state"
        );
    }
    prop_assert!(
        game.is_over(),
        "a game ends within as many moves as it has empty squares"
    );
    for side in Color::ALL {
        prop_assert!(!R::can_move(game.board(), side));
    }
    Ok(game)
}

fn round_trips<R: RuleSet>(game: &Game<R>) -> Result<(), TestCaseError> {
    let moves = MoveList::from_iter(game.moves());
    let text = moves.to_string();
    prop_assert_eq!(text.parse::<MoveList>(), Ok(moves.clone()));
    let replayed = Game::<R>::replay(*game.setup(), moves.0)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(observable(&replayed), observable(game));
    let shape = game.board().shape();
    let parsed = game.setup().to_string().parse::<Setup>();
    if shape.rows().is_multiple_of(2) && shape.columns().is_multiple_of(2) {
        prop_assert_eq!(parsed, Ok(*game.setup()));
    } else {
        prop_assert!(parsed.is_err(), "the grader text refuses odd sizes");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn full_games_keep_their_invariants(setup in setup(any_shape()), choices in choices()) {
        let game = random_game::<Full>(setup, &choices)?;
        round_trips(&game)?;
    }

    #[test]
    fn simple_games_keep_their_invariants(setup in setup(any_shape()), choices in choices()) {
        let game = random_game::<Simple>(setup, &choices)?;
        round_trips(&game)?;
    }

    #[test]
    fn protocol_agrees_with_the_naive_reference(
        setup in setup(grader_shape()),
        simple in any::<bool>(),
        script in prop::collection::vec((any::<u16>(), 0u8..10), 0..200),
    ) {
        let input = session_input(&setup, simple, &script);
        let variant = if simple { Variant::Simple } else { Variant::Full };
        let mut stdout = Vec::new();
        let status = match protocol::run(&input[..], &mut stdout, variant) {
            Ok(_) => 0,
            Err(error) => error.exit_status(),
        };
        let (expected, expected_status) = reference::run(&input, simple);
        prop_assert_eq!(String::from_utf8(stdout).unwrap(), expected);
        prop_assert_eq!(status, expected_status);
    }

    #[test]
    fn random_bytes_never_break_the_protocol(
        bytes in prop::collection::vec(any::<u8>(), 0..3000),
        simple in any::<bool>(),
    ) {
        fuzz(&bytes, simple)?;
    }

    #[test]
    fn random_move_lines_after_a_valid_board_never_break_the_protocol(
        setup in setup(grader_shape()),
        tail in prop::collection::vec(
            prop_oneof![
                4 => prop::sample::select(b"0123456789".to_vec()),
                2 => Just(b' '),
                2 => Just(b'\n'),
                1 => prop::sample::select(b"+-\t\r".to_vec()),
                1 => any::<u8>(),
            ],
            0..3000,
        ),
        simple in any::<bool>(),
    ) {
        let mut input = setup.to_string().into_bytes();
        input.extend(tail);
        fuzz(&input, simple)?;
    }
}

/// A WTHOR file's bytes as a fuzzer would make them: a header whose board byte and counts
/// are mostly plausible, then records of random bytes (about the declared number, of
/// about the right size).
fn wthor_bytes() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(any::<u8>(), 16),
        prop_oneof![Just(0u8), Just(8), Just(10), any::<u8>()],
        0u32..4,
        prop::collection::vec(any::<u8>(), 0..450),
        prop::sample::select(vec![20usize, 26, 68, 104]),
        any::<bool>(),
    )
        .prop_map(|(mut header, board, count, body, size, exact)| {
            header[12] = board;
            header[4..8].copy_from_slice(&count.to_le_bytes());
            header[8..10].copy_from_slice(&(count as u16).to_le_bytes());
            let mut body = body;
            if exact {
                body.resize(count as usize * size, 7);
            }
            header.extend(body);
            header
        })
}

/// Where a valid game's moves may be spoiled: the move byte and its new value.
fn spoils() -> impl Strategy<Value = Vec<(usize, u8)>> {
    prop::collection::vec((0usize..60, any::<u8>()), 0..3)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Issue 47.15: the WTHOR readers never panic; whatever they read, they write back as
    /// it was, byte for byte; a game's moves replay or say which one does not.
    #[test]
    fn wthor_files_read_back_byte_for_byte_or_are_refused(bytes in wthor_bytes()) {
        use othello::wthor::{PLAYER_BYTES, TOURNAMENT_BYTES, WthorGames, WthorNames};
        if let Ok(games) = WthorGames::from_bytes(&bytes) {
            prop_assert_eq!(games.to_bytes(), bytes.clone());
            let shape = games.shape().unwrap();
            for game in &games.games {
                if let Ok(record) = game.record(shape) {
                    prop_assert!(record.replay().is_ok());
                }
            }
        }
        for size in [PLAYER_BYTES, TOURNAMENT_BYTES] {
            if let Ok(names) = WthorNames::from_bytes(&bytes, size) {
                prop_assert_eq!(names.to_bytes(), bytes.clone());
                for index in 0..names.records.len() as u16 {
                    prop_assert!(names.name(index).is_some());
                }
            }
        }
    }

    /// Random games written and read again come back as they were; a spoiled move byte is
    /// refused by the replay (never accepted as another game).
    #[test]
    fn random_games_go_through_wthor_and_back(
        choices in choices(),
        ten in any::<bool>(),
        spoiled in spoils(),
    ) {
        use othello::wthor::WthorGames;
        let shape = if ten { Shape::new(10, 10).unwrap() } else { Shape::STANDARD };
        let game = random_game::<Full>(Setup::standard(shape), &choices)?;
        let record = othello::Record::from_game(&game);
        let mut games = WthorGames::new(shape, 2026).unwrap();
        games.push(&record, 1, 2, 3).unwrap();
        let read = WthorGames::from_bytes(&games.to_bytes()).unwrap();
        prop_assert_eq!(&read.games[0].record(shape).unwrap(), &record);
        // Black's discs, the empty squares counted for the winner (halved in a draw).
        let (black, white) = (game.board().count(Color::Black), game.board().count(Color::White));
        let empty = shape.cells() as u32 - black - white;
        let scored = match black.cmp(&white) {
            std::cmp::Ordering::Greater => black + empty,
            std::cmp::Ordering::Less => black,
            std::cmp::Ordering::Equal => black + empty / 2,
        };
        prop_assert_eq!(u32::from(read.games[0].black_discs), scored);
        let mut spoilt = read.games[0].clone();
        let length = spoilt.moves.len();
        for (at, value) in spoiled {
            spoilt.moves[at % length] = value;
        }
        match spoilt.record(shape) {
            Ok(again) => prop_assert!(again.replay().is_ok()),
            Err(error) => prop_assert!(spoilt.moves != read.games[0].moves, "{}", error),
        }
    }
}

/// Runs the protocol on `input`: it must not panic, must end with status 0, 2 or 3, and its
/// output must be well formed.
fn fuzz(input: &[u8], simple: bool) -> Result<(), TestCaseError> {
    let variant = if simple {
        Variant::Simple
    } else {
        Variant::Full
    };
    let mut stdout = Vec::new();
    let status = match protocol::run(input, &mut stdout, variant) {
        Ok(_) => 0,
        Err(error) => error.exit_status(),
    };
    prop_assert!([0, 2, 3].contains(&status), "status {}", status);
    common::assert_well_formed(&stdout);
    Ok(())
}

/// A grader input: the setup, then for each script step a legal move (chosen with the
/// naive reference) or a line the protocol must refuse.
fn session_input(setup: &Setup, simple: bool, script: &[(u16, u8)]) -> Vec<u8> {
    let mut input = setup.to_string().into_bytes();
    let mut grid: reference::Grid = setup
        .board
        .to_string()
        .lines()
        .map(|row| row.split(' ').map(|c| c.chars().next().unwrap()).collect())
        .collect();
    let (rows, cols) = (grid.len(), grid[0].len());
    let mut turn = reference::next_turn(&grid, simple, setup.first_mover.letter(), true);
    for &(choice, kind) in script {
        let Some(side) = turn else { break };
        let n = usize::from(choice);
        // A square to play (1-based, maybe off the board or illegal) or a junk line.
        let (line, target) = match kind {
            0 => {
                let (r, c) = (n % (rows + 2), n / 7 % (cols + 2));
                (format!("{r} {c}"), Some((r, c)))
            }
            1 => {
                let (r, c) = (n % rows + 1, n / 5 % cols + 1);
                (format!(" +{r}\t{c} "), Some((r, c)))
            }
            2 => {
                let junk = ["", "1", "1 2 3", "x y", "1,2", "-1 2", "\u{00e9} 1"][n % 7];
                (junk.to_string(), None)
            }
            3 => (format!("{n}{n} 1"), None),
            _ => {
                let legal = reference::legal_moves(&grid, simple, side);
                let (r, c) = legal[n % legal.len()];
                (format!("{} {}", r + 1, c + 1), Some((r + 1, c + 1)))
            }
        };
        // Keep the generator's board in step when the line is a legal move.
        if let Some((r, c)) =
            target.filter(|&(r, c)| (1..=rows).contains(&r) && (1..=cols).contains(&c))
        {
            let flipped = reference::flips(&grid, simple, side, r - 1, c - 1);
            if !flipped.is_empty() {
                for (fr, fc) in flipped {
                    grid[fr][fc] = side;
                }
                grid[r - 1][c - 1] = side;
                turn = reference::next_turn(&grid, simple, side, false);
            }
        }
        input.extend_from_slice(line.as_bytes());
        input.extend_from_slice(if n % 5 == 0 { b"\r\n" } else { b"\n" });
    }
    input
}
