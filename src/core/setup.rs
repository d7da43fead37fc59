//! Where a game starts: the board, the side named to move first and the win rule.

use crate::{Board, Color, Shape};

/// Everything a game starts from: the board, who is named to move first and the win rule.
///
/// Any arrangement of discs is allowed. Its `Display` and `FromStr` are the grader's input
/// text: rows, columns, first mover (`B`/`W`) and win rule (`>`/`<`) on four lines, then one
/// line of cells per row (see `formats::grader`).
///
/// ```
/// use othello::{Color, Setup, Shape, WinRule};
///
/// let setup: Setup = "4\n6\nW\n<\n\
///     . . . . . .\n. . W B . .\n. . B W . .\n. . . . . .\n".parse()?;
/// assert_eq!(setup.board.shape(), Shape::new(4, 6)?);
/// assert_eq!(setup.first_mover, Color::White);
/// assert_eq!(setup.win_rule, WinRule::FewestDiscs);
/// assert_eq!(setup.to_string().parse::<Setup>()?, setup);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Setup {
    /// The initial discs.
    pub board: Board,
    /// The side named to move first (it passes at once if it has no move).
    pub first_mover: Color,
    /// How the winner is decided.
    pub win_rule: WinRule,
}

impl Setup {
    /// The usual start on `shape` ([`Board::standard`]), Black first, most discs wins.
    pub fn standard(shape: Shape) -> Setup {
        Setup {
            board: Board::standard(shape),
            first_mover: Color::Black,
            win_rule: WinRule::MostDiscs,
        }
    }
}

/// How the winner is decided when neither side can move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum WinRule {
    /// More discs wins, written `>`.
    #[default]
    MostDiscs,
    /// Fewer discs wins, written `<`.
    FewestDiscs,
}

impl WinRule {
    /// The rule's name on command lines, in records and in the API: `most` or `fewest`.
    pub const fn name(self) -> &'static str {
        match self {
            WinRule::MostDiscs => "most",
            WinRule::FewestDiscs => "fewest",
        }
    }

    /// The grader's symbol: `>` or `<`.
    pub const fn symbol(self) -> char {
        match self {
            WinRule::MostDiscs => '>',
            WinRule::FewestDiscs => '<',
        }
    }

    /// The rule written as `symbol` (`>` or `<`).
    pub const fn from_symbol(symbol: u8) -> Option<WinRule> {
        match symbol {
            b'>' => Some(WinRule::MostDiscs),
            b'<' => Some(WinRule::FewestDiscs),
            _ => None,
        }
    }
}
