//! Reading a program's output: lines, differences and what cannot be seen.

use super::SHOWN_LINE;
use crate::Variant;

/// The first byte where `actual` departs from `expected` (including going on past its end),
/// looking only after the `verified` bytes already found equal, and moving that on: each
/// byte is compared once, however the output arrives.
pub(super) fn first_difference(
    actual: &[u8],
    expected: &[u8],
    verified: &mut usize,
) -> Option<usize> {
    let common = actual.len().min(expected.len());
    let from = (*verified).min(common);
    let found = actual[from..common]
        .iter()
        .zip(&expected[from..common])
        .position(|(a, e)| a != e)
        .map(|offset| from + offset);
    *verified = found.unwrap_or(common);
    found.or((actual.len() > expected.len()).then_some(expected.len()))
}

/// The first line of `output`, if complete.
pub(super) fn first_line(output: &[u8]) -> Option<&str> {
    let end = output.iter().position(|&b| b == b'\n')?;
    std::str::from_utf8(&output[..end]).ok()
}

/// The rule set a rules line names.
pub(super) fn rules_of(line: &str) -> Option<Variant> {
    // `FULL\r` names FULL; the `\r` is a failure of its own (trailing whitespace).
    match line.trim_end() {
        "FULL" => Some(Variant::Full),
        "SIMPLE" => Some(Variant::Simple),
        _ => None,
    }
}

/// The line starting at byte `start` (without its newline; what there is of it if it is
/// not complete), or `None` if nothing is there.
pub(super) fn line_at(text: &[u8], start: usize) -> Option<String> {
    let rest = text.get(start..).filter(|rest| !rest.is_empty())?;
    let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
    let line = String::from_utf8_lossy(&rest[..end]);
    if line.chars().count() <= SHOWN_LINE {
        return Some(line.into_owned());
    }
    let mut cut: String = line.chars().take(SHOWN_LINE).collect();
    cut.push_str("...");
    Some(cut)
}

/// Line `index` (0-based) of `text`.
pub(super) fn nth_line(text: &[u8], index: usize) -> Option<String> {
    let start = if index == 0 {
        0
    } else {
        text.iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .nth(index - 1)
            .map(|(at, _)| at + 1)?
    };
    line_at(text, start)
}

/// Complete lines in `text`.
pub(super) fn line_count(text: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', text).count()
}

/// A line with what cannot be seen made visible: quoted, `\r` and `\t` escaped, trailing
/// spaces shown as `·`.
pub fn visible(line: &str) -> String {
    let body = line.trim_end_matches(' ');
    let trailing = line.len() - body.len();
    let mut shown = String::from("\"");
    for c in body.chars() {
        match c {
            '\r' => shown.push_str("\\r"),
            '\t' => shown.push_str("\\t"),
            '"' => shown.push_str("\\\""),
            c if hidden(c) => shown.push_str(&c.escape_unicode().to_string()),
            c => shown.push(c),
        }
    }
    shown.push_str(&"·".repeat(trailing));
    shown.push('"');
    shown
}

/// Whether a character shows as nothing, or changes how what follows shows: control
/// characters (NUL, ESC and its terminal sequences, a bare `\r`) and the marks that turn
/// the direction of text.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// One line of a program's text (a submission's name) safe to show: like [`printable`],
/// with line breaks and tabs escaped too.
pub fn printable_line(text: &str) -> String {
    printable(text).replace('\n', "\\n").replace('\t', "\\t")
}

/// A block of a program's text (its stderr, a build's output) safe to show: lines and tabs
/// kept, every other character that would show as nothing or act on the screen or page
/// (NUL, ESC, `\r`, direction marks) written as its escape (`\u{1b}`).
pub fn printable(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' => shown.push(c),
            c if hidden(c) => shown.push_str(&c.escape_unicode().to_string()),
            c => shown.push(c),
        }
    }
    shown
}

/// `exit status 1`, `killed by signal 11 (SIGSEGV: a segmentation fault)`; a status above
/// 128 is also read as the signal a shell or bubblewrap reports that way:
/// `exit status 139 (128 + 11: killed by SIGSEGV, a segmentation fault)`.
pub fn describe_exit(status: std::process::ExitStatus) -> String {
    if let Some(code) = status.code() {
        return match code.checked_sub(128).and_then(signal_name) {
            Some((name, meaning)) => format!(
                "exit status {code} (128 + {}: killed by {name}, {meaning})",
                code - 128
            ),
            None => format!("exit status {code}"),
        };
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return match signal_name(signal) {
                Some((name, meaning)) => format!("killed by signal {signal} ({name}: {meaning})"),
                None => format!("killed by signal {signal}"),
            };
        }
    }
    status.to_string()
}

/// The name of a signal that ends programs, and what it usually means.
fn signal_name(signal: i32) -> Option<(&'static str, &'static str)> {
    #[cfg(unix)]
    {
        Some(match signal {
            libc::SIGHUP => ("SIGHUP", "its terminal hung up"),
            libc::SIGINT => ("SIGINT", "an interrupt"),
            libc::SIGQUIT => ("SIGQUIT", "a quit"),
            libc::SIGILL => ("SIGILL", "an illegal instruction"),
            libc::SIGTRAP => ("SIGTRAP", "a trap"),
            libc::SIGABRT => ("SIGABRT", "aborted (abort(), a failed assertion)"),
            libc::SIGBUS => ("SIGBUS", "a bus error"),
            libc::SIGFPE => ("SIGFPE", "an arithmetic error (a division by zero)"),
            libc::SIGKILL => ("SIGKILL", "killed"),
            libc::SIGSEGV => ("SIGSEGV", "a segmentation fault"),
            libc::SIGPIPE => ("SIGPIPE", "a broken pipe"),
            libc::SIGALRM => ("SIGALRM", "an alarm"),
            libc::SIGTERM => ("SIGTERM", "terminated"),
            libc::SIGXCPU => ("SIGXCPU", "the CPU time limit"),
            libc::SIGXFSZ => ("SIGXFSZ", "the file size limit"),
            _ => return None,
        })
    }
    #[cfg(not(unix))]
    {
        let _ = signal;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn endings_name_their_signal() {
        use std::os::unix::process::ExitStatusExt;
        let exit = |raw: i32| describe_exit(std::process::ExitStatus::from_raw(raw));
        assert_eq!(exit(1 << 8), "exit status 1");
        assert_eq!(
            exit(139 << 8),
            "exit status 139 (128 + 11: killed by SIGSEGV, a segmentation fault)"
        );
        assert_eq!(
            exit(11),
            "killed by signal 11 (SIGSEGV: a segmentation fault)"
        );
        assert_eq!(exit(200 << 8), "exit status 200");
    }

    #[test]
    fn blocks_keep_lines_and_escape_the_rest() {
        assert_eq!(
            printable("a\tb\nNUL\0 ESC\x1b[31m \r\u{202e}x"),
            "a\tb\nNUL\\u{0} ESC\\u{1b}[31m \\u{d}\\u{202e}x"
        );
    }

    #[test]
    fn invisible_characters_are_shown() {
        assert_eq!(visible("B . .  "), "\"B . .··\"");
        assert_eq!(visible("VALID\r"), "\"VALID\\r\"");
        assert_eq!(visible("a\tb"), "\"a\\tb\"");
    }

    #[test]
    fn differences_and_lines() {
        let difference =
            |actual: &[u8], expected: &[u8]| first_difference(actual, expected, &mut 0);
        assert_eq!(difference(b"abc", b"abd"), Some(2));
        assert_eq!(difference(b"ab", b"abc"), None);
        assert_eq!(difference(b"abcd", b"abc"), Some(3));
        let mut verified = 0;
        assert_eq!(first_difference(b"ab", b"abcdef", &mut verified), None);
        assert_eq!(verified, 2);
        assert_eq!(first_difference(b"abcX", b"abcdef", &mut verified), Some(3));
        assert_eq!(verified, 3);
        assert_eq!(nth_line(b"a\nb\nc", 2).as_deref(), Some("c"));
        assert_eq!(nth_line(b"a\nb\n", 2), None);
        assert_eq!(line_at(b"a\nbc", 2).as_deref(), Some("bc"));
    }
}
