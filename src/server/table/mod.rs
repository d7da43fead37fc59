//! A game at the table: the library's game and what the server adds (seats, times, undo
//! requests, resignations, engine games' controls), and the table's rules as plain
//! synchronous methods: who may move, undo, redo, resign or pause, and what each does.
//!
//! Every change is one [`Action`] through [`Table::apply`], which changes the table and
//! says what follows ([`Applied`]), or returns a [`TableError`] and leaves it as it was; it
//! knows nothing of locks, storage, HTTP or the wall clock (the time is passed in). The hub
//! locks a game, applies an action to a copy, stores the difference, and only then makes
//! the copy the game's: a failed commit leaves the game as it was.

use std::time::Duration;

use othello::{
    AnyGame, ByColor, Clock, Color, Record, Square,
    engine::{PlayerSpec, TimeBudget},
};
use thiserror::Error;

use othello::engine::Occupant;

mod action;
mod rules;
#[cfg(test)]
mod tests;

pub use action::{Action, Applied, Controls, Now, UndoAction};

/// A seat at the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seat {
    /// A person, or an engine.
    pub occupant: Occupant,
    /// The engine's time per move, in milliseconds.
    pub time_ms: u64,
    /// A hash of the person's secret.
    pub secret_hash: Option<String>,
    /// The person's name: their account's, or the one they gave as a guest.
    pub name: Option<String>,
    /// The person's account, which opens the seat as its secret does.
    pub user_id: Option<i64>,
}

impl Seat {
    /// The name the seat plays under, as lists and exports show it: a person's (`guest`
    /// when they gave none), an engine's spec.
    pub fn shown_name(&self) -> String {
        match (&self.name, self.occupant) {
            (Some(name), _) => name.clone(),
            (None, Occupant::Human) => "guest".to_owned(),
            (None, engine) => engine.to_string(),
        }
    }
}

/// What is known of each move besides its square.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveMeta {
    /// When, in milliseconds since the Unix epoch: a move pasted with the game's start is
    /// dated a millisecond before the game was created (it was not played at the table),
    /// one played at the table from the game's creation on.
    pub played_at: i64,
    /// How long its side thought, in milliseconds.
    pub think_ms: u64,
    /// The engine's score after it for Black (discs) and whether it is exact, once known.
    pub eval: Option<(f64, bool)>,
}

/// The engine's help for people.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Help {
    /// The best moves of the position now.
    Hints,
    /// The score after each move.
    Evaluation,
}

/// Whether a game is being played or over (what the store lists games by).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameStatus {
    /// Being played.
    Playing,
    /// Over, however it ended.
    Over,
}

impl GameStatus {
    /// `playing` or `over`.
    pub fn name(self) -> &'static str {
        match self {
            GameStatus::Playing => "playing",
            GameStatus::Over => "over",
        }
    }

    /// Reads [`GameStatus::name`] back.
    pub fn from_name(name: &str) -> Option<GameStatus> {
        [GameStatus::Playing, GameStatus::Over]
            .into_iter()
            .find(|status| status.name() == name)
    }
}

/// A challenge poster's colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    /// This one.
    Is(Color),
    /// Drawn when the challenge is accepted.
    Random,
}

impl ColorChoice {
    /// `B`, `W` or `random`.
    pub fn text(self) -> String {
        match self {
            ColorChoice::Is(color) => color.letter().to_string(),
            ColorChoice::Random => "random".into(),
        }
    }

    /// Reads [`ColorChoice::text`].
    pub fn from_text(text: &str) -> Option<ColorChoice> {
        match text {
            "random" => Some(ColorChoice::Random),
            "B" => Some(ColorChoice::Is(Color::Black)),
            "W" => Some(ColorChoice::Is(Color::White)),
            _ => None,
        }
    }
}

/// How a game ended other than by play reaching the end of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// This seat resigned.
    Resigned(Color),
    /// This seat's time ran out.
    Time(Color),
    /// This seat left an untimed game and the other claimed the win.
    Abandoned(Color),
    /// Called off before the second move: no result, no rating change.
    Aborted,
    /// Called off because this seat's first move did not come within
    /// [`FIRST_MOVE_MS`] of its turn in a timed game: no result, no rating change.
    NoFirstMove(Color),
}

/// How long a side of a timed game has for its first move: its clock starts only after
/// it, and a game whose first move does not come in time is aborted, unrated (as on
/// lichess: neither side loses time to the other's late arrival).
pub const FIRST_MOVE_MS: u64 = 30_000;

/// How long a side has for its first move under `control`: [`FIRST_MOVE_MS`], or a
/// correspondence move's days.
pub fn first_move_ms(control: othello::TimeControl) -> u64 {
    if control.per_move {
        control.base_ms
    } else {
        FIRST_MOVE_MS
    }
}

impl Ended {
    /// The seat that lost, if the game has a result.
    pub fn loser(self) -> Option<Color> {
        match self {
            Ended::Resigned(color) | Ended::Time(color) | Ended::Abandoned(color) => Some(color),
            Ended::Aborted | Ended::NoFirstMove(_) => None,
        }
    }

    /// The seat it names: the loser, or the seat whose first move never came.
    pub fn seat(self) -> Option<Color> {
        match self {
            Ended::NoFirstMove(color) => Some(color),
            _ => self.loser(),
        }
    }

    /// What a seat's action is told after a flag fell: the game was lost on time, or
    /// aborted for a missing first move.
    pub fn fallen_flag(self) -> Option<TableError> {
        match self {
            Ended::Time(color) => Some(TableError::OutOfTime(color)),
            Ended::NoFirstMove(color) => Some(TableError::NoFirstMove(color)),
            _ => None,
        }
    }

    /// Whether the game was called off: no result, no rating change.
    pub fn is_aborted(self) -> bool {
        matches!(self, Ended::Aborted | Ended::NoFirstMove(_))
    }

    /// What the API calls it: `resign`, `time`, `abandon`, `abort`, `no_first_move`.
    pub fn code(self) -> &'static str {
        match self {
            Ended::Resigned(_) => "resign",
            Ended::Time(_) => "time",
            Ended::Abandoned(_) => "abandon",
            Ended::Aborted => "abort",
            Ended::NoFirstMove(_) => "no_first_move",
        }
    }

    /// As stored: `resign:B`, `time:W`, `abandon:B`, `abort` or `no_first_move:W`.
    pub fn to_text(self) -> String {
        match self.seat() {
            Some(color) => format!("{}:{}", self.code(), color.letter()),
            None => self.code().to_owned(),
        }
    }

    /// Reads [`Ended::to_text`]'s text back.
    pub fn from_text(text: &str) -> Option<Ended> {
        let (code, color) = match text.split_once(':') {
            Some((code, letter)) => (code, Some(Color::from_letter(*letter.as_bytes().first()?)?)),
            None => (text, None),
        };
        match (code, color) {
            ("resign", Some(color)) => Some(Ended::Resigned(color)),
            ("time", Some(color)) => Some(Ended::Time(color)),
            ("abandon", Some(color)) => Some(Ended::Abandoned(color)),
            ("abort", None) => Some(Ended::Aborted),
            ("no_first_move", Some(color)) => Some(Ended::NoFirstMove(color)),
            _ => None,
        }
    }
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
    /// The action came after this seat's time ran out: the game is over.
    #[error("the game is over: {}'s time ran out", if *.0 == Color::Black { "Black" } else { "White" })]
    OutOfTime(Color),
    /// The action came after the game was aborted because this seat's first move did not
    /// come in time.
    #[error(
        "the game was aborted: {} did not make a first move in the time given for it",
        if *.0 == Color::Black { "Black" } else { "White" }
    )]
    NoFirstMove(Color),
    /// A game is aborted only before its second move.
    #[error("a game can be aborted only before its second move")]
    TooLateToAbort,
    /// A rated game's moves are not taken back.
    #[error("a rated game's moves cannot be taken back")]
    NoUndoWhenRated,
    /// A rematch is for a game that is over.
    #[error("the game is still being played")]
    NotOver,
    /// The rematch exists already.
    #[error("the rematch has been made already")]
    RematchMade,
    /// The other seat's person has not been away long enough to claim the win.
    #[error(
        "the other player has been away {away_s} s of the {needed_s} s that let you claim the win"
    )]
    NotAbandoned {
        /// How long they have been away, in seconds.
        away_s: u64,
        /// How long they must be.
        needed_s: u64,
    },
    /// A claim is for an untimed game between two people (a timed one is lost on time).
    #[error("only an untimed game between two people can be claimed: a timed one is lost on time")]
    NoClaim,
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
            TableError::OutOfTime(_) => "out_of_time",
            TableError::NoFirstMove(_) => "no_first_move",
            TableError::TooLateToAbort => "too_late_to_abort",
            TableError::NoUndoWhenRated => "no_undo_when_rated",
            TableError::NotOver => "not_over",
            TableError::RematchMade => "rematch_made",
            TableError::NotAbandoned { .. } => "not_abandoned",
            TableError::NoClaim => "no_claim",
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
    /// How the game ended, if not by play.
    pub ended: Option<Ended>,
    /// The clock, in a timed game.
    pub clock: Option<Clock>,
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
    /// Whether the result counts for the players' ratings (no engine help while it runs).
    pub rated: bool,
    /// Over: the seat that offered a rematch, waiting for the other.
    pub rematch_offer: Option<Color>,
    /// Over: the rematch's game, once both want it.
    pub rematch: Option<String>,
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
    /// A table for `game` created `now`, its moves so far pasted with its start.
    pub fn new(game: AnyGame, seats: ByColor<Seat>, now: i64) -> Table {
        Table {
            meta: vec![
                MoveMeta {
                    played_at: now - 1,
                    think_ms: 0,
                    eval: None,
                };
                game.history().len()
            ],
            game,
            seats,
            ended: None,
            clock: None,
            undo_request: None,
            paused: false,
            step: false,
            speed_ms: 0,
            help: false,
            rated: false,
            rematch_offer: None,
            rematch: None,
            control_hash: None,
            created_at: now,
            updated_at: now,
        }
    }

    /// Being played, or over.
    pub fn status(&self) -> GameStatus {
        if self.is_over() {
            GameStatus::Over
        } else {
            GameStatus::Playing
        }
    }

    /// Whether the game is over (no move for either side, or ended another way).
    pub fn is_over(&self) -> bool {
        self.ended.is_some() || self.game.is_over()
    }

    /// The side to move, unless the game is over.
    pub fn to_move(&self) -> Option<Color> {
        if self.ended.is_some() {
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

    /// The result once over: `Some(Some(color))` a win, `Some(None)` a draw; `None` while
    /// playing or for an aborted game (no result).
    pub fn result(&self) -> Option<Option<Color>> {
        match self.ended {
            Some(ended) if ended.is_aborted() => None,
            Some(ended) => Some(ended.loser().map(Color::opponent)),
            None => match self.game.outcome()? {
                othello::Outcome::Win(color) => Some(Some(color)),
                othello::Outcome::Draw => Some(None),
            },
        }
    }

    /// The seat whose person is the account `user_id`, if any.
    pub fn seat_of_user(&self, user_id: i64) -> Option<Color> {
        Color::ALL
            .into_iter()
            .find(|&color| self.seats[color].user_id == Some(user_id))
    }

    /// Whether the viewer in `seat` (`None`: a spectator) may have `help`. A game with an
    /// engine in it, or one that is over, helps everyone. While two people play, help goes
    /// only to seated people, only if the game was created with it, and hints only to the
    /// side to move: never to a spectator, who could be passing them on, and never on the
    /// opponent's turn.
    pub fn may_help(&self, seat: Option<Color>, help: Help) -> bool {
        if self.is_over() {
            return true;
        }
        // A rated game is played without help, against a person or the engine.
        if self.rated {
            return false;
        }
        if !self.people_only() {
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

    /// The game as a record: rule set, start, players (a person by the name they play
    /// under, a member's account or a guest's, else `guest`; an engine by its spec),
    /// moves, and a resignation.
    pub fn record(&self, date: Option<String>) -> Record {
        let mut record = Record::new(self.game.variant(), *self.game.setup());
        record.players = self.seats.as_ref().map(Seat::shown_name).into_array();
        record.date = date;
        record.moves = self.game.moves().collect();
        record.clock = self.clock.map(|clock| clock.control);
        record.times = self
            .meta
            .iter()
            .map(|meta| std::time::Duration::from_millis(meta.think_ms))
            .collect();
        record.ending = match self.ended {
            Some(Ended::Time(color)) => Some(othello::Ending::LostOnTime(color)),
            Some(Ended::Resigned(color) | Ended::Abandoned(color)) => {
                Some(othello::Ending::Resigned(color))
            }
            Some(Ended::Aborted | Ended::NoFirstMove(_)) | None => None,
        };
        record
    }

    /// When the side to move runs out of time, in a timed game being played: its flag,
    /// or before its first move the end of [`first_move_ms`] (the game is then aborted).
    pub fn flag_at(&self) -> Option<i64> {
        let clock = self.clock?;
        let side = self.to_move()?;
        Some(if self.has_moved(side) {
            clock.flag_at(side)
        } else {
            clock.since + i64::try_from(first_move_ms(clock.control)).unwrap_or(i64::MAX / 2)
        })
    }

    /// The side whose clock runs: the side to move, once it has made its first move.
    pub fn running(&self) -> Option<Color> {
        let side = self.to_move()?;
        self.has_moved(side).then_some(side)
    }

    /// Whether `side` has made its first move at this table: a move played here, not one
    /// pasted with the start (a pass counts). An engine always has: it is there from the
    /// start, and its clock runs from its first turn.
    pub fn has_moved(&self, side: Color) -> bool {
        matches!(self.seats[side].occupant, Occupant::Computer(_))
            || self
                .game
                .history()
                .iter()
                .zip(&self.meta)
                .any(|(ply, meta)| ply.side() == side && meta.played_at >= self.created_at)
    }

    /// Moves played at this table (not pasted with the start).
    pub fn moves_here(&self) -> usize {
        self.meta
            .iter()
            .filter(|meta| meta.played_at >= self.created_at)
            .count()
    }

    /// The time the engine to move may take at `now`: its time per move, or less in a
    /// timed game, as the engine's [`TimeBudget`] shares its clock (before its first
    /// move, the time left to make it).
    pub fn engine_budget(&self, turn: &EngineTurn, now: i64) -> u64 {
        let budget = TimeBudget {
            per_move: Duration::from_millis(turn.time_ms),
            left: self
                .flag_at()
                .map(|due| Duration::from_millis(u64::try_from(due - now).unwrap_or(0))),
            increment: self
                .clock
                .map_or(Duration::ZERO, |clock| clock.control.increment()),
            move_limit: None,
        };
        let empties = self.game.board().empty_squares().count();
        budget.move_time(empties).as_millis() as u64
    }
}
