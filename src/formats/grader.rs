//! The grader's text for a [`Setup`]: the header (rows, columns, first mover, win rule) and
//! the board, as [`Display`](fmt::Display) and [`FromStr`], with errors that name the line.
//!
//! ```
//! use othello::{Color, Setup, Shape, WinRule};
//!
//! let setup: Setup = "4\n6\nW\n<\n\
//!     . . . . . .\n. . W B . .\n. . B W . .\n. . . . . .\n".parse()?;
//! assert_eq!(setup.board.shape(), Shape::new(4, 6)?);
//! assert_eq!(setup.first_mover, Color::White);
//! assert_eq!(setup.win_rule, WinRule::FewestDiscs);
//! assert_eq!(setup.to_string().parse::<Setup>()?, setup);
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use std::{fmt, str::FromStr};

use thiserror::Error;

use super::lines::{Line, LineReader, MAX_LINE_LEN, ReadError, parse_integer, tokens};
use crate::{Board, Color, Setup, Shape, WinRule};

impl Setup {
    /// Reads the header and board at the start of a grader input, ignoring whatever follows
    /// the board (the move lines).
    ///
    /// # Errors
    /// [`SetupError`] if the header or board is malformed or incomplete.
    pub fn from_grader_input(text: &[u8]) -> Result<Setup, SetupError> {
        read_setup(&mut LineReader::new(text), &mut SetupParser::new())
    }
}

impl fmt::Display for Setup {
    /// The grader's input text for this position (header and board, no moves).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape = self.board.shape();
        writeln!(f, "{}", shape.rows())?;
        writeln!(f, "{}", shape.columns())?;
        writeln!(f, "{}", self.first_mover)?;
        writeln!(f, "{}", self.win_rule)?;
        write!(f, "{}", self.board)
    }
}

impl FromStr for Setup {
    type Err = SetupError;

    /// Parses the grader's header and board. Blank lines may follow the board; anything else
    /// there is an error. Board sizes must be even, as the grader requires.
    fn from_str(text: &str) -> Result<Setup, SetupError> {
        let mut lines = LineReader::new(text.as_bytes());
        let mut parser = SetupParser::new();
        let setup = read_setup(&mut lines, &mut parser)?;
        let mut line = parser.line;
        while let Some(rest) = next_line(&mut lines) {
            line += 1;
            let kind = match rest {
                Line::Text(text) if text.trim_ascii().is_empty() => continue,
                Line::Text(text) => SetupErrorKind::TrailingText(Excerpt::new(text)),
                Line::TooLong => SetupErrorKind::LineTooLong,
            };
            return Err(SetupError { line, kind });
        }
        Ok(setup)
    }
}

/// Feeds `parser` lines of in-memory text until the setup is complete.
fn read_setup(
    lines: &mut LineReader<&[u8]>,
    parser: &mut SetupParser,
) -> Result<Setup, SetupError> {
    loop {
        match next_line(lines) {
            None => return Err(parser.end_of_input()),
            Some(line) => {
                if let Some(setup) = parser.feed(line)? {
                    return Ok(setup);
                }
            }
        }
    }
}

/// The next line of in-memory text (reading from memory cannot fail).
fn next_line<'a>(lines: &'a mut LineReader<&[u8]>) -> Option<Line<'a>> {
    lines.next_line(|| Ok::<_, ReadError>(())).ok().flatten()
}

/// The header or board text is malformed: which line, and what was wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("line {line}: {kind}")]
pub struct SetupError {
    /// The 1-based line number.
    pub line: usize,
    /// What was expected and what was found.
    pub kind: SetupErrorKind,
}

/// What was wrong with a header or board line.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SetupErrorKind {
    /// The rows line.
    #[error("rows must be an even integer from 4 to 16, found {0}")]
    Rows(Excerpt),
    /// The columns line.
    #[error("columns must be an even integer from 4 to 16, found {0}")]
    Columns(Excerpt),
    /// The first-mover line.
    #[error("first mover must be B or W, found {0}")]
    FirstMover(Excerpt),
    /// The win-rule line.
    #[error("win rule must be > or <, found {0}")]
    WinRule(Excerpt),
    /// A board row with the wrong number of cells.
    #[error("board row {row} must have {expected} cells, found {found}: {text}")]
    RowLength {
        /// The board row, 1-based.
        row: u8,
        /// The number of columns.
        expected: u8,
        /// The number of cells found.
        found: usize,
        /// The line.
        text: Excerpt,
    },
    /// A board cell other than `B`, `W` or `.`.
    #[error("board row {row}, cell {column} must be B, W or ., found {found}")]
    Cell {
        /// The board row, 1-based.
        row: u8,
        /// The cell's column, 1-based.
        column: u8,
        /// The cell.
        found: Excerpt,
    },
    /// A line longer than [`MAX_LINE_LEN`] bytes.
    #[error("line is longer than {MAX_LINE_LEN} bytes")]
    LineTooLong,
    /// The input ended early.
    #[error("expected {0}, found end of input")]
    EndOfInput(Expected),
    /// Text after the board where none belongs (only when parsing a whole text).
    #[error("expected nothing after the board, found {0}")]
    TrailingText(Excerpt),
}

/// The part of the setup text that was still missing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// The rows line.
    Rows,
    /// The columns line.
    Columns,
    /// The first-mover line.
    FirstMover,
    /// The win-rule line.
    WinRule,
    /// A board row.
    BoardRow,
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Expected::Rows => "the number of rows",
            Expected::Columns => "the number of columns",
            Expected::FirstMover => "the first mover (B or W)",
            Expected::WinRule => "the win rule (> or <)",
            Expected::BoardRow => "a board row",
        })
    }
}

/// Offending input, quoted and escaped for an error message, shortened if long.
#[derive(Clone, PartialEq, Eq)]
pub struct Excerpt(String);

impl Excerpt {
    /// Characters kept from a long text.
    const MAX_CHARS: usize = 40;

    fn new(text: &[u8]) -> Excerpt {
        let text = String::from_utf8_lossy(text);
        let mut chars = text.chars();
        let kept: String = chars.by_ref().take(Self::MAX_CHARS).collect();
        let ellipsis = if chars.next().is_some() { "..." } else { "" };
        Excerpt(format!("{kept:?}{ellipsis}"))
    }

    /// The quoted text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Excerpt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Excerpt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads a [`Setup`] one line at a time, so a caller can stop reading input as soon as the
/// board is complete (the grader must answer before more input arrives).
#[derive(Debug)]
pub(crate) struct SetupParser {
    /// Lines fed so far.
    line: usize,
    stage: Stage,
}

#[derive(Debug)]
enum Stage {
    Rows,
    Columns {
        rows: u8,
    },
    FirstMover {
        shape: Shape,
    },
    WinRule {
        shape: Shape,
        first_mover: Color,
    },
    Board {
        setup: Setup,
        row: u8,
    },
    /// The setup was returned; any further line is out of place.
    Done,
}

impl SetupParser {
    pub(crate) fn new() -> SetupParser {
        SetupParser {
            line: 0,
            stage: Stage::Rows,
        }
    }

    /// Takes the next line; returns the setup once its last board row has been read, and an
    /// error for any line after that.
    pub(crate) fn feed(&mut self, line: Line<'_>) -> Result<Option<Setup>, SetupError> {
        self.line += 1;
        let error = |kind| SetupError {
            line: self.line,
            kind,
        };
        let Line::Text(text) = line else {
            return Err(error(SetupErrorKind::LineTooLong));
        };
        let word = text.trim_ascii();
        match self.stage {
            Stage::Rows => {
                let rows = side_length(word)
                    .ok_or_else(|| error(SetupErrorKind::Rows(Excerpt::new(word))))?;
                self.stage = Stage::Columns { rows };
            }
            Stage::Columns { rows } => {
                let columns = side_length(word)
                    .ok_or_else(|| error(SetupErrorKind::Columns(Excerpt::new(word))))?;
                let shape = Shape::new(rows, columns)
                    .map_err(|_| error(SetupErrorKind::Columns(Excerpt::new(word))))?;
                self.stage = Stage::FirstMover { shape };
            }
            Stage::FirstMover { shape } => {
                let first_mover = match word {
                    [letter] => Color::from_letter(*letter),
                    _ => None,
                }
                .ok_or_else(|| error(SetupErrorKind::FirstMover(Excerpt::new(word))))?;
                self.stage = Stage::WinRule { shape, first_mover };
            }
            Stage::WinRule { shape, first_mover } => {
                let win_rule = match word {
                    [symbol] => WinRule::from_symbol(*symbol),
                    _ => None,
                }
                .ok_or_else(|| error(SetupErrorKind::WinRule(Excerpt::new(word))))?;
                self.stage = Stage::Board {
                    setup: Setup {
                        board: Board::empty(shape),
                        first_mover,
                        win_rule,
                    },
                    row: 0,
                };
            }
            Stage::Board {
                ref mut setup,
                ref mut row,
            } => {
                let shape = setup.board.shape();
                let found = tokens(text).count();
                if found != shape.columns() as usize {
                    return Err(error(SetupErrorKind::RowLength {
                        row: *row + 1,
                        expected: shape.columns(),
                        found,
                        text: Excerpt::new(word),
                    }));
                }
                for (column, cell) in tokens(text).enumerate() {
                    let disc = match cell {
                        [b'.'] => Some(None),
                        [letter] => Color::from_letter(*letter).map(Some),
                        _ => None,
                    }
                    .ok_or_else(|| {
                        error(SetupErrorKind::Cell {
                            row: *row + 1,
                            column: column as u8 + 1,
                            found: Excerpt::new(cell),
                        })
                    })?;
                    if let Some(square) = shape.square(*row as usize, column) {
                        setup.board.set(square, disc);
                    }
                }
                *row += 1;
                if *row == shape.rows() {
                    let setup = *setup;
                    self.stage = Stage::Done;
                    return Ok(Some(setup));
                }
            }
            Stage::Done => return Err(error(SetupErrorKind::TrailingText(Excerpt::new(word)))),
        }
        Ok(None)
    }

    /// The error for input that ends before the setup is complete.
    pub(crate) fn end_of_input(&self) -> SetupError {
        let expected = match self.stage {
            Stage::Rows => Expected::Rows,
            Stage::Columns { .. } => Expected::Columns,
            Stage::FirstMover { .. } => Expected::FirstMover,
            Stage::WinRule { .. } => Expected::WinRule,
            Stage::Board { .. } | Stage::Done => Expected::BoardRow,
        };
        SetupError {
            line: self.line + 1,
            kind: SetupErrorKind::EndOfInput(expected),
        }
    }
}

/// A header side length: an integer token that is even and from 4 to 16.
fn side_length(word: &[u8]) -> Option<u8> {
    let value = parse_integer(word)?;
    let valid = (i64::from(Shape::MIN_SIDE)..=i64::from(Shape::MAX_SIDE)).contains(&value)
        && value % 2 == 0;
    valid.then_some(value as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Square;

    const START: &str = "4\n4\nB\n>\n. . . .\n. B W .\n. W B .\n. . . .\n";

    fn error(text: &str) -> String {
        text.parse::<Setup>().unwrap_err().to_string()
    }

    #[test]
    fn parses_the_course_example() {
        let setup: Setup = START.parse().unwrap();
        assert_eq!(setup.board.at(Square::new(1, 1)), Some(Color::Black));
        assert_eq!(setup.board.at(Square::new(1, 2)), Some(Color::White));
        assert_eq!(setup.board.occupied().count(), 4);
        assert_eq!(setup.to_string(), START);
    }

    #[test]
    fn tolerates_whitespace_tabs_and_crlf() {
        let text =
            " 4 \r\n+4\r\n\tB\r\n > \r\n.\t. .  .\r\n. B W .\r\n. W B .\r\n . . . . \r\n\r\n";
        assert_eq!(text.parse::<Setup>(), START.parse::<Setup>());
    }

    #[test]
    fn header_errors_name_the_line_and_what_was_found() {
        assert_eq!(
            error("5\n"),
            "line 1: rows must be an even integer from 4 to 16, found \"5\""
        );
        assert_eq!(
            error("4\n18\n"),
            "line 2: columns must be an even integer from 4 to 16, found \"18\""
        );
        assert_eq!(
            error("4\n4\nb\n"),
            "line 3: first mover must be B or W, found \"b\""
        );
        assert_eq!(
            error("4\n4\nB\n=>\n"),
            "line 4: win rule must be > or <, found \"=>\""
        );
        assert_eq!(
            error("4\n4\nB\n"),
            "line 4: expected the win rule (> or <), found end of input"
        );
        assert_eq!(
            error(""),
            "line 1: expected the number of rows, found end of input"
        );
    }

    #[test]
    fn board_errors() {
        assert_eq!(
            error("4\n4\nB\n>\n. . . .\n. B W\n"),
            "line 6: board row 2 must have 4 cells, found 3: \". B W\""
        );
        assert_eq!(
            error("4\n4\nB\n>\n. . . .\n. B x .\n"),
            "line 6: board row 2, cell 3 must be B, W or ., found \"x\""
        );
        assert_eq!(
            error("4\n4\nB\n>\n. . . .\n. B W .\n"),
            "line 7: expected a board row, found end of input"
        );
        assert_eq!(
            error(&format!("{START}1 2\n")),
            "line 9: expected nothing after the board, found \"1 2\""
        );
    }

    #[test]
    fn the_line_parser_refuses_lines_after_the_board() {
        let mut parser = SetupParser::new();
        let mut lines = START.lines();
        let setup = loop {
            if let Some(setup) = parser
                .feed(Line::Text(lines.next().unwrap().as_bytes()))
                .unwrap()
            {
                break setup;
            }
        };
        assert_eq!(setup, START.parse().unwrap());
        let error = parser.feed(Line::Text(b"1 2")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "line 9: expected nothing after the board, found \"1 2\""
        );
    }

    #[test]
    fn long_and_odd_text_is_quoted_short() {
        let long = format!("4\n{}\n", "9".repeat(100));
        assert_eq!(
            error(&long),
            format!(
                "line 2: columns must be an even integer from 4 to 16, found \"{}\"...",
                "9".repeat(40)
            )
        );
        assert_eq!(
            error("\u{1b}[1m\n"),
            "line 1: rows must be an even integer from 4 to 16, found \"\\u{1b}[1m\""
        );
        let too_long = format!("{}\n", " ".repeat(MAX_LINE_LEN + 1));
        assert_eq!(error(&too_long), "line 1: line is longer than 4096 bytes");
    }
}
