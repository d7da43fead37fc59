//! The program's subcommands other than the grader protocol: each takes parsed options and
//! an output, so tests run them in memory; `main.rs` only parses arguments and maps errors
//! to exit statuses.

use std::{
    io,
    path::{Path, PathBuf},
};

use thiserror::Error;

use crate::{Color, Record, RecordFormat, Setup, SetupError, Shape, Stated, Variant, WinRule};

pub mod check;
pub mod generate;
pub mod hint;
pub mod perft;
pub mod progress;
pub mod solve;
pub mod tournament;
pub mod transcript;

/// Why a command failed.
#[derive(Debug, Error)]
pub enum CommandError {
    /// A file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A position file is malformed.
    #[error("{}: {source}", path.display())]
    Position {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: SetupError,
    },
    /// A line of an OBF file is malformed.
    #[error("{}: line {line}: {source}", path.display())]
    Obf {
        /// The file.
        path: PathBuf,
        /// The 1-based line number.
        line: usize,
        /// What is wrong with it.
        source: crate::ParseObfError,
    },
    /// A saved game is malformed.
    #[error("{}: {source}", path.display())]
    Record {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: crate::ParseRecordError,
    },
    /// A saved game cannot be loaded as asked: a flag contradicts it, or a move cannot be
    /// played.
    #[error("{}: {source}", path.display())]
    Load {
        /// The file.
        path: PathBuf,
        /// Why.
        source: LoadError,
    },
    /// An OBF position given on the command line is malformed.
    #[error("--obf: {0}")]
    ObfArgument(#[source] crate::ParseObfError),
    /// Positions were not solved within the time limit.
    #[error("{positions} position(s) not solved within the time limit")]
    NotSolved {
        /// Positions not solved.
        positions: usize,
    },
    /// Some scores of a test suite came out different from the suite's (or were not found
    /// within the time limit).
    #[error("{wrong} of {positions} scores differ from the suite's or were not found in time")]
    WrongScores {
        /// Positions with a different score.
        wrong: usize,
        /// Positions in the suite.
        positions: usize,
    },
    /// A command-line value is unusable.
    #[error("{message}")]
    Usage {
        /// What is wrong.
        message: String,
    },
    /// A file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    WriteFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The program under check could not be run.
    #[error(transparent)]
    Check(#[from] crate::check::CheckError),
    /// Some cases of a check failed.
    #[error("{failed} of {cases} cases failed")]
    CasesFailed {
        /// Cases that failed.
        failed: usize,
        /// Cases run.
        cases: usize,
    },
    /// Writing the output failed.
    #[error("cannot write output: {0}")]
    Write(#[from] io::Error),
}

impl CommandError {
    /// The exit status for this error: 2 for malformed input, 1 otherwise (including a suite
    /// with wrong scores).
    pub fn exit_status(&self) -> u8 {
        match self {
            CommandError::Position { .. }
            | CommandError::Obf { .. }
            | CommandError::Record { .. }
            | CommandError::Load { .. }
            | CommandError::ObfArgument(_) => 2,
            CommandError::Read { .. }
            | CommandError::Usage { .. }
            | CommandError::WrongScores { .. }
            | CommandError::NotSolved { .. }
            | CommandError::WriteFile { .. }
            | CommandError::Check(_)
            | CommandError::CasesFailed { .. }
            | CommandError::Write(_) => 1,
        }
    }

    /// Whether the output was closed by its reader: the program should end quietly.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, CommandError::Write(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

/// `text` with control characters written as escapes (`\t`, `\u{1}`), so that text from
/// a file cannot move the cursor, ring the bell or break a table's columns.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return text.into();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect::<String>()
        .into()
}

/// Reads the header and board at the start of a grader-format file (move lines after the
/// board are ignored).
///
/// # Errors
/// [`CommandError::Read`] or [`CommandError::Position`].
pub fn read_position(path: &Path) -> Result<Setup, CommandError> {
    let text = std::fs::read(path).map_err(|source| CommandError::Read {
        path: path.to_owned(),
        source,
    })?;
    Setup::from_grader_input(&text).map_err(|source| CommandError::Position {
        path: path.to_owned(),
        source,
    })
}

/// The position a command starts from: the header and board of a grader-format file, or
/// the standard start on `size`; then `first` and `win` where given.
///
/// # Errors
/// See [`read_position`].
pub fn starting_setup(
    position: Option<&Path>,
    size: Shape,
    first: Option<Color>,
    win: Option<WinRule>,
) -> Result<Setup, CommandError> {
    let mut setup = match position {
        Some(path) => read_position(path)?,
        None => Setup::standard(size),
    };
    if let Some(first) = first {
        setup.first_mover = first;
    }
    if let Some(win) = win {
        setup.win_rule = win;
    }
    Ok(setup)
}

/// The settings a saved game is loaded under: those asked for explicitly (command-line
/// flags), which a game must agree with where its file states its own, and the defaults
/// for what neither states (a bare transcript has no rules, size, first mover or win rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadSettings {
    /// `--rules`, if given.
    pub variant: Option<Variant>,
    /// `--size`, if given.
    pub shape: Option<Shape>,
    /// `--first`, if given.
    pub first: Option<Color>,
    /// `--win`, if given.
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
    /// The file states one thing and a flag asks for another.
    #[error("the file states {what} {stated}, but {asked} was given")]
    Conflict {
        /// What: `rules`, `size`, `first mover`, `win rule`.
        what: &'static str,
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
}

/// `record` (read from text that stated `stated`) under `settings`: what the file states
/// stays (a flag contradicting it is an error), what it does not state comes from the
/// flags, then the defaults. A grader input keeps the moves the grader would accept.
///
/// # Errors
/// [`LoadError`] for a contradiction, a move off the board or a move that cannot be played.
pub fn fit_record(
    mut record: Record,
    stated: Stated,
    settings: &LoadSettings,
) -> Result<Record, LoadError> {
    /// The flag `--{flag}` asked for `asked`, and the file states `stated`.
    fn agree<T: PartialEq + Copy>(
        what: &'static str,
        flag: &str,
        stated: Option<T>,
        asked: Option<T>,
        show: impl Fn(T) -> String,
    ) -> Result<(), LoadError> {
        match (stated, asked) {
            (Some(stated), Some(asked)) if stated != asked => Err(LoadError::Conflict {
                what,
                stated: show(stated),
                asked: format!("--{flag} {}", show(asked)),
            }),
            _ => Ok(()),
        }
    }
    agree(
        "rules",
        "rules",
        stated.rules.then_some(record.variant),
        settings.variant,
        |v| v.name().to_owned(),
    )?;
    agree(
        "size",
        "size",
        stated.board.then_some(record.setup.board.shape()),
        settings.shape,
        |shape| shape.to_string(),
    )?;
    agree(
        "first mover",
        "first",
        stated.first.then_some(record.setup.first_mover),
        settings.first,
        |color| color.letter().to_string(),
    )?;
    agree(
        "win rule",
        "win",
        stated.win.then_some(record.setup.win_rule),
        settings.win,
        |rule| match rule {
            WinRule::MostDiscs => "most".to_owned(),
            WinRule::FewestDiscs => "fewest".to_owned(),
        },
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
        match record.variant {
            Variant::Full => record.keep_playable::<crate::Full>(),
            Variant::Simple => record.keep_playable::<crate::Simple>(),
        }
    }
    crate::play::check_record(&record)?;
    Ok(record)
}

/// Reads a saved game (any format [`Record`] reads) under `settings` (see [`fit_record`]);
/// its moves can all be played.
///
/// # Errors
/// [`CommandError::Read`], [`CommandError::Record`] or [`CommandError::Load`].
pub fn read_record(path: &Path, settings: &LoadSettings) -> Result<Record, CommandError> {
    let text = std::fs::read_to_string(path).map_err(|source| CommandError::Read {
        path: path.to_owned(),
        source,
    })?;
    let (record, stated) = Record::parse_stated(&text).map_err(|source| CommandError::Record {
        path: path.to_owned(),
        source,
    })?;
    fit_record(record, stated, settings).map_err(|source| CommandError::Load {
        path: path.to_owned(),
        source,
    })
}
