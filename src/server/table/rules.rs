//! The table's rules: one entry, [`Table::apply`], and a private method for each action.

use othello::{Color, Square};

use super::{Action, Applied, Controls, Ended, MoveMeta, Now, Table, TableError, UndoAction};
use othello::engine::Occupant;

impl Table {
    /// Applies `action`, asked by `seat` (a seat's own actions need one; the controls and
    /// the server's actions do not), at `now`, and says what follows. Whatever is asked, a
    /// flag that has fallen comes first: the game is lost on time ([`Applied::flagged`]),
    /// and the action is not done.
    ///
    /// # Errors
    /// [`TableError`] when the rules refuse the action (a seat's action without a seat is
    /// not its turn); the table is then as it was.
    pub fn apply(
        &mut self,
        seat: Option<Color>,
        action: Action,
        now: Now,
    ) -> Result<Applied, TableError> {
        let before = (self.game.history().len(), self.to_move(), self.is_over());
        let mut rematch = false;
        if let Some(side) = self.to_move()
            && self.flag(now.at)
        {
            let flagged = self.ended.filter(|_| action != Action::Flag);
            debug_assert!(self.ended.and_then(Ended::seat) == Some(side));
            return Ok(self.applied(before, flagged, false));
        }
        // After the flag, a seat's action is told the game was lost on time, or aborted
        // for a missing first move (a rematch is what is left to ask for).
        if let Some(fallen) = self.ended.and_then(Ended::fallen_flag)
            && seat.is_some()
            && action != Action::Rematch
        {
            return Err(fallen);
        }
        let seat = || seat.ok_or(TableError::NotYourTurn);
        match action {
            Action::Play(square) => self.play(seat()?, square, now.at, now.thought_ms)?,
            Action::Undo(answer) => self.undo(seat()?, answer, now.at)?,
            Action::Redo => self.redo(seat()?, now.at)?,
            Action::Resign => self.resign(seat()?, now.at)?,
            Action::Abort => {
                seat()?;
                self.abort(now.at)?;
            }
            Action::Claim => {
                let seat = seat()?;
                let away = now.away_ms[seat.opponent()];
                self.claim(seat, away, now.abandon_after_ms, now.at)?;
            }
            Action::Rematch => rematch = self.rematch(seat()?, now.at)?,
            Action::Control(controls) => self.control(controls, now.at)?,
            Action::EngineMove(square) => self.engine_plays(square, now.at, now.thought_ms)?,
            // Not fallen yet: nothing changes.
            Action::Flag => {
                return Ok(Applied {
                    flag_at: self.flag_at(),
                    ..Applied::default()
                });
            }
        }
        Ok(self.applied(before, None, rematch))
    }

    /// What follows a change from `before` (moves, side to move, over).
    fn applied(
        &self,
        before: (usize, Option<Color>, bool),
        flagged: Option<Ended>,
        rematch: bool,
    ) -> Applied {
        let (moves, to_move, over) = before;
        Applied {
            changed: true,
            flagged,
            turn_changed: self.game.history().len() != moves || self.to_move() != to_move,
            ended: !over && self.is_over(),
            reopened: over && !self.is_over(),
            rematch,
            flag_at: self.flag_at(),
        }
    }

    /// Ends the game if the side to move's time has run out at `now`, or its first move
    /// has not come in time; whether it did. Every action is preceded by this: one that
    /// arrives after the flag finds the game lost on time (or aborted).
    fn flag(&mut self, now: i64) -> bool {
        let Some(flag_at) = self.flag_at() else {
            return false;
        };
        if now < flag_at {
            return false;
        }
        let side = self.to_move().expect("a flag is for the side to move");
        if !self.has_moved(side) {
            // Its clock never ran: nothing is charged.
            self.ended = Some(Ended::NoFirstMove(side));
            self.undo_request = None;
            self.updated_at = now;
            return true;
        }
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
        let running = self.running();
        if let Some(clock) = &mut self.clock {
            clock.charge(running, now, false);
        }
    }

    /// `seat` plays `square`, having thought `think_ms`.
    ///
    /// # Errors
    /// [`TableError`]: the game is over, it is not this seat's turn, or the move is illegal.
    fn play(
        &mut self,
        seat: Color,
        square: Square,
        now: i64,
        think_ms: u64,
    ) -> Result<(), TableError> {
        if let Some(fallen) = self.ended.and_then(Ended::fallen_flag) {
            return Err(fallen);
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
    fn engine_plays(&mut self, square: Square, now: i64, think_ms: u64) -> Result<(), TableError> {
        if self.engine_turn().is_none() {
            return Err(TableError::NotYourTurn);
        }
        self.place(square, now, think_ms)?;
        self.step = false;
        self.undo_request = None;
        Ok(())
    }

    fn place(&mut self, square: Square, now: i64, think_ms: u64) -> Result<(), TableError> {
        // A side's first move is not charged: its clock starts after it.
        let mover = self.running();
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
                clock.charge(mover, now, mover.is_some());
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
    fn undo(&mut self, seat: Color, action: UndoAction, now: i64) -> Result<(), TableError> {
        if self.ended.is_some() {
            return Err(TableError::GameOver);
        }
        // Taken back, a lost rated game could be aborted, or its blunders replayed.
        if self.rated {
            return Err(TableError::NoUndoWhenRated);
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
    fn redo(&mut self, seat: Color, now: i64) -> Result<(), TableError> {
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
    fn resign(&mut self, seat: Color, now: i64) -> Result<(), TableError> {
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
    fn rematch(&mut self, seat: Color, now: i64) -> Result<bool, TableError> {
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
    fn claim(
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

    /// A seat calls the game off: only before its second move played at the table (a
    /// player who never came, a challenge accepted by mistake). No result.
    ///
    /// # Errors
    /// [`TableError::GameOver`] if it is over, [`TableError::TooLateToAbort`] from the
    /// second move on.
    fn abort(&mut self, now: i64) -> Result<(), TableError> {
        if self.is_over() {
            return Err(TableError::GameOver);
        }
        if self.moves_here() >= 2 {
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
    fn control(&mut self, controls: Controls, now: i64) -> Result<(), TableError> {
        let Controls {
            paused,
            step,
            speed_ms,
        } = controls;
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
