//! `othello perft`: leaf counts of the game tree, depth by depth, with timings.

use std::{io::Write, path::PathBuf, time::Instant};

use clap::Args;
use othello::{Setup, Shape, Variant, engine::perft, on_rules};
use serde::Serialize;

use super::{CliError, Rules};

/// `othello perft DEPTH [--rules ..] [--position FILE] [--json]`.
#[derive(Debug, Args)]
pub struct PerftArgs {
    /// The deepest depth, in plies.
    #[arg(value_parser = clap::value_parser!(u32).range(1..=64))]
    depth: u32,
    /// Rule set.
    #[arg(long, value_enum, default_value_t = Rules::Full)]
    rules: Rules,
    /// A grader-format input: its header and board, with its first mover to move
    /// (default: the standard 8x8 start, Black to move).
    #[arg(long, value_name = "FILE")]
    position: Option<PathBuf>,
    /// JSON Lines: {"depth":d,"leaves":n,"seconds":s} per depth.
    #[arg(long)]
    json: bool,
}

impl PerftArgs {
    /// Counts and prints, depth by depth.
    ///
    /// # Errors
    /// [`CliError`] for a bad position file or failed output.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let setup = match &self.position {
            Some(path) => super::read_position(path)?,
            None => Setup::standard(Shape::STANDARD),
        };
        run(self.rules.into(), &setup, self.depth, self.json, out).map(drop)
    }
}

/// One depth's result.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PerftLine {
    /// The depth in plies.
    pub depth: u32,
    /// Leaves at that depth.
    pub leaves: u64,
    /// Time taken for this depth alone, in seconds.
    pub seconds: f64,
}

impl PerftLine {
    /// `depth leaves seconds rate`: the first two are plain integers, for scripts.
    pub fn text(&self) -> String {
        let rate = self.leaves as f64 / self.seconds.max(1e-9) / 1e6;
        format!(
            "{} {} {:.3}s {rate:.1} Mleaves/s",
            self.depth, self.leaves, self.seconds
        )
    }

    /// `{"depth":d,"leaves":n,"seconds":s}`.
    pub fn json(&self) -> String {
        let line = PerftLine {
            seconds: (self.seconds * 1e6).round() / 1e6,
            ..*self
        };
        serde_json::to_string(&line).expect("numbers always serialize")
    }
}

/// Counts leaves at every depth from 1 to `max_depth` from `setup` (its first mover to move),
/// writing one line per depth as soon as it is known.
///
/// # Errors
/// [`CliError::Write`] if the output fails.
fn run(
    variant: Variant,
    setup: &Setup,
    max_depth: u32,
    json: bool,
    out: &mut impl Write,
) -> Result<Vec<PerftLine>, CliError> {
    let mut lines = Vec::new();
    for depth in 1..=max_depth {
        let start = Instant::now();
        let leaves = on_rules!(variant, |R| perft::<R>(
            &setup.board,
            setup.first_mover,
            depth
        ));
        let line = PerftLine {
            depth,
            leaves,
            seconds: start.elapsed().as_secs_f64(),
        };
        writeln!(out, "{}", if json { line.json() } else { line.text() })?;
        out.flush()?;
        lines.push(line);
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_json() {
        let mut out = Vec::new();
        let lines = run(
            Variant::Full,
            &Setup::standard(Shape::STANDARD),
            3,
            true,
            &mut out,
        )
        .unwrap();
        assert_eq!(
            lines.iter().map(|l| l.leaves).collect::<Vec<_>>(),
            [4, 12, 56]
        );
        let text = String::from_utf8(out).unwrap();
        let first = text.lines().next().unwrap();
        assert!(
            first.starts_with("{\"depth\":1,\"leaves\":4,\"seconds\":"),
            "{first}"
        );
        assert!(lines[0].text().starts_with("1 4 "));
    }
}
