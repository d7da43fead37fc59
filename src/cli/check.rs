//! `othello check`: runs a program on grader cases like the course's harness and reports
//! every failure with its class and context, a summary table, or a JSON report.

use std::{
    collections::BTreeMap,
    io::Write,
    path::{Path, PathBuf},
    sync::atomic::{AtomicUsize, Ordering},
    time::Duration,
};

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use othello::{
    Variant,
    grading::check::{
        Case, CaseReport, CheckOptions, Class, Failure, Mode, RulesChoice, check_case,
        generated_cases, visible,
    },
};
use serde::Serialize;

use super::CliError;

/// `othello check --program CMD (CASES... | --generate N [--seed S]) [--rules ..]
/// [--timeout SECS] [--jobs J] [--piped] [--save-failures DIR] [--json]`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The program to check, with its arguments (split like a shell would, without
    /// running one): "python3 student.py".
    #[arg(long, value_name = "CMD")]
    program: String,
    /// Grader inputs to run (.in files).
    #[arg(value_name = "CASES", required_unless_present = "generate")]
    cases: Vec<PathBuf>,
    /// Instead of files, generate this many cases (as `othello gen` does, all kinds,
    /// sizes 4x4 to 16x16, some invalid lines) for the program's rules.
    #[arg(long, value_name = "N", conflicts_with = "cases", value_parser = clap::value_parser!(u32).range(1..))]
    generate: Option<u32>,
    /// Seed for --generate (default 1).
    #[arg(long, value_name = "S", requires = "generate")]
    seed: Option<u64>,
    /// Rules to check against: full, simple, or auto (those the program's first line
    /// names).
    #[arg(long, value_enum, default_value_t = CheckRules::Auto)]
    rules: CheckRules,
    /// Longest wait for each expected piece of output, in seconds (more than 0, at most
    /// 3600).
    #[arg(
        long,
        value_name = "SECS",
        default_value = "5",
        value_parser = seconds,
        allow_hyphen_values = true
    )]
    timeout: Duration,
    /// Cases run at the same time (1 to 256).
    #[arg(long, value_name = "J", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    jobs: u16,
    /// Send each case's whole input at once instead of line by line.
    #[arg(long)]
    piped: bool,
    /// Write each failing case's input, cut at the failure, into this directory.
    #[arg(long, value_name = "DIR")]
    save_failures: Option<PathBuf>,
    /// One JSON object: {"cases":n,"passed":p,"failed":f,"by_class":{..},"results":[..]}.
    #[arg(long)]
    json: bool,
}

/// The rules to check against, on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum CheckRules {
    Full,
    Simple,
    Auto,
}

/// The shortest wait for a program's output: starting a program (an interpreter, inside a
/// sandbox) takes a good part of it, so a shorter one would blame correct programs.
pub(super) const MIN_WAIT: f64 = 0.5;

/// A wait for output in seconds: finite, from [`MIN_WAIT`] to an hour.
pub(super) fn seconds(text: &str) -> Result<Duration, String> {
    seconds_within(text, MIN_WAIT, 3600.0)
}

/// A number of seconds from `least` to `most`.
pub(super) fn seconds_within(text: &str, least: f64, most: f64) -> Result<Duration, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if !value.is_finite() || value > most {
        return Err(format!(
            "{text:?} is out of range: give {least} to {most} seconds"
        ));
    }
    if value < least {
        return Err(format!(
            "{text:?} is too short: starting a program takes part of it (give at least \
             {least} seconds)"
        ));
    }
    Ok(Duration::from_secs_f64(value))
}

impl CheckArgs {
    /// Runs the cases and prints the report.
    ///
    /// # Errors
    /// [`CliError`]: bad arguments, a program that cannot be started, failed cases or
    /// output.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        // clap's `requires` is not enforced beside `required_unless_present`.
        if self.seed.is_some() && self.generate.is_none() {
            return Err(CliError::Usage {
                message: "--seed applies only to --generate N: the cases given are run as \
                          they are"
                    .to_owned(),
            });
        }
        let program = shell_words::split(&self.program).map_err(|error| CliError::Usage {
            message: format!("--program: {error}"),
        })?;
        let rules = match self.rules {
            CheckRules::Full => RulesChoice::Fixed(Variant::Full),
            CheckRules::Simple => RulesChoice::Fixed(Variant::Simple),
            CheckRules::Auto => RulesChoice::Auto,
        };
        let cases = match self.generate {
            Some(count) => {
                generated_cases(&program, rules, count, self.seed.unwrap_or(1), self.timeout)?
            }
            None => read_cases(&self.cases)?,
        };
        let run = CheckRun {
            options: CheckOptions {
                program,
                rules,
                mode: if self.piped {
                    Mode::Piped
                } else {
                    Mode::Interactive
                },
                line_timeout: self.timeout,
                case_limit: None,
                confinement: None,
            },
            cases,
            jobs: usize::from(self.jobs),
            save_failures: self.save_failures,
            json: self.json,
        };
        self::run(&run, out).map(drop)
    }
}

/// A whole run.
#[derive(Clone, Debug)]
struct CheckRun {
    /// How to run and judge the program.
    pub options: CheckOptions,
    /// The cases, in report order.
    pub cases: Vec<Case>,
    /// Cases run at the same time.
    pub jobs: usize,
    /// Where to write the input of each failing case, cut at its failure.
    pub save_failures: Option<PathBuf>,
    /// One JSON object instead of text.
    pub json: bool,
}

/// What a run found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct CheckSummary {
    /// Cases run.
    pub cases: usize,
    /// Cases passed.
    pub passed: usize,
    /// Failed cases per class.
    pub failed: BTreeMap<Class, usize>,
}

/// Reads the cases from files (named by their paths as given).
///
/// # Errors
/// [`CliError::Read`] for a file that cannot be read.
fn read_cases(paths: &[PathBuf]) -> Result<Vec<Case>, CliError> {
    paths
        .iter()
        .map(|path| {
            let input =
                crate::files::read_limited(path, crate::files::LIST_FILE).map_err(|source| {
                    CliError::Read {
                        path: path.clone(),
                        source,
                    }
                })?;
            Ok(Case {
                name: path.display().to_string(),
                input,
            })
        })
        .collect()
}

/// Runs every case and prints the report: each failure, then the summary table (or with
/// `json` one object). A progress bar is drawn on stderr when it is a terminal.
///
/// # Errors
/// [`CliError::CasesFailed`] after the report if any case failed;
/// [`CliError::Check`] if the program cannot be started; [`CliError::WriteFile`]
/// if a failing input cannot be saved; [`CliError::Write`] if the output fails.
fn run(run: &CheckRun, out: &mut impl Write) -> Result<CheckSummary, CliError> {
    let reports = run_all(run)?;
    let mut summary = CheckSummary {
        cases: reports.len(),
        ..CheckSummary::default()
    };
    for report in &reports {
        match &report.failure {
            None => summary.passed += 1,
            Some(failure) => *summary.failed.entry(failure.class).or_default() += 1,
        }
    }
    let mut saved = BTreeMap::new();
    if let Some(dir) = &run.save_failures {
        for report in &reports {
            if let Some(failure) = &report.failure {
                saved.insert(
                    report.name.clone(),
                    save_failure(dir, &report.name, failure)?,
                );
            }
        }
    }
    if run.json {
        writeln!(out, "{}", json_report(&summary, &reports, &saved))?;
    } else {
        for report in &reports {
            if let Some(failure) = &report.failure {
                write!(
                    out,
                    "{}",
                    failure_text(report, failure, saved.get(&report.name))
                )?;
            }
            for note in &report.notes {
                writeln!(out, "NOTE {}: {note}", report.name)?;
            }
        }
        write!(out, "{}", summary_text(&summary))?;
    }
    out.flush()?;
    let failed = summary.cases - summary.passed;
    if failed > 0 {
        return Err(CliError::CasesFailed {
            failed,
            cases: summary.cases,
        });
    }
    Ok(summary)
}

/// Runs the cases on `run.jobs` threads; reports in the cases' order.
fn run_all(run: &CheckRun) -> Result<Vec<CaseReport>, CliError> {
    let bar =
        ProgressBar::with_draw_target(Some(run.cases.len() as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} cases, {elapsed} {msg}")
            .expect("a valid template"),
    );
    let failed = AtomicUsize::new(0);
    let results = othello::grading::in_parallel(run.cases.len(), run.jobs, |index, _| {
        let result = check_case(&run.options, &run.cases[index]).map_err(CliError::from);
        if result.as_ref().is_ok_and(|r| r.failure.is_some()) {
            let failed = failed.fetch_add(1, Ordering::Relaxed) + 1;
            bar.set_message(format!("{failed} failed"));
        }
        bar.inc(1);
        // A program that cannot be started: no case will do better.
        let stop = result.is_err();
        (result, stop)
    });
    bar.finish_and_clear();
    results.into_iter().collect()
}

/// Writes the input of a failing case cut at its failure; returns the file.
fn save_failure(dir: &Path, name: &str, failure: &Failure) -> Result<PathBuf, CliError> {
    let write_error = |path: &Path, source| CliError::WriteFile {
        path: path.to_owned(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(|source| write_error(dir, source))?;
    let stem = Path::new(name)
        .file_stem()
        .map_or_else(|| "case".into(), |stem| stem.to_string_lossy().into_owned());
    let path = dir.join(format!("{stem}.in"));
    std::fs::write(&path, &failure.minimal_input).map_err(|source| write_error(&path, source))?;
    Ok(path)
}

/// The report of one failure, for people.
fn failure_text(report: &CaseReport, failure: &Failure, saved: Option<&PathBuf>) -> String {
    let show = |text: &Option<String>| text.as_deref().map_or("(nothing)".to_owned(), visible);
    let mut text = format!(
        "FAIL {}: {} ({}) at stdout line {}\n  {}\n",
        report.name,
        failure.class,
        failure.class.description(),
        failure.line,
        failure.note
    );
    if failure.expected.is_some() || failure.actual.is_some() {
        let expected = match &failure.expected {
            // Under --rules auto either rules line would do.
            None if failure.class == Class::WrongRulesLine && failure.line == 1 => {
                "\"FULL\" or \"SIMPLE\"".to_owned()
            }
            expected => show(expected),
        };
        text.push_str(&format!("  expected: {expected}\n"));
        text.push_str(&format!("  actual:   {}\n", show(&failure.actual)));
    }
    if !failure.moves.is_empty() {
        let moves: Vec<String> = failure.moves.iter().map(ToString::to_string).collect();
        text.push_str(&format!(
            "  moves so far ({}): {}\n",
            moves.len(),
            moves.join(" ")
        ));
    }
    if let Some(board) = &failure.board {
        text.push_str("  last board printed:\n");
        for line in board.lines() {
            text.push_str(&format!("    {line}\n"));
        }
    }
    if let Some(exit) = &failure.exit {
        text.push_str(&format!("  it ended with {exit}\n"));
    }
    if !failure.stderr.is_empty() {
        text.push_str("  stderr:\n");
        for line in failure.stderr.lines() {
            text.push_str(&format!("    {line}\n"));
        }
    }
    if let Some(path) = saved {
        text.push_str(&format!("  failing input saved to {}\n", path.display()));
    }
    text
}

/// The summary table: passed, then the failures per class.
fn summary_text(summary: &CheckSummary) -> String {
    let failed = summary.cases - summary.passed;
    let mut text = format!(
        "{}: {} passed, {failed} failed\n",
        crate::words::count(summary.cases as u64, "case"),
        summary.passed
    );
    if failed > 0 {
        text.push_str(&format!(
            "{:<20} {:<42} {:>5}\n",
            "class", "meaning", "cases"
        ));
        for (class, count) in &summary.failed {
            text.push_str(&format!(
                "{:<20} {:<42} {count:>5}\n",
                class.name(),
                class.description()
            ));
        }
    }
    text
}

/// The report in JSON.
#[derive(Serialize)]
struct ReportJson<'a> {
    cases: usize,
    passed: usize,
    failed: usize,
    /// Failed cases per class, every class named (0 where none).
    by_class: BTreeMap<&'static str, usize>,
    results: Vec<CaseJson<'a>>,
}

/// One case in JSON: `case`, `ok` and `seconds`, and for a failure what went wrong.
#[derive(Serialize)]
struct CaseJson<'a> {
    case: &'a str,
    ok: bool,
    seconds: f64,
    /// Remarks that do not fail the case (a slow start).
    notes: &'a [String],
    #[serde(flatten)]
    failure: Option<FailureJson<'a>>,
}

#[derive(Serialize)]
struct FailureJson<'a> {
    class: &'static str,
    line: usize,
    expected: Option<&'a str>,
    actual: Option<&'a str>,
    note: &'a str,
    moves: Vec<String>,
    position: Option<&'a str>,
    stderr: &'a str,
    exit: Option<&'a str>,
    saved: Option<String>,
}

fn json_report(
    summary: &CheckSummary,
    reports: &[CaseReport],
    saved: &BTreeMap<String, PathBuf>,
) -> String {
    let report = ReportJson {
        cases: summary.cases,
        passed: summary.passed,
        failed: summary.cases - summary.passed,
        by_class: Class::ALL
            .iter()
            .map(|class| {
                (
                    class.name(),
                    summary.failed.get(class).copied().unwrap_or(0),
                )
            })
            .collect(),
        results: reports
            .iter()
            .map(|report| CaseJson {
                case: &report.name,
                ok: report.failure.is_none(),
                seconds: (report.seconds * 1e6).round() / 1e6,
                notes: &report.notes,
                failure: report.failure.as_deref().map(|failure| FailureJson {
                    class: failure.class.name(),
                    line: failure.line,
                    expected: failure.expected.as_deref(),
                    actual: failure.actual.as_deref(),
                    note: &failure.note,
                    moves: failure.moves.iter().map(ToString::to_string).collect(),
                    position: failure.board.as_deref(),
                    stderr: &failure.stderr,
                    exit: failure.exit.as_deref(),
                    saved: saved
                        .get(&report.name)
                        .map(|path| path.display().to_string()),
                }),
            })
            .collect(),
    };
    serde_json::to_string(&report).expect("strings and numbers serialize")
}
