//! One typed entry for every change to a game at the table: an [`Action`], applied by
//! [`Table::apply`](super::Table::apply) at a [`Now`], says what follows in [`Applied`].

use othello::{ByColor, Square};

use super::Ended;

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

/// A game between engines' controls: pause or resume, one step, the pace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Controls {
    /// Pause (`true`) or resume (`false`); `None` leaves it.
    pub paused: Option<bool>,
    /// One move while paused.
    pub step: bool,
    /// The pause between moves, in milliseconds; `None` leaves it.
    pub speed_ms: Option<u64>,
}

/// Everything that changes a game at the table. A seat's actions (the first seven) need
/// the seat; the controls are for whoever holds a game between engines' control secret;
/// the last two are the server's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// The seat plays this square.
    Play(Square),
    /// Undo: ask, answer or withdraw (against an engine: back to the seat's turn at once).
    Undo(UndoAction),
    /// Against an engine: the moves taken back, up to the seat's next turn.
    Redo,
    /// The seat resigns.
    Resign,
    /// The game is called off before its second move.
    Abort,
    /// The win is claimed because the other person left an untimed game.
    Claim,
    /// A rematch is asked for (or accepted) once the game is over.
    Rematch,
    /// A game between engines is paused, stepped or paced.
    Control(Controls),
    /// The engine to move plays this square.
    EngineMove(Square),
    /// The side to move's time is checked: the game is lost on time if it ran out.
    Flag,
}

impl Action {
    /// Whether the server planned it for the game as it was (the engine's move, the flag):
    /// when the game changed under it, it is dropped rather than applied to the new game.
    pub fn is_planned(self) -> bool {
        matches!(self, Action::EngineMove(_) | Action::Flag)
    }
}

/// When an action is applied, with what the table cannot know itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Now {
    /// The time, in milliseconds since the Unix epoch.
    pub at: i64,
    /// How long the side to move has thought (kept for a move in an untimed game; a timed
    /// game's clock says it).
    pub thought_ms: u64,
    /// How long each seat's person has had no page open on the game, if away.
    pub away_ms: ByColor<Option<u64>>,
    /// How long a person must be away before the other may claim the win.
    pub abandon_after_ms: u64,
}

impl Now {
    /// The moment `at`, nobody away, no thinking counted (for the rules' tests).
    #[cfg(test)]
    pub fn at(at: i64) -> Now {
        Now {
            at,
            ..Now::default()
        }
    }
}

/// What an applied action leaves to follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// Whether the table changed (a flag that has not fallen changes nothing: nothing to
    /// store).
    pub changed: bool,
    /// How the game ended before the action could be done: lost on time, or aborted
    /// because a first move did not come in time. The ending is stored, and the action is
    /// refused.
    pub flagged: Option<Ended>,
    /// A move was made or taken back: the next turn begins now.
    pub turn_changed: bool,
    /// The game ended with this action.
    pub ended: bool,
    /// An undo took back the last move of a finished game: it is being played again.
    pub reopened: bool,
    /// Both seats want a rematch (or a seat asked its engine): its game is to be made.
    pub rematch: bool,
    /// When the flag of the side to move falls, in a timed game being played: a timer to
    /// arm.
    pub flag_at: Option<i64>,
}
