//! The engine's unit of score: hundredths of a disc, and [`Score`], the one way front ends
//! read and show one. Shared by the evaluations (hand-written and learned) and the searches.

/// One disc, in evaluation units: final scores are disc differences times this.
pub const DISC: i32 = 100;

/// A score as the engine hands it to front ends: evaluation units ([`DISC`] per disc) for
/// the side it is for. [`Score::discs`] and its `Display` are the one way front ends show
/// it, so that the console, the JSON, NBoard and the web page agree to the hundredth.
///
/// ```
/// use othello::engine::eval::Score;
///
/// assert_eq!(Score(125).to_string(), "+1.25");
/// assert_eq!(Score::from_discs(-6).to_string(), "-6.00");
/// assert_eq!(format!("{:#}", Score::from_discs(-6)), "-6"); // whole discs, for exact scores
/// assert_eq!(Score(-1).discs(), -0.01);
/// assert!(Score(0).discs().is_sign_positive()); // never -0.0 in JSON
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Score(pub i32);

impl Score {
    /// `discs` whole discs.
    pub const fn from_discs(discs: i32) -> Score {
        Score(discs * DISC)
    }

    /// In discs, to the hundredth (never `-0.0`).
    pub fn discs(self) -> f64 {
        (f64::from(self.0) / f64::from(DISC) * 100.0).round() / 100.0 + 0.0
    }

    /// In whole discs (for an exact score, which is a whole number of discs).
    pub const fn whole_discs(self) -> i32 {
        self.0 / DISC
    }
}

impl std::ops::Neg for Score {
    type Output = Score;
    fn neg(self) -> Score {
        Score(-self.0)
    }
}

impl std::ops::Sub for Score {
    type Output = Score;
    fn sub(self, other: Score) -> Score {
        Score(self.0 - other.0)
    }
}

impl std::fmt::Display for Score {
    /// Signed discs to the hundredth, `+1.25`; with `{:#}` whole discs, `+6`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if f.alternate() {
            write!(f, "{:+}", self.whole_discs())
        } else {
            write!(f, "{:+.2}", f64::from(self.0) / f64::from(DISC))
        }
    }
}
