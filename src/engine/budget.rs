//! How long an engine thinks a move: its time per move, within a hard limit per move and a
//! share of its game clock. One model for the console, the server and tournaments (which
//! use its inverse to give an external engine a clock worth its time per move).

use std::time::Duration;

/// The moves a side may still have to make from a position with `empties` empty squares:
/// about half of them, and never planned as fewer than 4.
///
/// ```
/// use othello::engine::moves_left;
///
/// assert_eq!(moves_left(60), 30);
/// assert_eq!(moves_left(3), 4);
/// ```
pub fn moves_left(empties: u32) -> u32 {
    empties.div_ceil(2).max(4)
}

/// What bounds one move's thinking.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeBudget {
    /// The time per move it is given.
    pub per_move: Duration,
    /// A limit no move may pass: planned at half of it at most, as a clock's time left is
    /// (a loaded machine, or a search that finishes its iteration, runs past its plan).
    pub move_limit: Option<Duration>,
    /// Its time left on a game clock, if it plays on one.
    pub left: Option<Duration>,
    /// What each of its moves adds to that clock.
    pub increment: Duration,
}

impl TimeBudget {
    /// The time for a move from a position with `empties` empty squares: the time per
    /// move, within the limit per move and, on a clock, the time left shared among the
    /// moves still to make (most of each increment on top), never more than half of it.
    ///
    /// ```
    /// use std::time::Duration;
    /// use othello::engine::TimeBudget;
    ///
    /// let s = Duration::from_secs;
    /// let budget = TimeBudget {
    ///     per_move: s(30),
    ///     left: Some(s(60)),
    ///     increment: s(2),
    ///     ..TimeBudget::default()
    /// };
    /// // 60 empty squares: about 30 moves of its own, and most of the increment.
    /// assert_eq!(budget.move_time(60), Duration::from_millis(3_500));
    /// // A hard limit of a second a move: half of it planned.
    /// let capped = TimeBudget { move_limit: Some(s(1)), ..budget };
    /// assert_eq!(capped.move_time(60), Duration::from_millis(500));
    /// ```
    pub fn move_time(&self, empties: u32) -> Duration {
        let mut time = self.per_move;
        if let Some(limit) = self.move_limit {
            time = time.min(limit / 2);
        }
        if let Some(left) = self.left {
            let share = left / moves_left(empties) + self.increment * 3 / 4;
            time = time.min(share).min(left / 2);
        }
        time.max(Duration::from_millis(1))
    }

    /// The game clock to give an engine that plans its moves as [`TimeBudget::move_time`]
    /// does, for it to think about `per_move` a move from a position with `empties` empty
    /// squares.
    pub fn clock_for(per_move: Duration, empties: u32) -> Duration {
        per_move.saturating_mul(moves_left(empties))
    }
}
