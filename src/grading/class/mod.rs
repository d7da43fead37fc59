//! Grading a whole class: every submission on the same cases, each in a sandbox, in
//! parallel, resumable, with reports for graders' platforms and people.
//!
//! A run goes in two steps. First each submission is copied or unpacked into scratch space
//! ([`submissions`]) and, if a build command is given, built there in the sandbox. Then every
//! case not graded yet is checked exactly as `othello check` does ([`check_case`]), in the
//! [`sandbox`], on `jobs` threads; each result goes into the [`journal`] the moment it is
//! known. The results ([`Graded`]) are in submission order, then case order, whatever order
//! they were run in; [`report`] turns them into the files.

mod failure;
pub mod journal;
pub mod points;
pub mod report;
pub mod roster;
pub mod sandbox;
pub mod submissions;

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
    sync::{
        Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::{
    Variant,
    grading::check::reference::Reference,
    grading::check::{
        Case, CaseReport, CheckOptions, Class, Mode, RulesChoice, check_case, describe_exit,
    },
    process::{Chunks, Program, StartOptions},
};
use journal::{Journal, JournalError};
use sandbox::{Access, Sandbox};
use submissions::Submission;

pub use failure::FailureClass;

/// The placeholder in command templates for the submission's directory.
pub const DIR_PLACEHOLDER: &str = "{dir}";

/// How long a build may take.
pub const BUILD_TIMEOUT: Duration = Duration::from_secs(120);

/// Bytes of a build's output kept for the report.
const BUILD_LOG: usize = 16 * 1024;

/// A case of the class, with its kind (for points) and its rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassCase {
    /// The case: its name is its path under the cases directory (`passes/0003.in`).
    pub case: Case,
    /// Its kind: its folder under the cases directory, or the generated kind.
    pub kind: String,
    /// The rules it is played under: the program is told them ([`fill`]), never asked.
    pub variant: Variant,
}

/// How to grade.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GradeOptions {
    /// The command that runs a submission, split into words, with [`DIR_PLACEHOLDER`] for
    /// its directory.
    pub command: Vec<String>,
    /// The command that builds it, run once in its directory (writable), if any.
    pub build: Option<Vec<String>>,
    /// How input is sent.
    pub mode: Mode,
    /// The longest wait for each expected piece of output.
    pub line_timeout: Duration,
    /// The longest a case may take in all.
    pub case_limit: Duration,
    /// The longest a submission's cases may take together (their times added up, as each
    /// case starts): the cases left after it are `timeout` without running.
    pub submission_limit: Duration,
    /// Programs run at once.
    pub jobs: usize,
}

impl GradeOptions {
    /// A fingerprint of everything that decides a result, for the journal.
    pub fn fingerprint(&self, cases: &[ClassCase], sandbox: &Sandbox) -> String {
        #[derive(Serialize)]
        struct Settings<'a> {
            command: &'a [String],
            build: Option<&'a [String]>,
            piped: bool,
            line_timeout_ms: u128,
            case_limit_ms: u128,
            submission_limit_ms: u128,
            sandbox: sandbox::SandboxKind,
            limits: sandbox::ResourceLimits,
            cases: Vec<(&'a str, &'a str, &'static str, String)>,
        }
        let settings = Settings {
            command: &self.command,
            build: self.build.as_deref(),
            piped: self.mode == Mode::Piped,
            line_timeout_ms: self.line_timeout.as_millis(),
            case_limit_ms: self.case_limit.as_millis(),
            submission_limit_ms: self.submission_limit.as_millis(),
            sandbox: sandbox.kind(),
            limits: sandbox.limits(),
            cases: cases
                .iter()
                .map(|case| {
                    let digest = hex(&Sha256::digest(&case.case.input));
                    let rules = case.variant.name();
                    (case.case.name.as_str(), case.kind.as_str(), rules, digest)
                })
                .collect(),
        };
        hex(&Sha256::digest(
            serde_json::to_vec(&settings).expect("plain data"),
        ))
    }
}

impl GradeOptions {
    /// The time limits, in a sentence for the reports.
    pub fn time_limits(&self) -> String {
        format!(
            "Time limits: {} s for each wait for output, {} s for a case, {} s for all of a \
             submission's cases together.",
            seconds_text(self.line_timeout),
            seconds_text(self.case_limit),
            seconds_text(self.submission_limit)
        )
    }
}

/// `5`, `2.5`: seconds for people.
fn seconds_text(duration: Duration) -> String {
    let text = format!("{:.2}", duration.as_secs_f64());
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// One graded case, as the journal keeps it and the reports show it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseResult {
    /// The case's name.
    pub case: String,
    /// `None` if it passed; else why it failed.
    pub class: Option<FailureClass>,
    /// Seconds it took.
    pub seconds: f64,
    /// Remarks that do not fail it (a slow start).
    pub notes: Vec<String>,
    /// What went wrong, if it failed.
    pub failure: Option<FailureDetail>,
}

impl CaseResult {
    /// Whether it passed.
    pub fn passed(&self) -> bool {
        self.class.is_none()
    }
}

/// Where and how a case failed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FailureDetail {
    /// The 1-based line of stdout where it shows (0 for a failure before any output).
    pub line: usize,
    /// The line expected there (`None` where the output should have ended).
    pub expected: Option<String>,
    /// The line that came instead (`None` where nothing came).
    pub actual: Option<String>,
    /// What happened, in a sentence.
    pub note: String,
    /// The moves played before it.
    pub moves: Vec<String>,
    /// The last board expected before it.
    pub board: Option<String>,
    /// The last lines of stderr (or a build's output).
    pub stderr: String,
    /// How the program ended, if it did.
    pub exit: Option<String>,
    /// A resource limit it ran into, if that shows in how it ended.
    pub limit: Option<String>,
    /// The expected transcript up to the difference: output lines, and `> ` input lines
    /// where they were sent.
    pub transcript: String,
}

/// A submission's results.
#[derive(Clone, Debug, PartialEq)]
pub struct Graded {
    /// Its name.
    pub name: String,
    /// Entries left out when it was unpacked (links, unsafe paths).
    pub skipped: Vec<String>,
    /// One result per case, in case order.
    pub results: Vec<CaseResult>,
}

/// What stops a run (never a submission's behaviour: that is a result).
#[derive(Debug, Error)]
pub enum GradeError {
    /// `--only` was given, but another submission is not fully graded in the journal.
    #[error(
        "{0:?} is not fully graded in this report directory: --only regrades some \
         submissions of a finished run (run without --only first)"
    )]
    NotGraded(String),
    /// The journal cannot be kept.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// The scratch space cannot be written.
    #[error("cannot prepare {path}: {source}")]
    Scratch {
        /// Where.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A program cannot be started at all (the sandbox itself, say).
    #[error("cannot start {program}: {source}")]
    Start {
        /// The command line.
        program: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// What a run reports as it goes.
#[derive(Clone, Debug, PartialEq)]
pub enum Progress {
    /// `done` of `total` cases graded (including those found in the journal).
    Cases {
        /// Done.
        done: usize,
        /// In all.
        total: usize,
        /// Failed so far.
        failed: usize,
    },
}

/// A run over a class.
#[derive(Debug)]
pub struct ClassRun<'a> {
    /// The submissions, in report order.
    pub submissions: &'a [Submission],
    /// The cases, in report order.
    pub cases: &'a [ClassCase],
    /// How.
    pub options: &'a GradeOptions,
    /// The box.
    pub sandbox: &'a Sandbox,
    /// Where results are kept as they come.
    pub journal: &'a Journal,
    /// Scratch space for the submissions' copies.
    pub scratch: &'a Path,
    /// Grade only these submissions (again, from nothing); take the others as the
    /// journal has them, all graded (`None`: grade whatever is not graded yet).
    pub only: Option<&'a BTreeSet<String>>,
}

/// A submission ready to run (or failed before running).
struct Prepared {
    /// Its directory (the copy), if it was unpacked.
    dir: Option<PathBuf>,
    /// Results so far, by case name.
    done: BTreeMap<String, CaseResult>,
    skipped: Vec<String>,
}

impl ClassRun<'_> {
    /// Grades every case of every submission not graded yet, and returns all results.
    ///
    /// # Errors
    /// [`GradeError`]: the journal or scratch space fails, or the sandbox cannot start.
    pub fn run(&self, progress: &(dyn Fn(Progress) + Sync)) -> Result<Vec<Graded>, GradeError> {
        let prepared = self.prepare_all()?;
        let prepared: Vec<Mutex<Prepared>> = prepared.into_iter().map(Mutex::new).collect();
        let mut queue = Vec::new();
        for (index, submission) in prepared.iter().enumerate() {
            let submission = submission.lock().expect("not poisoned");
            // A submission without a directory has every case recorded already.
            let Some(dir) = &submission.dir else { continue };
            for (case_index, case) in self.cases.iter().enumerate() {
                if !submission.done.contains_key(&case.case.name) {
                    queue.push((index, case_index, dir.clone()));
                }
            }
        }
        let total = self.submissions.len() * self.cases.len();
        let done = AtomicUsize::new(total - queue.len());
        let failed = AtomicUsize::new(
            prepared
                .iter()
                .map(|p| {
                    let p = p.lock().expect("not poisoned");
                    p.done.values().filter(|r| !r.passed()).count()
                })
                .sum(),
        );
        progress(Progress::Cases {
            done: done.load(Ordering::Relaxed),
            total,
            failed: failed.load(Ordering::Relaxed),
        });
        let next = AtomicUsize::new(0);
        let error: Mutex<Option<GradeError>> = Mutex::new(None);
        std::thread::scope(|scope| {
            for job in 0..self.options.jobs.clamp(1, queue.len().max(1)) {
                let (queue, prepared, next, done, failed, error) =
                    (&queue, &prepared, &next, &done, &failed, &error);
                scope.spawn(move || {
                    while let Some((index, case_index, dir)) =
                        queue.get(next.fetch_add(1, Ordering::Relaxed))
                    {
                        let index = *index;
                        let spent: f64 = prepared[index]
                            .lock()
                            .expect("not poisoned")
                            .done
                            .values()
                            .map(|result| result.seconds)
                            .sum();
                        let left = self
                            .options
                            .submission_limit
                            .saturating_sub(Duration::from_secs_f64(spent));
                        let case = &self.cases[*case_index];
                        let result = match self.run_case(case, dir, job, left) {
                            Ok(result) => result,
                            Err(failure) => {
                                *error.lock().expect("not poisoned") = Some(failure);
                                next.store(queue.len(), Ordering::Relaxed);
                                return;
                            }
                        };
                        let name = &self.submissions[index].name;
                        if let Err(failure) = self.journal.record(name, &result) {
                            *error.lock().expect("not poisoned") = Some(failure.into());
                            next.store(queue.len(), Ordering::Relaxed);
                            return;
                        }
                        if !result.passed() {
                            failed.fetch_add(1, Ordering::Relaxed);
                        }
                        prepared[index]
                            .lock()
                            .expect("not poisoned")
                            .done
                            .insert(result.case.clone(), result);
                        progress(Progress::Cases {
                            done: done.fetch_add(1, Ordering::Relaxed) + 1,
                            total,
                            failed: failed.load(Ordering::Relaxed),
                        });
                    }
                });
            }
        });
        if let Some(error) = error.into_inner().expect("not poisoned") {
            return Err(error);
        }
        Ok(self
            .submissions
            .iter()
            .zip(prepared)
            .map(|(submission, prepared)| {
                let mut prepared = prepared.into_inner().expect("not poisoned");
                Graded {
                    name: submission.name.clone(),
                    skipped: prepared.skipped,
                    results: self
                        .cases
                        .iter()
                        .filter_map(|case| prepared.done.remove(&case.case.name))
                        .collect(),
                }
            })
            .collect())
    }

    /// Unpacks and builds the submissions, `jobs` at a time.
    fn prepare_all(&self) -> Result<Vec<Prepared>, GradeError> {
        super::in_parallel(self.submissions.len(), self.options.jobs, |index, job| {
            (self.prepare(index, job), false)
        })
        .into_iter()
        .collect()
    }

    /// Unpacks submission `index`, reads what the journal has of it, and builds it if
    /// cases are left; a submission that cannot be unpacked or built fails every case left.
    /// One not to be graded now ([`ClassRun::only`]) is read from the journal alone.
    fn prepare(&self, index: usize, job: usize) -> Result<Prepared, GradeError> {
        let submission = &self.submissions[index];
        if let Some(only) = self.only {
            if !only.contains(&submission.name) {
                let recorded = self.journal.recorded(&submission.name)?;
                let complete = recorded.as_ref().is_some_and(|recorded| {
                    self.cases
                        .iter()
                        .all(|case| recorded.results.contains_key(&case.case.name))
                });
                let Some(recorded) = recorded.filter(|_| complete) else {
                    return Err(GradeError::NotGraded(submission.name.clone()));
                };
                return Ok(Prepared {
                    dir: None,
                    done: recorded.results,
                    skipped: recorded.skipped,
                });
            }
            self.journal.forget(&submission.name)?;
        }
        let copy = self.scratch.join(format!("submission-{index}"));
        let (unpacked, failure) = match submissions::unpack(submission, &copy) {
            Ok(unpacked) => (Some(unpacked), None),
            Err(submissions::UnpackError::Copy(source)) => {
                return Err(GradeError::Scratch { path: copy, source });
            }
            Err(error) => (
                None,
                Some((
                    FailureClass::BadSubmission,
                    error.to_string(),
                    String::new(),
                )),
            ),
        };
        let fingerprint = unpacked
            .as_ref()
            .map_or_else(|| "unreadable".to_owned(), |u| u.fingerprint.clone());
        let skipped = unpacked
            .as_ref()
            .map(|u| u.skipped.clone())
            .unwrap_or_default();
        let mut done = self
            .journal
            .start(&submission.name, &fingerprint, &skipped)?;
        let left = self
            .cases
            .iter()
            .any(|case| !done.contains_key(&case.case.name));
        let dir = unpacked.map(|u| u.root);
        let failure = match (&failure, &dir, &self.options.build) {
            (None, Some(dir), Some(build)) if left => self.build(dir, build, job)?,
            _ => failure,
        };
        // The file the command runs must be there (after the build, which may make it).
        let failure = match (failure, &dir) {
            (None, Some(dir)) if left => missing_file(&self.options.command, dir)
                .map(|note| (FailureClass::BadSubmission, note, String::new())),
            (failure, _) => failure,
        };
        if let Some((class, note, log)) = failure {
            for case in self.cases {
                if done.contains_key(&case.case.name) {
                    continue;
                }
                let result = CaseResult {
                    case: case.case.name.clone(),
                    class: Some(class),
                    seconds: 0.0,
                    notes: Vec::new(),
                    failure: Some(FailureDetail {
                        note: note.clone(),
                        stderr: log.clone(),
                        ..FailureDetail::default()
                    }),
                };
                self.journal.record(&submission.name, &result)?;
                done.insert(result.case.clone(), result);
            }
            return Ok(Prepared {
                dir: None,
                done,
                skipped,
            });
        }
        if let Some(dir) = &dir {
            self.sandbox
                .hand_over(dir, None)
                .map_err(|source| GradeError::Scratch {
                    path: dir.clone(),
                    source,
                })?;
        }
        Ok(Prepared { dir, done, skipped })
    }

    /// Runs the build command in `dir`; the failure (class, note, output) if it fails.
    #[allow(clippy::type_complexity)]
    fn build(
        &self,
        dir: &Path,
        build: &[String],
        job: usize,
    ) -> Result<Option<(FailureClass, String, String)>, GradeError> {
        self.sandbox
            .hand_over(dir, Some(job))
            .map_err(|source| GradeError::Scratch {
                path: dir.to_owned(),
                source,
            })?;
        let argv = fill(build, &self.sandbox.dir_seen(dir), None);
        let (argv, confinement) = self.sandbox.wrap(&argv, dir, Access::Writable, job);
        let options = StartOptions {
            confinement: Some(confinement),
            ..StartOptions::default()
        };
        let start_error = |source| GradeError::Start {
            program: argv.join(" "),
            source,
        };
        let watch = self.sandbox.case_starts(job);
        let mut program = match Program::start(&argv, Chunks, &options) {
            Ok(program) => program,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                self.sandbox.case_ends(watch);
                let note = format!("the build command {:?} was not found", build[0]);
                return Ok(Some((FailureClass::BuildFailed, note, String::new())));
            }
            Err(error) => {
                self.sandbox.case_ends(watch);
                return Err(start_error(error));
            }
        };
        program.close_stdin();
        // Its stdout is read (and dropped) so that it never waits on a full pipe.
        let deadline = Instant::now() + BUILD_TIMEOUT;
        let mut output = Vec::new();
        while let Ok(chunk) = program.receive(deadline) {
            output.extend_from_slice(&chunk);
            if output.len() > 2 * BUILD_LOG {
                output.drain(..output.len() - BUILD_LOG);
            }
        }
        let status = program.wait_exit(Duration::from_millis(100));
        program.wait_stderr(Duration::from_secs(1));
        let mut log = String::from_utf8_lossy(&output).into_owned();
        log.push_str(&program.stderr_lines(40));
        let log = tail(&log, BUILD_LOG).to_owned();
        drop(program);
        let limit = self.sandbox.case_ends(watch);
        Ok(match status {
            Some(status) if status.success() => None,
            Some(status) => {
                let mut note = format!("the build ended with {}", describe_exit(status));
                if let Some(limit) = limit {
                    note.push_str(&format!(" (it ran into {limit})"));
                }
                Some((FailureClass::BuildFailed, note, log))
            }
            None => Some((
                FailureClass::BuildFailed,
                format!("the build took longer than {} s", BUILD_TIMEOUT.as_secs()),
                log,
            )),
        })
    }

    /// Checks one case for the submission in `dir`, in the sandbox, as job `job`, with
    /// `left` of the submission's time budget: none left, it is a timeout without running.
    fn run_case(
        &self,
        case: &ClassCase,
        dir: &Path,
        job: usize,
        left: Duration,
    ) -> Result<CaseResult, GradeError> {
        let budget = seconds_text(self.options.submission_limit);
        if left.is_zero() {
            return Ok(CaseResult {
                case: case.case.name.clone(),
                class: Some(Class::Timeout.into()),
                seconds: 0.0,
                notes: Vec::new(),
                failure: Some(FailureDetail {
                    note: format!(
                        "not run: the submission's cases had used up its time budget of \
                         {budget} s"
                    ),
                    ..FailureDetail::default()
                }),
            });
        }
        let cut_short = left < self.options.case_limit;
        let argv = fill(
            &self.options.command,
            &self.sandbox.dir_seen(dir),
            Some(case.variant),
        );
        let (program, confinement) = self.sandbox.wrap(&argv, dir, Access::ReadOnly, job);
        let options = CheckOptions {
            program,
            rules: RulesChoice::Fixed(case.variant),
            mode: self.options.mode,
            line_timeout: self.options.line_timeout,
            case_limit: Some(self.options.case_limit.min(left)),
            confinement: Some(confinement),
        };
        let watch = self.sandbox.case_starts(job);
        let report = check_case(&options, &case.case);
        let limit = self.sandbox.case_ends(watch);
        match report {
            Ok(report) => {
                let mut result = result_of(&report, &case.case.input);
                if cut_short
                    && let Some(failure) = &mut result.failure
                    && result.class == Some(Class::Timeout.into())
                    && failure
                        .note
                        .starts_with("the case took longer than its time budget")
                {
                    failure.note.push_str(&format!(
                        "; that was what was left of the submission's {budget} s"
                    ));
                }
                if let Some(limit) = limit {
                    match &mut result.failure {
                        Some(failure) => failure.limit = Some(limit),
                        None => result
                            .notes
                            .push(format!("the system killed one of its processes at {limit}")),
                    }
                }
                Ok(result)
            }
            // The program itself not found is a failure of the submission.
            Err(error) if error.source.kind() == std::io::ErrorKind::NotFound => Ok(CaseResult {
                case: case.case.name.clone(),
                class: Some(Class::Crash.into()),
                seconds: 0.0,
                notes: Vec::new(),
                failure: Some(FailureDetail {
                    note: format!("{error}"),
                    ..FailureDetail::default()
                }),
            }),
            Err(error) => Err(GradeError::Start {
                program: error.program,
                source: error.source,
            }),
        }
    }
}

/// What is wrong when a file the command names (`{dir}/main.py`) is not in the submission
/// in `dir`: which, and what is there instead.
fn missing_file(command: &[String], dir: &Path) -> Option<String> {
    let prefix = format!("{DIR_PLACEHOLDER}/");
    let missing = command.iter().find_map(|word| {
        let relative = word.strip_prefix(&prefix)?;
        (!relative.contains(DIR_PLACEHOLDER) && !dir.join(relative).exists()).then_some(relative)
    })?;
    const SHOWN: usize = 12;
    let files = submissions::files_in(dir);
    let found = match files.len() {
        0 => "nothing".to_owned(),
        n if n <= SHOWN => files.join(", "),
        n => format!("{}, and {} more", files[..SHOWN].join(", "), n - SHOWN),
    };
    Some(format!(
        "there is no {missing} in the submission (the command runs {missing}); found: {found}"
    ))
}

/// The last `bytes` bytes of `text` at most, from a character boundary.
fn tail(text: &str, bytes: usize) -> &str {
    let mut start = text.len().saturating_sub(bytes);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// The placeholder in the command template for a case's rules (`full` or `simple`).
pub const RULES_PLACEHOLDER: &str = "{rules}";

/// `template` with [`DIR_PLACEHOLDER`] replaced by `dir` in every word; with `rules`, told
/// them as the spec starts a program: [`RULES_PLACEHOLDER`] replaced by `full` or
/// `simple`, or where the template has neither that nor a `--rules` of its own, `--rules
/// simple` added for SIMPLE (FULL is the default).
pub fn fill(template: &[String], dir: &Path, rules: Option<Variant>) -> Vec<String> {
    let dir = dir.display().to_string();
    let name = rules.map_or("", |variant| match variant {
        Variant::Full => "full",
        Variant::Simple => "simple",
    });
    let mut argv: Vec<String> = template
        .iter()
        .map(|word| {
            word.replace(DIR_PLACEHOLDER, &dir)
                .replace(RULES_PLACEHOLDER, name)
        })
        .collect();
    let told = template.iter().any(|word| {
        word.contains(RULES_PLACEHOLDER) || word == "--rules" || word.starts_with("--rules=")
    });
    if rules == Some(Variant::Simple) && !told {
        argv.extend(["--rules".to_owned(), "simple".to_owned()]);
    }
    argv
}

/// The journal's form of a case's report.
fn result_of(report: &CaseReport, input: &[u8]) -> CaseResult {
    let failure = report.failure.as_ref().map(|failure| {
        let variant = report.variant.unwrap_or(Variant::Full);
        let reference = Reference::run(variant, input);
        let transcript = reference.transcript_until(failure.line.saturating_sub(1));
        FailureDetail {
            line: failure.line,
            expected: failure.expected.clone(),
            actual: failure.actual.clone(),
            note: failure.note.clone(),
            moves: failure.moves.iter().map(ToString::to_string).collect(),
            board: failure.board.clone(),
            stderr: failure.stderr.clone(),
            exit: failure.exit.clone(),
            limit: failure.exit.as_deref().and_then(limit_of),
            transcript: String::from_utf8_lossy(&transcript).into_owned(),
        }
    });
    CaseResult {
        case: report.name.clone(),
        class: report.failure.as_ref().map(|failure| failure.class.into()),
        seconds: report.seconds,
        notes: report.notes.clone(),
        failure,
    }
}

/// The resource limit an ending shows: killed by SIGXCPU or SIGXFSZ (directly, or as
/// bubblewrap reports it, 128 + the signal), or SIGKILL at the hard CPU limit.
fn limit_of(exit: &str) -> Option<String> {
    #[cfg(unix)]
    {
        let number = |text: &str| -> Option<i32> {
            let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        };
        let signal = exit
            .strip_prefix("killed by signal ")
            .and_then(number)
            .or_else(|| {
                exit.strip_prefix("exit status ")
                    .and_then(number)
                    .filter(|&code| code > 128)
                    .map(|code| code - 128)
            })?;
        match signal {
            libc::SIGXCPU => Some("the CPU time limit".to_owned()),
            libc::SIGXFSZ => Some("the file size limit".to_owned()),
            _ => None,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = exit;
        None
    }
}
