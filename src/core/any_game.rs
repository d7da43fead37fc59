//! A game whose rule set is chosen at run time, for applications (the console, the server)
//! that cannot be generic over it: the same methods as [`Game`], without a type parameter.

use crate::{
    Bitboard, Board, Color, Full, Game, MoveError, Outcome, Ply, ReplayError, Setup, Simple,
    Square, Status, Variant,
};

/// A [`Game`] under either rule set, chosen at run time.
///
/// Code that knows its rule set at compile time uses `Game<Full>` or `Game<Simple>` (and
/// generic code `Game<R>`), which the engine and the grader protocol do for speed; code that
/// reads the rules from a person or a file uses this, and reaches the typed game with
/// [`as_full`](AnyGame::as_full) / [`as_simple`](AnyGame::as_simple) or a `match` where it
/// needs to.
///
/// ```
/// use othello::{AnyGame, Setup, Shape, Variant};
///
/// let variant: Variant = "simple".parse()?;
/// let mut game = AnyGame::new(variant, Setup::standard(Shape::new(6, 6)?));
/// assert_eq!(game.variant(), Variant::Simple);
/// // b2 flips nothing under FULL, but is next to a white disc: legal under SIMPLE.
/// game.play("b2".parse()?)?;
/// assert_eq!(game.history().len(), 1);
/// assert!(game.undo().is_some());
/// assert_eq!(game.board(), &Setup::standard(Shape::new(6, 6)?).board);
/// assert_eq!(game.undone().collect::<Vec<_>>(), ["b2".parse()?]);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyGame {
    /// Standard Othello.
    Full(Game<Full>),
    /// The course's simplified rules.
    Simple(Game<Simple>),
}

impl AnyGame {
    /// A game under `variant` from `setup` (see [`Game::new`]).
    pub fn new(variant: Variant, setup: Setup) -> AnyGame {
        crate::on_rules!(variant, |R| AnyGame::from(Game::<R>::new(setup)))
    }

    /// A game under `variant` from `setup` after playing `moves` (see [`Game::replay`]).
    ///
    /// # Errors
    /// [`ReplayError`] naming the first move that could not be played.
    pub fn replay(
        variant: Variant,
        setup: Setup,
        moves: impl IntoIterator<Item = Square>,
    ) -> Result<AnyGame, ReplayError> {
        Ok(crate::on_rules!(variant, |R| AnyGame::from(
            Game::<R>::replay(setup, moves)?
        )))
    }

    /// The rule set.
    pub const fn variant(&self) -> Variant {
        match self {
            AnyGame::Full(_) => Variant::Full,
            AnyGame::Simple(_) => Variant::Simple,
        }
    }

    /// The game under FULL rules, if it is one.
    pub const fn as_full(&self) -> Option<&Game<Full>> {
        match self {
            AnyGame::Full(game) => Some(game),
            AnyGame::Simple(_) => None,
        }
    }

    /// The game under SIMPLE rules, if it is one.
    pub const fn as_simple(&self) -> Option<&Game<Simple>> {
        match self {
            AnyGame::Simple(game) => Some(game),
            AnyGame::Full(_) => None,
        }
    }

    /// See [`Game::setup`].
    pub const fn setup(&self) -> &Setup {
        crate::on_rules!(game = self, |game| game.setup())
    }

    /// See [`Game::board`].
    pub const fn board(&self) -> &Board {
        crate::on_rules!(game = self, |game| game.board())
    }

    /// See [`Game::count`].
    pub const fn count(&self, color: Color) -> u32 {
        crate::on_rules!(game = self, |game| game.count(color))
    }

    /// See [`Game::side_to_move`].
    pub const fn side_to_move(&self) -> Option<Color> {
        crate::on_rules!(game = self, |game| game.side_to_move())
    }

    /// See [`Game::legal_moves`].
    pub const fn legal_moves(&self) -> Bitboard {
        crate::on_rules!(game = self, |game| game.legal_moves())
    }

    /// See [`Game::is_legal`].
    pub const fn is_legal(&self, square: Square) -> bool {
        crate::on_rules!(game = self, |game| game.is_legal(square))
    }

    /// See [`Game::is_over`].
    pub const fn is_over(&self) -> bool {
        crate::on_rules!(game = self, |game| game.is_over())
    }

    /// See [`Game::outcome`].
    pub fn outcome(&self) -> Option<Outcome> {
        crate::on_rules!(game = self, |game| game.outcome())
    }

    /// See [`Game::status`].
    pub fn status(&self) -> Status {
        crate::on_rules!(game = self, |game| game.status())
    }

    /// See [`Game::history`].
    pub fn history(&self) -> &[Ply] {
        crate::on_rules!(game = self, |game| game.history())
    }

    /// See [`Game::moves`].
    pub fn moves(&self) -> impl ExactSizeIterator<Item = Square> + '_ {
        self.history().iter().map(Ply::square)
    }

    /// See [`Game::undone`].
    pub fn undone(&self) -> impl ExactSizeIterator<Item = Square> + '_ {
        crate::on_rules!(game = self, |game| game.undone_plies())
            .iter()
            .rev()
            .map(Ply::square)
    }

    /// See [`Game::play`].
    ///
    /// # Errors
    /// [`MoveError`] if the game is over or the move is not legal; the game is unchanged.
    pub fn play(&mut self, square: Square) -> Result<Ply, MoveError> {
        crate::on_rules!(game = self, |game| game.play(square))
    }

    /// See [`Game::undo`].
    pub fn undo(&mut self) -> Option<Ply> {
        crate::on_rules!(game = self, |game| game.undo())
    }

    /// See [`Game::redo`].
    pub fn redo(&mut self) -> Option<Ply> {
        crate::on_rules!(game = self, |game| game.redo())
    }
}

impl From<Game<Full>> for AnyGame {
    fn from(game: Game<Full>) -> AnyGame {
        AnyGame::Full(game)
    }
}

impl From<Game<Simple>> for AnyGame {
    fn from(game: Game<Simple>) -> AnyGame {
        AnyGame::Simple(game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Shape, WinRule};

    /// Plays the first legal move each turn in both the typed and the run-time game; they
    /// must agree at every step.
    fn agree<R: crate::RuleSet>(setup: Setup)
    where
        AnyGame: From<Game<R>>,
    {
        let mut typed = Game::<R>::new(setup);
        let mut any = AnyGame::new(R::VARIANT, setup);
        assert_eq!(any, AnyGame::from(typed.clone()));
        while let Some(square) = typed.legal_moves().first() {
            assert_eq!(any.legal_moves(), typed.legal_moves());
            assert_eq!(any.status(), typed.status());
            assert_eq!(any.play(square), typed.play(square));
        }
        assert!(any.is_over() && typed.is_over());
        assert_eq!(any.outcome(), typed.outcome());
        assert_eq!(
            any.moves().collect::<Vec<_>>(),
            typed.moves().collect::<Vec<_>>()
        );
        assert_eq!(any.board(), typed.board());
        assert_eq!(any.count(Color::Black), typed.count(Color::Black));
        // Undo everything, then redo it: the undone moves come back in order.
        let played = any.history().len();
        while any.undo().is_some() {}
        assert_eq!(any.undone().count(), played);
        assert_eq!(
            any.undone().collect::<Vec<_>>(),
            typed.moves().collect::<Vec<_>>()
        );
        while any.redo().is_some() {}
        assert_eq!(any, AnyGame::from(typed));
    }

    #[test]
    fn behaves_as_the_typed_game() {
        for (rows, columns) in [(4, 4), (6, 8), (8, 8)] {
            let mut setup = Setup::standard(Shape::new(rows, columns).unwrap());
            agree::<Full>(setup);
            agree::<Simple>(setup);
            setup.win_rule = WinRule::FewestDiscs;
            setup.first_mover = Color::White;
            agree::<Full>(setup);
        }
    }

    #[test]
    fn replays_under_the_rules_named_and_refuses_illegal_moves() {
        let setup = Setup::standard(Shape::STANDARD);
        let c3: Square = "c3".parse().unwrap();
        assert!(AnyGame::replay(Variant::Full, setup, [c3]).is_err());
        let game = AnyGame::replay(Variant::Simple, setup, [c3]).unwrap();
        assert_eq!(game.variant(), Variant::Simple);
        assert!(game.as_simple().is_some() && game.as_full().is_none());
        assert_eq!(game.side_to_move(), Some(Color::White));
        assert!(!game.is_legal(c3));
    }
}
