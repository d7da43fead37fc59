//! `othello train run`: one generation end to end (self-play, labels, fit, the selective
//! search's model) for any kind of game, in one directory, resumable, with its progress and
//! what each step cost kept in `run.json` there.

use std::{
    io::Write,
    path::{Path, PathBuf},
    time::Instant,
};

use clap::{Args, FromArgMatches};
use othello::engine::{Selectivity, search::probcut::CutModel};
use serde::{Deserialize, Serialize};

use super::{
    FitArgs, KindArgs, LabelArgs, MIN_PROBCUT_POSITIONS, ProbcutArgs, SelfPlayArgs, load_weights,
    open_samples, read_error, write_error, write_file,
};
use crate::cli::CliError;

#[derive(Debug, Args)]
pub(super) struct RunArgs {
    /// The run's directory: positions.bin, labelled.bin, weights.bin, probcut.json and
    /// run.json go there (made if need be). Run again with the same options, the run goes
    /// on where it stopped.
    #[arg(long, value_name = "DIR")]
    dir: PathBuf,
    #[command(flatten)]
    kind: KindArgs,
    /// Games of self-play.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    games: u32,
    /// Seed of the games and of the fit's held-out games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Depth of the self-play's searches.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=20))]
    depth: u32,
    /// Positions with at most this many empty squares are labelled exactly.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(0..=26))]
    exact: u32,
    /// The others get the score of a search this deep.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=20))]
    label_depth: u32,
    /// How selective that search is (percent; 100: full width).
    #[arg(long, value_name = "PERCENT", default_value_t = Selectivity::NONE)]
    selectivity: Selectivity,
    /// The evaluation self-play and labels use: the generation before's weights file, or
    /// classic (the first generation), or built-in.
    #[arg(long, value_name = "FILE|classic|built-in", default_value = "classic")]
    weights: String,
    /// Midgame positions the selective search's model is measured on (half as many
    /// endgame positions are solved for it).
    #[arg(long, value_name = "N", default_value_t = PROBCUT_POSITIONS, value_parser = clap::value_parser!(u32).range(2 * MIN_PROBCUT_POSITIONS as i64..))]
    probcut_positions: u32,
    /// The deepest midgame search of that model (6 at least).
    #[arg(long, value_name = "DEPTH", default_value_t = PROBCUT_DEPTH, value_parser = clap::value_parser!(u32).range(6..=20))]
    probcut_depth: u32,
}

const PROBCUT_POSITIONS: u32 = 500;
const PROBCUT_DEPTH: u32 = 10;

/// `run.json`: the options of the run and what each step has cost so far.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
struct RunFile {
    format: String,
    version: u32,
    /// The options, as the command line gave them: a run goes on only with the same.
    options: Vec<String>,
    /// Steps finished, in order.
    finished: Vec<String>,
    /// Seconds of each step, summed over the runs that worked on it.
    seconds: Vec<(String, f64)>,
}

impl RunFile {
    const FORMAT: &str = "othello training run";
    const VERSION: u32 = 1;

    fn read(path: &Path) -> Result<Option<RunFile>, CliError> {
        if !path.exists() {
            return Ok(None);
        }
        let text =
            crate::files::read_text(path, crate::files::LIST_FILE).map_err(read_error(path))?;
        let file: RunFile = serde_json::from_str(&text).map_err(|error| CliError::Usage {
            message: format!("{}: not a training run's file ({error})", path.display()),
        })?;
        if file.format != Self::FORMAT || file.version != Self::VERSION {
            return Err(CliError::Usage {
                message: format!("{}: not a training run's file", path.display()),
            });
        }
        Ok(Some(file))
    }

    fn write(&self, path: &Path) -> Result<(), CliError> {
        let text = serde_json::to_string_pretty(self).expect("a run file serializes");
        write_file(path, format!("{text}\n").as_bytes())
    }

    fn add_seconds(&mut self, step: &str, seconds: f64) {
        match self.seconds.iter_mut().find(|(name, _)| name == step) {
            Some((_, total)) => *total += seconds,
            None => self.seconds.push((step.to_owned(), seconds)),
        }
    }
}

impl RunArgs {
    /// The options that decide the run's files, as words.
    fn options(&self) -> Vec<String> {
        let kind = self.kind.kind();
        vec![
            format!("kind {kind}"),
            format!("games {}", self.games),
            format!("seed {}", self.seed),
            format!("depth {}", self.depth),
            format!("exact {}", self.exact),
            format!("label-depth {}", self.label_depth),
            format!("selectivity {}", self.selectivity),
            format!("weights {}", self.weights),
            format!("probcut-positions {}", self.probcut_positions),
            format!("probcut-depth {}", self.probcut_depth),
        ]
    }

    /// Whether a run begun with `before` goes on with these options: the same, or the
    /// same before the selective search's model was a step and that model's at its
    /// defaults.
    fn goes_on(&self, before: &[String]) -> bool {
        let options = self.options();
        before == options
            || (self.probcut_positions == PROBCUT_POSITIONS
                && self.probcut_depth == PROBCUT_DEPTH
                && before.len() + 2 == options.len()
                && options.starts_with(before))
    }

    pub(super) fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let usage = |message: String| Err(CliError::Usage { message });
        if self.dir.exists() && !self.dir.is_dir() {
            return usage(format!("--dir {}: not a directory", self.dir.display()));
        }
        std::fs::create_dir_all(&self.dir).map_err(write_error(&self.dir))?;
        if !matches!(self.weights.as_str(), "classic" | "built-in") {
            for name in OUTPUTS {
                if crate::cli::output::same_file(Path::new(&self.weights), &self.dir.join(name)) {
                    return usage(format!(
                        "--weights {} is this run's own {name}: give the generation before's \
                         weights (copy them elsewhere first)",
                        self.weights
                    ));
                }
            }
        }
        // One run at a time in a directory: a second would write the same files.
        let lock_path = self.dir.join("run.lock");
        let lock = std::fs::File::create(&lock_path).map_err(write_error(&lock_path))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return usage(format!(
                    "another train run is working in {}: let it finish (or stop it) first",
                    self.dir.display()
                ));
            }
            Err(std::fs::TryLockError::Error(error)) => {
                return Err(write_error(&lock_path)(error));
            }
        }
        let run_path = self.dir.join("run.json");
        let options = self.options();
        let mut run = match RunFile::read(&run_path)? {
            Some(run) if !self.goes_on(&run.options) => {
                return usage(format!(
                    "{} holds a run with other options ({}), not these ({}): give the same \
                     options to go on with it, or another --dir",
                    self.dir.display(),
                    run.options.join(", "),
                    options.join(", ")
                ));
            }
            Some(run) => RunFile { options, ..run },
            None => RunFile {
                format: RunFile::FORMAT.to_owned(),
                version: RunFile::VERSION,
                options,
                ..RunFile::default()
            },
        };
        run.write(&run_path)?;
        let path = |name: &str| self.dir.join(name).display().to_string();
        let kind = self.kind.kind();
        let mut evaluation = vec![];
        if self.weights != "built-in" {
            evaluation = vec!["--weights".to_owned(), self.weights.clone()];
        }
        let words = |list: &[&str]| -> Vec<String> {
            list.iter()
                .map(|word| (*word).to_owned())
                .chain(evaluation.iter().cloned())
                .collect()
        };
        let (games, seed, depth) = (
            self.games.to_string(),
            self.seed.to_string(),
            self.depth.to_string(),
        );
        let (exact, label_depth, selectivity) = (
            self.exact.to_string(),
            self.label_depth.to_string(),
            self.selectivity.to_string(),
        );
        let (rules, size, win) = (
            kind.variant.name(),
            kind.shape.to_string(),
            kind.rule.name(),
        );
        let selfplay = words(&[
            "--out",
            &path("positions.bin"),
            "--rules",
            rules,
            "--size",
            &size,
            "--win",
            win,
            "--games",
            &games,
            "--seed",
            &seed,
            "--depth",
            &depth,
        ]);
        let label = words(&[
            "--in",
            &path("positions.bin"),
            "--out",
            &path("labelled.bin"),
            "--exact",
            &exact,
            "--depth",
            &label_depth,
            "--selectivity",
            &selectivity,
        ]);
        let fit: Vec<String> = [
            "--in",
            &path("labelled.bin"),
            "--out",
            &path("weights.bin"),
            "--seed",
            &seed,
        ]
        .iter()
        .map(|word| (*word).to_owned())
        .collect();
        let probcut_exact = self.exact.clamp(13, 20).to_string();
        let (probcut_positions, probcut_endgame, probcut_depth) = (
            self.probcut_positions.to_string(),
            (self.probcut_positions / 2).to_string(),
            self.probcut_depth.to_string(),
        );
        let probcut: Vec<String> = [
            "--in",
            &path("positions.bin"),
            "--out",
            &path("probcut.json"),
            "--weights",
            &path("weights.bin"),
            "--positions",
            &probcut_positions,
            "--endgame-positions",
            &probcut_endgame,
            "--depth",
            &probcut_depth,
            "--exact",
            &probcut_exact,
            "--seed",
            &seed,
        ]
        .iter()
        .map(|word| (*word).to_owned())
        .collect();
        let samples = |path: &Path, finished: bool| {
            open_samples(path)
                .ok()
                .and_then(|reader| reader.header())
                .is_some_and(|header| {
                    header.kind == kind && (!finished || header.complete || header.run == 0)
                })
        };
        // A step that runs again makes every later one run again (on its new input).
        let mut ran = step(
            &mut run,
            &run_path,
            "selfplay",
            &self.dir.join("positions.bin"),
            out,
            false,
            &samples,
            |out| parsed::<SelfPlayArgs>("selfplay", &selfplay)?.run(out),
        )?;
        ran |= step(
            &mut run,
            &run_path,
            "label",
            &self.dir.join("labelled.bin"),
            out,
            ran,
            &samples,
            |out| parsed::<LabelArgs>("label", &label)?.run(out),
        )?;
        let weights = |path: &Path, _: bool| {
            load_weights(path).is_ok_and(|eval| crate::cli::weights_file_kind(eval) == kind)
        };
        ran |= step(
            &mut run,
            &run_path,
            "fit",
            &self.dir.join("weights.bin"),
            out,
            ran,
            &weights,
            |out| parsed::<FitArgs>("fit", &fit)?.run(out),
        )?;
        // A midgame position has 15 empty squares or more, 8 fewer than the board at most.
        if kind.shape.cells() < 23 {
            writeln!(
                out,
                "probcut: no model on a board of {} squares (too few for a midgame)",
                kind.shape.cells()
            )?;
        } else {
            let model = |path: &Path, _: bool| {
                crate::files::read_text(path, crate::files::GAME_FILE)
                    .ok()
                    .and_then(|text| serde_json::from_str::<CutModel>(&text).ok())
                    .is_some_and(|model| {
                        model.version == CutModel::VERSION && model.kind() == kind.to_string()
                    })
            };
            step(
                &mut run,
                &run_path,
                "probcut",
                &self.dir.join("probcut.json"),
                out,
                ran,
                &model,
                |out| parsed::<ProbcutArgs>("probcut", &probcut)?.run(out),
            )?;
        }
        let seconds: Vec<String> = run
            .seconds
            .iter()
            .map(|(name, seconds)| format!("{name} {seconds:.1} s"))
            .collect();
        writeln!(
            out,
            "{kind}: {} -> {}",
            seconds.join(", "),
            path("weights.bin")
        )?;
        Ok(())
    }
}

/// The files a run writes in its directory.
const OUTPUTS: [&str; 4] = [
    "positions.bin",
    "labelled.bin",
    "weights.bin",
    "probcut.json",
];

/// Runs step `name` unless the run has finished it (and no step before it ran again:
/// `stale`), adding its time to the run's file; whether it ran. `intact` says whether the
/// step's `output` is its own (and, given `true`, finished): a file gone, damaged or of
/// another kind of game is made again.
#[allow(clippy::too_many_arguments)]
fn step<W: Write>(
    run: &mut RunFile,
    run_path: &Path,
    name: &str,
    output: &Path,
    out: &mut W,
    stale: bool,
    intact: &dyn Fn(&Path, bool) -> bool,
    body: impl FnOnce(&mut W) -> Result<(), CliError>,
) -> Result<bool, CliError> {
    if stale {
        run.finished.retain(|done| done != name);
    }
    let finished = run.finished.iter().any(|done| done == name);
    if std::fs::symlink_metadata(output).is_ok() && !intact(output, finished) {
        if crate::files::is_irregular(output) {
            return Err(CliError::Usage {
                message: format!("{}: not a regular file, so not replaced", output.display()),
            });
        }
        writeln!(
            out,
            "{name}: {} is not this run's (damaged, or of another kind of game): made again",
            output.display()
        )?;
        std::fs::remove_file(output).map_err(write_error(output))?;
    }
    if finished {
        if output.exists() {
            writeln!(out, "{name}: done before")?;
            return Ok(false);
        }
        // Its file is gone: the step runs again.
        run.finished.retain(|done| done != name);
    }
    let start = Instant::now();
    let result = body(out);
    run.add_seconds(name, start.elapsed().as_secs_f64());
    if result.is_ok() {
        run.finished.push(name.to_owned());
    }
    run.write(run_path)?;
    result.map(|()| true)
}

/// A step's options from its command-line words: the step's own defaults apply.
fn parsed<A: Args + FromArgMatches>(name: &'static str, words: &[String]) -> Result<A, CliError> {
    let command = A::augment_args(clap::Command::new(name).no_binary_name(true));
    command
        .try_get_matches_from(words)
        .and_then(|matches| A::from_arg_matches(&matches))
        .map_err(|error| CliError::Usage {
            message: format!("train {name}: {error}"),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> RunArgs {
        let words: Vec<String> = words.iter().map(|word| (*word).to_owned()).collect();
        parsed::<RunArgs>("run", &words).expect("options")
    }

    #[test]
    fn a_run_begun_before_the_probcut_step_goes_on_at_its_defaults_only() {
        let run = args(&["--dir", "d", "--games", "10"]);
        let options = run.options();
        assert!(run.goes_on(&options));
        let before = &options[..options.len() - 2];
        assert!(run.goes_on(before));
        assert!(!run.goes_on(&options[..options.len() - 3]));
        let deeper = args(&["--dir", "d", "--games", "10", "--probcut-depth", "12"]);
        assert!(!deeper.goes_on(before));
        assert!(deeper.goes_on(&deeper.options()));
        let more = args(&["--dir", "d", "--games", "11"]);
        assert!(!more.goes_on(before));
    }
}
