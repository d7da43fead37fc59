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
    /// The person's name: their account's, or the one they gave as a guest.
    pub name: Option<String>,
    /// The person's account, which opens the seat as its secret does.
    pub user_id: Option<i64>,
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
}

impl Ended {
    /// The seat that lost, if the game has a result.
    pub fn loser(self) -> Option<Color> {
        match self {
            Ended::Resigned(color) | Ended::Time(color) | Ended::Abandoned(color) => Some(color),
            Ended::Aborted => None,
        }
    }

    /// What the API calls it: `resign`, `time`, `abandon`, `abort`.
    pub fn code(self) -> &'static str {
        match self {
            Ended::Resigned(_) => "resign",
            Ended::Time(_) => "time",
            Ended::Abandoned(_) => "abandon",
            Ended::Aborted => "abort",
        }
    }

    /// As stored: `resign:B`, `time:W`, `abandon:B` or `abort`.
    pub fn to_text(self) -> String {
        match self.loser() {
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
            _ => None,
        }
    }
}

/// A time control: each side's time for the game, and what each move it makes adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Each side's time at the start, in milliseconds.
    pub base_ms: u64,
    /// Added to a side's time after each of its moves, in milliseconds.
    pub increment_ms: u64,
}

/// A game's clock, kept by the server (never the browser): each side's time left when
/// its current or next turn began, and when the side to move's turn began. It runs from
/// the game's creation, on the server's wall clock (a restart does not stop it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// The time control.
    pub control: TimeControl,
    /// Each side's time left, in milliseconds, not counting the turn under way.
    pub left_ms: ByColor<u64>,
    /// When the side to move's turn began, in milliseconds since the Unix epoch.
    pub since: i64,
}

impl Clock {
    /// Both sides at the control's base time, the first turn beginning `now`.
    pub fn start(control: TimeControl, now: i64) -> Clock {
        Clock {
            control,
            left_ms: ByColor::new(control.base_ms, control.base_ms),
            since: now,
        }
    }

    /// How long the turn under way has lasted at `now`.
    pub fn elapsed(&self, now: i64) -> u64 {
        u64::try_from(now - self.since).unwrap_or(0)
    }

    /// `color`'s time left at `now`, when `running` is the side whose turn it is.
    pub fn left_at(&self, color: Color, running: Option<Color>, now: i64) -> u64 {
        let left = self.left_ms[color];
        if running == Some(color) {
            left.saturating_sub(self.elapsed(now))
        } else {
            left
        }
    }

    /// Charges the turn under way to `running` (if any side's) and starts the next one
    /// `now`; `increment` adds the control's increment (a move was made).
    fn charge(&mut self, running: Option<Color>, now: i64, increment: bool) {
        if let Some(color) = running {
            let left = self.left_at(color, running, now);
            self.left_ms[color] = if increment {
                left + self.control.increment_ms
            } else {
                left
            };
        }
        self.since = now;
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
    /// A game is aborted only before its second move.
    #[error("a game can be aborted only before its second move")]
    TooLateToAbort,
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
            TableError::TooLateToAbort => "too_late_to_abort",
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
            Some(Ended::Aborted) => None,
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
        record.clock = self.clock.map(|clock| othello::RecordClock {
            base: std::time::Duration::from_millis(clock.control.base_ms),
            increment: std::time::Duration::from_millis(clock.control.increment_ms),
        });
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
            Some(Ended::Aborted) | None => None,
        };
        record
    }

    /// When the side to move runs out of time, in a timed game being played.
    pub fn flag_at(&self) -> Option<i64> {
        let clock = self.clock?;
        let side = self.to_move()?;
        Some(clock.since + i64::try_from(clock.left_ms[side]).unwrap_or(i64::MAX / 2))
    }

    /// Ends the game if the side to move's time has run out at `now`; whether it did.
    /// Every action is preceded by this: one that arrives after the flag finds the game
    /// lost on time.
    pub fn flag(&mut self, now: i64) -> bool {
        let Some(flag_at) = self.flag_at() else {
            return false;
        };
        if now < flag_at {
            return false;
        }
        let side = self.to_move().expect("a flag is for the side to move");
        if let Some(clock) = &mut self.clock {
            clock.left_ms[side] = 0;
            clock.since = now;
        }
        self.ended = Some(Ended::Time(side));
        self.undo_request = None;
        self.updated_at = now;
        true
    }

    /// Stops the clock at `now` (the turn under way charged, no increment): the game ended
    /// or the turn passes back by an undo.
    fn stop_clock(&mut self, now: i64) {
        let running = self.to_move();
        if let Some(clock) = &mut self.clock {
            clock.charge(running, now, false);
        }
    }

    /// The time the engine to move may take at `now`: its time per move, or less in a
    /// timed game, where it shares its time left among the moves it may still have to
    /// make (about half the empty squares), keeping most of each increment.
    pub fn engine_budget(&self, turn: &EngineTurn, now: i64) -> u64 {
        let Some(clock) = self.clock else {
            return turn.time_ms;
        };
        let left = clock.left_at(turn.side, Some(turn.side), now);
        let moves = (self.game.board().empty_squares().count() as u64 / 2).max(4);
        let share = left / moves + clock.control.increment_ms * 3 / 4;
        share.min(left / 2).min(turn.time_ms).max(1)
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
        if let Some(Ended::Time(color)) = self.ended {
            return Err(TableError::OutOfTime(color));
        }
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
        let mover = self.to_move();
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
        // In a timed game the time a move took is the clock's, which the server keeps.
        let think_ms = match &mut self.clock {
            Some(clock) => {
                let elapsed = clock.elapsed(now);
                clock.charge(mover, now, true);
                elapsed
            }
            None => think_ms,
        };
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
        if self.ended.is_some() {
            return Err(TableError::GameOver);
        }
        // The turn under way is charged; the one the undo goes back to starts now.
        self.stop_clock(now);
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
        if self.game.undone().len() == 0 || self.ended.is_some() {
            return Err(TableError::NothingToRedo);
        }
        self.stop_clock(now);
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
        self.stop_clock(now);
        self.ended = Some(Ended::Resigned(seat));
        self.undo_request = None;
        self.updated_at = now;
        Ok(())
    }

    /// `seat` asks for a rematch once the game is over: against an engine, or answering the
    /// other seat's offer, the rematch is on (true: the caller makes its game); otherwise an
    /// offer waits for the other seat.
    ///
    /// # Errors
    /// [`TableError::NotOver`] while playing; [`TableError::RematchMade`] when it exists.
    pub fn rematch(&mut self, seat: Color, now: i64) -> Result<bool, TableError> {
        if !self.is_over() {
            return Err(TableError::NotOver);
        }
        if self.rematch.is_some() {
            return Err(TableError::RematchMade);
        }
        let against_engine = matches!(self.seats[seat.opponent()].occupant, Occupant::Computer(_));
        if against_engine || self.rematch_offer == Some(seat.opponent()) {
            self.rematch_offer = None;
            return Ok(true);
        }
        self.rematch_offer = Some(seat);
        self.updated_at = now;
        Ok(false)
    }

    /// `seat` claims the win because the other person left an untimed game: they have been
    /// away `away_ms` (no live connection), at least `needed_ms`.
    ///
    /// # Errors
    /// [`TableError::NoClaim`] for a timed game or one with an engine,
    /// [`TableError::NotAbandoned`] when the other has not been away long enough,
    /// [`TableError::GameOver`].
    pub fn claim(
        &mut self,
        seat: Color,
        away_ms: Option<u64>,
        needed_ms: u64,
        now: i64,
    ) -> Result<(), TableError> {
        if self.is_over() {
            return Err(TableError::GameOver);
        }
        if self.clock.is_some() || !self.people_only() {
            return Err(TableError::NoClaim);
        }
        let away = away_ms.unwrap_or(0);
        if away < needed_ms {
            return Err(TableError::NotAbandoned {
                away_s: away / 1000,
                needed_s: needed_ms / 1000,
            });
        }
        self.ended = Some(Ended::Abandoned(seat.opponent()));
        self.undo_request = None;
        self.updated_at = now;
        Ok(())
    }

    /// A seat calls the game off: only before its second move (a player who never came,
    /// a challenge accepted by mistake). No result.
    ///
    /// # Errors
    /// [`TableError::GameOver`] if it is over, [`TableError::TooLateToAbort`] from the
    /// second move on.
    pub fn abort(&mut self, now: i64) -> Result<(), TableError> {
        if self.is_over() {
            return Err(TableError::GameOver);
        }
        if self.game.history().len() >= 2 {
            return Err(TableError::TooLateToAbort);
        }
        self.stop_clock(now);
        self.ended = Some(Ended::Aborted);
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
            name: None,
            user_id: None,
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

    #[test]
    fn the_clock_charges_each_turn_adds_increments_and_flags() {
        let mut table = table(Occupant::Human, Occupant::Human);
        let control = TimeControl {
            base_ms: 10_000,
            increment_ms: 1_000,
        };
        table.clock = Some(Clock::start(control, 0));
        assert_eq!(table.flag_at(), Some(10_000), "Black's clock runs first");
        table.play(Color::Black, square("d3"), 3_000, 99).unwrap();
        let clock = table.clock.unwrap();
        assert_eq!(clock.left_ms, ByColor::new(8_000, 10_000));
        assert_eq!(table.meta[0].think_ms, 3_000, "the clock's time");
        assert_eq!(
            clock.left_at(Color::White, Some(Color::White), 5_000),
            8_000
        );
        // Undo asked and accepted on White's time: White is charged, Black's turn
        // starts again when it is accepted.
        table
            .undo(Color::Black, UndoAction::Request, 5_000)
            .unwrap();
        table.undo(Color::White, UndoAction::Accept, 6_000).unwrap();
        let clock = table.clock.unwrap();
        assert_eq!(clock.left_ms, ByColor::new(8_000, 7_000));
        assert_eq!(table.flag_at(), Some(14_000));
        assert!(!table.flag(13_999));
        assert_eq!(table.ended, None);
        assert!(table.flag(14_000));
        assert_eq!(table.ended, Some(Ended::Time(Color::Black)));
        assert_eq!(table.flag_at(), None, "over: no clock runs");
        assert_eq!(
            table.play(Color::Black, square("d3"), 14_001, 0),
            Err(TableError::OutOfTime(Color::Black))
        );
        assert_eq!(
            table.record(None).ending,
            Some(othello::Ending::LostOnTime(Color::Black))
        );
    }

    #[test]
    fn games_abort_only_before_the_second_move_and_endings_read_back() {
        let mut table = table(Occupant::Human, Occupant::Human);
        table.play(Color::Black, square("d3"), 1, 0).unwrap();
        let mut early = table.clone();
        early.abort(2).unwrap();
        assert_eq!(early.ended, Some(Ended::Aborted));
        assert_eq!(early.abort(3), Err(TableError::GameOver));
        table.play(Color::White, square("c5"), 2, 0).unwrap();
        assert_eq!(table.abort(3), Err(TableError::TooLateToAbort));
        for ended in [
            Ended::Resigned(Color::Black),
            Ended::Time(Color::White),
            Ended::Abandoned(Color::Black),
            Ended::Aborted,
        ] {
            assert_eq!(Ended::from_text(&ended.to_text()), Some(ended));
        }
        assert_eq!(Ended::from_text("time"), None);
        assert_eq!(Ended::from_text("abort:B"), None);
    }

    #[test]
    fn an_engine_on_a_clock_shares_its_time_among_its_moves() {
        let engine = Occupant::Computer(PlayerSpec::Engine(5));
        let mut table = table(engine, Occupant::Human);
        let turn = table.engine_turn().unwrap();
        assert_eq!(
            table.engine_budget(&turn, 0),
            100,
            "untimed: its time per move"
        );
        table.seats.black.time_ms = 30_000;
        let turn = table.engine_turn().unwrap();
        table.clock = Some(Clock::start(
            TimeControl {
                base_ms: 60_000,
                increment_ms: 2_000,
            },
            0,
        ));
        // 60 empty squares: about 30 moves of its own; most of the increment on top.
        assert_eq!(table.engine_budget(&turn, 0), 2_000 + 1_500);
        // With a second left it never plans more than half of it.
        assert_eq!(table.engine_budget(&turn, 59_000), 500);
    }
}
