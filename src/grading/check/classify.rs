//! What a difference means: the class of a failure and the context shown with it.

use super::{Class, reference::Reference};
use crate::Square;

/// Decides what a differing line means. `unasked`: it came before the input it answers was
/// sent. `next_actual`: the line the program printed after it. The note explains; the lines
/// themselves go beside it in the report.
pub(super) fn classify(
    line: usize,
    expected: Option<&str>,
    actual: Option<&str>,
    unasked: bool,
    next_actual: Option<String>,
) -> (Class, String) {
    if line == 0 {
        // The right rules line with `\r` or spaces after it is whitespace, as elsewhere.
        if let (Some(expected), Some(actual)) = (expected, actual)
            && actual != expected
            && actual.trim_end() == expected
        {
            return (
                Class::TrailingWhitespace,
                "the right rules line with trailing whitespace".to_owned(),
            );
        }
        return (
            Class::WrongRulesLine,
            "the first line must be the rules line".to_owned(),
        );
    }
    let (Some(expected), Some(actual)) = (expected, actual) else {
        return (
            Class::ExtraOutput,
            "output after the end of the transcript".to_owned(),
        );
    };
    if unasked {
        return (
            Class::ExtraOutput,
            "printed before the input it answers was sent (a prompt?)".to_owned(),
        );
    }
    if actual.trim_end() == expected {
        return (
            Class::TrailingWhitespace,
            "the right line with trailing whitespace".to_owned(),
        );
    }
    // `Enter move: VALID` (but not `INVALID`), or a line of its own before the right one.
    let prompt_before = actual
        .strip_suffix(expected)
        .is_some_and(|prefix| prefix.ends_with(|c: char| !c.is_alphanumeric()));
    if prompt_before {
        return (
            Class::ExtraOutput,
            "the right line after extra text (a prompt or message?)".to_owned(),
        );
    }
    if next_actual.as_deref() == Some(expected) {
        return (
            Class::ExtraOutput,
            "an extra line before the right one (a prompt or message?)".to_owned(),
        );
    }
    let turn = |text: &str| text.starts_with("TURN: ");
    let winner = |text: &str| text.starts_with("WINNER: ");
    match (expected, actual) {
        (e, a) if turn(e) && turn(a) => (
            Class::WrongPass,
            "wrong side to move: a side without a legal move passes".to_owned(),
        ),
        (e, a) if winner(e) && turn(a) => (
            Class::WrongPass,
            "the game is over (neither side can move), but it went on".to_owned(),
        ),
        (e, a) if turn(e) && winner(a) => (
            Class::WrongPass,
            "the game is not over (a side can still move), but it named a winner".to_owned(),
        ),
        (e, a) if winner(e) && winner(a) => (
            Class::WrongWinner,
            "the counts are right but the winner is not (the win rule: > most, < fewest)"
                .to_owned(),
        ),
        _ => {
            let column = expected
                .chars()
                .zip(actual.chars())
                .take_while(|(e, a)| e == a)
                .count()
                + 1;
            (
                Class::WrongOutput,
                format!("the line differs from character {column} on"),
            )
        }
    }
}

/// The moves answered `VALID` among the first `sent` input lines, and the last state block
/// the reference printed before transcript line `line` (0-based).
pub(super) fn context(
    reference: &Reference,
    input: &[u8],
    sent: usize,
    line: usize,
) -> (Vec<Square>, Option<String>) {
    let rows = crate::Setup::from_grader_input(input)
        .map_or(0, |setup| usize::from(setup.board.shape().rows()));
    let setup_lines = if rows == 0 { usize::MAX } else { 4 + rows };
    let mut moves = Vec::new();
    for input_line in reference.lines.iter().take(sent).skip(setup_lines) {
        let answer = &reference.output[input_line.output_before..];
        if answer.starts_with(b"VALID\n")
            && let Some(square) = parse_move_line(&input_line.text)
        {
            moves.push(square);
        }
    }
    let text = String::from_utf8_lossy(&reference.output);
    let lines: Vec<&str> = text.lines().take(line).collect();
    // The counts, the rows and the TURN or WINNER line after them.
    let board = lines
        .iter()
        .rposition(|l| l.starts_with("B: "))
        .map(|at| lines[at..lines.len().min(at + rows + 2)].join("\n"));
    (moves, board)
}

/// `r c` (1-based) as a square.
fn parse_move_line(text: &[u8]) -> Option<Square> {
    let text = std::str::from_utf8(text).ok()?;
    let mut numbers = text.split_whitespace().map(str::parse::<u8>);
    let (Some(Ok(row @ 1..=16)), Some(Ok(column @ 1..=16)), None) =
        (numbers.next(), numbers.next(), numbers.next())
    else {
        return None;
    };
    Some(Square::new(row - 1, column - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_lines() {
        assert_eq!(parse_move_line(b" 3 4\r\n"), Some(Square::new(2, 3)));
        assert_eq!(parse_move_line(b"3 4 5\n"), None);
    }

    #[test]
    fn classification() {
        let c = |e: &str, a: &str| classify(5, Some(e), Some(a), false, None).0;
        assert_eq!(c("B . .", "B . . "), Class::TrailingWhitespace);
        assert_eq!(c("VALID", "VALID\r"), Class::TrailingWhitespace);
        assert_eq!(c("VALID", "Enter move: VALID"), Class::ExtraOutput);
        assert_eq!(c("TURN: B", "TURN: W"), Class::WrongPass);
        assert_eq!(c("WINNER: B", "TURN: W"), Class::WrongPass);
        assert_eq!(c("WINNER: B", "WINNER: W"), Class::WrongWinner);
        assert_eq!(c("VALID", "INVALID"), Class::WrongOutput);
        assert_eq!(
            classify(
                5,
                Some("TURN: B"),
                Some("Your move"),
                false,
                Some("TURN: B".into())
            )
            .0,
            Class::ExtraOutput
        );
        assert_eq!(
            classify(5, Some("VALID"), Some("Enter"), true, None).0,
            Class::ExtraOutput
        );
        assert_eq!(
            classify(0, Some("FULL"), Some("Full"), false, None).0,
            Class::WrongRulesLine
        );
        assert_eq!(
            classify(9, None, Some("bye"), false, None).0,
            Class::ExtraOutput
        );
    }
}
