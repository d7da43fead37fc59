//! The net against the engine's `classic` levels: games from paired random openings
//! between a net (at a fixed number of simulations a move) and `classic:L` (at its level's
//! depth), neither limited by time, so a measure does not depend on the machine or on what
//! else it runs (the games are the arena's [`crate::arena::level_match`]). `othello zero
//! measure` plays them for each iteration's best net and keeps
//! the results in the run's `levels.csv` (a row for each iteration, level, game count and
//! seed, with the fingerprint of the net that played), which the curve draws.

/// The levels a measure can play: level 10 has no depth limit, so only a time limit would
/// end its moves, and a measure plays without one.
pub const LEVELS: std::ops::RangeInclusive<u8> = 1..=9;

/// The columns of `levels.csv`, in order.
const COLUMNS: [&str; 10] = [
    "iteration",
    "best",
    "net",
    "level",
    "games",
    "seed",
    "wins",
    "draws",
    "losses",
    "score",
];

/// The best net's score against `classic:level` after an iteration (a row of
/// `levels.csv`).
#[derive(Clone, Debug, PartialEq, serde::Deserialize, serde::Serialize)]
pub struct LevelRow {
    /// The iteration (0: the random net the run started from).
    pub iteration: usize,
    /// The best net then.
    pub best: usize,
    /// Its [`crate::engine::zero::Net::fingerprint`].
    pub net: String,
    /// The `classic` level it played.
    pub level: u8,
    /// Games played.
    pub games: u32,
    /// The seed of their openings and of the level's slips.
    pub seed: u64,
    /// The net's wins.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// The net's losses.
    pub losses: u32,
    /// Its score: a win is 1, a draw 1/2.
    pub score: f64,
}

/// The rows of `text`, a `levels.csv`.
///
/// # Errors
/// If it is not such a file (its header names other columns, a row is cut short, a score
/// is not its games' score): the reason.
pub fn parse_levels(text: &str) -> Result<Vec<LevelRow>, String> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().map_err(|error| error.to_string())?;
    if header.iter().ne(COLUMNS) {
        return Err(format!(
            "not a levels.csv of this program's (its first line names the columns {}): move it \
             away, and measure again",
            COLUMNS.join(",")
        ));
    }
    let rows = reader
        .deserialize()
        .collect::<Result<Vec<LevelRow>, _>>()
        .map_err(|error| error.to_string())?;
    let wrong = |row: &LevelRow| {
        let counted = (f64::from(row.wins) + f64::from(row.draws) / 2.0) / f64::from(row.games);
        !LEVELS.contains(&row.level)
            || row.games < 2
            || row.wins + row.draws + row.losses != row.games
            || (row.score - counted).abs().partial_cmp(&5e-4) != Some(std::cmp::Ordering::Less)
    };
    match rows.iter().find(|row| wrong(row)) {
        Some(row) => Err(format!(
            "iteration {} against classic:{}: not a level's result",
            row.iteration, row.level
        )),
        None => Ok(rows),
    }
}

/// The rows to show of `rows` for a run whose best net after each iteration is `bests`
/// (iteration, best): one for each iteration and level, that of the most games (of as many,
/// the lowest seed's), leaving out rows of iterations the run does not have.
pub fn shown_levels(rows: &[LevelRow], bests: &[(usize, usize)]) -> Vec<LevelRow> {
    let mut shown: Vec<LevelRow> = Vec::new();
    for row in rows {
        if !bests.contains(&(row.iteration, row.best)) {
            continue;
        }
        match shown
            .iter_mut()
            .find(|kept| (kept.iteration, kept.level) == (row.iteration, row.level))
        {
            Some(kept)
                if (row.games, std::cmp::Reverse(row.seed))
                    > (kept.games, std::cmp::Reverse(kept.seed)) =>
            {
                *kept = row.clone()
            }
            Some(_) => {}
            None => shown.push(row.clone()),
        }
    }
    shown.sort_by_key(|row| (row.iteration, row.level));
    shown
}

/// A score as a percentage rounded to a tenth, halves up: as the command line prints it and
/// the web page shows it (the same sum in `percent`), so that both say the same. A score is
/// a count over at most 200,000 halves, so a half is a half to far better than the 1e-6
/// added, which keeps one that the product lands just under (0.5025 × 1000) from rounding
/// down.
pub fn tenths_of_percent(score: f64) -> f64 {
    (score * 1000.0 + 1e-6).round() / 10.0 + 0.0
}

/// `levels.csv`'s text for `rows` (its header even with no row).
pub fn levels_csv(rows: &[LevelRow]) -> String {
    let mut writer = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    writer
        .write_record(COLUMNS)
        .expect("rows serialize into memory");
    for row in rows {
        writer.serialize(row).expect("rows serialize into memory");
    }
    String::from_utf8(writer.into_inner().expect("an in-memory writer flushes"))
        .expect("the rows are text")
}

/// The best net after each iteration of a run whose iterations are `iterations`, from the
/// random one it started from: (iteration, best).
pub fn bests(iterations: &[super::Iteration]) -> Vec<(usize, usize)> {
    std::iter::once((0, 0))
        .chain(iterations.iter().map(|row| (row.iteration, row.best)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(level: u8, wins: u32, draws: u32, losses: u32) -> LevelRow {
        let games = wins + draws + losses;
        LevelRow {
            iteration: 3,
            best: 2,
            net: "0123456789abcdef".to_owned(),
            level,
            games,
            seed: 7,
            wins,
            draws,
            losses,
            score: (f64::from(wins) + f64::from(draws) / 2.0) / f64::from(games),
        }
    }

    /// The file reads back as written, and rows that cannot be a level's result are
    /// refused, as is a file of other columns (the red team's one line of text, which
    /// read as an empty file and was written over).
    #[test]
    fn levels_csv_round_trips_and_refuses_what_is_not_a_result() {
        let rows = vec![row(1, 3, 1, 16), row(3, 0, 0, 20)];
        let text = levels_csv(&rows);
        assert!(text.starts_with(&format!("{}\n", COLUMNS.join(","))));
        assert_eq!(parse_levels(&text).unwrap(), rows);
        assert_eq!(parse_levels(&levels_csv(&[])).unwrap(), []);
        for bad in [row(10, 1, 0, 1), row(0, 1, 0, 1)] {
            assert!(
                parse_levels(&levels_csv(std::slice::from_ref(&bad))).is_err(),
                "{bad:?}"
            );
        }
        let mut miscounted = row(1, 3, 1, 16);
        miscounted.games = 21;
        assert!(parse_levels(&levels_csv(&[miscounted])).is_err());
        let mut misscored = row(1, 1, 0, 3);
        misscored.score = 0.1;
        assert!(parse_levels(&levels_csv(&[misscored])).is_err());
        for other in ["iteration,best\n1,2\n", "precious\n", ""] {
            assert!(parse_levels(other).is_err(), "{other:?}");
        }
    }

    /// One row shown for each iteration and level, that of the most games, and none of an
    /// iteration the run does not have.
    #[test]
    fn the_rows_shown_are_the_runs_with_the_most_games() {
        let mut few = row(1, 1, 0, 1);
        few.iteration = 1;
        few.best = 1;
        let mut many = row(1, 30, 0, 10);
        many.iteration = 1;
        many.best = 1;
        let mut stranger = row(1, 4, 0, 0);
        stranger.iteration = 1;
        stranger.best = 0;
        let mut beyond = row(3, 4, 0, 0);
        beyond.iteration = 99;
        let other_level = {
            let mut row = row(3, 1, 0, 1);
            row.iteration = 1;
            row.best = 1;
            row
        };
        let rows = [
            few.clone(),
            stranger,
            many.clone(),
            beyond,
            other_level.clone(),
        ];
        let shown = shown_levels(&rows, &[(0, 0), (1, 1), (2, 1)]);
        assert_eq!(shown, [many.clone(), other_level]);
        // Of as many games, the lowest seed's, wherever it stands in the file.
        let mut lower_seed = many.clone();
        lower_seed.seed = 3;
        for rows in [
            [many.clone(), lower_seed.clone()],
            [lower_seed.clone(), many.clone()],
        ] {
            assert_eq!(shown_levels(&rows, &[(1, 1)]), [lower_seed.clone()]);
        }
        assert_eq!(tenths_of_percent(0.3625), 36.3);
        assert_eq!(
            tenths_of_percent(0.5025),
            50.3,
            "100 wins and a draw in 200 games"
        );
        assert_eq!(tenths_of_percent(0.5024), 50.2);
        assert_eq!(tenths_of_percent(-0.0).to_string(), "0");
    }
}
