//! A game at the table: the library's game and what the server adds (seats, times, undo
//! requests, resignations, engine games' controls), and the table's rules as plain
//! synchronous methods: who may move, undo, redo, resign or pause, and what each does.
//!
//! A method changes the table or returns a [`TableError`] and leaves it as it was; it knows
//! nothing of locks, storage, HTTP or the clock (the time is passed in). The hub locks a
//! game, calls a method on a copy, stores the difference, and only then makes the copy the
//! game's: a failed commit leaves the game as it was.

use othello::{AnyGame, ByColor, Color, Record, Square, engine::PlayerSpec};
use thiserror::Error;

use crate::play::Occupant;

/// A seat at the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seat {
    /// A person, or an engine.
    pub occupant: Occupant,
    /// The engine's time per move, in milliseconds.
    pub time_ms: u64,
    /// A hash of the person's secret.
    pub secret_hash: Option<String>,
}

/// What is known of each move besides its square.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveMeta {
    /// When, in milliseconds since the Unix epoch.
    pub played_at: i64,
    /// How long its side thought, in milliseconds.
    pub think_ms: u64,
    /// The engine's score after it for Black (discs) and whether it is exact, once known.
    pub eval: Option<(f64, bool)>,
}

/// How a seat answers about taking moves back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UndoAction {
    /// Ask (against an engine: take back at once).
    Request,
    /// Accept the other seat's request.
    Accept,
    /// Decline the other seat's request.
    Decline,
    /// Withdraw one's own request.
    Cancel,
}

/// The engine's help for people.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Help {
    /// The best moves of the position now.
    Hints,
    /// The score after each move.
    Evaluation,
}

/// What the table's rules refuse.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TableError {
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// It is the other side's turn.
    #[error("it is not this seat's turn")]
    NotYourTurn,
    /// A move that is not legal now.
    #[error("{square} is not a legal move")]
    IllegalMove {
        /// The move asked for.
        square: Square,
        /// The legal ones.
        legal: Vec<Square>,
    },
    /// Nothing of this seat's to take back.
    #[error("nothing to undo: this seat has not moved")]
    NothingToUndo,
    /// No request to answer (or withdraw).
    #[error("no request to take a move back is waiting for this answer")]
    UndoNotPending,
    /// The other seat's request waits for an answer.
    #[error("the other player asked to take back a move: accept or decline that first")]
    UndoPending,
    /// Nothing taken back to play again.
    #[error("nothing to redo")]
    NothingToRedo,
    /// Redo is for games against an engine.
    #[error("redo is only for games against an engine")]
    RedoNeedsEngine,
    /// Pause, step and speed are for games between engines.
    #[error("only a game between engines can be paused, stepped or paced")]
    NotEngineGame,
}

impl TableError {
    /// The machine-readable code the API gives.
    pub fn code(&self) -> &'static str {
        match self {
            TableError::GameOver => "game_over",
            TableError::NotYourTurn => "not_your_turn",
            TableError::IllegalMove { .. } => "illegal_move",
            TableError::NothingToUndo => "nothing_to_undo",
            TableError::UndoNotPending => "no_undo_request",
            TableError::UndoPending => "undo_request_pending",
            TableError::NothingToRedo => "nothing_to_redo",
            TableError::RedoNeedsEngine => "redo_needs_engine",
            TableError::NotEngineGame => "not_engine_game",
        }
    }
}

/// A game at the table. Cloned, changed by one of its rules, stored, then made the game's.
#[derive(Clone, Debug)]
pub struct Table {
    /// The game itself (its moves, and the redo list).
    pub game: AnyGame,
    /// Parallel to the game's history.
    pub meta: Vec<MoveMeta>,
    /// Black's seat and White's.
    pub seats: ByColor<Seat>,
    /// Who resigned.
    pub resigned: Option<Color>,
    /// Who asked to take a move back.
    pub undo_request: Option<Color>,
    /// Engine games: paused.
    pub paused: bool,
    /// Engine games: one move asked for while paused.
    pub step: bool,
    /// Engine games: the pause between moves, in milliseconds.
    pub speed_ms: u64,
    /// Whether seated people get help while two people play (see [`Table::may_help`]).
    pub help: bool,
    /// A hash of the secret that controls a game between engines.
    pub control_hash: Option<String>,
    /// When the game was created, in milliseconds since the Unix epoch.
    pub created_at: i64,
    /// When it last changed, in milliseconds since the Unix epoch.
    pub updated_at: i64,
}

/// An engine's turn: whose, which player, with how long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineTurn {
    /// The side to move.
    pub side: Color,
    /// Its engine.
    pub spec: PlayerSpec,
    /// Its time per move, in milliseconds.
    pub time_ms: u64,
}

impl Table {
    /// A table for `game` (with its moves so far, all made `now`).
    pub fn new(game: AnyGame, seats: ByColor<Seat>, now: i64) -> Table {
        Table {
            meta: vec![
                MoveMeta {
                    played_at: now,
                    think_ms: 0,
                    eval: None,
                };
                game.history().len()
            ],
            game,
            seats,
            resigned: None,
            undo_request: None,
            paused: false,
            step: false,
            speed_ms: 0,
            help: false,
            control_hash: None,
            created_at: now,
            updated_at: now,
        }
    }

    /// Whether the game is over (no move for either side, or a resignation).
    pub fn is_over(&self) -> bool {
        self.resigned.is_some() || self.game.is_over()
    }

    /// The side to move, unless the game is over.
    pub fn to_move(&self) -> Option<Color> {
        if self.resigned.is_some() {
            None
        } else {
            self.game.side_to_move()
        }
    }

    /// Whether both seats are engines.
    pub fn engines_only(&self) -> bool {
        self.seats
            .iter()
            .all(|(_, seat)| matches!(seat.occupant, Occupant::Computer(_)))
    }

    /// Whether both seats are people.
    pub fn people_only(&self) -> bool {
        self.seats
            .iter()
            .all(|(_, seat)| seat.occupant == Occupant::Human)
    }

    /// The engine to move, if an engine is.
    pub fn engine_turn(&self) -> Option<EngineTurn> {
        let side = self.to_move()?;
        let seat = &self.seats[side];
        match seat.occupant {
            Occupant::Computer(spec) => Some(EngineTurn {
                side,
                spec,
                time_ms: seat.time_ms,
            }),
            Occupant::Human => None,
        }
    }

    /// The seat whose secret hashes to `hash`, if any.
    pub fn seat_of_hash(&self, hash: &str) -> Option<Color> {
        Color::ALL
            .into_iter()
            .find(|&color| self.seats[color].secret_hash.as_deref() == Some(hash))
    }

    /// Whether the viewer in `seat` (`None`: a spectator) may have `help`. A game with an
    /// engine in it, or one that is over, helps everyone. While two people play, help goes
    /// only to seated people, only if the game was created with it, and hints only to the
    /// side to move: never to a spectator, who could be passing them on, and never on the
    /// opponent's turn.
    pub fn may_help(&self, seat: Option<Color>, help: Help) -> bool {
        if !self.people_only() || self.is_over() {
            return true;
        }
        let Some(seat) = seat else {
            return false;
        };
        self.help
            && match help {
                Help::Hints => self.to_move() == Some(seat),
                Help::Evaluation => true,
            }
    }

    /// The game as a record: rule set, start, players, moves, and a resignation.
    pub fn record(&self, date: Option<String>) -> Record {
        let mut record = Record::new(self.game.variant(), *self.game.setup());
        record.players = self
            .seats
            .as_ref()
            .map(|seat| seat.occupant.to_string())
            .into_array();
        record.date = date;
        record.moves = self.game.moves().collect();
        record.ending = self.resigned.map(othello::Ending::Resigned);
        record
    }

    // ---------------------------------------------------------------- the rules

    /// `seat` plays `square`, having thought `think_ms`.
    ///
    /// # Errors
    /// [`TableError`]: the game is over, it is not this seat's turn, or the move is illegal.
    pub fn play(
        &mut self,
        seat: Color,
        square: Square,
        now: i64,
        think_ms: u64,
    ) -> Result<(), TableError> {
        if self.is_over() {
            return Err(TableError::GameOver);
        }
        if self.to_move() != Some(seat) {
            return Err(TableError::NotYourTurn);
        }
        self.place(square, now, think_ms)?;
        // A move answers any request to take one back.
        self.undo_request = None;
        Ok(())
    }

    /// The engine to move plays `square` (a step asked for while paused is then used up).
    ///
    /// # Errors
    /// [`TableError`]: no engine is to move, or the move is illegal.
    pub fn engine_plays(
        &mut self,
        square: Square,
        now: i64,
        think_ms: u64,
    ) -> Result<(), TableError> {
        if self.engine_turn().is_none() {
            return Err(TableError::NotYourTurn);
        }
        self.place(square, now, think_ms)?;
        self.step = false;
        self.undo_request = None;
        Ok(())
    }

    fn place(&mut self, square: Square, now: i64, think_ms: u64) -> Result<(), TableError> {
        if !self.game.is_legal(square) {
            return Err(TableError::IllegalMove {
                square,
                legal: self.game.legal_moves().iter().collect(),
            });
        }
        self.game
            .play(square)
            .map_err(|_| TableError::IllegalMove {
                square,
                legal: Vec::new(),
            })?;
        self.meta.push(MoveMeta {
            played_at: now,
            think_ms,
            eval: None,
        });
        self.updated_at = now;
        Ok(())
    }

    /// Undo for `seat`, as `action` says: against an engine, back to this seat's previous
    /// turn at once; between two people, a request the other seat accepts (or declines, or
    /// the asker withdraws). A seat's own request while the other's waits is refused: it
    /// would take two moves back without either seat agreeing to it.
    ///
    /// # Errors
    /// [`TableError`] when there is nothing to undo or the action does not fit the game.
    pub fn undo(&mut self, seat: Color, action: UndoAction, now: i64) -> Result<(), TableError> {
        if self.resigned.is_some() {
            return Err(TableError::GameOver);
        }
        let against_engine = matches!(self.seats[seat.opponent()].occupant, Occupant::Computer(_));
        let has_moved = self.game.history().iter().any(|ply| ply.side() == seat);
        match (against_engine, action) {
            (true, UndoAction::Request | UndoAction::Accept) => {
                if !has_moved {
                    return Err(TableError::NothingToUndo);
                }
                self.take_back(seat);
            }
            (true, _) => return Err(TableError::UndoNotPending),
            (false, UndoAction::Request) => {
                if self.undo_request == Some(seat.opponent()) {
                    return Err(TableError::UndoPending);
                }
                if !has_moved {
                    return Err(TableError::NothingToUndo);
                }
                self.undo_request = Some(seat);
            }
            (false, UndoAction::Accept | UndoAction::Decline) => {
                if self.undo_request != Some(seat.opponent()) {
                    return Err(TableError::UndoNotPending);
                }
                if action == UndoAction::Accept {
                    self.take_back(seat.opponent());
                }
                self.undo_request = None;
            }
            (false, UndoAction::Cancel) => {
                if self.undo_request != Some(seat) {
                    return Err(TableError::UndoNotPending);
                }
                self.undo_request = None;
            }
        }
        self.updated_at = now;
        Ok(())
    }

    /// Takes moves back until `color`'s last move is undone (back to its turn).
    fn take_back(&mut self, color: Color) {
        while let Some(ply) = self.game.undo() {
            self.meta.pop();
            if ply.side() == color {
                break;
            }
        }
        self.undo_request = None;
    }

    /// Redo for `seat` against an engine: the moves taken back, up to this seat's next turn.
    ///
    /// # Errors
    /// [`TableError`] when there is nothing to redo or the other seat is a person.
    pub fn redo(&mut self, seat: Color, now: i64) -> Result<(), TableError> {
        if !matches!(self.seats[seat.opponent()].occupant, Occupant::Computer(_)) {
            return Err(TableError::RedoNeedsEngine);
        }
        if self.game.undone().len() == 0 || self.resigned.is_some() {
            return Err(TableError::NothingToRedo);
        }
        while self.game.redo().is_some() {
            self.meta.push(MoveMeta {
                played_at: now,
                think_ms: 0,
                eval: None,
            });
            if self.game.side_to_move() == Some(seat) || self.game.undone().len() == 0 {
                break;
            }
        }
        self.updated_at = now;
        Ok(())
    }

    /// `seat` resigns.
    ///
    /// # Errors
    /// [`TableError::GameOver`] if the game is already over.
    pub fn resign(&mut self, seat: Color, now: i64) -> Result<(), TableError> {
        if self.is_over() {
            return Err(TableError::GameOver);
        }
        self.resigned = Some(seat);
        self.undo_request = None;
        self.updated_at = now;
        Ok(())
    }

    /// Pause or resume, step once, or pace a game between engines.
    ///
    /// # Errors
    /// [`TableError::NotEngineGame`] for a game with a person in it.
    pub fn control(
        &mut self,
        paused: Option<bool>,
        step: bool,
        speed_ms: Option<u64>,
        now: i64,
    ) -> Result<(), TableError> {
        if !self.engines_only() {
            return Err(TableError::NotEngineGame);
        }
        if let Some(paused) = paused {
            self.paused = paused;
        }
        if let Some(speed_ms) = speed_ms {
            self.speed_ms = speed_ms;
        }
        self.step = step;
        self.updated_at = now;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use othello::{Setup, Shape, Variant, engine::PlayerSpec};

    use super::*;

    fn seat(occupant: Occupant) -> Seat {
        Seat {
            occupant,
            time_ms: 100,
            secret_hash: (occupant == Occupant::Human).then(|| "hash".to_owned()),
        }
    }

    fn table(black: Occupant, white: Occupant) -> Table {
        let game = AnyGame::new(Variant::Full, Setup::standard(Shape::STANDARD));
        Table::new(game, ByColor::new(seat(black), seat(white)), 1)
    }

    fn square(name: &str) -> Square {
        name.parse().unwrap()
    }

    #[test]
    fn moves_are_the_side_to_move_s_and_legal() {
        let mut table = table(Occupant::Human, Occupant::Human);
        assert_eq!(
            table.play(Color::White, square("d3"), 5, 0),
            Err(TableError::NotYourTurn)
        );
        let before = table.clone();
        let Err(TableError::IllegalMove { legal, .. }) =
            table.play(Color::Black, square("a1"), 5, 0)
        else {
            panic!("a1 is not legal")
        };
        assert_eq!(legal.len(), 4);
        assert_eq!(table.game.history().len(), before.game.history().len());
        table.play(Color::Black, square("d3"), 5, 700).unwrap();
        assert_eq!(
            table.meta[0],
            MoveMeta {
                played_at: 5,
                think_ms: 700,
                eval: None
            }
        );
        assert_eq!(table.updated_at, 5);
        table.resign(Color::White, 6).unwrap();
        assert_eq!(
            table.play(Color::White, square("c3"), 7, 0),
            Err(TableError::GameOver)
        );
        assert_eq!(table.resign(Color::Black, 7), Err(TableError::GameOver));
    }

    #[test]
    fn between_people_an_undo_is_a_request_the_other_seat_answers() {
        let mut table = table(Occupant::Human, Occupant::Human);
        assert_eq!(
            table.undo(Color::Black, UndoAction::Request, 2),
            Err(TableError::NothingToUndo)
        );
        table.play(Color::Black, square("d3"), 2, 0).unwrap();
        table.play(Color::White, square("c5"), 3, 0).unwrap();
        table.undo(Color::Black, UndoAction::Request, 4).unwrap();
        assert_eq!(table.undo_request, Some(Color::Black));
        // The other's request while one waits: refused, nothing taken back.
        assert_eq!(
            table.undo(Color::White, UndoAction::Request, 5),
            Err(TableError::UndoPending)
        );
        assert_eq!(
            table.undo(Color::Black, UndoAction::Accept, 5),
            Err(TableError::UndoNotPending)
        );
        // Withdrawn, asked again, declined, asked again, accepted: back to Black's turn.
        table.undo(Color::Black, UndoAction::Cancel, 5).unwrap();
        assert_eq!(table.undo_request, None);
        table.undo(Color::Black, UndoAction::Request, 6).unwrap();
        table.undo(Color::White, UndoAction::Decline, 6).unwrap();
        assert_eq!((table.undo_request, table.game.history().len()), (None, 2));
        table.undo(Color::Black, UndoAction::Request, 7).unwrap();
        table.undo(Color::White, UndoAction::Accept, 7).unwrap();
        assert_eq!(table.game.history().len(), 0);
        assert_eq!(table.meta.len(), 0);
        assert_eq!(table.to_move(), Some(Color::Black));
        // A move answers a request.
        table.play(Color::Black, square("d3"), 8, 0).unwrap();
        table.undo(Color::Black, UndoAction::Request, 8).unwrap();
        table.play(Color::White, square("c5"), 9, 0).unwrap();
        assert_eq!(table.undo_request, None);
        assert_eq!(
            table.redo(Color::Black, 9),
            Err(TableError::RedoNeedsEngine)
        );
    }

    #[test]
    fn against_an_engine_undo_and_redo_go_by_the_person_s_turns() {
        let engine = Occupant::Computer(PlayerSpec::Engine(1));
        let mut table = table(Occupant::Human, engine);
        table.play(Color::Black, square("d3"), 2, 0).unwrap();
        assert_eq!(
            table.engine_turn().map(|turn| turn.side),
            Some(Color::White)
        );
        table.engine_plays(square("c5"), 3, 40).unwrap();
        assert_eq!(
            table.engine_plays(square("c3"), 3, 0),
            Err(TableError::NotYourTurn)
        );
        table.undo(Color::Black, UndoAction::Request, 4).unwrap();
        assert_eq!(table.game.history().len(), 0);
        assert_eq!(
            table.undo(Color::Black, UndoAction::Decline, 4),
            Err(TableError::UndoNotPending)
        );
        table.redo(Color::Black, 5).unwrap();
        assert_eq!(table.game.history().len(), 2, "to Black's next turn");
        assert_eq!(table.redo(Color::Black, 5), Err(TableError::NothingToRedo));
        assert_eq!(
            table.control(Some(true), false, None, 6),
            Err(TableError::NotEngineGame)
        );
    }

    #[test]
    fn engines_are_paused_stepped_and_paced() {
        let engine = Occupant::Computer(PlayerSpec::Greedy);
        let mut table = table(engine, engine);
        assert!(table.engines_only());
        table.control(Some(true), true, Some(300), 2).unwrap();
        assert_eq!(
            (table.paused, table.step, table.speed_ms),
            (true, true, 300)
        );
        table.engine_plays(square("d3"), 3, 10).unwrap();
        assert!(!table.step, "a step is used up by the move");
        assert!(table.paused);
    }

    #[test]
    fn help_between_people_is_opt_in_and_never_for_spectators_or_the_opponent() {
        let mut table = table(Occupant::Human, Occupant::Human);
        assert!(!table.may_help(Some(Color::Black), Help::Hints));
        table.help = true;
        assert!(table.may_help(Some(Color::Black), Help::Hints));
        assert!(!table.may_help(Some(Color::White), Help::Hints));
        assert!(table.may_help(Some(Color::White), Help::Evaluation));
        assert!(!table.may_help(None, Help::Evaluation));
        table.resign(Color::White, 2).unwrap();
        assert!(table.may_help(None, Help::Hints), "over: everyone's");
        let against = self::table(Occupant::Human, Occupant::Computer(PlayerSpec::Greedy));
        assert!(against.may_help(None, Help::Hints));
    }
}
