//! A run's record (its settings, every iteration's figures and the exact shares
//! `othello zero measure` found), from a run's directory or from the copy shipped with a
//! net, and its curve: what the command line draws and the web page shows beside the player.

use std::path::Path;

use super::{
    ExactRow, Iteration, ZeroError, ZeroSettings, curve_svg, parse_exact, parse_iterations,
    parse_state,
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
}

impl RunRecord {
    /// The record of a run from its three files' text: `zero.json`, `iterations.csv` and
    /// `exact.csv` (empty where never measured).
    ///
    /// # Errors
    /// If one of them is not such a file.
    pub fn parse(state: &str, iterations: &str, exact: &str) -> Result<RunRecord, ZeroError> {
        let (settings, best) = parse_state(state, Path::new("zero.json"))?;
        let iterations = parse_iterations(iterations, Path::new("iterations.csv"))?;
        let exact = if exact.trim().is_empty() {
            Vec::new()
        } else {
            parse_exact(exact)
                .map_err(|error| ZeroError::Settings(format!("exact.csv: {error}")))?
        };
        Ok(RunRecord {
            settings,
            best,
            iterations,
            exact,
        })
    }

    /// The record of the run that trained the net shipped for `kind`, if one is.
    pub fn shipped(kind: GameKind) -> Option<RunRecord> {
        let record = shipped_record(kind)?;
        Some(
            RunRecord::parse(record.state, record.iterations, record.exact)
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
        curve_svg(&self.title(), &self.iterations, &self.exact)
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
        }
        assert!(kinds > 0);
    }

    /// A record that is not one is refused, naming the file.
    #[test]
    fn a_broken_record_is_refused_by_file() {
        let record = shipped_record(shipped_kinds().next().unwrap()).unwrap();
        let broken_state = RunRecord::parse("{}", record.iterations, record.exact);
        assert!(broken_state.unwrap_err().to_string().contains("zero.json"));
        let broken_csv = RunRecord::parse(record.state, "iteration\nx\n", record.exact);
        assert!(
            broken_csv
                .unwrap_err()
                .to_string()
                .contains("iterations.csv")
        );
        let broken_exact = RunRecord::parse(record.state, record.iterations, "a,b\n1,2\n");
        assert!(broken_exact.unwrap_err().to_string().contains("exact.csv"));
        let unmeasured = RunRecord::parse(record.state, record.iterations, "").unwrap();
        assert!(unmeasured.exact.is_empty());
    }
}
