//! Checking another program against the grader protocol, the way the course's harness does,
//! and saying precisely where and how it goes wrong.
//!
//! A case is a grader input. The reference output (and when each input line may be sent)
//! comes from this crate's own grader run in memory ([`reference::Reference`]). In the
//! default, interactive mode the program gets nothing until it has printed its rules line
//! (within the line timeout, like every other wait; one later than [`SLOW_START`] is noted),
//! then each input line only once everything the reference
//! prints before reading it has arrived, each wait bounded by the line timeout; after the
//! last line it must finish its output and exit within [`EXIT_TIMEOUT`]. In piped mode the
//! whole input is sent at once. The first difference ends the case: its class, the line, the
//! expected and actual text, the moves played so far and the board at that point.

use std::{
    fmt, io,
    time::{Duration, Instant},
};

use thiserror::Error;

use crate::{
    Square, Variant,
    grading::scenario::{GenOptions, generate, parse_sizes},
    process::Confinement,
};

mod checker;
mod classify;
mod lines;
mod process;
pub mod reference;

use checker::Checker;
pub use lines::{describe_exit, printable, printable_line, visible};
use lines::{first_line, rules_of};
use process::Process;
use reference::Reference;

/// A rules line later than this is noted in the report (not failed): the course names no
/// start-up time, and an interpreter starting on a loaded machine may well take longer.
pub const SLOW_START: Duration = Duration::from_secs(1);

/// How long a program may take to exit after its last line (`WINNER:` or an error).
pub const EXIT_TIMEOUT: Duration = Duration::from_secs(2);

/// How long to wait for the rest of a line that differs, to show it whole.
pub(crate) const REST_OF_LINE: Duration = Duration::from_millis(200);

/// Lines of stderr shown with a failure.
pub(crate) const STDERR_LINES: usize = 8;

/// Bytes of a program's output kept beyond the longest expected transcript (to show what
/// it printed instead); anything after them is only counted.
pub(crate) const KEPT_TAIL: usize = 64 * 1024;

/// Characters of a line shown in a report; a longer one is cut, with `...`.
pub(crate) const SHOWN_LINE: usize = 300;

/// Which rules the program is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RulesChoice {
    /// Always this rule set.
    Fixed(Variant),
    /// The one the program's first line names (`FULL` or `SIMPLE`).
    Auto,
}

/// How input reaches the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Like the course's harness: each line only after the output before it has arrived.
    Interactive,
    /// The whole input at once, then the end of the input.
    Piped,
}

/// How to check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckOptions {
    /// The program and its arguments.
    pub program: Vec<String>,
    /// The rules to expect.
    pub rules: RulesChoice,
    /// How input is sent.
    pub mode: Mode,
    /// The longest wait for each expected piece of output.
    pub line_timeout: Duration,
    /// The longest a whole case may take (`None`: as long as its waits allow).
    pub case_limit: Option<Duration>,
    /// Limits and isolation for the program (the class grader's sandbox), if any.
    pub confinement: Option<Confinement>,
}

/// Output that arrives later than this after the input was closed on a stalled program
/// came from a slow program, not from one that held it back until its input ended.
pub const HELD_BACK_WINDOW: Duration = Duration::from_millis(500);

/// A test case: a grader input with a name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// Usually the file name.
    pub name: String,
    /// The grader input.
    pub input: Vec<u8>,
}

/// What kind of mistake a failure shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Output held back while the program waits for input: it arrives only when the input
    /// ends (stdout is not flushed before reading).
    MissingFlush,
    /// The first line is not `FULL` or `SIMPLE` as expected, or comes late.
    WrongRulesLine,
    /// Something printed that the protocol does not have: a prompt, a banner, a message.
    ExtraOutput,
    /// A line right but for trailing spaces, tabs or a `\r`.
    TrailingWhitespace,
    /// The program died: a non-zero status it should not have, a signal, a traceback.
    Crash,
    /// It is still running after its last line.
    NoExit,
    /// The wrong side to move, or the end of the game missed or invented.
    WrongPass,
    /// The wrong `WINNER:`.
    WrongWinner,
    /// Any other wrong line (counts, board, `VALID`/`INVALID`).
    WrongOutput,
    /// Nothing more within the line timeout, and nothing held back either.
    Timeout,
    /// It stopped printing and exited normally before the transcript was complete.
    EarlyExit,
    /// Everything printed was right, but the exit status was not.
    WrongExitStatus,
}

impl Class {
    /// Every class, in report order.
    pub const ALL: [Class; 12] = [
        Class::MissingFlush,
        Class::WrongRulesLine,
        Class::ExtraOutput,
        Class::TrailingWhitespace,
        Class::Crash,
        Class::NoExit,
        Class::WrongPass,
        Class::WrongWinner,
        Class::WrongOutput,
        Class::Timeout,
        Class::EarlyExit,
        Class::WrongExitStatus,
    ];

    /// The name used in reports: `missing-flush`, `wrong-pass`, ...
    pub const fn name(self) -> &'static str {
        match self {
            Class::MissingFlush => "missing-flush",
            Class::WrongRulesLine => "wrong-rules-line",
            Class::ExtraOutput => "extra-output",
            Class::TrailingWhitespace => "trailing-whitespace",
            Class::Crash => "crash",
            Class::NoExit => "no-exit",
            Class::WrongPass => "wrong-pass",
            Class::WrongWinner => "wrong-winner",
            Class::WrongOutput => "wrong-output",
            Class::Timeout => "timeout",
            Class::EarlyExit => "early-exit",
            Class::WrongExitStatus => "wrong-exit-status",
        }
    }

    /// What it means, in a few words.
    pub const fn description(self) -> &'static str {
        match self {
            Class::MissingFlush => "output not flushed before reading input",
            Class::WrongRulesLine => "wrong, late or missing rules line",
            Class::ExtraOutput => "prompts or other extra output",
            Class::TrailingWhitespace => "trailing spaces, tabs or \\r",
            Class::Crash => "crashed",
            Class::NoExit => "did not exit after its last line",
            Class::WrongPass => "wrong pass or end-of-game handling",
            Class::WrongWinner => "wrong winner",
            Class::WrongOutput => "wrong output",
            Class::Timeout => "no output in time",
            Class::EarlyExit => "stopped before the end",
            Class::WrongExitStatus => "wrong exit status",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where and how a case failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// What kind of mistake.
    pub class: Class,
    /// The 1-based line of stdout where it shows.
    pub line: usize,
    /// The line expected there; `None` where the output should have ended.
    pub expected: Option<String>,
    /// The line that came instead; `None` where nothing came.
    pub actual: Option<String>,
    /// What happened, in one sentence.
    pub note: String,
    /// The moves played (answered `VALID`) before it, in standard notation.
    pub moves: Vec<Square>,
    /// The last state block (counts, board, `TURN:`) expected before it.
    pub board: Option<String>,
    /// The last lines of the program's stderr.
    pub stderr: String,
    /// How the program ended, if it did: `exit status 1`, `killed by signal 9`.
    pub exit: Option<String>,
    /// The input sent up to the failure: a shorter case that still shows it.
    pub minimal_input: Vec<u8>,
}

/// The result of one case.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseReport {
    /// The case's name.
    pub name: String,
    /// The rule set it was checked against (unknown if the rules line could not tell).
    pub variant: Option<Variant>,
    /// `None` if it passed.
    pub failure: Option<Box<Failure>>,
    /// Remarks that do not fail the case, such as a slow start.
    pub notes: Vec<String>,
    /// Time taken.
    pub seconds: f64,
}

/// The program could not be run at all.
#[derive(Debug, Error)]
#[error("cannot run {program}: {source}")]
pub struct CheckError {
    /// The program.
    pub program: String,
    /// Why.
    #[source]
    pub source: io::Error,
}

/// Runs `case` through the program as `options` say.
///
/// # Errors
/// [`CheckError`] if the program cannot be started; everything the program does is a
/// result, not an error.
pub fn check_case(options: &CheckOptions, case: &Case) -> Result<CaseReport, CheckError> {
    let start = Instant::now();
    // Enough of the output to compare with any reference it may be checked against, and a
    // tail to show what went wrong; the rest is only counted.
    let variants = match options.rules {
        RulesChoice::Fixed(variant) => vec![variant],
        RulesChoice::Auto => Variant::ALL.to_vec(),
    };
    let longest = variants
        .into_iter()
        .map(|variant| Reference::run(variant, &case.input).output.len())
        .max()
        .unwrap_or(0);
    let process = Process::start(
        &options.program,
        longest + KEPT_TAIL,
        options.confinement.clone(),
    )
    .map_err(|source| CheckError {
        program: options.program.join(" "),
        source,
    })?;
    let mut checker = Checker {
        options,
        case,
        process,
        reference: None,
        verified: 0,
        sent: 0,
        sent_bytes: Vec::new(),
        start,
        notes: Vec::new(),
    };
    let failure = checker.run().err();
    Ok(CaseReport {
        name: case.name.clone(),
        variant: checker.variant(),
        failure,
        notes: checker.notes,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// The rule set `program` names on its first line (waiting for it up to `timeout`), or
/// `None` if it names neither.
///
/// # Errors
/// [`CheckError`] if the program cannot be started.
pub fn probe_rules(program: &[String], timeout: Duration) -> Result<Option<Variant>, CheckError> {
    let mut process = Process::start(program, KEPT_TAIL, None).map_err(|source| CheckError {
        program: program.join(" "),
        source,
    })?;
    let deadline = Instant::now() + timeout;
    process.wait_until(deadline, |out, eof| out.contains(&b'\n') || eof);
    Ok(first_line(&process.stdout).and_then(rules_of))
}

/// `count` generated cases for the rules `choice` names: for [`RulesChoice::Auto`], those
/// the program's first line names (it is started once to see, waiting up to `timeout`;
/// FULL if it names neither). Named like the files `othello gen` writes (`0001.in`, ...);
/// see [`generated`] for what they are.
///
/// # Errors
/// [`CheckError`] if the program cannot be started.
pub fn generated_cases(
    program: &[String],
    choice: RulesChoice,
    count: u32,
    seed: u64,
    timeout: Duration,
) -> Result<Vec<Case>, CheckError> {
    let variant = match choice {
        RulesChoice::Fixed(variant) => variant,
        RulesChoice::Auto => probe_rules(program, timeout)?.unwrap_or(Variant::Full),
    };
    Ok(generated(variant, count, seed)
        .map(|generated| Case {
            name: format!("{}.in", generated.number),
            input: generated.input,
        })
        .collect())
}

/// A case that `othello check --generate` and `othello grade --generate` make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedCase {
    /// Its number, as `gen` names its files (`0001`, ...).
    pub number: String,
    /// What it exercises: a [`ScenarioKind`](crate::grading::scenario::ScenarioKind)'s
    /// name, [`TRUNCATED`] or [`BAD_HEADER`].
    pub kind: &'static str,
    /// The grader input.
    pub input: Vec<u8>,
}

/// The kind of a generated case whose input ends before the game is over (status 3).
pub const TRUNCATED: &str = "truncated";

/// The kind of a generated case whose header or board breaks the spec (status 2).
pub const BAD_HEADER: &str = "bad-header";

/// `count` cases for `variant`, in rotation: a game of each
/// [`ScenarioKind`](crate::grading::scenario::ScenarioKind) (every even size from 4x4 to
/// 16x16, invalid lines before 10 % of the moves), then a game whose input ends before it
/// is over ([`TRUNCATED`]), then a header or board that breaks one of the spec's rules
/// ([`BAD_HEADER`]): the exit statuses are part of the contract too.
pub fn generated(variant: Variant, count: u32, seed: u64) -> impl Iterator<Item = GeneratedCase> {
    use rand::SeedableRng;

    use crate::grading::scenario::{ScenarioKind, cut_short, malformed};

    let options = GenOptions {
        variant,
        sizes: parse_sizes("all").expect("a valid list"),
        seed,
        ..GenOptions::default()
    };
    let rotation = ScenarioKind::ALL.len() as u32 + 2;
    let width = count.to_string().len().max(4);
    (0..count).map(move |index| {
        let number = format!("{:0width$}", index + 1);
        let mut rng =
            rand::rngs::StdRng::seed_from_u64(crate::engine::mix(seed, u64::from(index), 7));
        let round = u64::from(index / rotation);
        let (kind, input) = match (index % rotation) as usize {
            game if game < ScenarioKind::ALL.len() => {
                let games = GenOptions {
                    kinds: vec![ScenarioKind::ALL[game]],
                    ..options.clone()
                };
                let scenario = generate(&games, round);
                (scenario.kind.name(), scenario.input)
            }
            cut if cut == ScenarioKind::ALL.len() => {
                // A standard start always has moves to cut.
                let games = GenOptions {
                    kinds: vec![ScenarioKind::Standard],
                    ..options.clone()
                };
                let scenario = generate(&games, round);
                (TRUNCATED, cut_short(&scenario.input, &mut rng))
            }
            _ => {
                let games = GenOptions {
                    kinds: vec![ScenarioKind::Random],
                    ..options.clone()
                };
                let scenario = generate(&games, round);
                (BAD_HEADER, malformed(&scenario.input, &mut rng))
            }
        };
        GeneratedCase {
            number,
            kind,
            input: input.into_bytes(),
        }
    })
}
