//! Line input with a bounded buffer, and the small text helpers the grader formats share.

use std::io::{self, Read};

use memchr::memchr;
use thiserror::Error;

/// The longest line the grader formats accept, in bytes, not counting its line ending.
pub const MAX_LINE_LEN: usize = 4096;

/// Size of the input buffer. A line longer than [`MAX_LINE_LEN`] is skipped, never held whole,
/// so this bounds the reader's memory whatever the input.
const BUFFER_LEN: usize = 64 * 1024;

const _: () = assert!(BUFFER_LEN > MAX_LINE_LEN + 2);

/// One line of input, without its line ending (`\n` or `\r\n`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// A line of at most [`MAX_LINE_LEN`] bytes.
    Text(&'a [u8]),
    /// A line longer than [`MAX_LINE_LEN`] bytes; its content was dropped.
    TooLong,
}

/// Reading the input failed.
#[derive(Debug, Error)]
#[error("cannot read input: {0}")]
pub struct ReadError(#[from] pub io::Error);

/// Splits a byte stream into lines, holding at most one buffer of input.
///
/// Before each read from the underlying stream (a read that might block) it calls a hook:
/// the grader flushes its output there, so a program driving it line by line always sees the
/// answer before it is asked for the next line, while a file or a full pipe is still answered
/// in large buffered writes.
#[derive(Debug)]
pub struct LineReader<R> {
    input: R,
    buf: Box<[u8]>,
    /// Start of the unconsumed bytes in `buf`.
    start: usize,
    /// End of the bytes read into `buf`.
    end: usize,
    /// The input has ended.
    eof: bool,
    /// Inside a line already known to be too long: drop bytes up to its newline.
    skipping: bool,
    /// That line was returned already (see [`LineReader::early`]).
    reported: bool,
    /// Return a line as too long as soon as that is known, not at its end.
    early: bool,
}

impl<R: Read> LineReader<R> {
    /// A reader over `input`.
    pub fn new(input: R) -> LineReader<R> {
        LineReader {
            input,
            buf: vec![0; BUFFER_LEN].into_boxed_slice(),
            start: 0,
            end: 0,
            eof: false,
            skipping: false,
            reported: false,
            early: false,
        }
    }

    /// Whether a line too long is returned as soon as that is known (`true`: the grader's
    /// header and board, where it ends the session, so a first line that never ends is
    /// refused rather than read for ever) or where it ends (the default: a move line's
    /// `INVALID` comes where a person reading the session expects it).
    pub fn early(&mut self, early: bool) {
        self.early = early;
    }

    /// The next line, or `None` at the end of the input. A last line without a newline still
    /// counts as a line.
    ///
    /// `before_read` runs before every read from the input.
    ///
    /// # Errors
    /// Whatever `before_read` returns, and [`ReadError`] (converted to `E`) when reading fails.
    #[inline]
    pub fn next_line<E: From<ReadError>>(
        &mut self,
        mut before_read: impl FnMut() -> Result<(), E>,
    ) -> Result<Option<Line<'_>>, E> {
        let (line_start, line_end) = loop {
            if let Some(newline) = find_newline(&self.buf[self.start..self.end]) {
                let found = (self.start, self.start + newline);
                self.start += newline + 1;
                if std::mem::take(&mut self.skipping) {
                    if std::mem::take(&mut self.reported) {
                        // The end of a line returned as too long already.
                        continue;
                    }
                    return Ok(Some(Line::TooLong));
                }
                break found;
            }
            match self.fill(&mut before_read)? {
                Fill::Read => {}
                Fill::LastLine(start, end) => break (start, end),
                Fill::TooLong => return Ok(Some(Line::TooLong)),
                Fill::End => return Ok(None),
            }
        };
        let mut line = &self.buf[line_start..line_end];
        if let [rest @ .., b'\r'] = line {
            line = rest;
        }
        Ok(Some(if line.len() > MAX_LINE_LEN {
            Line::TooLong
        } else {
            Line::Text(line)
        }))
    }

    /// Called when no complete line is buffered: reads more input, or settles the last line.
    #[cold]
    fn fill<E: From<ReadError>>(
        &mut self,
        before_read: &mut impl FnMut() -> Result<(), E>,
    ) -> Result<Fill, E> {
        if self.skipping || self.end - self.start > MAX_LINE_LEN + 1 {
            // Longer than any line we accept, even allowing for a final `\r`: the rest of
            // it is dropped as it comes.
            self.start = self.end;
            if !std::mem::replace(&mut self.skipping, true) && self.early {
                self.reported = true;
                return Ok(Fill::TooLong);
            }
        }
        if self.eof {
            if std::mem::take(&mut self.skipping) && !std::mem::take(&mut self.reported) {
                return Ok(Fill::TooLong);
            }
            if self.start == self.end {
                return Ok(Fill::End);
            }
            let last = Fill::LastLine(self.start, self.end);
            self.start = self.end;
            return Ok(last);
        }
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        before_read()?;
        match self.input.read(&mut self.buf[self.end..]) {
            Ok(0) => self.eof = true,
            Ok(n) => self.end += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(ReadError(e).into()),
        }
        Ok(Fill::Read)
    }
}

/// Turns bytes into printable text as they come: UTF-8 text stays, control characters
/// (but tabs) become `\u{1b}`-style escapes and bytes that are not UTF-8 `\xff`, so that
/// input shown back (a transcript, an echoed prompt line) cannot drive a terminal. A
/// character split between two pushes is held until its end arrives.
///
/// ```
/// assert_eq!(othello::printable(b"f5\x1b[2J\xff"), "f5\\u{1b}[2J\\xff");
/// ```
#[derive(Clone, Debug, Default)]
pub struct Printable {
    held: Vec<u8>,
}

impl Printable {
    /// Appends the printable form of `bytes` to `shown`.
    pub fn push(&mut self, bytes: &[u8], shown: &mut Vec<u8>) {
        self.held.extend_from_slice(bytes);
        let mut rest: &[u8] = &std::mem::take(&mut self.held);
        loop {
            match std::str::from_utf8(rest) {
                Ok(text) => {
                    show_text(text, shown);
                    return;
                }
                Err(error) => {
                    let (valid, after) = rest.split_at(error.valid_up_to());
                    show_text(std::str::from_utf8(valid).expect("checked"), shown);
                    match error.error_len() {
                        Some(bad) => {
                            for byte in &after[..bad] {
                                shown.extend_from_slice(format!("\\x{byte:02x}").as_bytes());
                            }
                            rest = &after[bad..];
                        }
                        None => {
                            // The start of a character whose end has not come yet.
                            self.held = after.to_vec();
                            return;
                        }
                    }
                }
            }
        }
    }

    /// The end of the text: what is held can no longer become a character.
    pub fn finish(&mut self, shown: &mut Vec<u8>) {
        for byte in std::mem::take(&mut self.held) {
            shown.extend_from_slice(format!("\\x{byte:02x}").as_bytes());
        }
    }
}

/// The printable form of `bytes` (see [`Printable`]).
pub fn printable(bytes: &[u8]) -> String {
    let mut shown = Vec::with_capacity(bytes.len());
    let mut printable = Printable::default();
    printable.push(bytes, &mut shown);
    printable.finish(&mut shown);
    String::from_utf8(shown).expect("only UTF-8 is pushed")
}

fn show_text(text: &str, shown: &mut Vec<u8>) {
    for c in text.chars() {
        if c.is_control() && c != '\t' {
            shown.extend_from_slice(c.escape_default().to_string().as_bytes());
        } else {
            let mut utf8 = [0; 4];
            shown.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
        }
    }
}

/// The position of the first newline in `bytes`.
///
/// Move lines are short, so the first eight bytes are tested at once (a zero-byte test on
/// the word XOR newlines, exact for the lowest match); only longer lines pay for a search
/// call. Measured: 10 instructions a short line, against about 45 for `memchr` alone.
#[inline]
fn find_newline(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    if let Some(word) = bytes.first_chunk::<8>() {
        let x = u64::from_le_bytes(*word) ^ u64::from_ne_bytes([b'\n'; 8]);
        let zeros = x.wrapping_sub(ONES) & !x & HIGHS;
        if zeros != 0 {
            return Some(zeros.trailing_zeros() as usize / 8);
        }
    }
    memchr(b'\n', bytes)
}

/// What [`LineReader::fill`] achieved.
enum Fill {
    /// More input is buffered.
    Read,
    /// The input ended after an unterminated line at these bounds.
    LastLine(usize, usize),
    /// The input ended inside a line that was too long.
    TooLong,
    /// The input ended after the last line.
    End,
}

/// The whitespace-separated tokens of a line: leading and trailing ASCII whitespace is
/// ignored, and tokens are separated by runs of spaces and tabs.
pub(crate) fn tokens(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.trim_ascii()
        .split(|&b| b == b' ' || b == b'\t')
        .filter(|token| !token.is_empty())
}

/// An integer token: an optional `+` or `-`, then one or more ASCII digits. Values beyond the
/// range of `i64` saturate, which keeps them out of every range the formats accept.
pub(crate) fn parse_integer(token: &[u8]) -> Option<i64> {
    match integer_prefix(token)? {
        (value, len) if len == token.len() => Some(value),
        _ => None,
    }
}

/// The integer at the start of `bytes` (syntax as in [`parse_integer`]) and its length.
#[inline]
pub(crate) fn integer_prefix(bytes: &[u8]) -> Option<(i64, usize)> {
    let (negative, sign_len) = match bytes.first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    };
    let mut value = 0i64;
    let mut len = sign_len;
    while let Some(digit) = bytes.get(len).filter(|b| b.is_ascii_digit()) {
        value = value
            .saturating_mul(10)
            .saturating_add(i64::from(digit - b'0'));
        len += 1;
    }
    if len == sign_len {
        return None;
    }
    Some((if negative { -value } else { value }, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_lines(input: &[u8]) -> Vec<Line<'static>> {
        let mut reader = LineReader::new(input);
        let mut lines = Vec::new();
        while let Some(line) = reader.next_line(|| Ok::<_, ReadError>(())).unwrap() {
            lines.push(match line {
                Line::Text(text) => Line::Text(text.to_vec().leak()),
                Line::TooLong => Line::TooLong,
            });
        }
        lines
    }

    #[test]
    fn splits_on_newlines_and_strips_one_carriage_return() {
        assert_eq!(
            all_lines(b"a\r\n\nb c\r\r\nlast"),
            [
                Line::Text(b"a"),
                Line::Text(b""),
                Line::Text(b"b c\r"),
                Line::Text(b"last")
            ]
        );
        assert_eq!(all_lines(b""), []);
        assert_eq!(all_lines(b"\n"), [Line::Text(b"")]);
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_accepted() {
        let mut input = vec![b'x'; MAX_LINE_LEN];
        input.extend_from_slice(b"\r\n");
        input.extend(vec![b'y'; MAX_LINE_LEN + 1]);
        input.extend_from_slice(b"\n1 2\n");
        let lines = all_lines(&input);
        assert!(matches!(lines[0], Line::Text(t) if t.len() == MAX_LINE_LEN));
        assert_eq!(lines[1..], [Line::TooLong, Line::Text(b"1 2")]);
    }

    /// Yields `len` bytes of `x`, then a newline and `1 2`, in reads of at most 1000 bytes.
    struct Endless {
        left: usize,
        tail: &'static [u8],
    }

    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.left > 0 {
                let n = buf.len().min(1000).min(self.left);
                buf[..n].fill(b'x');
                self.left -= n;
                return Ok(n);
            }
            let n = buf.len().min(self.tail.len());
            buf[..n].copy_from_slice(&self.tail[..n]);
            self.tail = &self.tail[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_huge_line_counts_as_one_line_and_is_never_held_whole() {
        let mut reader = LineReader::new(Endless {
            left: 10_000_000,
            tail: b"\n1 2",
        });
        let mut reads = 0;
        let mut next = |reader: &mut LineReader<Endless>| {
            reader
                .next_line(|| {
                    reads += 1;
                    Ok::<_, ReadError>(())
                })
                .unwrap()
                .map(|line| matches!(line, Line::TooLong))
        };
        assert_eq!(next(&mut reader), Some(true));
        assert_eq!(next(&mut reader), Some(false));
        assert_eq!(next(&mut reader), None);
        assert_eq!(reader.buf.len(), BUFFER_LEN);
        assert!(reads > 10_000, "read in small pieces: {reads}");
    }

    /// Early, a line that never ends is said to be too long as soon as that is known, not
    /// waited for: `othello < /dev/zero` ends at its header (red team of issue 44); after
    /// it, the next line is the one after its end.
    #[test]
    fn a_line_that_never_ends_is_too_long_at_once() {
        let mut reader = LineReader::new(io::repeat(0));
        reader.early(true);
        let mut reads = 0;
        let line = reader
            .next_line(|| {
                reads += 1;
                Ok::<_, ReadError>(())
            })
            .unwrap();
        assert_eq!(line, Some(Line::TooLong));
        assert!(reads <= 2, "{reads} reads");
        let mut input = vec![b'x'; 10_000];
        input.extend_from_slice(b"\n1 2\n");
        let mut reader = LineReader::new(input.as_slice());
        reader.early(true);
        let mut next = || {
            reader
                .next_line(|| Ok::<_, ReadError>(()))
                .unwrap()
                .map(|line| match line {
                    Line::Text(text) => text.to_vec(),
                    Line::TooLong => b"too long".to_vec(),
                })
        };
        assert_eq!(next(), Some(b"too long".to_vec()));
        assert_eq!(next(), Some(b"1 2".to_vec()));
        assert_eq!(next(), None);
    }

    #[test]
    fn huge_line_without_newline_at_the_end() {
        let mut input = b"1 2\n".to_vec();
        input.extend(vec![b'z'; 200_000]);
        assert_eq!(all_lines(&input), [Line::Text(b"1 2"), Line::TooLong]);
    }

    #[test]
    fn the_hook_runs_only_when_no_line_is_buffered() {
        let mut reader = LineReader::new(&b"1\n2\n3"[..]);
        let mut hooks = 0;
        let mut count = || {
            hooks += 1;
            Ok::<_, ReadError>(())
        };
        reader.next_line(&mut count).unwrap();
        reader.next_line(&mut count).unwrap();
        reader.next_line(&mut count).unwrap();
        assert_eq!(reader.next_line(&mut count).unwrap(), None);
        // One read brought all three lines, a second one found the end.
        assert_eq!(hooks, 2);
    }

    #[test]
    fn find_newline_agrees_with_a_plain_search() {
        // Bytes next to the newline's value, with and without the high bit, in every position.
        let alphabet = [
            b'\n', b'\x0b', b'\x09', b'\x8a', b'\x00', b'\xff', b'1', b' ',
        ];
        for len in 0..=10u32 {
            for mut code in 0..8usize.pow(len.min(6)) {
                let mut bytes = vec![b'x'; len as usize];
                for byte in bytes.iter_mut().take(6) {
                    *byte = alphabet[code % 8];
                    code /= 8;
                }
                let expected = bytes.iter().position(|&b| b == b'\n');
                assert_eq!(find_newline(&bytes), expected, "{bytes:?}");
                bytes.reverse();
                let expected = bytes.iter().position(|&b| b == b'\n');
                assert_eq!(find_newline(&bytes), expected, "{bytes:?}");
            }
        }
    }

    #[test]
    fn integers() {
        assert_eq!(parse_integer(b"+12"), Some(12));
        assert_eq!(parse_integer(b"-0"), Some(0));
        assert_eq!(parse_integer(b"007"), Some(7));
        assert_eq!(parse_integer(b"99999999999999999999999"), Some(i64::MAX));
        assert_eq!(parse_integer(b"-99999999999999999999999"), Some(-i64::MAX));
        for bad in [&b""[..], b"+", b"-", b"1a", b"+-1", b"1.0", b"\xff"] {
            assert_eq!(parse_integer(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn tokens_split_on_spaces_and_tabs() {
        let found: Vec<_> = tokens(b" \t3 \t 4\x0c\r").collect();
        assert_eq!(found, [&b"3"[..], b"4"]);
        assert_eq!(tokens(b"  ").count(), 0);
        assert_eq!(tokens(b"3,4").count(), 1);
    }
}
