//! Parsing a move line, the grader's cost per input line.
//!
//! A move line is exactly two integer tokens (an optional `+` or `-`, then digits), row then
//! column, 1-based, separated by spaces or tabs, with any ASCII whitespace around them.
//!
//! Scripted inputs can hold a hundred thousand refused lines, and on short lines the cost is
//! branch mispredictions more than instructions. So the usual shapes (`3 4`, `12 7`, `1 16`,
//! `10 12`) are matched with slice patterns, their digit tests combined without
//! short-circuits; anything else (signs, tabs, several spaces, leading zeros, junk) is
//! scanned once. Measured in the grader loop on the `grader_pipe` benchmark's lines: 2.15 ms
//! a run, against 2.33 for a table of byte classes built at compile time (fewer branches, but
//! its 35 KB crowd the L1 cache) and about 2.6 for the scan alone.

use crate::{Line, Shape, Square, formats::lines::integer_prefix};

/// The square a move line names, if it names one on the board.
#[inline(always)]
pub(super) fn parse_move(line: Line<'_>, shape: Shape) -> Option<Square> {
    let Line::Text(mut text) = line else {
        return None;
    };
    // Every ASCII whitespace byte is at most a space: test the two ends before trimming.
    if text.first().is_none_or(|&b| b <= b' ') || text.last().is_some_and(|&b| b <= b' ') {
        text = text.trim_ascii();
    }
    let d = |b: u8| u32::from(b.wrapping_sub(b'0'));
    let numbers = match *text {
        [r, b' ', c] => {
            let (r, c) = (d(r), d(c));
            ((r < 10) & (c < 10)).then_some((r, c))
        }
        [r1, r2, b' ', c] => {
            let (r1, r2, c) = (d(r1), d(r2), d(c));
            ((r1 < 10) & (r2 < 10) & (c < 10)).then_some((r1 * 10 + r2, c))
        }
        [r, b' ', c1, c2] => {
            let (r, c1, c2) = (d(r), d(c1), d(c2));
            ((r < 10) & (c1 < 10) & (c2 < 10)).then_some((r, c1 * 10 + c2))
        }
        [r1, r2, b' ', c1, c2] => {
            let (r1, r2, c1, c2) = (d(r1), d(r2), d(c1), d(c2));
            let ok = (r1 < 10) & (r2 < 10) & (c1 < 10) & (c2 < 10);
            ok.then_some((r1 * 10 + r2, c1 * 10 + c2))
        }
        _ => None,
    };
    let (row, column) = match numbers {
        Some((row, column)) => (i64::from(row), i64::from(column)),
        None => scan(text)?,
    };
    let index = |n: i64| usize::try_from(n.checked_sub(1)?).ok();
    shape.square(index(row)?, index(column)?)
}

/// The two integers of a trimmed move line, in one pass.
#[cold]
fn scan(text: &[u8]) -> Option<(i64, i64)> {
    if !matches!(text.first(), Some(b'0'..=b'9' | b'+' | b'-')) {
        return None; // words and other junk, without the loop
    }
    let mut numbers = [0i64; 2];
    let mut count = 0;
    let mut at = 0;
    while at < text.len() {
        if matches!(text[at], b' ' | b'\t') {
            at += 1;
            continue;
        }
        let (value, len) = integer_prefix(&text[at..])?;
        at += len;
        if count == 2 || text.get(at).is_some_and(|b| !matches!(b, b' ' | b'\t')) {
            return None; // a third token, or junk inside this one
        }
        numbers[count] = value;
        count += 1;
    }
    (count == 2).then_some((numbers[0], numbers[1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Option<Square> {
        parse_move(Line::Text(text.as_bytes()), Shape::new(4, 6).unwrap())
    }

    #[test]
    fn move_lines() {
        assert_eq!(parse("2 4"), Some(Square::new(1, 3)));
        assert_eq!(parse("  +2 \t 04 \r"), Some(Square::new(1, 3)));
        assert_eq!(parse("4 6"), Some(Square::new(3, 5)));
        assert_eq!(parse("004  006"), Some(Square::new(3, 5)));
        for bad in [
            "",
            " ",
            "3",
            "3 4 5",
            "3,4",
            "a b",
            "0 1",
            "1 0",
            "5 1",
            "1 7",
            "-1 2",
            "+ 2",
            "2 4x",
            "99999999999999999999 1",
            "-9223372036854775808 1",
            "10 1",
            "1 10",
        ] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
        assert_eq!(parse_move(Line::TooLong, Shape::STANDARD), None);
    }

    /// The fast path against the plain scan, on every line up to six bytes over an alphabet
    /// holding digits, both separators, signs, junk and other whitespace.
    #[test]
    fn the_fast_path_agrees_with_the_scan_on_every_short_line() {
        let alphabet = b"01269 \t+-a\r";
        for shape in [Shape::new(16, 12).unwrap(), Shape::new(4, 10).unwrap()] {
            let mut line = Vec::new();
            for len in 0..=6u32 {
                for mut code in 0..alphabet.len().pow(len) {
                    line.clear();
                    for _ in 0..len {
                        line.push(alphabet[code % alphabet.len()]);
                        code /= alphabet.len();
                    }
                    let scanned = scan(line.trim_ascii()).and_then(|(row, column)| {
                        let index = |n: i64| usize::try_from(n.checked_sub(1)?).ok();
                        shape.square(index(row)?, index(column)?)
                    });
                    assert_eq!(parse_move(Line::Text(&line), shape), scanned, "{line:?}");
                }
            }
        }
    }
}
