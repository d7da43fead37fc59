//! Loading a saved game under the settings asked for: what the file states stays, what it
//! does not state comes from the settings.

use thiserror::Error;

use super::{RecordFormat, Stated};
use crate::{Color, Record, Setup, Shape, Variant, WinRule};

/// The settings a saved game is loaded under: those asked for explicitly (command-line
/// flags, fields of a request), which a game must agree with where its file states its
/// own, and the defaults for what neither states (a bare transcript has no rules, size,
/// first mover or win rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadSettings {
    /// The rule set asked for, if any.
    pub variant: Option<Variant>,
    /// The board size asked for, if any.
    pub shape: Option<Shape>,
    /// The first mover asked for, if any.
    pub first: Option<Color>,
    /// The win rule asked for, if any.
    pub win: Option<WinRule>,
    /// The rule set when neither the file nor a flag says.
    pub default_variant: Variant,
    /// The start (size, first mover, win rule) when neither the file nor a flag says.
    pub default_setup: Setup,
}

impl LoadSettings {
    /// Nothing asked for; defaults from `variant` and `setup` (a session's own, say).
    pub fn defaults(variant: Variant, setup: Setup) -> LoadSettings {
        LoadSettings {
            variant: None,
            shape: None,
            first: None,
            win: None,
            default_variant: variant,
            default_setup: setup,
        }
    }
}

/// Why a saved game cannot be loaded under the settings asked for.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LoadError {
    /// The file states one thing and the settings ask for another.
    #[error("the file states {} {stated}, but {asked} was asked for", what.words())]
    Conflict {
        /// What differs.
        what: Setting,
        /// What the file states.
        stated: String,
        /// What was asked for.
        asked: String,
    },
    /// A move of the game is not on the board it is loaded on.
    #[error("move {number}: {square} is not on the {shape} board")]
    OffBoard {
        /// The 1-based number of the move.
        number: usize,
        /// The move.
        square: crate::Square,
        /// The board's shape.
        shape: Shape,
    },
    /// A move cannot be played.
    #[error(transparent)]
    Replay(#[from] crate::ReplayError),
    /// The text is in none of the formats, or has a bad part.
    #[error(transparent)]
    Parse(#[from] super::ParseRecordError),
}

/// A setting a saved game may state for itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// The rule set.
    Rules,
    /// The board's size.
    Size,
    /// The first mover.
    First,
    /// The win rule.
    Win,
}

impl Setting {
    /// `rules`, `size`, `first mover`, `win rule`.
    pub const fn words(self) -> &'static str {
        match self {
            Setting::Rules => "rules",
            Setting::Size => "size",
            Setting::First => "first mover",
            Setting::Win => "win rule",
        }
    }
}

/// `record` (read from text that stated `stated`) under `settings` (see [`Record::load`]): what the file states
/// stays (a flag contradicting it is an error), what it does not state comes from the
/// flags, then the defaults. A grader input keeps the moves the grader would accept.
///
/// # Errors
/// [`LoadError`] for a contradiction, a move off the board or a move that cannot be played.
pub(super) fn fit(
    mut record: Record,
    stated: Stated,
    settings: &LoadSettings,
) -> Result<Record, LoadError> {
    /// The settings asked for `asked`, and the file states `stated`.
    fn agree<T: PartialEq + Copy>(
        what: Setting,
        stated: Option<T>,
        asked: Option<T>,
        show: impl Fn(T) -> String,
    ) -> Result<(), LoadError> {
        match (stated, asked) {
            (Some(stated), Some(asked)) if stated != asked => Err(LoadError::Conflict {
                what,
                stated: show(stated),
                asked: show(asked),
            }),
            _ => Ok(()),
        }
    }
    agree(
        Setting::Rules,
        stated.rules.then_some(record.variant),
        settings.variant,
        |v| v.name().to_owned(),
    )?;
    agree(
        Setting::Size,
        stated.board.then_some(record.setup.board.shape()),
        settings.shape,
        |shape| shape.to_string(),
    )?;
    agree(
        Setting::First,
        stated.first.then_some(record.setup.first_mover),
        settings.first,
        |color| color.letter().to_string(),
    )?;
    agree(
        Setting::Win,
        stated.win.then_some(record.setup.win_rule),
        settings.win,
        |rule| rule.name().to_owned(),
    )?;
    let defaults = settings.default_setup;
    if !stated.rules {
        record.variant = settings.variant.unwrap_or(settings.default_variant);
    }
    if !stated.board {
        record.setup.board =
            crate::Board::standard(settings.shape.unwrap_or(defaults.board.shape()));
    }
    if !stated.first {
        record.setup.first_mover = settings.first.unwrap_or(defaults.first_mover);
    }
    if !stated.win {
        record.setup.win_rule = settings.win.unwrap_or(defaults.win_rule);
    }
    let shape = record.setup.board.shape();
    if let Some((index, &square)) = record
        .moves
        .iter()
        .enumerate()
        .find(|(_, square)| !shape.contains(**square))
    {
        return Err(LoadError::OffBoard {
            number: index + 1,
            square,
            shape,
        });
    }
    if stated.format == RecordFormat::Grader {
        record.keep_playable();
    }
    record.replay()?;
    Ok(record)
}
