//! Move lines the reference refuses, of every kind the protocol rejects (see the README's
//! input decisions and `protocol/move_line.rs`).

use rand::{RngExt, rngs::StdRng};

use super::{move_text, pick};
use crate::{Game, MAX_LINE_LEN, RuleSet, Simple, Square, Variant};

/// The kinds of move lines the reference answers with `INVALID` (see the README's input
/// decisions and `protocol/move_line.rs`). Non-UTF-8 bytes are not among them: a
/// [`Scenario`](super::Scenario)'s input is a `String`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum InvalidKind {
    /// An occupied square.
    Occupied,
    /// An empty square where the side to move flips nothing (SIMPLE: with no neighbouring
    /// opponent disc).
    NoFlip,
    /// An empty square legal under SIMPLE but not under FULL (FULL only).
    OtherRules,
    /// A legal move written column first, naming a square that is not legal.
    Swapped,
    /// Row 0 (or `-0`).
    RowZero,
    /// Column 0.
    ColumnZero,
    /// A row beyond the board.
    RowBeyond,
    /// A column beyond the board.
    ColumnBeyond,
    /// A negative row or column.
    Negative,
    /// A number too large for any integer type.
    Huge,
    /// An empty line.
    Empty,
    /// Spaces and tabs only.
    Blank,
    /// One number.
    OneNumber,
    /// Three numbers (separated by spaces or tabs).
    ThreeNumbers,
    /// Numbers separated by a comma.
    Comma,
    /// Words or letters.
    Letters,
    /// A legal move in standard notation (`d3`).
    Notation,
    /// A decimal point in a number.
    Decimal,
    /// Junk right after a number.
    TrailingJunk,
    /// A sign without digits, or two signs.
    BadSign,
    /// A separator every reading of the course's spec refuses: a slash, a dash, a colon.
    BadSeparator,
    /// Edge case: a legal move padded to more than [`MAX_LINE_LEN`] bytes.
    Overlong,
    /// Edge case: a legal move separated by whitespace other than spaces and tabs (a form
    /// feed, a vertical tab, a no-break space, an em space), which Python's `split()`
    /// splits on.
    UnusualWhitespace,
    /// Edge case: a legal move in digits other than ASCII (Arabic-Indic, full-width),
    /// which Python's `int()` reads.
    UnicodeDigits,
}

impl InvalidKind {
    pub(super) const ALL: [InvalidKind; 24] = [
        InvalidKind::Occupied,
        InvalidKind::NoFlip,
        InvalidKind::OtherRules,
        InvalidKind::Swapped,
        InvalidKind::RowZero,
        InvalidKind::ColumnZero,
        InvalidKind::RowBeyond,
        InvalidKind::ColumnBeyond,
        InvalidKind::Negative,
        InvalidKind::Huge,
        InvalidKind::Empty,
        InvalidKind::Blank,
        InvalidKind::OneNumber,
        InvalidKind::ThreeNumbers,
        InvalidKind::Comma,
        InvalidKind::Letters,
        InvalidKind::Notation,
        InvalidKind::Decimal,
        InvalidKind::TrailingJunk,
        InvalidKind::BadSign,
        InvalidKind::BadSeparator,
        InvalidKind::Overlong,
        InvalidKind::UnusualWhitespace,
        InvalidKind::UnicodeDigits,
    ];

    /// Whether the reference's `INVALID` for this kind is this program's own choice where
    /// the course's spec is silent: a plain student program (reading moves with Python's
    /// `split()` and `int()`) may accept it. Such lines are written only on request.
    pub(super) const fn is_edge_case(self) -> bool {
        matches!(
            self,
            InvalidKind::Overlong | InvalidKind::UnusualWhitespace | InvalidKind::UnicodeDigits
        )
    }
}

/// A move line that the reference refuses in `game`'s current position (not over), of a
/// kind chosen uniformly among those possible there (long lines four times less often);
/// [edge cases](InvalidKind::is_edge_case) only if `edge_cases`.
pub(super) fn invalid_line<R: RuleSet>(
    game: &Game<R>,
    rng: &mut StdRng,
    edge_cases: bool,
) -> (String, InvalidKind) {
    loop {
        let kind = InvalidKind::ALL[rng.random_range(0..InvalidKind::ALL.len())];
        if kind.is_edge_case() && !edge_cases {
            continue;
        }
        if kind == InvalidKind::Overlong && rng.random_range(0..4) != 0 {
            continue;
        }
        if let Some(line) = invalid_line_of_kind(game, kind, rng) {
            return (line, kind);
        }
    }
}

/// A line of `kind` refused in `game`'s position, or `None` if there is none.
fn invalid_line_of_kind<R: RuleSet>(
    game: &Game<R>,
    kind: InvalidKind,
    rng: &mut StdRng,
) -> Option<String> {
    let board = game.board();
    let shape = board.shape();
    let (rows, columns) = (u64::from(shape.rows()), u64::from(shape.columns()));
    let row = rng.random_range(1..=rows);
    let column = rng.random_range(1..=columns);
    let legal = pick(game.legal_moves(), rng);
    let text = |square: Square| move_text(square.row(), square.column());
    let beyond = |side: u64, rng: &mut StdRng| {
        if rng.random_bool(0.5) {
            side + 1
        } else {
            rng.random_range(side + 1..=99)
        }
    };
    let huge = |rng: &mut StdRng| {
        let digits = rng.random_range(19..=30);
        let mut number = rng.random_range(1..=9u8).to_string();
        for _ in 1..digits {
            number.push(char::from(b'0' + rng.random_range(0..10u8)));
        }
        number
    };
    let one_of =
        |options: &[&str], rng: &mut StdRng| options[rng.random_range(0..options.len())].to_owned();
    let line = match kind {
        InvalidKind::Occupied => text(pick(board.occupied(), rng)?),
        InvalidKind::NoFlip => text(pick(board.empty_squares() & !game.legal_moves(), rng)?),
        InvalidKind::OtherRules => {
            if R::VARIANT != Variant::Full {
                return None;
            }
            let side = game.side_to_move()?;
            text(pick(
                Simple::legal_moves(board, side) & !game.legal_moves(),
                rng,
            )?)
        }
        InvalidKind::Swapped => {
            let square = legal?;
            let swapped = shape.square(usize::from(square.column()), usize::from(square.row()));
            if swapped.is_some_and(|swapped| game.is_legal(swapped)) {
                return None;
            }
            move_text(square.column(), square.row())
        }
        InvalidKind::RowZero => match rng.random_range(0..3) {
            0 => format!("-0 {column}"),
            1 => format!("00 {column}"),
            _ => format!("0 {column}"),
        },
        InvalidKind::ColumnZero => format!("{row} 0"),
        InvalidKind::RowBeyond => format!("{} {column}", beyond(rows, rng)),
        InvalidKind::ColumnBeyond => format!("{row} {}", beyond(columns, rng)),
        InvalidKind::Negative => match rng.random_range(0..3) {
            0 => format!("-{row} {column}"),
            1 => format!("{row} -{column}"),
            _ => format!("-{row} -{column}"),
        },
        InvalidKind::Huge => match rng.random_range(0..4) {
            0 => format!("{} {column}", huge(rng)),
            1 => format!("{row} {}", huge(rng)),
            2 => format!("-{} {column}", huge(rng)),
            _ => "99999999999999999999 99999999999999999999".to_owned(),
        },
        InvalidKind::Empty => String::new(),
        InvalidKind::Blank => one_of(&[" ", "  ", "\t", " \t ", "\t\t"], rng),
        InvalidKind::OneNumber => match rng.random_range(0..3) {
            0 => format!("{row}"),
            1 => format!("  {row}\t"),
            _ => format!("{row}{column}"),
        },
        InvalidKind::ThreeNumbers => match rng.random_range(0..3) {
            0 => format!("{row} {column} {}", rng.random_range(1..=rows)),
            1 => format!("{row}\t{column}\t1"),
            _ => format!("1 {row} {column}"),
        },
        InvalidKind::Comma => match rng.random_range(0..3) {
            0 => format!("{row},{column}"),
            1 => format!("{row}, {column}"),
            _ => format!("({row}, {column})"),
        },
        InvalidKind::Letters => one_of(
            &[
                "a b", "x", "B", "W", "pass", "two four", "row 3", "?", "quit",
            ],
            rng,
        ),
        InvalidKind::Notation => {
            let square = legal?.to_string();
            if rng.random_bool(0.5) {
                square
            } else {
                square.to_uppercase()
            }
        }
        InvalidKind::Decimal => match rng.random_range(0..2) {
            0 => format!("{row}.0 {column}"),
            _ => format!("{row} {column}.5"),
        },
        InvalidKind::TrailingJunk => {
            let junk = one_of(&["x", ";", "!", ".", "#"], rng);
            match rng.random_range(0..3) {
                0 => format!("{row} {column}{junk}"),
                1 => format!("{row}{junk} {column}"),
                _ => format!("{row} {column} {junk}"),
            }
        }
        InvalidKind::BadSign => match rng.random_range(0..3) {
            0 => format!("+ {row} {column}"),
            1 => format!("+-{row} {column}"),
            _ => format!("{row} --{column}"),
        },
        InvalidKind::BadSeparator => {
            let separator = one_of(&["/", "-", ":"], rng);
            format!("{row}{separator}{column}")
        }
        InvalidKind::UnusualWhitespace => {
            let square = legal?;
            let separator = one_of(&["\u{b}", "\u{c}", "\u{a0}", "\u{2003}"], rng);
            format!("{}{separator}{}", square.row() + 1, square.column() + 1)
        }
        InvalidKind::UnicodeDigits => {
            let square = legal?;
            // Arabic-Indic or full-width digits.
            let zero = if rng.random_bool(0.5) {
                '\u{660}'
            } else {
                '\u{ff10}'
            };
            let digits = |number: u8| -> String {
                number
                    .to_string()
                    .bytes()
                    .map(|digit| {
                        char::from_u32(zero as u32 + u32::from(digit - b'0')).unwrap_or(zero)
                    })
                    .collect()
            };
            format!(
                "{} {}",
                digits(square.row() + 1),
                digits(square.column() + 1)
            )
        }
        InvalidKind::Overlong => {
            let square = legal?;
            let padding = MAX_LINE_LEN + rng.random_range(0..32);
            format!(
                "{}{}{}",
                square.row() + 1,
                " ".repeat(padding),
                square.column() + 1
            )
        }
    };
    Some(line)
}
