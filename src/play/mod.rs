//! `othello play`: a game at the console for people, against each other or the computer.
//!
//! Unlike the grader mode it talks: it draws the board, prompts, explains what it refuses,
//! and takes commands (`hint`, `undo`, `save`, ...). It reads lines from any
//! [`Read`] and writes to any [`Write`], so tests drive it in memory; the end
//! of the input ends the session cleanly.

mod console;
mod input;
mod render;
mod session;

use std::{
    io::{self, Read, Write},
    path::{Path, PathBuf},
    time::Duration,
};

use console::Console;
pub use input::{Input, command_help, help_text, parse_duration};
use othello::engine::Occupant;
use othello::{
    ByColor, LineReader, LoadError, LoadSettings, ReadError, Record, Setting, Setup, Variant,
    on_rules,
};
pub use render::{Style, View, hint_lines, move_text, review_lines};
use session::{Next, Session};
use thiserror::Error;

/// Everything a session starts from.
#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// The rule set (a loaded record may change it).
    pub variant: Variant,
    /// The starting position, first mover and win rule.
    pub setup: Setup,
    /// Who plays Black and who plays White.
    pub seats: ByColor<Occupant>,
    /// A game to continue instead of starting from `setup`.
    pub load: Option<Record>,
    /// Time the computer may take per move (and a hint may take).
    pub time_per_move: Duration,
    /// Seed for the computer players' random choices.
    pub seed: u64,
    /// Pause after each computer move, to watch computer-against-computer games.
    pub delay: Duration,
    /// How to draw.
    pub style: Style,
    /// Write each input line after its prompt (when the input is not a terminal, so that a
    /// scripted session reads like a typed one).
    pub echo: bool,
    /// Show a spinner on stderr while the computer thinks (for a terminal).
    pub thinking: bool,
    /// Stdin and stdout are a terminal: the prompt gets line editing and history, and the
    /// panel beside the board moves below it when the terminal is too narrow.
    pub terminal: bool,
    /// The date written into saved records.
    pub date: Option<String>,
    /// The engine's transposition table size in MiB; `None` sizes it to the time per move.
    pub hash: Option<usize>,
    /// Threads per engine search (and hint).
    pub threads: usize,
    /// The computer never plays from the opening book.
    pub no_book: bool,
    /// Time limits for both sides, if any.
    pub limits: TimeLimits,
}

/// Time limits for both sides, people included: a clock for the game, a limit per move,
/// and what running out does. The computer plans its moves to stay within them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeLimits {
    /// Each side's time for the whole game.
    pub game: Option<Duration>,
    /// The most any one move may take.
    pub per_move: Option<Duration>,
    /// Running out only warns instead of losing the game.
    pub warn_only: bool,
}

/// A time on a clock: `4:59`, `1:02:03`, `0:07.3` under ten seconds.
pub fn clock_text(time: Duration) -> String {
    let tenths = time.as_millis() / 100;
    let seconds = tenths / 10;
    let (hours, minutes, seconds) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    match hours {
        0 if minutes == 0 && seconds < 10 => format!("0:0{seconds}.{}", tenths % 10),
        0 => format!("{minutes}:{seconds:02}"),
        _ => format!("{hours}:{minutes:02}:{seconds:02}"),
    }
}

/// Why a session stopped early.
#[derive(Debug, Error)]
pub enum PlayError {
    /// Reading the input failed.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// Writing the output failed.
    #[error("cannot write output: {0}")]
    Write(#[from] io::Error),
    /// The terminal's line editor failed.
    #[error("cannot read the terminal: {0}")]
    Editor(#[from] rustyline::error::ReadlineError),
}

impl PlayError {
    /// Whether the output was closed by its reader: the program should end quietly.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, PlayError::Write(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

/// Why a saved game could not be loaded.
#[derive(Debug, Error)]
pub enum LoadFileError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// It is not a game this program reads (see [`Record::load`]), or one of its moves
    /// cannot be played.
    #[error("{}: {}", path.display(), with_flags(source))]
    Load {
        /// The file.
        path: PathBuf,
        /// Why.
        source: LoadError,
    },
}

/// `error` as the command line says it: a setting asked for is the flag that asks for it.
pub fn with_flags(error: &LoadError) -> String {
    match error {
        LoadError::Conflict {
            what,
            stated,
            asked,
        } => {
            let flag = match what {
                Setting::Rules => "rules",
                Setting::Size => "size",
                Setting::First => "first",
                Setting::Win => "win",
            };
            format!(
                "the file states {} {stated}, but --{flag} {asked} was given",
                what.words()
            )
        }
        other => other.to_string(),
    }
}

/// Reads a saved game (any format [`Record`] reads) under `settings` (see
/// [`Record::load`]); its moves can all be played. `othello play --load` and the prompt's
/// `load` share it.
///
/// # Errors
/// [`LoadFileError`].
pub fn read_record(path: &Path, settings: &LoadSettings) -> Result<Record, LoadFileError> {
    let text = crate::files::read_text(path, crate::files::GAME_FILE).map_err(|source| {
        LoadFileError::Read {
            path: path.to_owned(),
            source,
        }
    })?;
    Record::load(&text, settings).map_err(|source| LoadFileError::Load {
        path: path.to_owned(),
        source,
    })
}

/// Plays games until the person quits or the input ends.
///
/// # Errors
/// [`PlayError`] when reading or writing fails; nothing a person types is an error.
pub fn run(
    input: impl Read,
    output: &mut impl Write,
    options: PlayOptions,
) -> Result<(), PlayError> {
    let mut console = Console {
        lines: LineReader::new(input),
        editor: if options.terminal {
            rustyline::DefaultEditor::new().ok()
        } else {
            None
        },
        out: output,
        echo: options.echo,
        style: options.style,
        terminal: options.terminal,
    };
    let mut options = options;
    let mut start = match options.load.take() {
        Some(record) => record,
        None => Record::new(options.variant, options.setup),
    };
    console.say(&format!(
        "othello: {}. Type a move (d3, or \"3 4\" for row 3 column 4) or a command; help lists them.",
        describe(start.variant, &start.setup)
    ))?;
    loop {
        let next = on_rules!(start.variant, |R| {
            Session::<R, _, _>::new(&mut console, &mut options, &start).run()?
        });
        match next {
            Next::Quit => return Ok(()),
            Next::Switch(record) => {
                console.say(&format!(
                    "switching to {} rules for the loaded game",
                    record.variant.name().to_uppercase()
                ))?;
                start = *record;
            }
        }
    }
}

/// `8x8 FULL, most discs wins`.
fn describe(variant: Variant, setup: &Setup) -> String {
    let rule = setup.win_rule.description();
    format!(
        "{} {}, {rule}",
        setup.board.shape(),
        variant.name().to_uppercase()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_read_as_people_write_them() {
        let ms = Duration::from_millis;
        assert_eq!(clock_text(ms(299_000)), "4:59");
        assert_eq!(clock_text(ms(3_723_000)), "1:02:03");
        assert_eq!(clock_text(ms(7_380)), "0:07.3");
        assert_eq!(clock_text(ms(10_000)), "0:10");
        assert_eq!(clock_text(Duration::ZERO), "0:00.0");
    }
}
