//! A timed game's clock, kept by the server.

use othello::{ByColor, Color};

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
    pub(super) fn charge(&mut self, running: Option<Color>, now: i64, increment: bool) {
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
