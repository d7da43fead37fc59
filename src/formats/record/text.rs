//! Our own record format: `key: value` lines (see [`Record`]), written by [`Record`]'s
//! `Display` and read back by [`parse_record`].

use std::{borrow::Cow, fmt};

use super::{ParseRecordError, RecordFormat, Stated, excerpt};
use crate::{Board, Color, MoveList, Record, Setup, Shape, Square, Variant, WinRule};

/// The first line [`Record`]'s [`Display`](fmt::Display) writes; any line starting with
/// `# othello` marks a text as a record.
const HEADER: &str = "# othello game record";

/// The keys of the record format, in the order they are written.
const KEYS: [&str; 9] = [
    "rules", "size", "first", "win", "board", "black", "white", "date", "moves",
];

/// Characters of offending input an error message keeps; longer input is cut and marked
/// with `...`.
impl fmt::Display for Record {
    /// The record format; see [`Record`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let board = &self.setup.board;
        let shape = board.shape();
        writeln!(f, "{HEADER}")?;
        writeln!(f, "rules: {}", self.variant)?;
        writeln!(f, "size: {shape}")?;
        writeln!(f, "first: {}", self.setup.first_mover)?;
        writeln!(f, "win: {}", self.setup.win_rule.name())?;
        write!(f, "board: ")?;
        for row in 0..shape.rows() {
            if row > 0 {
                write!(f, "/")?;
            }
            for column in 0..shape.columns() {
                let cell = match board.at(Square::new(row, column)) {
                    Some(color) => color.letter(),
                    None => '.',
                };
                write!(f, "{cell}")?;
            }
        }
        writeln!(f)?;
        for (key, player) in [("black", &self.players[0]), ("white", &self.players[1])] {
            if !player.is_empty() {
                writeln!(f, "{key}: {}", escape(player))?;
            }
        }
        if let Some(date) = &self.date {
            write!(f, "date:")?;
            if !date.is_empty() {
                write!(f, " {}", escape(date))?;
            }
            writeln!(f)?;
        }
        write!(f, "moves:")?;
        for square in &self.moves {
            write!(f, " {square}")?;
        }
        writeln!(f)
    }
}

/// Whether `text` is in the record format: a line starts with `# othello` or with a key
/// followed by `:`.
pub(super) fn looks_like_record(text: &str) -> bool {
    text.lines().map(str::trim).any(|line| {
        line.starts_with("# othello")
            || line
                .split_once(':')
                .is_some_and(|(key, _)| KEYS.contains(&key.trim()))
    })
}

/// Free text as a record value: `\` doubled, control characters and whitespace at either
/// end as `\u{hex}`.
fn escape(text: &str) -> Cow<'_, str> {
    let last = text.chars().count().saturating_sub(1);
    let needs_escape = |(index, c): (usize, char)| {
        c == '\\' || c.is_control() || (c.is_whitespace() && (index == 0 || index == last))
    };
    if !text.chars().enumerate().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    for (index, c) in text.chars().enumerate() {
        if c == '\\' {
            escaped.push_str("\\\\");
        } else if needs_escape((index, c)) {
            escaped.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            escaped.push(c);
        }
    }
    Cow::Owned(escaped)
}

/// Undoes [`escape`]. A backslash not starting `\\` or a valid `\u{hex}` stays as it is.
fn unescape(text: &str) -> Cow<'_, str> {
    if !text.contains('\\') {
        return Cow::Borrowed(text);
    }
    let mut plain = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\\') {
        plain.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('\\') {
            plain.push('\\');
            rest = tail;
        } else if let Some((c, tail)) = unicode_escape(after) {
            plain.push(c);
            rest = tail;
        } else {
            plain.push('\\');
            rest = after;
        }
    }
    plain.push_str(rest);
    Cow::Owned(plain)
}

/// The character of `u{hex}` at the start of `text`, and the text after it.
fn unicode_escape(text: &str) -> Option<(char, &str)> {
    let (hex, tail) = text.strip_prefix("u{")?.split_once('}')?;
    if hex.is_empty() || hex.len() > 6 {
        return None;
    }
    let c = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
    Some((c, tail))
}

/// A value seen in a record, with its line.
type Field<T> = Option<(usize, T)>;

/// Stores `value` from line `line` unless the key was already given.
fn set_once<T>(
    field: &mut Field<T>,
    key: &'static str,
    line: usize,
    value: T,
) -> Result<(), ParseRecordError> {
    if let Some((first_line, _)) = field {
        return Err(ParseRecordError::DuplicateKey {
            line,
            key,
            first_line: *first_line,
        });
    }
    *field = Some((line, value));
    Ok(())
}

/// Reads the record format.
pub(super) fn parse_record(text: &str) -> Result<(Record, Stated), ParseRecordError> {
    let mut variant: Field<Variant> = None;
    let mut size: Field<Shape> = None;
    let mut first: Field<Color> = None;
    let mut win: Field<WinRule> = None;
    let mut cells: Field<Vec<Vec<Option<Color>>>> = None;
    let mut players: [Field<String>; 2] = [None, None];
    let mut date: Field<String> = None;
    // Each move with its line.
    let mut moves: Vec<(usize, Square)> = Vec::new();

    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let (key, value) = trimmed
            .split_once(':')
            .ok_or_else(|| ParseRecordError::Syntax {
                line,
                found: excerpt(trimmed),
            })?;
        let value = value.trim();
        let found = || excerpt(value);
        match key.trim() {
            "rules" => {
                let parsed = value.parse().map_err(|_| ParseRecordError::Rules {
                    line,
                    found: found(),
                })?;
                set_once(&mut variant, "rules", line, parsed)?;
            }
            "size" => {
                let parsed = value.parse().map_err(|_| ParseRecordError::Size {
                    line,
                    found: found(),
                })?;
                set_once(&mut size, "size", line, parsed)?;
            }
            "first" => {
                let parsed = match value.as_bytes() {
                    [letter] => Color::from_letter(*letter),
                    _ => None,
                }
                .ok_or_else(|| ParseRecordError::FirstMover {
                    line,
                    found: found(),
                })?;
                set_once(&mut first, "first", line, parsed)?;
            }
            "win" => {
                let parsed = match WinRule::from_name(value) {
                    Ok(rule) => rule,
                    Err(_) => {
                        return Err(ParseRecordError::WinRule {
                            line,
                            found: found(),
                        });
                    }
                };
                set_once(&mut win, "win", line, parsed)?;
            }
            "board" => set_once(&mut cells, "board", line, parse_cells(value, line)?)?,
            "black" => set_once(&mut players[0], "black", line, unescape(value).into_owned())?,
            "white" => set_once(&mut players[1], "white", line, unescape(value).into_owned())?,
            "date" => set_once(&mut date, "date", line, unescape(value).into_owned())?,
            "moves" => {
                let list = value
                    .parse::<MoveList>()
                    .map_err(|error| ParseRecordError::Move {
                        line,
                        number: moves.len() + error.number,
                        source: error.source,
                    })?;
                moves.extend(list.0.into_iter().map(|square| (line, square)));
            }
            other => {
                return Err(ParseRecordError::UnknownKey {
                    line,
                    key: excerpt(other),
                });
            }
        }
    }

    let board_stated = cells.is_some() || size.is_some();
    let board = match cells {
        Some((line, rows)) => {
            let board = build_board(&rows, line)?;
            if let Some((_, size)) = size
                && board.shape() != size
            {
                return Err(ParseRecordError::BoardMismatch {
                    line,
                    rows: board.shape().rows().into(),
                    columns: board.shape().columns().into(),
                    size,
                });
            }
            board
        }
        None => Board::standard(size.map_or(Shape::STANDARD, |(_, size)| size)),
    };
    let shape = board.shape();
    if let Some((index, &(line, square))) = moves
        .iter()
        .enumerate()
        .find(|(_, (_, square))| !shape.contains(*square))
    {
        return Err(ParseRecordError::MoveOffBoard {
            line,
            number: index + 1,
            square,
            shape,
        });
    }
    let [black, white] = players;
    let text_of = |field: Field<String>| field.map(|(_, text)| text);
    let stated = Stated {
        format: RecordFormat::Record,
        rules: variant.is_some(),
        board: board_stated,
        first: first.is_some(),
        win: win.is_some(),
    };
    let record = Record {
        variant: variant.map_or(Variant::Full, |(_, variant)| variant),
        setup: Setup {
            board,
            first_mover: first.map_or(Color::Black, |(_, color)| color),
            win_rule: win.map_or(WinRule::MostDiscs, |(_, rule)| rule),
        },
        players: [
            text_of(black).unwrap_or_default(),
            text_of(white).unwrap_or_default(),
        ],
        date: text_of(date),
        ratings: [None, None],
        moves: moves.into_iter().map(|(_, square)| square).collect(),
        ending: None,
        clock: None,
        times: Vec::new(),
    };
    Ok((record, stated))
}

/// The cells of a `board` value, row by row; every row has as many cells as the first.
fn parse_cells(value: &str, line: usize) -> Result<Vec<Vec<Option<Color>>>, ParseRecordError> {
    let mut rows: Vec<Vec<Option<Color>>> = Vec::new();
    for (row_index, text) in value.split('/').enumerate() {
        let mut row = Vec::new();
        for (column_index, cell) in text.chars().enumerate() {
            row.push(match cell {
                '.' => None,
                'B' => Some(Color::Black),
                'W' => Some(Color::White),
                found => {
                    return Err(ParseRecordError::BoardCell {
                        line,
                        row: row_index + 1,
                        column: column_index + 1,
                        found,
                    });
                }
            });
        }
        if let Some(first) = rows.first()
            && first.len() != row.len()
        {
            return Err(ParseRecordError::BoardRow {
                line,
                row: row_index + 1,
                found: row.len(),
                expected: first.len(),
            });
        }
        rows.push(row);
    }
    Ok(rows)
}

/// The board with `rows` of cells (as [`parse_cells`] returns them: at least one row, all
/// of the same length).
fn build_board(rows: &[Vec<Option<Color>>], line: usize) -> Result<Board, ParseRecordError> {
    let (height, width) = (rows.len(), rows.first().map_or(0, Vec::len));
    let shape = u8::try_from(height)
        .ok()
        .zip(u8::try_from(width).ok())
        .and_then(|(rows, columns)| Shape::new(rows, columns).ok())
        .ok_or(ParseRecordError::BoardSize {
            line,
            rows: height,
            columns: width,
        })?;
    let mut board = Board::empty(shape);
    for (row, cells) in rows.iter().enumerate() {
        for (column, &disc) in cells.iter().enumerate() {
            if let Some(square) = shape.square(row, column) {
                board.set(square, disc);
            }
        }
    }
    Ok(board)
}
