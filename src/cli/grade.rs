//! `othello grade`: a whole class's submissions on the same cases, each in a sandbox, in
//! parallel and resumable, with the reports graders' platforms read (Gradescope, JUnit, a
//! gradebook CSV) and HTML pages for people.

use std::{
    collections::BTreeSet,
    io::Write,
    path::{Path, PathBuf},
    time::Duration,
};

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use othello::{
    Variant,
    grading::{
        check::{Case, Mode, generated},
        class::{
            ClassCase, ClassRun, DIR_PLACEHOLDER, GradeOptions, Progress,
            journal::Journal,
            points::Points,
            report::{self, Scored},
            roster::Roster,
            sandbox::{RUN_PREFIX, ResourceLimits, Sandbox, SandboxChoice},
            submissions,
        },
        similarity::{self, Source, compare},
    },
    process::left_by_dead,
};

use super::CliError;

/// `othello grade SUBMISSIONS (--cases DIR | --generate N) --out DIR [...]`.
#[derive(Debug, Args)]
pub struct GradeArgs {
    /// The submissions: one per entry of this directory (a folder, or a .zip, .tar,
    /// .tar.gz, .tgz, .tar.xz or .txz archive in any letter case; any other file is a row
    /// that says why); with --single, this directory is the one submission.
    #[arg(value_name = "SUBMISSIONS")]
    submissions: PathBuf,
    /// The cases: every .in file under this directory (a subfolder is the cases' kind, for
    /// --points; one named simple or full gives its cases' rules). Expected outputs are
    /// never needed: the reference computes them.
    #[arg(long, value_name = "DIR", required_unless_present = "generate")]
    cases: Option<PathBuf>,
    /// Instead of files, generate this many cases (as `othello gen` does), named
    /// NNNN-KIND.in.
    #[arg(long, value_name = "N", conflicts_with = "cases", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    generate: Option<u32>,
    /// Seed for --generate (default 1).
    #[arg(long, value_name = "S", requires = "generate")]
    seed: Option<u64>,
    /// The command that runs a submission; {dir} is its directory.
    #[arg(long, value_name = "TEMPLATE", default_value = "python3 {dir}/main.py")]
    command: String,
    /// A command run once per submission before its cases, in its directory (writable
    /// then): "cc -O2 -o {dir}/othello {dir}/main.c". A failed build fails every case
    /// (build-failed).
    #[arg(long, value_name = "TEMPLATE")]
    build: Option<String>,
    /// Points per case or kind, partial credit and visibility: a TOML file (see
    /// docs/grading.md). Default: 1 point a case, all visible.
    #[arg(long, value_name = "FILE")]
    points: Option<PathBuf>,
    /// The rules of the cases whose path names none (a folder named full or simple does),
    /// and of generated cases. A SIMPLE case runs the command with --rules simple added (or
    /// {rules} in the command replaced), as the spec starts a SIMPLE program.
    #[arg(long, value_enum, default_value_t = GradeRules::Full)]
    rules: GradeRules,
    /// Longest wait for each expected piece of output, in seconds (at least 0.5).
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = super::check::seconds)]
    timeout: Duration,
    /// Longest a case may take in all, in seconds: a program slow on every move fails it
    /// as a timeout.
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = case_seconds)]
    case_timeout: Duration,
    /// Longest all of a submission's cases may take together, in seconds (their times
    /// added up as each starts): the cases left after it are timeouts, not run.
    #[arg(long, value_name = "SECS", default_value = "600", value_parser = submission_seconds)]
    submission_timeout: Duration,
    /// Programs run at the same time (default: one per core).
    #[arg(long, value_name = "J", value_parser = clap::value_parser!(u16).range(1..=256))]
    jobs: Option<u16>,
    /// Send each case's whole input at once instead of line by line.
    #[arg(long)]
    piped: bool,
    /// The box: auto (bubblewrap where it works, else limits only, said in every report),
    /// bubblewrap (refuse to grade without it), limits (resource limits only).
    #[arg(long, value_enum, default_value_t = SandboxArg::Auto)]
    sandbox: SandboxArg,
    /// CPU seconds per process of a case.
    #[arg(long, value_name = "SECS", default_value_t = ResourceLimits::default().cpu_seconds, value_parser = clap::value_parser!(u64).range(1..=3600))]
    cpu: u64,
    /// Memory in MiB: for a whole case (all its processes) where a control group can be
    /// had, else address space per process.
    #[arg(long, value_name = "MIB", default_value_t = ResourceLimits::default().memory >> 20, value_parser = clap::value_parser!(u64).range(16..=65536))]
    memory: u64,
    /// Processes a case may have at once.
    #[arg(long, value_name = "N", default_value_t = ResourceLimits::default().processes, value_parser = clap::value_parser!(u64).range(1..=4096))]
    processes: u64,
    /// Largest file a case may write, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = ResourceLimits::default().file_size >> 20, value_parser = clap::value_parser!(u64).range(1..=4096))]
    file_size: u64,
    /// Files a case may have open at once.
    #[arg(long, value_name = "N", default_value_t = ResourceLimits::default().open_files, value_parser = clap::value_parser!(u64).range(8..=4096))]
    open_files: u64,
    /// Size of a case's private /tmp, in MiB (bounded when run as root).
    #[arg(long, value_name = "MIB", default_value_t = ResourceLimits::default().tmp_size >> 20, value_parser = clap::value_parser!(u64).range(1..=4096))]
    tmp_size: u64,
    /// A host directory the submissions may read (an interpreter under /opt, say);
    /// repeat for more. The system's /usr, /bin, /lib and /etc are always there.
    #[arg(long, value_name = "PATH")]
    allow_read: Vec<PathBuf>,
    /// SUBMISSIONS is one submission: its reports go at the top of --out (results.json
    /// where Gradescope looks for it).
    #[arg(long)]
    single: bool,
    /// The class list, a CSV file with a header row: columns submission, and id or
    /// email (name, login, section optional). Every student gets a row in the gradebook
    /// (a missing submission scores 0), and canvas.csv and moodle.csv are written.
    #[arg(long, value_name = "FILE", conflicts_with = "single")]
    roster: Option<PathBuf>,
    /// The assignment's name in canvas.csv and moodle.csv.
    #[arg(
        long,
        value_name = "NAME",
        default_value = "Othello",
        requires = "roster"
    )]
    assignment: String,
    /// Starter code given to the class (a file or a directory; repeat for more): what it
    /// holds counts in no pair of the similarity report.
    #[arg(long, value_name = "PATH", conflicts_with = "single")]
    starter: Vec<PathBuf>,
    /// Leave out the similarity report (similarity.html, similarity.csv).
    #[arg(long, conflicts_with = "single")]
    no_similarity: bool,
    /// Grade only this submission again, from nothing (repeat for more); every other keeps
    /// what the finished run in --out has of it, and its reports.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["single", "restart"])]
    only: Vec<String>,
    /// Discard what an earlier run left in --out and grade everything again.
    #[arg(long)]
    restart: bool,
    /// Where the reports (and the journal that lets a run resume) go.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// The rules, on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum GradeRules {
    Full,
    Simple,
    /// The old default, kept so that scripts still run: what `full` does (the rules come
    /// from the cases, never from the program).
    #[value(hide = true)]
    Auto,
}

/// A case's time budget: 1 s to an hour.
fn case_seconds(text: &str) -> Result<Duration, String> {
    super::check::seconds_within(text, 1.0, 3600.0)
}

/// A submission's time budget: 1 s to a day.
fn submission_seconds(text: &str) -> Result<Duration, String> {
    super::check::seconds_within(text, 1.0, 86_400.0)
}

/// The sandbox, on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum SandboxArg {
    Auto,
    Bubblewrap,
    Limits,
}

impl GradeArgs {
    /// Grades the class and writes the reports; prints a line per submission.
    ///
    /// # Errors
    /// [`CliError`]: bad arguments or files, a sandbox that cannot be set up, a journal or
    /// report that cannot be written. Failing students are results, not errors.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let usage = |message: String| CliError::Usage { message };
        let command = words(&self.command, "--command")?;
        let build = self
            .build
            .as_deref()
            .map(|build| words(build, "--build"))
            .transpose()?;
        let rules = match self.rules {
            GradeRules::Full | GradeRules::Auto => Variant::Full,
            GradeRules::Simple => Variant::Simple,
        };
        let cases = match (self.generate, &self.cases) {
            (Some(count), _) => generated_cases(count, self.seed.unwrap_or(1), rules),
            (None, Some(dir)) => read_cases(dir, rules)?,
            (None, None) => return Err(usage("give --cases DIR or --generate N".to_owned())),
        };
        if cases.is_empty() {
            return Err(usage("no .in files under --cases".to_owned()));
        }
        let names: Vec<(String, String)> = cases
            .iter()
            .map(|case| (case.case.name.clone(), case.kind.clone()))
            .collect();
        let points = match &self.points {
            Some(path) => Points::parse(&read_text(path, crate::files::GAME_FILE)?, &names)
                .map_err(|error| usage(format!("{}: {error}", path.display())))?,
            None => Points::default(),
        };
        let submissions = submissions::list(&self.submissions, self.single)
            .map_err(|error| usage(error.to_string()))?;
        // Starter code left out of the similarity report: a FIFO or a device would give
        // nothing and leave everything in, silently.
        for starter in &self.starter {
            let refused = match std::fs::metadata(starter) {
                Err(_) => Some("not found".to_owned()),
                Ok(meta) if !meta.is_file() && !meta.is_dir() => {
                    Some("not a regular file or a folder".to_owned())
                }
                Ok(_) => {
                    let (files, skipped) = submissions::source_files(starter);
                    files.is_empty().then(|| match skipped.first() {
                        Some(why) => format!("no source code the report reads ({why})"),
                        None => "no source code the report reads".to_owned(),
                    })
                }
            };
            if let Some(why) = refused {
                return Err(usage(format!("--starter {}: {why}", starter.display())));
            }
        }
        let only: Option<BTreeSet<String>> =
            (!self.only.is_empty()).then(|| self.only.iter().cloned().collect());
        if let Some(only) = &only
            && let Some(unknown) = only
                .iter()
                .find(|name| !submissions.iter().any(|s| &s.name == *name))
        {
            let names: Vec<&str> = submissions.iter().map(|s| s.name.as_str()).collect();
            return Err(usage(format!(
                "--only {unknown:?}: no such submission (they are: {})",
                names.join(", ")
            )));
        }
        let roster = match &self.roster {
            Some(path) => Some(
                Roster::parse(&read_text(path, crate::files::LIST_FILE)?)
                    .map_err(|error| usage(format!("{}: {error}", path.display())))?,
            ),
            None => None,
        };
        let jobs = self.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, usize::from),
            usize::from,
        );
        let limits = ResourceLimits {
            cpu_seconds: self.cpu,
            memory: self.memory << 20,
            processes: self.processes,
            file_size: self.file_size << 20,
            open_files: self.open_files,
            tmp_size: self.tmp_size << 20,
        };
        let choice = match self.sandbox {
            SandboxArg::Auto => SandboxChoice::Auto,
            SandboxArg::Bubblewrap => SandboxChoice::Bubblewrap,
            SandboxArg::Limits => SandboxChoice::Limits,
        };
        std::fs::create_dir_all(&self.out).map_err(|source| CliError::WriteFile {
            path: self.out.clone(),
            source,
        })?;
        // One run at a time into a report directory: a second would grade every case again
        // beside the first and write the same files.
        let lock_path = self.out.join(LOCK_FILE);
        let _lock = match crate::files::Lock::try_acquire(&lock_path) {
            Ok(Ok(lock)) => lock,
            Ok(Err(held)) => {
                return Err(usage(format!(
                    "{} is being graded into by {} (othello grade); wait for it to finish, or \
                     give another --out",
                    self.out.display(),
                    held.holder()
                )));
            }
            Err(source) => {
                return Err(CliError::WriteFile {
                    path: lock_path,
                    source,
                });
            }
        };
        remove_stale_scratch(&std::env::temp_dir());
        let scratch = tempfile::Builder::new()
            .prefix(&format!("{RUN_PREFIX}{}-", std::process::id()))
            .tempdir_in(std::env::temp_dir())?;
        // Nothing of the grader's may show inside the box: the program itself is covered
        // wherever it shows, and so are these.
        let private: Vec<PathBuf> = [
            self.cases.clone(),
            self.points.clone(),
            self.roster.clone(),
            Some(self.out.clone()),
            Some(self.submissions.clone()),
        ]
        .into_iter()
        .flatten()
        .collect();
        let sandbox = Sandbox::new(
            choice,
            limits,
            scratch.path(),
            jobs,
            &self.allow_read,
            &private,
        )
        .map_err(|error| usage(error.to_string()))?;
        // A missing interpreter or compiler fails the run, not every student.
        for program in [Some(&command), build.as_ref()].into_iter().flatten() {
            if !program[0].contains(DIR_PLACEHOLDER) {
                sandbox.find(&program[0]).map_err(usage)?;
            }
        }
        let options = GradeOptions {
            command,
            build,
            mode: if self.piped {
                Mode::Piped
            } else {
                Mode::Interactive
            },
            line_timeout: self.timeout,
            case_limit: self.case_timeout,
            submission_limit: self.submission_timeout,
            jobs,
        };
        let journal = Journal::open(
            &self.out,
            &options.fingerprint(&cases, &sandbox),
            self.restart,
        )
        .map_err(|error| usage(error.to_string()))?;
        let run = ClassRun {
            submissions: &submissions,
            cases: &cases,
            options: &options,
            sandbox: &sandbox,
            journal: &journal,
            scratch: scratch.path(),
            only: only.as_ref(),
        };
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} cases, {elapsed} {msg}")
                .expect("a valid template"),
        );
        {
            let (bar, scratch, out) = (bar.clone(), scratch.path().to_owned(), self.out.clone());
            // Without the handlers a run still grades; an interruption would only leave the
            // scratch copies behind (the programs die with this process anyway).
            let _ = crate::tournament::on_interrupt(move |status| {
                bar.abandon();
                let _ = std::fs::remove_dir_all(&scratch);
                let _ = writeln!(
                    std::io::stderr(),
                    "othello: interrupted; run the same command again to go on (the results so \
                     far are kept in {})",
                    out.display()
                );
                std::process::exit(i32::from(status));
            });
        }
        let graded = run.run(&|Progress::Cases {
                                   done,
                                   total,
                                   failed,
                               }| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            bar.set_message(format!("{failed} failed"));
        });
        bar.finish_and_clear();
        let graded = graded.map_err(|error| usage(error.to_string()))?;
        let protections = sandbox.protections();
        let time_limits = options.time_limits();
        let scored = Scored::new(&graded, &cases, &points, &protections, &time_limits)
            .with_roster(roster.as_ref(), &self.assignment);
        // The similarity report reads every submission's code again, from its original.
        let starters: Vec<_> = self
            .starter
            .iter()
            .flat_map(|path| submissions::source_files(path).0)
            .collect();
        let sources: Vec<Source> = if self.single || self.no_similarity {
            Vec::new()
        } else {
            submissions
                .iter()
                .enumerate()
                .map(|(index, submission)| {
                    submissions::source_code(
                        submission,
                        &scratch.path().join(format!("code-{index}")),
                    )
                })
                .collect()
        };
        let comparison = compare(&sources, &starters, &similarity::Options::default());
        let similar = (!sources.is_empty()).then_some(report::Similar {
            sources: &sources,
            comparison: &comparison,
            starters: starters.len(),
        });
        report::write_all(&self.out, &scored, self.single, similar)
            .map_err(|(path, source)| CliError::WriteFile { path, source })?;
        write!(out, "{}", summary(&scored, &self.out))?;
        out.flush()?;
        Ok(())
    }
}

/// A small text file given on the command line, read whole within `limit` bytes (bytes
/// that are not UTF-8 replaced).
fn read_text(path: &Path, limit: u64) -> Result<String, CliError> {
    let bytes = crate::files::read_limited(path, limit).map_err(|source| CliError::Read {
        path: path.to_owned(),
        source,
    })?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The lock file of a report directory, beside the journal (which `--restart` removes).
const LOCK_FILE: &str = ".grade.lock";

/// Removes the scratch directories that runs killed outright (SIGKILL, a power cut) left
/// in `temp`: named with their grader's process id, which is no longer running.
fn remove_stale_scratch(temp: &Path) {
    for dir in left_by_dead(temp, RUN_PREFIX) {
        if dir.is_dir() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// A command template split into words like a shell would (without running one).
fn words(template: &str, option: &str) -> Result<Vec<String>, CliError> {
    let words = shell_words::split(template).map_err(|error| CliError::Usage {
        message: format!("{option}: {error}"),
    })?;
    if words.is_empty() {
        return Err(CliError::Usage {
            message: format!("{option} is empty"),
        });
    }
    Ok(words)
}

/// Every `.in` file under `dir`, named by its path below it (`/` between folders), in name
/// order; its kind is its folder (empty at the top), its rules those a folder of its path
/// names (`simple/passes/0003.in`), else `rules`.
fn read_cases(dir: &Path, rules: Variant) -> Result<Vec<ClassCase>, CliError> {
    let read_error = |path: &Path| {
        let path = path.to_owned();
        move |source| CliError::Read { path, source }
    };
    let mut cases = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).map_err(read_error(&folder))? {
            let path = entry.map_err(read_error(&folder))?.path();
            if path.is_dir() {
                pending.push(path);
            } else if path
                .extension()
                .is_some_and(|ext| ext.eq_ignore_ascii_case("in"))
            {
                let relative = path.strip_prefix(dir).unwrap_or(&path);
                let parts: Vec<String> = relative
                    .components()
                    .map(|part| part.as_os_str().to_string_lossy().into_owned())
                    .collect();
                let input = crate::files::read_limited(&path, crate::files::LIST_FILE)
                    .map_err(read_error(&path))?;
                let folders = &parts[..parts.len() - 1];
                let variant = folders
                    .iter()
                    .rev()
                    .find_map(|folder| {
                        Variant::ALL
                            .into_iter()
                            .find(|variant| variant.name().eq_ignore_ascii_case(folder))
                    })
                    .unwrap_or(rules);
                cases.push(ClassCase {
                    kind: folders.join("/"),
                    variant,
                    case: Case {
                        name: parts.join("/"),
                        input,
                    },
                });
            }
        }
    }
    cases.sort_by(|a, b| a.case.name.cmp(&b.case.name));
    Ok(cases)
}

/// `count` generated cases for `variant`, named `NNNN-KIND.in`, of kind `KIND`.
fn generated_cases(count: u32, seed: u64, variant: Variant) -> Vec<ClassCase> {
    generated(variant, count, seed)
        .map(|generated| ClassCase {
            case: Case {
                name: format!("{}-{}.in", generated.number, generated.kind),
                input: generated.input,
            },
            kind: generated.kind.to_owned(),
            variant,
        })
        .collect()
}

/// A line per submission, then the sandbox and where the reports are.
fn summary(scored: &Scored<'_>, out: &Path) -> String {
    let width = scored
        .submissions
        .iter()
        .map(|s| report::safe_name(&s.graded.name).chars().count())
        .max()
        .unwrap_or(0)
        .max("submission".len());
    let mut text = format!(
        "{:<width$}  {:>13}  {:>6}  {:>6}  failures\n",
        "submission", "score", "passed", "failed"
    );
    for submission in &scored.submissions {
        let score = format!(
            "{}/{}",
            report::points_text(submission.score),
            report::points_text(submission.max_score)
        );
        text.push_str(&format!(
            "{:<width$}  {score:>13}  {:>6}  {:>6}  {}\n",
            report::safe_name(&submission.graded.name),
            submission.passed,
            submission.failed(),
            submission.classes_text()
        ));
    }
    if scored.roster.is_some() {
        let rows = scored.rows();
        let who = |status: &str| -> Vec<String> {
            rows.iter()
                .filter(|row| row.status() == status)
                .map(|row| match (row.student, row.submission) {
                    (Some(student), _) if !student.name.is_empty() => {
                        format!("{} ({})", student.name, student.id)
                    }
                    (Some(student), _) => student.id.clone(),
                    (None, Some(submission)) => submission.graded.name.clone(),
                    (None, None) => String::new(),
                })
                .map(|text| report::safe_name(&text))
                .collect()
        };
        for (status, label) in [
            (
                "missing",
                "Missing (on the class list, nothing graded, 0 points)",
            ),
            ("not on the class list", "Graded but not on the class list"),
        ] {
            let names = who(status);
            if !names.is_empty() {
                text.push_str(&format!("{label}: {}\n", names.join(", ")));
            }
        }
    }
    text.push_str(&scored.protections.summary());
    text.push_str(&format!("\n{}", scored.time_limits));
    text.push_str(&format!("\nReports in {}\n", out.display()));
    text
}
