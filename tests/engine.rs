//! Players on random positions of every shape, rule set and win rule: a legal move whenever
//! one exists, and none otherwise. Stable discs: none ever flips.

use othello::{
    Board, Color, Full, Game, RuleSet, Setup, Shape, Simple, Status, WinRule,
    engine::{Limits, Node, Node8, PlayerSpec, new_player},
};
use proptest::prelude::*;

/// A random position: each cell black, white or empty with the given density.
fn random_setup(shape: Shape, cells: &[u8], density: u8, white: bool, fewest: bool) -> Setup {
    let mut board = Board::empty(shape);
    for (square, &cell) in shape.squares().zip(cells) {
        if cell % 100 < density {
            board.set(
                square,
                Some(if cell % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                }),
            );
        }
    }
    Setup {
        board,
        first_mover: if white { Color::White } else { Color::Black },
        win_rule: if fewest {
            WinRule::FewestDiscs
        } else {
            WinRule::MostDiscs
        },
    }
}

fn check<R: RuleSet>(setup: Setup, spec: PlayerSpec, seed: u64) -> Result<(), TestCaseError> {
    let game = Game::<R>::new(setup);
    let mut player = new_player::<R>(spec, seed, None);
    // A node limit, not the clock: the same choice on a loaded machine.
    let choice = player.choose(&game, &Limits::nodes(500), &mut |_| {});
    match game.status() {
        Status::ToMove(_) => {
            let square = choice.ok_or_else(|| TestCaseError::fail("no move"))?;
            prop_assert!(game.is_legal(square), "{} chose illegal {}", spec, square);
        }
        Status::Over(_) => prop_assert_eq!(choice, None),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2500))]

    #[test]
    fn every_player_moves_legally_on_random_positions(
        rows in 4u8..=16,
        columns in 4u8..=16,
        cells in prop::collection::vec(any::<u8>(), 256),
        density in 0u8..=100,
        white in any::<bool>(),
        fewest in any::<bool>(),
        simple in any::<bool>(),
        player in 0usize..8,
        seed in any::<u64>(),
    ) {
        let shape = Shape::new(rows, columns).unwrap();
        let setup = random_setup(shape, &cells, density, white, fewest);
        let spec = [
            PlayerSpec::Engine(10),
            PlayerSpec::Engine(1),
            PlayerSpec::Engine(4),
            PlayerSpec::Engine(7),
            PlayerSpec::Random,
            PlayerSpec::Greedy,
            PlayerSpec::Minimax(2),
            PlayerSpec::Mcts(20),
        ][player];
        if simple {
            check::<Simple>(setup, spec, seed)?;
        } else {
            check::<Full>(setup, spec, seed)?;
        }
    }
}

/// Plays `games` random games from `setup` to the end; the discs `R::stable` finds at the
/// start must keep their colour throughout every one.
fn stable_discs_never_flip<R: RuleSet>(
    setup: Setup,
    games: u32,
    mut seed: u64,
) -> Result<u32, TestCaseError> {
    let stable = Color::ALL.map(|color| R::stable(&setup.board, color));
    let mut random = move |below: u32| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as u32 % below
    };
    for _ in 0..games {
        let mut game = Game::<R>::new(setup);
        while game.status() != Status::Over(game.setup().win_rule.outcome(game.board())) {
            let moves = game.legal_moves();
            let square = moves.iter().nth(random(moves.count()) as usize).unwrap();
            game.play(square).unwrap();
            for color in Color::ALL {
                let kept = stable[color as usize] & !game.board().discs(color);
                prop_assert!(
                    kept.is_empty(),
                    "{:?} stable disc flipped: {:?}\n{}",
                    color,
                    kept,
                    setup.board
                );
            }
        }
    }
    Ok(stable.iter().map(|s| s.count()).sum())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn stable_discs_keep_their_colour(
        rows in 4u8..=16,
        columns in 4u8..=16,
        cells in prop::collection::vec(any::<u8>(), 256),
        density in 40u8..=100,
        simple in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let shape = Shape::new(rows, columns).unwrap();
        let setup = random_setup(shape, &cells, density, false, false);
        if simple {
            stable_discs_never_flip::<Simple>(setup, 8, seed)?;
        } else {
            stable_discs_never_flip::<Full>(setup, 8, seed)?;
        }
    }

    #[test]
    fn the_8x8_stability_agrees_with_the_general_one(
        cells in prop::collection::vec(any::<u8>(), 256),
        density in 30u8..=100,
        white in any::<bool>(),
    ) {
        let setup = random_setup(Shape::STANDARD, &cells, density, false, false);
        let side = if white { Color::White } else { Color::Black };
        let general = Full::stable(&setup.board, side);
        let fast: Board = {
            let node = Node8::from_board(&setup.board, side);
            let mut board = Board::empty(Shape::STANDARD);
            let mut bits = node.stable();
            while bits != 0 {
                board.set(node.square(bits.trailing_zeros()), Some(side));
                bits &= bits - 1;
            }
            board
        };
        let fast = fast.discs(side);
        let corner_taken = ["a1", "h1", "a8", "h8"]
            .iter()
            .any(|s| setup.board.at(s.parse().unwrap()).is_some());
        // The general version skips the work while every corner is empty.
        if corner_taken {
            prop_assert_eq!(general, fast);
        } else {
            prop_assert!(general.is_empty());
        }
    }
}

#[test]
fn stability_finds_what_it_should() {
    // A full top row and a black corner with its edge: those discs are stable.
    let setup: Setup = "4\n4\nB\n>\nB B W W\nB . . .\nW . B .\n. . . .\n"
        .parse()
        .unwrap();
    let black = Full::stable(&setup.board, Color::Black);
    let white = Full::stable(&setup.board, Color::White);
    let names = |set: othello::Bitboard| set.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(names(black), ["a1", "b1", "a2"]);
    assert_eq!(names(white), ["c1", "d1"]);
    // SIMPLE: exactly the discs without an empty neighbour.
    let full: Setup = "4\n4\nB\n>\nB B W W\nB W B W\nW W B B\nB B . .\n"
        .parse()
        .unwrap();
    assert_eq!(
        names(Simple::stable(&full.board, Color::Black)),
        ["a1", "b1", "a2", "c2", "a4"]
    );
    assert_eq!(stable_discs_never_flip::<Simple>(full, 4, 1).unwrap(), 10);
}
