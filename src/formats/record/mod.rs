//! Saved games: [`Record`] and the text formats it reads and writes.
//!
//! [`Record`]'s [`Display`](std::fmt::Display) is our own line-based format (`key: value` lines).
//! [`FromStr`] reads it, a GGF game (`(;GM[Othello]...;)`), an OBF position or a bare move
//! list such as `f5d6c3`, telling them apart by their first characters and shape.

use std::str::FromStr;

use thiserror::Error;

use crate::{
    AnyGame, Color, Game, MoveList, Obf, ParseObfError, ParseSquareError, ReplayError, RuleSet,
    Setup, SetupError, Shape, Square, Variant,
};

mod ggf;
mod grader_input;
mod load;
mod text;

pub use ggf::GgfExportError;
use grader_input::{looks_like_grader_input, parse_grader_input};
pub use load::{LoadError, LoadSettings, Setting};
use text::{looks_like_record, parse_record};

const EXCERPT_CHARS: usize = 40;

/// A game as saved: the rule set, where it started, who played, when, and the moves.
///
/// [`Display`](std::fmt::Display) writes it as lines of `key: value`:
///
/// ```text
/// # othello game record
/// rules: full
/// size: 8x8
/// first: B
/// win: most
/// board: ......../......../......../...WB.../...BW.../......../......../........
/// black: human
/// white: engine:5
/// date: 2026-11-22
/// moves: f5 d6 c3 d3 c4
/// ```
///
/// `win` is `most` or `fewest`; `board` lists the rows from the top, separated by `/`, each
/// cell `.`, `B` or `W`. Empty players and a missing date are left out. Player and date text
/// is written as it is, except that a backslash is doubled and control characters (and
/// whitespace at either end) are written `\u{hex}`, so every record reads back unchanged.
///
/// [`FromStr`] reads that format back (keys in any order, `#` comments and blank lines
/// skipped, missing keys taking the defaults: 8x8, the standard start for the size, Black
/// first, most discs wins, full rules), and also:
/// - a GGF game, `(;GM[Othello]PB[..]PW[..]DT[..]BO[8 .. *]B[f5]W[d6]..;)`: 8 × 8 only,
///   full rules (an anti game, `TY[8a]`, is won by the fewest discs); see
///   [`to_ggf`](Record::to_ggf);
/// - an OBF position, `<64 cells of X, O, -> <X|O>`: that position, no moves;
/// - a bare move list, `f5d6c3` (spaces and line breaks allowed): the standard 8 × 8 start;
/// - a grader input (header, board, move lines `row column`): the grader's refusals dropped.
///
/// What a text does not state (a move list has no rules or board, an OBF position no win
/// rule) takes the defaults above; [`Record::parse_stated`] says which, so that a program
/// loading it can fill them in from its own settings instead.
///
/// Moves must lie on the board, but their legality is checked only by
/// [`replay`](Record::replay).
///
/// ```
/// use othello::{Full, MoveList, Record, Setup, Shape, Variant};
///
/// let mut record = Record::new(Variant::Full, Setup::standard(Shape::STANDARD));
/// record.players = ["human".into(), "engine:5".into()];
/// record.date = Some("2026-11-22".into());
/// record.moves = "f5d6c3".parse::<MoveList>()?.0;
///
/// // Save, then load.
/// let text = record.to_string();
/// assert!(text.ends_with("\nmoves: f5 d6 c3\n"));
/// let loaded: Record = text.parse()?;
/// assert_eq!(loaded, record);
/// assert_eq!(loaded.replay_as::<Full>()?.history().len(), 3);
///
/// // A bare move list and a GGF game load too.
/// assert_eq!("f5d6c3".parse::<Record>()?.moves, record.moves);
/// assert_eq!(record.to_ggf()?.parse::<Record>()?, record);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The rule set the game is played under.
    pub variant: Variant,
    /// The initial board (and so its shape), the first mover and the win rule.
    pub setup: Setup,
    /// Black's player, then White's: free text such as `human` or `engine:5`; empty when
    /// unknown.
    pub players: [String; 2],
    /// When the game was played: free text such as `2026-11-22`.
    pub date: Option<String>,
    /// Black's rating, then White's, when the game was played (rounded); written to GGF's
    /// `RB`/`RW` and read back from them, not kept by the other formats.
    pub ratings: [Option<i32>; 2],
    /// The moves in order; passes are implicit.
    pub moves: Vec<Square>,
    /// How the game ended when not by play (a resignation, a loss on time); written to
    /// GGF's `RE`, not kept by the other formats.
    pub ending: Option<Ending>,
    /// The time control of a timed game; written to GGF's `TI` (time, increment, no
    /// extension), not kept by the other formats nor read back.
    pub clock: Option<crate::TimeControl>,
    /// How long each move took, in the order of `moves` (empty when not known); written to
    /// GGF's moves (`B[D3//1.25]`, in seconds), not kept by the other formats nor read back.
    pub times: Vec<std::time::Duration>,
}

/// A game that ended before the board said so.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ending {
    /// This side resigned (or forfeited the game some other way).
    Resigned(Color),
    /// This side ran out of time.
    LostOnTime(Color),
}

impl Ending {
    /// The side that lost.
    pub const fn loser(self) -> Color {
        match self {
            Ending::Resigned(color) | Ending::LostOnTime(color) => color,
        }
    }
}

impl Record {
    /// A game under `variant` from `setup`, with no moves, players or date yet.
    pub fn new(variant: Variant, setup: Setup) -> Record {
        Record {
            variant,
            setup,
            players: [String::new(), String::new()],
            date: None,
            ratings: [None, None],
            moves: Vec::new(),
            ending: None,
            clock: None,
            times: Vec::new(),
        }
    }

    /// The record of `game` so far: its rule set, setup and moves (no players or date).
    pub fn from_game<R: RuleSet>(game: &Game<R>) -> Record {
        Record {
            moves: game.moves().collect(),
            ..Record::new(R::VARIANT, *game.setup())
        }
    }

    /// Replays the moves from the setup under the record's own rule set.
    ///
    /// # Errors
    /// [`ReplayError`] naming the first move that is not legal.
    pub fn replay(&self) -> Result<AnyGame, ReplayError> {
        AnyGame::replay(self.variant, self.setup, self.moves.iter().copied())
    }

    /// Replays the moves from the setup under rule set `R` (which should be the one
    /// [`variant`](Record::variant) names).
    ///
    /// # Errors
    /// [`ReplayError`] naming the first move that is not legal.
    pub fn replay_as<R: RuleSet>(&self) -> Result<Game<R>, ReplayError> {
        Game::replay(self.setup, self.moves.iter().copied())
    }

    /// Reads `text` in any format (see [`Record::parse_stated`]) and fits it to `settings`:
    /// what the text states stays (a setting that contradicts it is an error), what it does
    /// not state comes from the settings; a grader input keeps the moves the grader would
    /// accept; then every move must be playable.
    ///
    /// ```
    /// use othello::{LoadSettings, Record, Setup, Shape, Variant};
    ///
    /// // A bare transcript follows the settings: c3 is legal at the start under SIMPLE only.
    /// let simple = LoadSettings::defaults(Variant::Simple, Setup::standard(Shape::STANDARD));
    /// let record = Record::load("c3", &simple)?;
    /// assert_eq!(record.variant, Variant::Simple);
    /// assert!(Record::load("c3", &LoadSettings::defaults(Variant::Full, simple.default_setup)).is_err());
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`LoadError`]: the text is in no format, contradicts a setting, or has a move off
    /// the board or not playable.
    pub fn load(text: &str, settings: &LoadSettings) -> Result<Record, LoadError> {
        let (record, stated) = Record::parse_stated(text)?;
        load::fit(record, stated, settings)
    }

    /// The grader-protocol input that replays this game: the setup's header and board (see
    /// [`Setup`]'s [`Display`](std::fmt::Display)), then one line per move, row and column from 1
    /// (`d3` is `3 4`).
    ///
    /// ```
    /// use othello::{MoveList, Record, Setup, Shape, Variant};
    ///
    /// let mut record = Record::new(Variant::Full, Setup::standard(Shape::new(4, 4)?));
    /// record.moves = "b1a1".parse::<MoveList>()?.0;
    /// assert_eq!(
    ///     record.to_grader_input()?,
    ///     "4\n4\nB\n>\n. . . .\n. W B .\n. B W .\n. . . .\n1 2\n1 1\n"
    /// );
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`GraderExportError`] if the board has an odd number of rows or columns, which the
    /// grader protocol does not accept.
    pub fn to_grader_input(&self) -> Result<String, GraderExportError> {
        let shape = self.setup.board.shape();
        if !Record::grader_fits(shape) {
            return Err(GraderExportError { shape });
        }
        let mut text = self.setup.to_string();
        for square in &self.moves {
            text.push_str(&format!("{} {}\n", square.row() + 1, square.column() + 1));
        }
        Ok(text)
    }

    /// The game in GGF, as the GGS server and NBoard write it:
    /// `(;GM[Othello]PB[..]PW[..]DT[..]TY[8]BO[8 <64 cells> *]B[F5]W[D6]..RE[+12];)`, with
    /// a `PA` move wherever a side passes (and after the last move if the side due next
    /// must pass). `DT` is left out without a date; `TY` is `8a` when the fewest discs win.
    /// `RE` is there once the game is over: Black's disc lead (`+12`, `-4`, `0`), or for an
    /// [`Ending`] `+64:r` / `-64:r` (resigned) and `+64:t` / `-64:t` (lost on time), the
    /// sign for Black's win or loss.
    ///
    /// # Errors
    /// [`GgfExportError`] unless the board is 8 × 8, the rules are full and every move is
    /// legal (the passes are found by replaying the game).
    pub fn to_ggf(&self) -> Result<String, GgfExportError> {
        ggf::write(self)
    }

    /// The game as text in `format` (ending with a newline): the one way every front end
    /// writes a game, so that they agree on what each format holds.
    ///
    /// ```
    /// use othello::{MoveList, Record, RecordFormat, Setup, Shape, Variant};
    ///
    /// let mut record = Record::new(Variant::Full, Setup::standard(Shape::STANDARD));
    /// record.moves = "f5d6".parse::<MoveList>()?.0;
    /// assert_eq!(record.export(RecordFormat::Transcript)?, "f5d6\n");
    /// assert_eq!(record.exports(), RecordFormat::EXPORTS);
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ExportError`] where the format cannot hold the game: GGF anything but 8 × 8 FULL,
    /// a grader input odd sides, a transcript a game from another start than the standard
    /// one with Black first; OBF is a position, not a game.
    pub fn export(&self, format: RecordFormat) -> Result<String, ExportError> {
        match format {
            RecordFormat::Record => Ok(self.to_string()),
            RecordFormat::Ggf => Ok(self.to_ggf()? + "\n"),
            RecordFormat::Grader => Ok(self.to_grader_input()?),
            RecordFormat::Transcript if self.starts_standard() => Ok(format!(
                "{}\n",
                MoveList::from_iter(self.moves.iter().copied())
            )),
            RecordFormat::Transcript => Err(ExportError::Transcript),
            RecordFormat::Obf => Err(ExportError::Obf),
        }
    }

    /// The formats [`Record::export`] writes this game in, in [`RecordFormat::EXPORTS`]'s
    /// order: for a front end to offer only those.
    pub fn exports(&self) -> Vec<RecordFormat> {
        Record::exports_for(self.variant, &self.setup)
    }

    /// [`Record::exports`] for any game of `variant` from `setup` (its moves do not
    /// matter): for a front end that has the game but not a record of it.
    pub fn exports_for(variant: Variant, setup: &Setup) -> Vec<RecordFormat> {
        let shape = setup.board.shape();
        RecordFormat::EXPORTS
            .into_iter()
            .filter(|format| match format {
                RecordFormat::Transcript => starts_standard(setup),
                RecordFormat::Ggf => Record::ggf_fits(variant, shape),
                RecordFormat::Grader => Record::grader_fits(shape),
                RecordFormat::Record => true,
                RecordFormat::Obf => false,
            })
            .collect()
    }

    /// Whether the game starts from the standard start of its board with Black first: what a
    /// bare transcript is read from.
    fn starts_standard(&self) -> bool {
        starts_standard(&self.setup)
    }

    /// Whether [`Record::to_ggf`] writes games of this rule set and shape (FULL on 8 × 8):
    /// lets a front end offer only the exports that work.
    pub fn ggf_fits(variant: Variant, shape: Shape) -> bool {
        variant == Variant::Full && shape == Shape::STANDARD
    }

    /// Whether [`Record::to_grader_input`] writes boards of this shape (even sides only).
    pub fn grader_fits(shape: Shape) -> bool {
        shape.rows().is_multiple_of(2) && shape.columns().is_multiple_of(2)
    }
}

impl FromStr for Record {
    type Err = ParseRecordError;

    /// Reads any of the formats described at [`Record`]; see [`Record::parse_stated`].
    fn from_str(text: &str) -> Result<Record, ParseRecordError> {
        Record::parse_stated(text).map(|(record, _)| record)
    }
}

/// `Black` or `White`.
fn side_name(color: Color) -> &'static str {
    match color {
        Color::Black => "Black",
        Color::White => "White",
    }
}

/// Whether `setup` is the standard start of its board with Black first.
fn starts_standard(setup: &Setup) -> bool {
    setup.board == crate::Board::standard(setup.board.shape()) && setup.first_mover == Color::Black
}

/// A game that a format cannot hold (see [`Record::export`]).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ExportError {
    /// GGF holds 8 × 8 FULL games whose moves replay.
    #[error(transparent)]
    Ggf(#[from] GgfExportError),
    /// The grader's input needs even sides.
    #[error(transparent)]
    Grader(#[from] GraderExportError),
    /// A bare transcript is read from the standard start with Black first.
    #[error(
        "a transcript holds only games from the standard start with Black first; the game record holds any"
    )]
    Transcript,
    /// OBF is a position.
    #[error("obf holds a position, not a game")]
    Obf,
}

/// The text formats [`Record`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordFormat {
    /// Our `key: value` record.
    Record,
    /// A GGF game.
    Ggf,
    /// An OBF position.
    Obf,
    /// A bare move list such as `f5d6c3`.
    Transcript,
    /// A grader-protocol input: header, board and move lines.
    Grader,
}

impl RecordFormat {
    /// The formats a game is exported in, in the order front ends offer them.
    pub const EXPORTS: [RecordFormat; 4] = [
        RecordFormat::Transcript,
        RecordFormat::Ggf,
        RecordFormat::Record,
        RecordFormat::Grader,
    ];

    /// Its name in the API and on the page: `transcript`, `ggf`, `record`, `grader`, `obf`.
    pub const fn name(self) -> &'static str {
        match self {
            RecordFormat::Record => "record",
            RecordFormat::Ggf => "ggf",
            RecordFormat::Obf => "obf",
            RecordFormat::Transcript => "transcript",
            RecordFormat::Grader => "grader",
        }
    }

    /// The format named `name` (as [`RecordFormat::name`] writes it).
    pub fn from_name(name: &str) -> Option<RecordFormat> {
        [
            RecordFormat::Record,
            RecordFormat::Ggf,
            RecordFormat::Obf,
            RecordFormat::Transcript,
            RecordFormat::Grader,
        ]
        .into_iter()
        .find(|format| format.name() == name)
    }

    /// A file name extension for it: `rec`, `ggf`, `obf`, `txt`, `in`.
    pub const fn extension(self) -> &'static str {
        match self {
            RecordFormat::Record => "rec",
            RecordFormat::Ggf => "ggf",
            RecordFormat::Obf => "obf",
            RecordFormat::Transcript => "txt",
            RecordFormat::Grader => "in",
        }
    }
}

/// What a text read as a [`Record`] stated itself; the rest are defaults, which whoever
/// loads it may set instead (a bare transcript follows the rules and size it is loaded
/// under, for instance).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stated {
    /// The format it was in.
    pub format: RecordFormat,
    /// The rule set (only the record format, with a `rules` line, and GGF state it).
    pub rules: bool,
    /// The board: its size and discs.
    pub board: bool,
    /// The first mover.
    pub first: bool,
    /// The win rule.
    pub win: bool,
}

impl Record {
    /// Reads any of the formats described at [`Record`], and says what the text stated
    /// itself: text starting with `(;` is GGF; text with a line starting `# othello` or a
    /// record key and `:` is the record format; a first line holding only a number is a
    /// grader input; a single line of 64 OBF cells is an OBF position; anything else must
    /// be a move list. A byte order mark at the start is skipped.
    ///
    /// ```
    /// use othello::{Record, RecordFormat};
    ///
    /// let (record, stated) = Record::parse_stated("f5d6c3")?;
    /// assert_eq!(stated.format, RecordFormat::Transcript);
    /// assert!(!stated.rules && !stated.board);
    /// let input = "4\n4\nB\n>\n. . . .\n. B W .\n. W B .\n. . . .\n1 3\n";
    /// let (record, stated) = Record::parse_stated(input)?;
    /// assert_eq!((stated.format, stated.board, stated.rules), (RecordFormat::Grader, true, false));
    /// assert_eq!(record.moves, ["c1".parse()?]);
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ParseRecordError`] for text in none of the formats, or with a bad part.
    pub fn parse_stated(text: &str) -> Result<(Record, Stated), ParseRecordError> {
        // Some editors start a file with a byte order mark.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let trimmed = text.trim();
        let everything = |format| Stated {
            format,
            rules: true,
            board: true,
            first: true,
            win: true,
        };
        if trimmed.starts_with("(;") {
            return Ok((ggf::parse(trimmed)?, everything(RecordFormat::Ggf)));
        }
        if looks_like_record(text) {
            return parse_record(text);
        }
        if looks_like_grader_input(text) {
            let record = parse_grader_input(text)?;
            let stated = Stated {
                rules: false,
                ..everything(RecordFormat::Grader)
            };
            return Ok((record, stated));
        }
        if let Some(position) = obf_line(text) {
            let obf: Obf = position.parse()?;
            let stated = Stated {
                rules: false,
                win: false,
                ..everything(RecordFormat::Obf)
            };
            return Ok((Record::new(Variant::Full, obf.setup), stated));
        }
        let unrecognized = || ParseRecordError::Unrecognized {
            found: excerpt(trimmed),
        };
        if trimmed.is_empty() {
            return Err(unrecognized());
        }
        let moves = trimmed.parse::<MoveList>().map_err(|_| unrecognized())?.0;
        let stated = Stated {
            format: RecordFormat::Transcript,
            rules: false,
            board: false,
            first: false,
            win: false,
        };
        let record = Record {
            moves,
            ..Record::new(Variant::Full, Setup::standard(Shape::STANDARD))
        };
        Ok((record, stated))
    }

    /// Drops the moves the grader would answer `INVALID` (illegal under the record's rules)
    /// and those after the end of the game, as the grader reads a grader input's move lines.
    pub fn keep_playable(&mut self) {
        let mut game = AnyGame::new(self.variant, self.setup);
        self.moves.retain(|&square| game.play(square).is_ok());
    }
}

/// Text that is not a game in any format [`Record`] reads, or a game with a bad part.
///
/// Errors in the record format name the 1-based line; quoted input is cut to 40 characters.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseRecordError {
    /// A record line that is neither a comment nor `key: value`.
    #[error("line {line}: expected \"key: value\", found {found:?}")]
    Syntax {
        /// The 1-based line number.
        line: usize,
        /// The line.
        found: String,
    },
    /// A key the record format does not have.
    #[error(
        "line {line}: unknown key {key:?}: expected rules, size, first, win, board, black, \
         white, date or moves"
    )]
    UnknownKey {
        /// The 1-based line number.
        line: usize,
        /// The key.
        key: String,
    },
    /// A key given twice (only `moves` may be repeated).
    #[error("line {line}: {key} was already given on line {first_line}")]
    DuplicateKey {
        /// The 1-based line number of the second one.
        line: usize,
        /// The key.
        key: &'static str,
        /// The 1-based line number of the first one.
        first_line: usize,
    },
    /// A `rules` value other than `full` or `simple`.
    #[error("line {line}: unknown rules {found:?}: expected full or simple")]
    Rules {
        /// The 1-based line number.
        line: usize,
        /// The value.
        found: String,
    },
    /// A `size` value that is not a board size.
    #[error(
        "line {line}: bad size {found:?}: expected rows x columns from 4x4 to 16x16, such as 8x8"
    )]
    Size {
        /// The 1-based line number.
        line: usize,
        /// The value.
        found: String,
    },
    /// A `first` value other than `B` or `W`.
    #[error("line {line}: bad first mover {found:?}: expected B or W")]
    FirstMover {
        /// The 1-based line number.
        line: usize,
        /// The value.
        found: String,
    },
    /// A `win` value other than `most` or `fewest`.
    #[error("line {line}: bad win rule {found:?}: expected most or fewest")]
    WinRule {
        /// The 1-based line number.
        line: usize,
        /// The value.
        found: String,
    },
    /// A board cell other than `.`, `B` or `W`.
    #[error("line {line}: board row {row}, cell {column} must be ., B or W, found {found:?}")]
    BoardCell {
        /// The 1-based line number.
        line: usize,
        /// The board row, from 1.
        row: usize,
        /// The cell's column, from 1.
        column: usize,
        /// The cell.
        found: char,
    },
    /// A board row with a different number of cells than the first.
    #[error("line {line}: board row {row} has {found} cells, but row 1 has {expected}")]
    BoardRow {
        /// The 1-based line number.
        line: usize,
        /// The board row, from 1.
        row: usize,
        /// Its number of cells.
        found: usize,
        /// The number of cells in the first row.
        expected: usize,
    },
    /// A board with too few or too many rows or columns.
    #[error("line {line}: board is {rows}x{columns}: it needs 4 to 16 rows and 4 to 16 columns")]
    BoardSize {
        /// The 1-based line number.
        line: usize,
        /// The number of rows.
        rows: usize,
        /// The number of columns.
        columns: usize,
    },
    /// A board whose size differs from the `size` line.
    #[error("line {line}: board is {rows}x{columns}, but size is {size}")]
    BoardMismatch {
        /// The 1-based line number of the board.
        line: usize,
        /// The board's rows.
        rows: usize,
        /// The board's columns.
        columns: usize,
        /// The size given.
        size: Shape,
    },
    /// A move that is not a square in standard notation.
    #[error("line {line}: move {number}: {source}")]
    Move {
        /// The 1-based line number.
        line: usize,
        /// The 1-based number of the move in the game.
        number: usize,
        /// What was wrong with it.
        #[source]
        source: ParseSquareError,
    },
    /// A move outside the board.
    #[error("line {line}: move {number}: {square} is not on the {shape} board")]
    MoveOffBoard {
        /// The 1-based line number.
        line: usize,
        /// The 1-based number of the move in the game.
        number: usize,
        /// The move.
        square: Square,
        /// The board's shape.
        shape: Shape,
    },
    /// GGF text that is not a tag such as `PB[name]` or the final `;)`.
    #[error("ggf: expected a tag such as PB[name] or the final ;), found {found:?}")]
    GgfSyntax {
        /// The text from there on.
        found: String,
    },
    /// A GGF tag value without its closing `]`.
    #[error("ggf: {tag}[ is not closed with ]")]
    GgfUnclosedTag {
        /// The tag's name.
        tag: String,
    },
    /// GGF text that ends before `;)`.
    #[error("ggf: the game does not end with ;)")]
    GgfUnterminated,
    /// Text after the GGF game's final `;)`.
    #[error("ggf: expected one game, found more after its end: {found:?}")]
    GgfTrailingText {
        /// The text after the game.
        found: String,
    },
    /// A GGF game of something other than Othello.
    #[error("ggf: expected an othello game, found GM[{found}]")]
    GgfGame {
        /// The `GM` value.
        found: String,
    },
    /// A GGF board size other than 8.
    #[error("ggf: only 8x8 boards are supported, found {tag}[{found}]")]
    GgfSize {
        /// The tag giving the size: `TY` or `BO`.
        tag: &'static str,
        /// Its value.
        found: String,
    },
    /// A malformed GGF board.
    #[error(
        "ggf: expected BO[8 <64 cells of *, O or -> <side to move, * or O>], found BO[{found}]"
    )]
    GgfBoard {
        /// The `BO` value.
        found: String,
    },
    /// A GGF move that is neither a square of the 8 × 8 board nor `PA`.
    #[error("ggf: move {number}: expected a square from a1 to h8 or PA, found {found:?}")]
    GgfMove {
        /// The 1-based number of the move tag (passes count).
        number: usize,
        /// The move tag's value.
        found: String,
    },
    /// A GGF move tag of the side that is not to move (`B[F5]B[F6]` when White has a move).
    #[error("ggf: move {number}: {tag}, but {} is to move", side_name(*.to_move))]
    GgfTurn {
        /// The 1-based number of the move tag (passes count).
        number: usize,
        /// The tag as written: `B[F6]`.
        tag: String,
        /// The side to move.
        to_move: Color,
    },
    /// A GGF pass by a side that has a move, or out of turn.
    #[error("ggf: move {number}: {tag}, but {} has a move to play", side_name(*.to_move))]
    GgfNeedlessPass {
        /// The 1-based number of the move tag.
        number: usize,
        /// The tag as written: `W[PA]`.
        tag: String,
        /// The side to move, which has a move.
        to_move: Color,
    },
    /// A malformed OBF position.
    #[error("obf: {0}")]
    Obf(#[from] ParseObfError),
    /// A grader input with a malformed header or board.
    #[error("grader input: {0}")]
    Grader(#[from] SetupError),
    /// Text in none of the formats.
    #[error(
        "expected a game record (# othello game record), a GGF game, a grader input, an OBF \
         position or a move list such as f5d6c3, found {found:?}"
    )]
    Unrecognized {
        /// The text.
        found: String,
    },
}

/// A game the grader protocol cannot express: its board has an odd number of rows or
/// columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("the grader protocol needs an even number of rows and columns, not {shape}")]
pub struct GraderExportError {
    /// The board's shape.
    pub shape: Shape,
}

/// The position part of `text` if `text` is one line (blank lines aside) that starts with
/// 64 OBF cells.
fn obf_line(text: &str) -> Option<&str> {
    let mut lines = text.lines().map(str::trim).filter(|line| !line.is_empty());
    let line = lines.next()?;
    if lines.next().is_some() {
        return None;
    }
    let position = line.split([';', '%']).next().unwrap_or_default();
    let cells = position.split_whitespace().next()?;
    let is_cell = |c: char| "XxOo*BbWw-.".contains(c);
    (cells.chars().count() == 64 && cells.chars().all(is_cell)).then_some(position)
}

/// `text` cut to [`EXCERPT_CHARS`] characters, with `...` if it was longer.
fn excerpt(text: &str) -> String {
    let mut chars = text.chars();
    let mut kept: String = chars.by_ref().take(EXCERPT_CHARS).collect();
    if chars.next().is_some() {
        kept.push_str("...");
    }
    kept
}

#[cfg(test)]
mod tests;
