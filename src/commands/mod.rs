//! The program's subcommands other than the grader protocol: each takes parsed options and
//! an output, so tests run them in memory; `main.rs` only parses arguments and maps errors
//! to exit statuses.

use std::{
    io,
    path::{Path, PathBuf},
};

use thiserror::Error;

use crate::{Color, Record, Setup, SetupError, Shape, WinRule};

pub mod check;
pub mod generate;
pub mod hint;
pub mod perft;
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
    /// A saved game has a move that cannot be played.
    #[error("{}: {source}", path.display())]
    Replay {
        /// The file.
        path: PathBuf,
        /// The move.
        source: crate::ReplayError,
    },
    /// An OBF position given on the command line is malformed.
    #[error("--obf: {0}")]
    ObfArgument(#[source] crate::ParseObfError),
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
            | CommandError::Replay { .. }
            | CommandError::ObfArgument(_) => 2,
            CommandError::Read { .. }
            | CommandError::Usage { .. }
            | CommandError::WrongScores { .. }
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

/// Reads a saved game (any format [`Record`] reads) whose moves can all be played.
///
/// # Errors
/// [`CommandError::Read`], [`CommandError::Record`] or [`CommandError::Replay`].
pub fn read_record(path: &Path) -> Result<Record, CommandError> {
    let text = std::fs::read_to_string(path).map_err(|source| CommandError::Read {
        path: path.to_owned(),
        source,
    })?;
    let record: Record = text.parse().map_err(|source| CommandError::Record {
        path: path.to_owned(),
        source,
    })?;
    crate::play::check_record(&record).map_err(|source| CommandError::Replay {
        path: path.to_owned(),
        source,
    })?;
    Ok(record)
}
