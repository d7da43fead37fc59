//! Ratings: Glicko-2 (the `skillratings` crate's), kept per category of game, since a
//! player's strength at one-minute games on 6 × 6 says little about their strength at
//! half-hour games on 8 × 8. A category is the rules, the board and the speed:
//! `full-8x8-blitz`. The speed comes from the time a game is expected to take, each side's
//! time plus 30 increments (about the moves a side makes on 8 × 8): under 3 minutes
//! bullet, under 8 blitz, under 25 rapid, else classical. Only timed games are rated.
//!
//! Each rated game is a rating period of its own, as on the Othello and chess sites: both
//! ratings move as soon as it ends, in the same commit as its ending.

use othello::{Color, Shape, Variant, WinRule};
use skillratings::{
    Outcomes,
    glicko2::{Glicko2Config, Glicko2Rating, glicko2},
};

use othello::TimeControl;

/// A player's rating in one category.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// The rating (1500 to start).
    pub rating: f64,
    /// How uncertain it is (350 to start): 95 % of the time the true strength is within
    /// about two deviations.
    pub deviation: f64,
    /// How erratic the player's results are.
    pub volatility: f64,
    /// Rated games played in the category.
    pub games: u32,
}

impl Default for Rating {
    fn default() -> Rating {
        let start = Glicko2Rating::new();
        Rating {
            rating: start.rating,
            deviation: start.deviation,
            volatility: start.volatility,
            games: 0,
        }
    }
}

impl Rating {
    /// Whether the rating is still uncertain (a deviation above 110): shown with a `?`.
    pub fn provisional(&self) -> bool {
        self.deviation > 110.0
    }

    fn glicko(self) -> Glicko2Rating {
        Glicko2Rating {
            rating: self.rating,
            deviation: self.deviation,
            volatility: self.volatility,
        }
    }

    fn after(self, glicko: Glicko2Rating) -> Rating {
        Rating {
            rating: glicko.rating,
            deviation: glicko.deviation,
            volatility: glicko.volatility,
            games: self.games + 1,
        }
    }
}

/// `bullet`, `blitz`, `rapid` or `classical`, by the time a game with `clock` takes;
/// `correspondence` for days a move.
pub fn speed(clock: TimeControl) -> &'static str {
    if clock.per_move {
        return SPEEDS[4];
    }
    let expected_ms = clock.base_ms + 30 * clock.increment_ms;
    SPEEDS[match expected_ms / 60_000 {
        0..3 => 0,
        3..8 => 1,
        8..25 => 2,
        _ => 3,
    }]
}

/// The speeds [`speed`] names, fastest first.
const SPEEDS: [&str; 5] = ["bullet", "blitz", "rapid", "classical", "correspondence"];

/// A rating category: the rules, the win rule, the board and the speed, as
/// `full-8x8-blitz` (most discs win) or `full-fewest-8x8-blitz`: each is its own pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Category {
    /// The rule set.
    pub variant: Variant,
    /// Which discs win.
    pub win: WinRule,
    /// The board.
    pub shape: Shape,
    /// One of [`speed`]'s names.
    pub speed: &'static str,
}

impl std::fmt::Display for Category {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let win = match self.win {
            WinRule::MostDiscs => "",
            WinRule::FewestDiscs => "fewest-",
        };
        write!(
            f,
            "{}-{win}{}x{}-{}",
            self.variant.name(),
            self.shape.rows(),
            self.shape.columns(),
            self.speed
        )
    }
}

impl std::str::FromStr for Category {
    type Err = ();

    fn from_str(text: &str) -> Result<Category, ()> {
        let (text, win) = match text.split_once("-fewest-") {
            Some((rules, rest)) => (format!("{rules}-{rest}"), WinRule::FewestDiscs),
            None => (text.to_owned(), WinRule::MostDiscs),
        };
        let mut parts = text.split('-');
        let (Some(rules), Some(board), Some(speed), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(());
        };
        let (rows, columns) = board.split_once('x').ok_or(())?;
        Ok(Category {
            variant: rules.parse().map_err(|_| ())?,
            win,
            shape: Shape::new(
                rows.parse().map_err(|_| ())?,
                columns.parse().map_err(|_| ())?,
            )
            .map_err(|_| ())?,
            speed: SPEEDS.into_iter().find(|&known| known == speed).ok_or(())?,
        })
    }
}

/// The category of a game.
pub fn category(variant: Variant, shape: Shape, win: WinRule, clock: TimeControl) -> Category {
    Category {
        variant,
        win,
        shape,
        speed: speed(clock),
    }
}

/// Black's and White's ratings after a game between them won by `winner` (`None`: a
/// draw).
pub fn update(black: Rating, white: Rating, winner: Option<Color>) -> (Rating, Rating) {
    let outcome = match winner {
        Some(Color::Black) => Outcomes::WIN,
        Some(Color::White) => Outcomes::LOSS,
        None => Outcomes::DRAW,
    };
    let (new_black, new_white) = glicko2(
        &black.glicko(),
        &white.glicko(),
        &outcome,
        &Glicko2Config::new(),
    );
    (black.after(new_black), white.after(new_white))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control(minutes: u64, increment_s: u64) -> TimeControl {
        TimeControl::new(minutes * 60_000, increment_s * 1000)
    }

    #[test]
    fn categories_go_by_rules_board_and_expected_time() {
        assert_eq!(speed(control(1, 0)), "bullet");
        assert_eq!(
            speed(control(2, 1)),
            "bullet",
            "2 minutes and 30 s of increments"
        );
        assert_eq!(
            speed(control(2, 2)),
            "blitz",
            "2 minutes and a minute of increments"
        );
        assert_eq!(speed(control(5, 3)), "blitz");
        assert_eq!(speed(control(10, 5)), "rapid");
        assert_eq!(speed(control(5, 0)), "blitz");
        assert_eq!(speed(control(30, 0)), "classical");
        assert_eq!(speed(control(180, 60)), "classical");
        // Days a move are a pool of their own, however many days.
        assert_eq!(speed(TimeControl::correspondence(1)), "correspondence");
        assert_eq!(speed(TimeControl::correspondence(14)), "correspondence");
        let daily = category(
            Variant::Full,
            Shape::STANDARD,
            WinRule::MostDiscs,
            TimeControl::correspondence(3),
        );
        assert_eq!(daily.to_string(), "full-8x8-correspondence");
        assert_eq!("full-8x8-correspondence".parse(), Ok(daily), "read back");
        let shape = Shape::new(6, 10).unwrap();
        let category = category(Variant::Simple, shape, WinRule::MostDiscs, control(3, 2));
        assert_eq!(category.to_string(), "simple-6x10-blitz");
        assert_eq!("simple-6x10-blitz".parse(), Ok(category), "read back");
        assert!("simple-6x10-slow".parse::<Category>().is_err());
        // Fewest discs winning is another game: a pool of its own.
        let fewest = super::category(Variant::Full, shape, WinRule::FewestDiscs, control(3, 2));
        assert_eq!(fewest.to_string(), "full-fewest-6x10-blitz");
        assert_eq!("full-fewest-6x10-blitz".parse(), Ok(fewest), "read back");
        assert_ne!(
            fewest,
            super::category(Variant::Full, shape, WinRule::MostDiscs, control(3, 2))
        );
        assert!("full-fewest-6x10".parse::<Category>().is_err());
    }

    #[test]
    fn the_winner_gains_what_the_loser_loses_and_a_draw_moves_towards_the_other() {
        let start = Rating::default();
        let (black, white) = update(start, start, Some(Color::Black));
        assert!(black.rating > 1500.0 && white.rating < 1500.0);
        assert!((black.rating - 1500.0 - (1500.0 - white.rating)).abs() < 1e-6);
        assert!(black.deviation < start.deviation, "a game makes it surer");
        assert_eq!((black.games, white.games), (1, 1));
        let (strong, weak) = (black, white);
        let (after_strong, after_weak) = update(strong, weak, None);
        assert!(after_strong.rating < strong.rating && after_weak.rating > weak.rating);
        // Beating a much weaker player earns less than beating an equal one.
        let (upset, _) = update(weak, strong, Some(Color::Black));
        let (expected, _) = update(strong, weak, Some(Color::Black));
        assert!(upset.rating - weak.rating > expected.rating - strong.rating);
    }
}
