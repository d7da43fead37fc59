//! `othello train error`: how far evaluations' static scores are from the labels of a test
//! set, phase by phase, side by side: the held-out error that compares two generations
//! fitted on different positions (each fit's own held-out games differ).

use std::{io::Write, path::PathBuf};

use clap::Args;
use othello::{
    engine::pattern::phase_of,
    training::{Label, Sample, measure::static_score, phases_for},
};
use rayon::prelude::*;

use super::{evaluator_for, open_finished, read_error};
use crate::cli::CliError;

/// The most evaluations compared at once.
const MAX_COLUMNS: usize = 16;

#[derive(Debug, Args)]
pub(super) struct ErrorArgs {
    /// Labelled positions none of the evaluations was fitted to (a label or selfplay
    /// --result-labels output of games of their own; unlabelled positions are skipped).
    #[arg(long = "in", value_name = "FILE")]
    input: PathBuf,
    /// An evaluation to measure: a weights file, classic, or built-in (may be given up to
    /// 16 times: one column each).
    #[arg(long, value_name = "FILE|classic|built-in", required = true)]
    weights: Vec<String>,
}

impl ErrorArgs {
    pub(super) fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        if self.weights.len() > MAX_COLUMNS {
            return Err(CliError::Usage {
                message: format!(
                    "{} evaluations: at most {MAX_COLUMNS} at a time (each is held in memory)",
                    self.weights.len()
                ),
            });
        }
        let (reader, header) = open_finished(&self.input)?;
        let kind = header.kind;
        let samples: Vec<Sample> = reader
            .read_rest()
            .map_err(read_error(&self.input))?
            .into_iter()
            .filter(|sample| sample.label != Label::None)
            .collect();
        if samples.is_empty() {
            return Err(CliError::Usage {
                message: format!("{}: no labelled positions", self.input.display()),
            });
        }
        let evaluators = self
            .weights
            .iter()
            .map(|name| evaluator_for(Some(name), kind))
            .collect::<Result<Vec<_>, _>>()?;
        // The phases of the kind's fit, four plies each, whatever phases each evaluation has.
        let plies = kind.shape.cells() as u32 - 4;
        let phases = phases_for(kind.shape.cells());
        let columns = evaluators.len();
        // Per phase: positions, then the sum of absolute errors (discs) for each evaluation.
        let sums = samples
            .par_iter()
            .fold(
                || vec![(0u64, vec![0.0f64; columns]); phases],
                |mut sums, sample| {
                    let phase = phase_of(plies, phases, sample.empties());
                    let label = f64::from(sample.score) / f64::from(othello::engine::eval::DISC);
                    sums[phase].0 += 1;
                    for (sum, &eval) in sums[phase].1.iter_mut().zip(&evaluators) {
                        *sum += (static_score(sample, eval) - label).abs();
                    }
                    sums
                },
            )
            .reduce(
                || vec![(0u64, vec![0.0f64; columns]); phases],
                |mut a, b| {
                    for ((count, sum), (other_count, other_sum)) in a.iter_mut().zip(b) {
                        *count += other_count;
                        for (s, o) in sum.iter_mut().zip(other_sum) {
                            *s += o;
                        }
                    }
                    a
                },
            );
        writeln!(
            out,
            "{} labelled positions of {kind} in {}: mean absolute error of the static \
             evaluation, in discs",
            samples.len(),
            self.input.display()
        )?;
        for (number, name) in self.weights.iter().enumerate() {
            writeln!(out, "  [{}] {name}", number + 1)?;
        }
        write!(out, "phase  empties  positions")?;
        for number in 1..=columns {
            write!(out, "  {:>8}", format!("[{number}]"))?;
        }
        writeln!(out)?;
        let mut all = vec![0.0f64; columns];
        for (phase, (count, sum)) in sums.iter().enumerate() {
            let of_phase = || (0..=plies).filter(|&e| phase_of(plies, phases, e) == phase);
            let (least, most) = (of_phase().min().unwrap_or(0), of_phase().max().unwrap_or(0));
            write!(
                out,
                "{phase:>5}  {:>7}  {count:>9}",
                format!("{least}-{most}")
            )?;
            for (column, s) in sum.iter().enumerate() {
                all[column] += s;
                if *count == 0 {
                    write!(out, "  {:>8}", "-")?;
                } else {
                    write!(out, "  {:>8.2}", s / *count as f64)?;
                }
            }
            writeln!(out)?;
        }
        write!(out, "all    {:>16}", samples.len())?;
        for s in all {
            write!(out, "  {:>8.2}", s / samples.len() as f64)?;
        }
        writeln!(out)?;
        Ok(())
    }
}
