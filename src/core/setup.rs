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

/// A win rule's name that is neither `most` nor `fewest`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the win rule is most or fewest, not {0:?}")]
pub struct ParseWinRuleError(pub String);

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
    /// Both rules.
    pub const ALL: [WinRule; 2] = [WinRule::MostDiscs, WinRule::FewestDiscs];

    /// The rule's name on command lines, in records and in the API: `most` or `fewest`.
    /// The one place these words are written; [`WinRule::from_name`] reads them back. (Its
    /// `Display` is the grader's symbol, `>` or `<`.)
    pub const fn name(self) -> &'static str {
        match self {
            WinRule::MostDiscs => "most",
            WinRule::FewestDiscs => "fewest",
        }
    }

    /// The rule named `name` (`most` or `fewest`, as [`WinRule::name`] writes them).
    ///
    /// # Errors
    /// [`ParseWinRuleError`] for any other text.
    pub fn from_name(name: &str) -> Result<WinRule, ParseWinRuleError> {
        WinRule::ALL
            .into_iter()
            .find(|rule| rule.name() == name)
            .ok_or_else(|| ParseWinRuleError(name.to_owned()))
    }

    /// The rule for people: `most discs wins`.
    pub const fn description(self) -> &'static str {
        match self {
            WinRule::MostDiscs => "most discs wins",
            WinRule::FewestDiscs => "fewest discs wins",
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

/// What is played, as far as an evaluation or a training file cares: the rule set, the
/// board's shape and the win rule. Learned weights and training positions are each for one
/// kind; its `Display` is `6x6 FULL most`, its [`GameKind::slug`] `full-6x6-most`.
///
/// ```
/// use othello::{GameKind, Shape, Variant, WinRule};
///
/// let kind = GameKind::new(Variant::Simple, Shape::new(8, 8)?, WinRule::FewestDiscs);
/// assert_eq!(kind.to_string(), "8x8 SIMPLE fewest");
/// assert_eq!(kind.slug(), "simple-8x8-fewest");
/// assert_eq!(GameKind::STANDARD.to_string(), "8x8 FULL most");
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameKind {
    /// The rule set.
    pub variant: crate::Variant,
    /// The board.
    pub shape: Shape,
    /// The win rule.
    pub rule: WinRule,
}

impl GameKind {
    /// Standard Othello: 8 × 8, FULL rules, most discs wins.
    pub const STANDARD: GameKind = GameKind {
        variant: crate::Variant::Full,
        shape: Shape::STANDARD,
        rule: WinRule::MostDiscs,
    };

    /// The kind of `variant` on `shape` under `rule`.
    pub const fn new(variant: crate::Variant, shape: Shape, rule: WinRule) -> GameKind {
        GameKind {
            variant,
            shape,
            rule,
        }
    }

    /// The kind as a file name's part: `full-8x8-most`.
    pub fn slug(self) -> String {
        format!(
            "{}-{}-{}",
            self.variant.name(),
            self.shape,
            self.rule.name()
        )
    }
}

impl std::fmt::Display for GameKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} {}",
            self.shape,
            self.variant.name().to_uppercase(),
            self.rule.name()
        )
    }
}
