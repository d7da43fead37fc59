//! How selective a search is: how sure a cut must be before the search trusts a shallow
//! search's prediction of a deep one (Multi-ProbCut) instead of looking. Othello programs
//! report it with the depth, `24@95%`: depth 24, cuts made only where the shallow search
//! predicts the deep one with 95 % confidence; `100%` is a full-width search (exact at the
//! end of the game).

use std::{fmt, str::FromStr};

use thiserror::Error;

/// A confidence level for selective cuts: 73 %, 87 %, 95 %, 98 %, 99 % or 100 % (none).
///
/// ```
/// use othello::engine::Selectivity;
///
/// let level: Selectivity = "95".parse()?;
/// assert_eq!(level.to_string(), "95%");
/// assert!(level < Selectivity::NONE);
/// assert_eq!(Selectivity::NONE.percent(), 100);
/// assert_eq!("90%".parse::<Selectivity>().unwrap_err().to_string(),
///            "selectivity must be one of 73, 87, 95, 98, 99, 100 (percent), not \"90%\"");
/// # Ok::<_, othello::engine::ParseSelectivityError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Selectivity(u8);

/// The levels: percent, and the number of standard deviations a prediction must clear.
const LEVELS: [(u8, f64); 6] = [
    (73, 1.1),
    (87, 1.5),
    (95, 2.0),
    (98, 2.6),
    (99, 3.3),
    (100, f64::INFINITY),
];

impl Selectivity {
    /// No selective cuts: a full-width search.
    pub const NONE: Selectivity = Selectivity(5);

    /// The most selective level, 73 %.
    pub(crate) const MOST: Selectivity = Selectivity(0);

    /// The engine's searches unless told otherwise (its strong levels, hints, analysis,
    /// NBoard): 73 %, the level that won most at an equal number of nodes a move (against
    /// full width: +173 Elo at 73 %, +160 at 87 %; see BENCHMARKS.md).
    pub const DEFAULT: Selectivity = Selectivity::MOST;

    /// Every level, most selective first.
    pub const ALL: [Selectivity; 6] = [
        Selectivity(0),
        Selectivity(1),
        Selectivity(2),
        Selectivity(3),
        Selectivity(4),
        Selectivity(5),
    ];

    /// The confidence in percent.
    pub const fn percent(self) -> u8 {
        LEVELS[self.0 as usize].0
    }

    /// The level of `percent`, if it is one.
    pub(crate) fn from_percent(percent: u8) -> Option<Selectivity> {
        Selectivity::ALL
            .into_iter()
            .find(|level| level.percent() == percent)
    }

    /// How many standard deviations a prediction must clear to cut; `None` for no cuts.
    pub(crate) fn deviations(self) -> Option<f64> {
        let t = LEVELS[self.0 as usize].1;
        t.is_finite().then_some(t)
    }

    /// Whether the search is full width.
    pub const fn is_none(self) -> bool {
        self.0 == Selectivity::NONE.0
    }

    /// The level as a small number (0 most selective, 5 none), for packing.
    pub(crate) const fn index(self) -> u8 {
        self.0
    }

    /// The level of [`Selectivity::index`].
    pub(crate) const fn from_index(index: u8) -> Selectivity {
        Selectivity(if index > 5 { 5 } else { index })
    }
}

impl Default for Selectivity {
    /// No cuts: what a search is unless asked otherwise.
    fn default() -> Selectivity {
        Selectivity::NONE
    }
}

impl fmt::Display for Selectivity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}%", self.percent())
    }
}

/// Text that names no level.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("selectivity must be one of 73, 87, 95, 98, 99, 100 (percent), not {0:?}")]
pub struct ParseSelectivityError(String);

impl FromStr for Selectivity {
    type Err = ParseSelectivityError;

    /// `95` or `95%`.
    fn from_str(text: &str) -> Result<Selectivity, ParseSelectivityError> {
        let number = text.trim().strip_suffix('%').unwrap_or(text.trim());
        number
            .parse()
            .ok()
            .and_then(Selectivity::from_percent)
            .ok_or_else(|| ParseSelectivityError(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_round_trip_and_order_by_confidence() {
        for level in Selectivity::ALL {
            assert_eq!(level.to_string().parse::<Selectivity>(), Ok(level));
            assert_eq!(Selectivity::from_index(level.index()), level);
        }
        assert!(Selectivity::ALL.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(
            Selectivity::ALL
                .windows(2)
                .all(|pair| pair[0].deviations() < pair[1].deviations().or(Some(f64::MAX)))
        );
        assert_eq!(Selectivity::NONE.deviations(), None);
        assert!("0".parse::<Selectivity>().is_err());
        assert!("".parse::<Selectivity>().is_err());
    }
}
