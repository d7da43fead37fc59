//! `othello gen`: writes reproducible grader inputs (and with `--expect` the reference
//! outputs) covering every situation of the grader protocol (see
//! [`othello::grading::scenario`]).

use std::{
    fs,
    io::Write,
    path::{Path, PathBuf},
};

use clap::Args;
use othello::grading::scenario::{
    GenOptions, ScenarioKind, expected_output, generate, parse_kinds, parse_sizes,
};

use super::{CliError, Rules};

/// `othello gen --count N [--seed S] [--rules ..] [--sizes LIST|all] [--kind LIST|all]
/// [--invalid-rate P] [--truncate] [--edge-cases] [--out DIR] [--expect]`.
#[derive(Debug, Args)]
pub struct GenArgs {
    /// Scenarios to write.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    count: u32,
    /// Seed: the same seed writes the same files.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Rule set the scenarios are for.
    #[arg(long, value_enum, default_value_t = Rules::Full)]
    rules: Rules,
    /// Board sizes, rows x columns, even: 4x4,8x8,16x12 or all.
    #[arg(long, value_name = "LIST|all", default_value = "8x8")]
    sizes: String,
    /// Scenario kinds: standard,random,stuck-first,over-at-start,passes,nearly-full,tie
    /// or all.
    #[arg(long, value_name = "LIST|all", default_value = "all")]
    kind: String,
    /// Probability of invalid move lines before each move (occupied, out of range,
    /// flipping nothing, malformed), from 0 to 1.
    #[arg(
        long,
        value_name = "P",
        default_value = "0.1",
        value_parser = probability,
        allow_hyphen_values = true
    )]
    invalid_rate: f64,
    /// Let some scenarios stop before the game is over (the grader then exits 3).
    #[arg(long)]
    truncate: bool,
    /// Also write lines whose verdict is this program's own choice where the course's
    /// spec is silent (over-long lines, unusual whitespace, non-ASCII digits, padded
    /// moves). They test this program's documented choices, not the course's: a
    /// correct student program may answer them differently. Without it, every invalid
    /// line is refused by every reasonable reading of the spec and every move is
    /// written "row column".
    #[arg(long)]
    edge_cases: bool,
    /// Directory to write into (created if missing).
    #[arg(long, value_name = "DIR", default_value = ".")]
    out: PathBuf,
    /// Also write the reference output of each scenario (NNNN.out).
    #[arg(long)]
    expect: bool,
}

impl GenArgs {
    /// Writes the scenarios and prints a summary.
    ///
    /// # Errors
    /// [`CliError::Usage`] for a bad size or kind list, [`CliError::WriteFile`] or
    /// [`CliError::Write`] when writing fails.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let usage = |message: String| CliError::Usage { message };
        let options = GenOptions {
            variant: self.rules.into(),
            sizes: parse_sizes(&self.sizes).map_err(|error| usage(error.to_string()))?,
            kinds: parse_kinds(&self.kind).map_err(|error| usage(error.to_string()))?,
            invalid_rate: self.invalid_rate,
            truncate: self.truncate,
            seed: self.seed,
            edge_cases: self.edge_cases,
        };
        run(&options, self.count, &self.out, self.expect, out)
    }
}

/// A probability: a number from 0 to 1.
fn probability(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number"))?;
    if !(0.0..=1.0).contains(&value) {
        return Err(format!(
            "{text:?} is out of range: give a number from 0 to 1"
        ));
    }
    Ok(value)
}

/// Writes `count` scenarios of the run described by `options` into `out_dir` (created if
/// missing): `0001.in`, `0002.in`, ... (more digits when `count` exceeds 9999), file `N`
/// holding scenario `N - 1` of [`generate`]. With `expect`, writes beside each input the
/// reference's stdout for it as `NNNN.out` (exactly what the grader protocol prints; the exit
/// status is 0, or 3 for a scenario that stops before the end of the game). Then prints a
/// summary to `out`: one line per kind of `options.kinds` with its count (and how many were
/// truncated, when truncation is on), then `wrote N scenarios to DIR`.
///
/// # Errors
/// [`CliError::WriteFile`] if the directory or a file cannot be written,
/// [`CliError::Write`] if `out` fails.
///
/// # Panics
/// As [`generate`]: if `options` has no sizes or no kinds, or an odd size.
fn run(
    options: &GenOptions,
    count: u32,
    out_dir: &Path,
    expect: bool,
    out: &mut impl Write,
) -> Result<(), CliError> {
    fs::create_dir_all(out_dir).map_err(|source| CliError::WriteFile {
        path: out_dir.to_owned(),
        source,
    })?;
    let width = count.to_string().len().max(4);
    let mut made = [0u32; ScenarioKind::ALL.len()];
    let mut truncated = [0u32; ScenarioKind::ALL.len()];
    for number in 1..=count {
        let scenario = generate(options, u64::from(number - 1));
        let name = format!("{number:0width$}");
        write_file(
            &out_dir.join(format!("{name}.in")),
            scenario.input.as_bytes(),
        )?;
        if expect {
            let (output, _status) = expected_output(options.variant, scenario.input.as_bytes());
            write_file(&out_dir.join(format!("{name}.out")), &output)?;
        }
        let slot = kind_index(scenario.kind);
        made[slot] += 1;
        truncated[slot] += u32::from(!scenario.complete);
    }
    let name_width = ScenarioKind::ALL
        .iter()
        .map(|kind| kind.name().len())
        .max()
        .unwrap_or(0);
    for kind in ScenarioKind::ALL {
        if !options.kinds.contains(&kind) {
            continue;
        }
        let slot = kind_index(kind);
        write!(out, "{:name_width$}  {:>5}", kind.name(), made[slot])?;
        if options.truncate && kind.can_truncate() {
            write!(out, "  ({} truncated)", truncated[slot])?;
        }
        writeln!(out)?;
    }
    let noun = if count == 1 { "scenario" } else { "scenarios" };
    writeln!(out, "wrote {count} {noun} to {}", out_dir.display())?;
    out.flush()?;
    Ok(())
}

fn kind_index(kind: ScenarioKind) -> usize {
    ScenarioKind::ALL
        .iter()
        .position(|&k| k == kind)
        .expect("every kind is in ALL")
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    fs::write(path, bytes).map_err(|source| CliError::WriteFile {
        path: PathBuf::from(path),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello::Variant;

    #[test]
    fn writes_numbered_files_and_a_summary() {
        let dir = tempfile::tempdir().unwrap();
        let out_dir = dir.path().join("new").join("dir");
        let options = GenOptions {
            variant: Variant::Simple,
            kinds: vec![ScenarioKind::Tie, ScenarioKind::Passes],
            truncate: true,
            ..GenOptions::default()
        };
        let mut out = Vec::new();
        run(&options, 3, &out_dir, false, &mut out).unwrap();
        let mut names: Vec<String> = fs::read_dir(&out_dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["0001.in", "0002.in", "0003.in"]);
        let passes_truncated = u32::from(!generate(&options, 1).complete);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                "passes             1  ({passes_truncated} truncated)\n\
                 tie                2\n\
                 wrote 3 scenarios to {}\n",
                out_dir.display()
            )
        );
    }

    #[test]
    fn an_unwritable_directory_is_an_error_with_status_1() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        fs::write(&file, "").unwrap();
        let error = run(&GenOptions::default(), 1, &file, false, &mut Vec::new()).unwrap_err();
        assert_eq!(error.exit_status(), 1);
        assert!(
            error
                .to_string()
                .starts_with(&format!("cannot write {}: ", file.display()))
        );
    }
}
