//! How the play mode draws a position: column letters and row numbers, discs, legal moves,
//! the last move and what it flipped, and the score beside the board. Every character the
//! board shows is decided here.

use std::fmt::Write as _;

use anstyle::{AnsiColor, Effects, Style as AnsiStyle};

use othello::{
    Bitboard, Board, Color, Square,
    analysis::{self, Hint},
    engine::{Selectivity, eval::Score},
};

/// How to draw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    /// ANSI colours and effects (only for a terminal, and only without `NO_COLOR`).
    pub color: bool,
    /// `X` and `O` for the discs instead of `●` and `○`.
    pub ascii: bool,
}

/// An empty square.
const EMPTY: char = '.';
/// An empty square where the side to move may play.
const LEGAL: char = '*';
/// Drawn around the last move when there are no colours: `.[●]○`.
const LAST_OPEN: char = '[';
/// See [`LAST_OPEN`].
const LAST_CLOSE: char = ']';
/// Spaces between the board and the panel beside it.
const PANEL_GAP: &str = "      ";

impl Style {
    /// The character for a disc of `color`.
    pub fn disc(self, color: Color) -> char {
        match (color, self.ascii) {
            (Color::Black, false) => '●',
            (Color::White, false) => '○',
            (Color::Black, true) => 'X',
            (Color::White, true) => 'O',
        }
    }

    /// `text` in `style`, if colours are on.
    fn paint(self, text: &str, style: AnsiStyle) -> String {
        if self.color {
            format!("{style}{text}{style:#}")
        } else {
            text.to_owned()
        }
    }

    /// `text` emphasised (bold), if colours are on.
    pub fn strong(self, text: &str) -> String {
        self.paint(text, AnsiStyle::new().effects(Effects::BOLD))
    }

    /// `text` as a warning (yellow), if colours are on.
    pub fn warn(self, text: &str) -> String {
        self.paint(
            text,
            AnsiStyle::new().fg_color(Some(AnsiColor::Yellow.into())),
        )
    }
}

/// Everything the board drawing shows.
#[derive(Clone, Debug)]
pub struct View<'a> {
    /// The discs.
    pub board: &'a Board,
    /// Squares to mark as legal moves.
    pub legal: Bitboard,
    /// The last move, highlighted.
    pub last: Option<Square>,
    /// The discs the last move turned over (highlighted when there are colours).
    pub flipped: Bitboard,
    /// Lines to show to the right of the board, from its second row down (from the first
    /// on boards too short for them all), or below it when they would not fit in `width`.
    pub panel: Vec<String>,
    /// The terminal's width in columns, if known.
    pub width: Option<usize>,
}

/// The board with its coordinates and panel, one line per row plus the column letters,
/// each line ending in a newline.
pub fn draw_board(view: &View<'_>, style: Style) -> String {
    let shape = view.board.shape();
    let mut text = String::from("   ");
    for column in 0..shape.columns() {
        text.push(' ');
        text.push(char::from(b'a' + column));
    }
    text.push('\n');
    let last_style = AnsiStyle::new()
        .bg_color(Some(AnsiColor::Yellow.into()))
        .fg_color(Some(AnsiColor::Black.into()))
        .effects(Effects::BOLD);
    let flipped_style = AnsiStyle::new().effects(Effects::BOLD | Effects::UNDERLINE);
    let legal_style = AnsiStyle::new().fg_color(Some(AnsiColor::Green.into()));
    // Beside the board: the row label, two columns a cell, a frame, the gap, the line.
    let beside = 3 + 2 * usize::from(shape.columns()) + 2 + PANEL_GAP.len();
    let widest = view.panel.iter().map(|line| line.chars().count()).max();
    let below =
        matches!((view.width, widest), (Some(width), Some(widest)) if beside + widest > width);
    // The panel starts beside the second row, or the first if it would not fit.
    let panel_start = if below {
        usize::MAX
    } else {
        usize::from(usize::from(shape.rows()) > view.panel.len())
    };
    for row in 0..shape.rows() {
        let _ = write!(text, "{:>2} ", row + 1);
        let mut previous_was_last = false;
        for column in 0..shape.columns() {
            let square = Square::new(row, column);
            let is_last = view.last == Some(square);
            // Without colours the last move is framed, using the spaces beside it.
            text.push(match (style.color, is_last, previous_was_last) {
                (false, true, _) => LAST_OPEN,
                (false, false, true) => LAST_CLOSE,
                _ => ' ',
            });
            previous_was_last = is_last;
            let cell = match view.board.at(square) {
                Some(color) => style.disc(color),
                None if view.legal.contains(square) => LEGAL,
                None => EMPTY,
            };
            let cell = cell.to_string();
            let painted = if is_last {
                style.paint(&cell, last_style)
            } else if view.flipped.contains(square) {
                style.paint(&cell, flipped_style)
            } else if view.legal.contains(square) {
                style.paint(&cell, legal_style)
            } else {
                cell
            };
            text.push_str(&painted);
        }
        if previous_was_last && !style.color {
            text.push(LAST_CLOSE);
        }
        if let Some(line) = usize::from(row)
            .checked_sub(panel_start)
            .and_then(|i| view.panel.get(i))
            .filter(|line| !line.is_empty())
        {
            if !previous_was_last || style.color {
                text.push(' ');
            }
            text.push_str(PANEL_GAP);
            text.push_str(line);
        }
        text.push('\n');
    }
    if below {
        for line in view.panel.iter().filter(|line| !line.is_empty()) {
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

/// A score for people: whole discs when exact (`+6`), else discs to two decimals (`+1.25`).
pub fn score_text(score: Score, exact: bool) -> String {
    if exact {
        format!("{score:#}")
    } else {
        format!("{score}")
    }
}

/// A move or a pass in a line.
pub fn move_text(square: Option<Square>) -> String {
    square.map_or_else(|| "pass".to_owned(), |square| square.to_string())
}

/// The hint for people (at the play prompt and from `othello hint`), a line per move: `1. d3 +1.25 (depth 9) d3 c5 f6`, with an exact
/// score `1. d3 +6 (exact, depth 12) d3`; `game over: ...` when there is no move.
/// A search's depth as Othello programs write it: `12`, or `12@87%` for a selective one.
pub fn depth_text(depth: u32, selectivity: Selectivity) -> String {
    if selectivity.is_none() {
        depth.to_string()
    } else {
        format!("{depth}@{selectivity}")
    }
}

pub fn hint_lines(hint: &Hint) -> Vec<String> {
    if let Some(score) = hint.final_score {
        return vec![format!(
            "no move: the game is over (final disc difference {score:+} for the side due to move)"
        )];
    }
    hint.lines
        .iter()
        .enumerate()
        .map(|(index, line)| {
            let pv: Vec<String> = line.pv.iter().map(|&square| move_text(square)).collect();
            format!(
                "{}. {} {} ({}depth {}) {}",
                index + 1,
                move_text(line.square),
                score_text(line.score, line.exact),
                if line.exact { "exact, " } else { "" },
                depth_text(hint.depth, hint.selectivity),
                pv.join(" ")
            )
        })
        .collect()
}

/// A game review for people, a line per move, then a line per side:
///
/// ```text
///   1. Black f5  +0.04  best
///   2. White f4  -2.10  best f6 -0.80, lost 1.30
///  31. Black b7  -12 exact  best g8 +6 exact, lost 18: blunder
/// Black: 30 moves, lost 25.40 discs in all; 2 mistakes, 1 blunder; worst 31. b7 (lost 18)
/// ```
pub fn review_lines(reviews: &[analysis::MoveReview]) -> Vec<String> {
    let side_name = |color: Color| match color {
        Color::Black => "Black",
        Color::White => "White",
    };
    let mut lines: Vec<String> = reviews
        .iter()
        .map(|review| {
            let head = format!(
                "{:>3}. {} {:<3} {:>7}",
                review.ply + 1,
                side_name(review.side),
                review.played,
                score_text(review.played_score, review.exact)
                    + if review.exact { " exact" } else { "" }
            );
            if review.loss == Score(0) {
                return format!("{head}  best");
            }
            let verdict = match review.verdict() {
                analysis::Verdict::Blunder => ": blunder",
                analysis::Verdict::Mistake => ": mistake",
                analysis::Verdict::Fine => "",
            };
            format!(
                "{head}  best {} {}{}, lost {}{verdict}",
                review.best,
                score_text(review.best_score, review.exact),
                if review.exact { " exact" } else { "" },
                loss_text(review.loss, review.exact)
            )
        })
        .collect();
    for (color, summary) in analysis::summarize(reviews).iter() {
        if summary.moves == 0 {
            continue;
        }
        let worst = summary.worst.as_ref().map_or_else(
            || "no move lost anything".to_owned(),
            |worst| {
                format!(
                    "worst {}. {} (lost {})",
                    worst.ply + 1,
                    worst.played,
                    loss_text(worst.loss, worst.exact)
                )
            },
        );
        lines.push(format!(
            "{}: {}, lost {:.2} discs in all; {}, {}; {worst}",
            side_name(color),
            crate::words::count(summary.moves as u64, "move"),
            summary.total_loss.discs(),
            crate::words::count(summary.mistakes as u64, "mistake"),
            crate::words::count(summary.blunders as u64, "blunder"),
        ));
    }
    lines
}

/// A loss for people: whole discs when exact, else two decimals.
fn loss_text(loss: Score, exact: bool) -> String {
    if exact {
        format!("{}", loss.whole_discs())
    } else {
        format!("{:.2}", loss.discs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello::Shape;

    fn view(board: &Board) -> View<'_> {
        View {
            board,
            legal: Bitboard::EMPTY,
            last: None,
            flipped: Bitboard::EMPTY,
            panel: vec!["first".into(), "second".into()],
            width: None,
        }
    }

    #[test]
    fn coordinates_discs_legal_moves_and_panel() {
        let board = Board::standard(Shape::new(4, 6).unwrap());
        let mut view = view(&board);
        view.legal = Bitboard::from("b1".parse::<Square>().unwrap());
        let text = draw_board(&view, Style::default());
        assert_eq!(
            text,
            "    a b c d e f\n 1  . * . . . .\n 2  . . ○ ● . .       first\n 3  . . ● ○ . .       second\n 4  . . . . . .\n"
        );
        let ascii = draw_board(
            &view,
            Style {
                ascii: true,
                color: false,
            },
        );
        assert!(ascii.contains(" 2  . . O X . ."), "{ascii}");
        assert!(ascii.is_ascii());
    }

    #[test]
    fn the_last_move_is_framed_without_colours_and_painted_with_them() {
        let board = Board::standard(Shape::new(4, 4).unwrap());
        let mut view = view(&board);
        view.last = Some("c2".parse().unwrap());
        let plain = draw_board(&view, Style::default());
        assert!(plain.contains(" 2  . ○[●].       first\n"), "{plain}");
        view.last = Some("d2".parse().unwrap());
        view.board = &board;
        let edge = draw_board(&view, Style::default());
        assert!(edge.contains(" 2  . ○ ●[.]      first\n"), "{edge}");
        let coloured = draw_board(
            &view,
            Style {
                color: true,
                ascii: false,
            },
        );
        assert!(coloured.contains('\u{1b}'), "{coloured}");
        assert!(!strip(&coloured).contains('['), "{coloured}");
        // Every line has the same width once colours are removed.
        assert_eq!(
            strip(&coloured),
            draw_board(
                &View {
                    last: None,
                    ..view.clone()
                },
                Style::default()
            )
        );
    }

    /// The text without ANSI escape sequences.
    fn strip(text: &str) -> String {
        let mut out = String::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c == '\u{1b}' {
                for c in chars.by_ref() {
                    if c == 'm' {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    }

    #[test]
    fn the_panel_goes_below_the_board_on_a_narrow_terminal() {
        let board = Board::standard(Shape::new(16, 16).unwrap());
        let mut view = view(&board);
        view.width = Some(80);
        let wide = draw_board(&view, Style::default());
        assert!(wide.lines().nth(2).unwrap().ends_with("first"), "{wide}");
        view.width = Some(40);
        let narrow = draw_board(&view, Style::default());
        let lines: Vec<&str> = narrow.lines().collect();
        assert_eq!(lines.len(), 19, "{narrow}");
        assert_eq!(lines[17..], ["first", "second"]);
        assert!(
            lines.iter().all(|line| line.chars().count() <= 40),
            "{narrow}"
        );
    }

    #[test]
    fn sixteen_columns_and_rows() {
        let board = Board::standard(Shape::new(16, 16).unwrap());
        let text = draw_board(&view(&board), Style::default());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 17);
        assert_eq!(lines[0], "    a b c d e f g h i j k l m n o p");
        assert!(lines[16].starts_with("16  . "), "{}", lines[16]);
    }

    #[test]
    fn hint_scores_read_as_discs() {
        assert_eq!(score_text(Score(600), true), "+6");
        assert_eq!(score_text(Score(-125), false), "-1.25");
        assert_eq!(move_text(None), "pass");
    }
}
