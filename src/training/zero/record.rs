//! A run's record (its settings, every iteration's figures, and the exact shares and
//! level scores `othello zero measure` found), from a run's directory or from the copy shipped with a
//! net, and its curve: what the command line draws and the web page shows beside the player.

use std::path::Path;

use super::{
    ExactRow, Iteration, LevelRow, ZeroError, ZeroSettings, bests, curve_svg, parse_exact,
    parse_iterations, parse_levels, parse_state, shown_levels,
};
use crate::{GameKind, engine::zero::shipped_record};

/// How a run went.
#[derive(Clone, Debug, PartialEq)]
pub struct RunRecord {
    /// Its settings.
    pub settings: ZeroSettings,
    /// The iteration whose net is the best.
    pub best: usize,
    /// Every finished iteration's figures.
    pub iterations: Vec<Iteration>,
    /// The best net's share of exact moves, where measured.
    pub exact: Vec<ExactRow>,
    /// The best net's scores against the `classic` levels, where measured: one row for
    /// each iteration and level ([`super::shown_levels`]).
    pub levels: Vec<LevelRow>,
}

impl RunRecord {
    /// The record of a run from its files' text: `zero.json`, `iterations.csv`,
    /// `exact.csv` and `levels.csv` (the last two empty where never measured).
    ///
    /// # Errors
    /// If one of them is not such a file.
    pub fn parse(
        state: &str,
        iterations: &str,
        exact: &str,
        levels: &str,
    ) -> Result<RunRecord, ZeroError> {
        let (settings, best) = parse_state(state, Path::new("zero.json"))?;
        let iterations = parse_iterations(iterations, Path::new("iterations.csv"))?;
        let exact = if exact.trim().is_empty() {
            Vec::new()
        } else {
            parse_exact(exact)
                .map_err(|error| ZeroError::Settings(format!("exact.csv: {error}")))?
        };
        let levels = if levels.trim().is_empty() {
            Vec::new()
        } else {
            let rows = parse_levels(levels)
                .map_err(|error| ZeroError::Settings(format!("levels.csv: {error}")))?;
            shown_levels(&rows, &bests(&iterations))
        };
        Ok(RunRecord {
            settings,
            best,
            iterations,
            exact,
            levels,
        })
    }

    /// The record of the run that trained the net shipped for `kind`, if one is.
    pub fn shipped(kind: GameKind) -> Option<RunRecord> {
        let record = shipped_record(kind)?;
        Some(
            RunRecord::parse(record.state, record.iterations, record.exact, record.levels)
                .expect("a shipped net's record is intact (a test reads each)"),
        )
    }

    /// The curve's title: the game, the net's size and the self-play of an iteration.
    pub fn title(&self) -> String {
        let settings = &self.settings;
        format!(
            "othello zero, {} {} {}: {} x {} net, {} games of {} simulations an iteration",
            settings.size,
            settings.rules.to_uppercase(),
            settings.win,
            settings.channels,
            settings.blocks,
            settings.games,
            settings.simulations
        )
    }

    /// The curve, as an SVG document.
    ///
    /// # Errors
    /// If the drawing fails (it draws into memory: only a bug makes it fail).
    pub fn curve_svg(&self) -> Result<String, String> {
        curve_svg(&self.title(), &self.iterations, &self.exact, &self.levels)
    }

    /// Seconds of training in all: self-play, fits and matches.
    pub fn seconds(&self) -> f64 {
        self.iterations
            .iter()
            .map(|row| row.selfplay_seconds + row.fit_seconds + row.match_seconds)
            .sum()
    }

    /// The last iteration's figures, if any finished.
    pub fn last(&self) -> Option<&Iteration> {
        self.iterations.last()
    }

    /// The last measured share of exact moves, if any.
    pub fn exact_share(&self) -> Option<&ExactRow> {
        self.exact.last()
    }

    /// The last measured score against each `classic` level, weakest first.
    pub fn last_levels(&self) -> Vec<&LevelRow> {
        let Some(last) = self.levels.iter().map(|row| row.iteration).max() else {
            return Vec::new();
        };
        let mut rows: Vec<&LevelRow> = self
            .levels
            .iter()
            .filter(|row| row.iteration == last)
            .collect();
        rows.sort_by_key(|row| row.level);
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::zero::shipped_kinds;

    /// Every shipped net's record reads, is for its net's kind, and draws.
    #[test]
    fn every_shipped_record_reads_and_draws() {
        let mut kinds = 0;
        for kind in shipped_kinds() {
            kinds += 1;
            let record = RunRecord::shipped(kind).expect("a record for each shipped net");
            assert_eq!(record.settings.kind().unwrap(), kind);
            let last = record.last().expect("iterations");
            assert_eq!(last.best, record.best, "{kind}");
            assert!(record.seconds() > 0.0);
            let svg = record.curve_svg().unwrap();
            assert!(svg.contains("<svg"), "{kind}");
            assert!(svg.contains(&record.settings.size), "{kind}");
            let levels = record.last_levels();
            assert!(!levels.is_empty(), "{kind}: measured against the levels");
            for row in levels {
                assert_eq!(
                    row.best, record.best,
                    "{kind}: the shipped net's own scores"
                );
                assert!(svg.contains(&format!("against classic:{}", row.level)));
            }
        }
        assert!(kinds > 0);
    }

    /// A record that is not one is refused, naming the file.
    #[test]
    fn a_broken_record_is_refused_by_file() {
        let record = shipped_record(shipped_kinds().next().unwrap()).unwrap();
        let (state, rows, exact, levels) =
            (record.state, record.iterations, record.exact, record.levels);
        let broken_state = RunRecord::parse("{}", rows, exact, levels);
        assert!(broken_state.unwrap_err().to_string().contains("zero.json"));
        let broken_csv = RunRecord::parse(state, "iteration\nx\n", exact, levels);
        assert!(
            broken_csv
                .unwrap_err()
                .to_string()
                .contains("iterations.csv")
        );
        let broken_exact = RunRecord::parse(state, rows, "a,b\n1,2\n", levels);
        assert!(broken_exact.unwrap_err().to_string().contains("exact.csv"));
        let broken_levels = RunRecord::parse(state, rows, exact, "a,b\n1,2\n");
        assert!(
            broken_levels
                .unwrap_err()
                .to_string()
                .contains("levels.csv")
        );
        let unmeasured = RunRecord::parse(state, rows, "", "").unwrap();
        assert!(unmeasured.exact.is_empty() && unmeasured.levels.is_empty());
    }
}
