//! Players on random positions of every shape, rule set and win rule: a legal move whenever
//! one exists, and none otherwise.

use std::time::Duration;

use othello::{
    Board, Color, Full, Game, RuleSet, Setup, Shape, Simple, Status, WinRule,
    engine::{PlayerSpec, new_player},
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
    let mut player = new_player::<R>(spec, seed);
    let choice = player.choose(&game, Some(Duration::from_millis(2)), &mut |_| {});
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
