//! Time controls and the clock that keeps them, on any time line counted in milliseconds
//! (the server's is the Unix epoch, the console's its session's start): the same clock for
//! a game played on the web, at the console, and in a record.

use crate::{ByColor, Color};

/// A time control: each side's time for the game and what each move it makes adds, or
/// (correspondence) a time for each move, given back whole after every move.
///
/// ```
/// use othello::TimeControl;
///
/// let blitz = TimeControl::new(180_000, 2_000);
/// assert_eq!(blitz.to_string(), "3+2");
/// assert_eq!(TimeControl::correspondence(3).to_string(), "3 days a move");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimeControl {
    /// Each side's time at the start, in milliseconds (per move: each move's time).
    pub base_ms: u64,
    /// Added to a side's time after each of its moves, in milliseconds.
    pub increment_ms: u64,
    /// Correspondence: `base_ms` is each move's time, and a move gives the mover's whole
    /// time back instead of adding an increment (nothing is banked).
    pub per_move: bool,
}

/// A day, in milliseconds.
const DAY_MS: u64 = 24 * 60 * 60 * 1000;

impl TimeControl {
    /// `base_ms` a side, `increment_ms` more after each of its moves.
    pub const fn new(base_ms: u64, increment_ms: u64) -> TimeControl {
        TimeControl {
            base_ms,
            increment_ms,
            per_move: false,
        }
    }

    /// Correspondence: `days` for each move.
    pub const fn correspondence(days: u64) -> TimeControl {
        TimeControl {
            base_ms: days * DAY_MS,
            increment_ms: 0,
            per_move: true,
        }
    }

    /// A correspondence control's days a move (`None` for a clock of the game's time).
    pub const fn days_per_move(self) -> Option<u64> {
        if self.per_move {
            Some(self.base_ms.div_ceil(DAY_MS))
        } else {
            None
        }
    }

    /// Each side's time at the start.
    pub const fn base(self) -> std::time::Duration {
        std::time::Duration::from_millis(self.base_ms)
    }

    /// What each move adds.
    pub const fn increment(self) -> std::time::Duration {
        std::time::Duration::from_millis(self.increment_ms)
    }
}

/// As people write it: minutes, then the increment in seconds (`5+0`, `1+2`, `0.5+0`);
/// correspondence as its days (`3 days a move`).
impl std::fmt::Display for TimeControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.days_per_move() {
            Some(1) => return f.write_str("1 day a move"),
            Some(days) => return write!(f, "{days} days a move"),
            None => {}
        }
        let minutes = self.base_ms as f64 / 60_000.0;
        let seconds = self.increment_ms as f64 / 1000.0;
        write!(f, "{minutes}+{seconds}")
    }
}

/// A game's clock: each side's time left when its current or next turn began, and when
/// the turn under way began. It knows nothing of whose turn it is: the caller says which
/// side is `running`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// The time control.
    pub control: TimeControl,
    /// Each side's time left, in milliseconds, not counting the turn under way.
    pub left_ms: ByColor<u64>,
    /// When the turn under way began, in milliseconds on the clock's time line.
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
    ///
    /// ```
    /// use othello::{Clock, Color, TimeControl};
    ///
    /// let mut clock = Clock::start(TimeControl::new(10_000, 1_000), 0);
    /// assert_eq!(clock.left_at(Color::Black, Some(Color::Black), 3_000), 7_000);
    /// clock.charge(Some(Color::Black), 3_000, true);
    /// assert_eq!(clock.left_at(Color::Black, Some(Color::White), 9_000), 8_000);
    /// ```
    pub fn left_at(&self, color: Color, running: Option<Color>, now: i64) -> u64 {
        let left = self.left_ms[color];
        if running == Some(color) {
            left.saturating_sub(self.elapsed(now))
        } else {
            left
        }
    }

    /// When `running`'s time runs out, if the turn under way is its.
    pub fn flag_at(&self, running: Color) -> i64 {
        self.since + i64::try_from(self.left_ms[running]).unwrap_or(i64::MAX / 2)
    }

    /// Charges the turn under way to `running` (if any side's) and starts the next one
    /// `now`; `increment` adds the control's increment (a move was made), or under a
    /// correspondence control gives the mover its whole time back.
    ///
    /// ```
    /// use othello::{Clock, Color, TimeControl};
    ///
    /// let mut clock = Clock::start(TimeControl::correspondence(2), 0);
    /// clock.charge(Some(Color::Black), 36 * 3_600_000, true);
    /// assert_eq!(clock.left_ms.black, 2 * 86_400_000);
    /// ```
    pub fn charge(&mut self, running: Option<Color>, now: i64, increment: bool) {
        if let Some(color) = running {
            let left = self.left_at(color, running, now);
            self.left_ms[color] = if increment && self.control.per_move {
                self.control.base_ms
            } else if increment {
                left + self.control.increment_ms
            } else {
                left
            };
        }
        self.since = now;
    }
}
