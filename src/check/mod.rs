//! Checking another program against the grader protocol, the way the course's harness does,
//! and saying precisely where and how it goes wrong.
//!
//! A case is a grader input. The reference output (and when each input line may be sent)
//! comes from this crate's own grader run in memory ([`reference::Reference`]). In the
//! default, interactive mode the program gets nothing until it has printed its rules line
//! (within [`FIRST_LINE_TIMEOUT`]), then each input line only once everything the reference
//! prints before reading it has arrived, each wait bounded by the line timeout; after the
//! last line it must finish its output and exit within [`EXIT_TIMEOUT`]. In piped mode the
//! whole input is sent at once. The first difference ends the case: its class, the line, the
//! expected and actual text, the moves played so far and the board at that point.

use std::{
    fmt, io,
    time::{Duration, Instant},
};

use thiserror::Error;

use crate::{Square, Variant};

mod process;
pub mod reference;

use process::Process;
use reference::Reference;

/// How long the course's harness waits for the rules line before sending anything.
pub const FIRST_LINE_TIMEOUT: Duration = Duration::from_secs(1);

/// How long a program may take to exit after its last line (`WINNER:` or an error).
pub const EXIT_TIMEOUT: Duration = Duration::from_secs(2);

/// How long to wait for the rest of a line that differs, to show it whole.
const REST_OF_LINE: Duration = Duration::from_millis(200);

/// Lines of stderr shown with a failure.
const STDERR_LINES: usize = 8;

/// Bytes of a program's output kept beyond the longest expected transcript (to show what
/// it printed instead); anything after them is only counted.
const KEPT_TAIL: usize = 64 * 1024;

/// Characters of a line shown in a report; a longer one is cut, with `...`.
const SHOWN_LINE: usize = 300;

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
}

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
    let process =
        Process::start(&options.program, longest + KEPT_TAIL).map_err(|source| CheckError {
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
    };
    let failure = checker.run().err();
    Ok(CaseReport {
        name: case.name.clone(),
        variant: checker.variant(),
        failure,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// The rule set `program` names on its first line (waiting for it as long as
/// [`EXIT_TIMEOUT`] after the usual [`FIRST_LINE_TIMEOUT`]), or `None` if it names neither.
///
/// # Errors
/// [`CheckError`] if the program cannot be started.
pub fn probe_rules(program: &[String]) -> Result<Option<Variant>, CheckError> {
    let mut process = Process::start(program, KEPT_TAIL).map_err(|source| CheckError {
        program: program.join(" "),
        source,
    })?;
    let deadline = Instant::now() + FIRST_LINE_TIMEOUT + EXIT_TIMEOUT;
    process.wait_until(deadline, |out, eof| out.contains(&b'\n') || eof);
    Ok(first_line(&process.stdout).and_then(rules_of))
}

/// One case in progress.
struct Checker<'a> {
    options: &'a CheckOptions,
    case: &'a Case,
    process: Process,
    reference: Option<Reference>,
    /// Bytes of the output already found equal to the reference's.
    verified: usize,
    /// Input lines sent so far.
    sent: usize,
    /// Their bytes.
    sent_bytes: Vec<u8>,
    start: Instant,
}

/// Why a wait for output ended early.
enum Stop {
    /// The output differs from the reference at this byte.
    Differs(usize),
    /// The program closed its stdout.
    Ended,
    /// Nothing more came in time.
    TimedOut,
}

type Verdict = Result<(), Box<Failure>>;

impl Checker<'_> {
    fn variant(&self) -> Option<Variant> {
        match self.options.rules {
            RulesChoice::Fixed(variant) => Some(variant),
            RulesChoice::Auto => rules_of(first_line(&self.process.stdout)?),
        }
    }

    fn expected(&self) -> &[u8] {
        &self
            .reference
            .as_ref()
            .expect("known once the rules are")
            .output
    }

    fn run(&mut self) -> Verdict {
        let variant = match self.options.mode {
            Mode::Interactive => self.rules_line()?,
            Mode::Piped => {
                self.process.send_all_and_close(self.case.input.clone());
                self.sent_bytes = self.case.input.clone();
                self.wait_for_first_line()?
            }
        };
        self.reference = Some(Reference::run(variant, &self.case.input));
        if self.options.mode == Mode::Interactive {
            let reference = self.reference.clone().expect("just set");
            for line in &reference.lines {
                self.output_up_to(line.output_before)?;
                if !self.process.send(&line.text) {
                    break; // it stopped reading: what it printed tells why
                }
                self.sent += 1;
                self.sent_bytes.extend_from_slice(&line.text);
            }
            if let Some(before) = reference.eof_output_before {
                self.output_up_to(before)?;
                self.process.close_stdin();
            }
        }
        let end = self.expected().len();
        self.output_up_to(end)?;
        self.the_end()
    }

    /// Interactive start: the rules line must come within a second, before any input.
    fn rules_line(&mut self) -> Result<Variant, Box<Failure>> {
        let has_line = |out: &[u8], eof: bool| out.contains(&b'\n') || eof;
        let in_time = self
            .process
            .wait_until(self.start + FIRST_LINE_TIMEOUT, has_line);
        if !in_time {
            let late = self
                .process
                .wait_until(Instant::now() + self.options.line_timeout, has_line);
            if late && first_line(&self.process.stdout).is_some() {
                self.check_rules_text()?;
                let after = self.start.elapsed().as_secs_f64();
                return Err(self.failure_at_line(
                    Class::WrongRulesLine,
                    0,
                    format!(
                        "the rules line came after {after:.1} s; the harness waits {} s before giving up",
                        FIRST_LINE_TIMEOUT.as_secs()
                    ),
                ));
            }
            return Err(self.stalled(0));
        }
        self.check_rules_text()
    }

    /// Piped start: whatever comes first.
    fn wait_for_first_line(&mut self) -> Result<Variant, Box<Failure>> {
        let has_line = |out: &[u8], eof: bool| out.contains(&b'\n') || eof;
        let deadline = Instant::now() + self.options.line_timeout;
        if !self.process.wait_until(deadline, has_line) {
            return Err(self.stalled(0));
        }
        self.check_rules_text()
    }

    /// The rule set the first line names, as the options want it.
    fn check_rules_text(&mut self) -> Result<Variant, Box<Failure>> {
        let line = first_line(&self.process.stdout);
        let named = line.and_then(rules_of);
        let variant = match (self.options.rules, named) {
            (RulesChoice::Fixed(variant), _) => variant,
            (RulesChoice::Auto, Some(variant)) => variant,
            (RulesChoice::Auto, None) => {
                let note = match line {
                    None => "it printed nothing and ended its output".to_owned(),
                    Some(text) => format!(
                        "the first line must be FULL or SIMPLE, found {}",
                        visible(text)
                    ),
                };
                return Err(self.failure_at_line(Class::WrongRulesLine, 0, note));
            }
        };
        Ok(variant)
    }

    /// Waits until the output reaches `target` bytes, all as the reference has them, for
    /// at most the line timeout (however much else the program prints meanwhile).
    fn output_up_to(&mut self, target: usize) -> Verdict {
        let expected = &self
            .reference
            .as_ref()
            .expect("known once the rules are")
            .output;
        let deadline = Instant::now() + self.options.line_timeout;
        let verified = &mut self.verified;
        let mut differs = None;
        self.process.wait_until(deadline, |out, eof| {
            differs = first_difference(out, expected, verified);
            differs.is_some() || out.len() >= target || eof
        });
        let stop = if let Some(at) = differs {
            Stop::Differs(at)
        } else if self.process.stdout.len() >= target {
            return Ok(());
        } else if self.process.eof {
            Stop::Ended
        } else {
            Stop::TimedOut
        };
        Err(match stop {
            Stop::Differs(at) => self.differs(at),
            Stop::Ended => self.ended_early(),
            Stop::TimedOut => self.stalled(self.process.stdout.len()),
        })
    }

    /// After the whole transcript: nothing more, and the right exit in time.
    fn the_end(&mut self) -> Verdict {
        let expected = self.expected().to_vec();
        let exited = self.process.wait_exit(EXIT_TIMEOUT);
        // Anything printed after the last line is extra.
        self.process
            .wait_until(Instant::now() + REST_OF_LINE, |out, eof| {
                out.len() > expected.len() || eof
            });
        if self.process.stdout.len() > expected.len() {
            return Err(self.differs(expected.len()));
        }
        let reference_status = self.reference.as_ref().expect("set").status;
        let Some(status) = exited else {
            let lines = line_count(&expected);
            let note = format!(
                "still running {} s after its last line; it must exit by itself, without waiting for more input",
                EXIT_TIMEOUT.as_secs()
            );
            let mut failure = self.failure_at_line(Class::NoExit, lines, note);
            failure.expected = None;
            failure.actual = None;
            return Err(failure);
        };
        if status.code() == Some(i32::from(reference_status)) {
            return Ok(());
        }
        let class = if self.looks_crashed(status) {
            Class::Crash
        } else {
            Class::WrongExitStatus
        };
        let note = format!(
            "the output was right, but it ended with {} instead of exit status {reference_status}",
            describe_exit(status)
        );
        let lines = line_count(&expected);
        let mut failure = self.failure_at_line(class, lines, note);
        failure.expected = None;
        failure.actual = None;
        Err(failure)
    }

    fn looks_crashed(&self, status: std::process::ExitStatus) -> bool {
        let stderr = self.process.stderr_tail(usize::MAX);
        status.code().is_none_or(|code| !(0..=3).contains(&code))
            || [
                "Traceback",
                "panicked",
                "Exception",
                "Segmentation",
                "core dumped",
            ]
            .iter()
            .any(|word| stderr.contains(word))
    }

    /// Output differs from the reference at byte `at`.
    fn differs(&mut self, at: usize) -> Box<Failure> {
        let expected = self.expected().to_vec();
        let line_start = expected[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        // Let the rest of the differing line arrive, to show it whole.
        self.process
            .wait_until(Instant::now() + REST_OF_LINE, |out, eof| {
                eof || out[line_start.min(out.len())..].contains(&b'\n')
            });
        let line = line_count(&expected[..line_start]);
        let expected_line = line_at(&expected, line_start);
        let actual_line = line_at(&self.process.stdout, line_start);
        // Output that should come only after the next input line came before it was sent.
        let unasked = self.options.mode == Mode::Interactive
            && self
                .reference
                .as_ref()
                .and_then(|r| r.lines.get(self.sent))
                .is_some_and(|next| at >= next.output_before);
        let (class, note) = classify(
            line,
            expected_line.as_deref(),
            actual_line.as_deref(),
            unasked,
            self.next_actual_line(line_start),
        );
        let mut failure = self.failure_at_line(class, line, note);
        failure.expected = expected_line;
        failure.actual = actual_line;
        if failure.class == Class::WrongOutput || failure.class == Class::ExtraOutput {
            // A crash while printing shows as short output: say so when it is one.
            if let Some(status) = self.process.wait_exit(Duration::ZERO)
                && self.looks_crashed(status)
            {
                failure.class = Class::Crash;
            }
        }
        failure
    }

    /// The actual line after the one starting at `start`, if complete.
    fn next_actual_line(&self, start: usize) -> Option<String> {
        let out = &self.process.stdout;
        let end = start + out.get(start..)?.iter().position(|&b| b == b'\n')?;
        line_at(out, end + 1)
    }

    /// The program closed its output before the transcript was complete.
    fn ended_early(&mut self) -> Box<Failure> {
        let status = self.process.wait_exit(EXIT_TIMEOUT);
        let printed = self.process.stdout.len();
        let expected = self.expected().to_vec();
        let line_start = expected[..printed.min(expected.len())]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let line = line_count(&expected[..line_start]);
        let (class, note) = match status {
            Some(status) if !status.success() || self.looks_crashed(status) => (
                Class::Crash,
                format!(
                    "it crashed ({}) in the middle of the game",
                    describe_exit(status)
                ),
            ),
            Some(status) => (
                Class::EarlyExit,
                format!(
                    "it stopped printing and ended ({}) before the game was over",
                    describe_exit(status)
                ),
            ),
            None => (
                Class::EarlyExit,
                "it closed its output before the game was over".to_owned(),
            ),
        };
        let mut failure = self.failure_at_line(class, line, note);
        failure.expected = line_at(&expected, line_start);
        failure.actual = None;
        failure
    }

    /// Nothing came in time: held back (it appears once the input ends) or just nothing.
    fn stalled(&mut self, printed: usize) -> Box<Failure> {
        let waited = self.options.line_timeout.as_secs_f64();
        let (expected, line_start) = match &self.reference {
            Some(reference) => {
                let expected = reference.output.clone();
                let start = expected[..printed.min(expected.len())]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |i| i + 1);
                (Some(expected), start)
            }
            None => (None, 0),
        };
        self.process.close_stdin();
        let before = self.process.printed();
        self.process
            .wait_until(Instant::now() + EXIT_TIMEOUT, |out, eof| {
                eof || out.len() as u64 > before
            });
        let line = expected
            .as_ref()
            .map_or(0, |expected| line_count(&expected[..line_start]));
        let (class, note) = if self.process.printed() > before {
            (
                Class::MissingFlush,
                "nothing came while it waited for input, then its output arrived when the input ended: it does not flush stdout before reading".to_owned(),
            )
        } else if line == 0 {
            (
                Class::WrongRulesLine,
                format!("no rules line within {waited:.1} s, and none when the input ended"),
            )
        } else {
            (
                Class::Timeout,
                format!("nothing more within {waited:.1} s, and nothing when the input ended"),
            )
        };
        let mut failure = self.failure_at_line(class, line, note);
        failure.expected = expected
            .as_deref()
            .and_then(|expected| line_at(expected, line_start));
        failure.actual = None;
        failure
    }

    /// A failure at transcript line `line` (0-based) with the context the reference gives.
    fn failure_at_line(&mut self, class: Class, line: usize, mut note: String) -> Box<Failure> {
        if self.process.overflowed() {
            note.push_str(&format!(
                " (it printed at least {} bytes, far more than the transcript has)",
                self.process.printed()
            ));
        }
        let exit = self.process.wait_exit(Duration::ZERO).map(describe_exit);
        let (moves, board) = match &self.reference {
            Some(reference) => context(reference, &self.case.input, self.sent, line),
            None => (Vec::new(), None),
        };
        let expected = self
            .reference
            .as_ref()
            .and_then(|r| nth_line(&r.output, line));
        Box::new(Failure {
            class,
            line: line + 1,
            expected,
            actual: nth_line(&self.process.stdout, line),
            note,
            moves,
            board,
            stderr: self.process.stderr_tail(STDERR_LINES),
            exit,
            minimal_input: self.sent_bytes.clone(),
        })
    }
}

/// Decides what a differing line means. `unasked`: it came before the input it answers was
/// sent. `next_actual`: the line the program printed after it. The note explains; the lines
/// themselves go beside it in the report.
fn classify(
    line: usize,
    expected: Option<&str>,
    actual: Option<&str>,
    unasked: bool,
    next_actual: Option<String>,
) -> (Class, String) {
    if line == 0 {
        return (
            Class::WrongRulesLine,
            "the first line must be the rules line".to_owned(),
        );
    }
    let (Some(expected), Some(actual)) = (expected, actual) else {
        return (
            Class::ExtraOutput,
            "output after the end of the transcript".to_owned(),
        );
    };
    if unasked {
        return (
            Class::ExtraOutput,
            "printed before the input it answers was sent (a prompt?)".to_owned(),
        );
    }
    if actual.trim_end() == expected {
        return (
            Class::TrailingWhitespace,
            "the right line with trailing whitespace".to_owned(),
        );
    }
    // `Enter move: VALID` (but not `INVALID`), or a line of its own before the right one.
    let prompt_before = actual
        .strip_suffix(expected)
        .is_some_and(|prefix| prefix.ends_with(|c: char| !c.is_alphanumeric()));
    if prompt_before {
        return (
            Class::ExtraOutput,
            "the right line after extra text (a prompt or message?)".to_owned(),
        );
    }
    if next_actual.as_deref() == Some(expected) {
        return (
            Class::ExtraOutput,
            "an extra line before the right one (a prompt or message?)".to_owned(),
        );
    }
    let turn = |text: &str| text.starts_with("TURN: ");
    let winner = |text: &str| text.starts_with("WINNER: ");
    match (expected, actual) {
        (e, a) if turn(e) && turn(a) => (
            Class::WrongPass,
            "wrong side to move: a side without a legal move passes".to_owned(),
        ),
        (e, a) if winner(e) && turn(a) => (
            Class::WrongPass,
            "the game is over (neither side can move), but it went on".to_owned(),
        ),
        (e, a) if turn(e) && winner(a) => (
            Class::WrongPass,
            "the game is not over (a side can still move), but it named a winner".to_owned(),
        ),
        (e, a) if winner(e) && winner(a) => (
            Class::WrongWinner,
            "the counts are right but the winner is not (the win rule: > most, < fewest)"
                .to_owned(),
        ),
        _ => {
            let column = expected
                .chars()
                .zip(actual.chars())
                .take_while(|(e, a)| e == a)
                .count()
                + 1;
            (
                Class::WrongOutput,
                format!("the line differs from character {column} on"),
            )
        }
    }
}

/// The moves answered `VALID` among the first `sent` input lines, and the last state block
/// the reference printed before transcript line `line` (0-based).
fn context(
    reference: &Reference,
    input: &[u8],
    sent: usize,
    line: usize,
) -> (Vec<Square>, Option<String>) {
    let rows = crate::Setup::from_grader_input(input)
        .map_or(0, |setup| usize::from(setup.board.shape().rows()));
    let setup_lines = if rows == 0 { usize::MAX } else { 4 + rows };
    let mut moves = Vec::new();
    for input_line in reference.lines.iter().take(sent).skip(setup_lines) {
        let answer = &reference.output[input_line.output_before..];
        if answer.starts_with(b"VALID\n")
            && let Some(square) = parse_move_line(&input_line.text)
        {
            moves.push(square);
        }
    }
    let text = String::from_utf8_lossy(&reference.output);
    let lines: Vec<&str> = text.lines().take(line).collect();
    // The counts, the rows and the TURN or WINNER line after them.
    let board = lines
        .iter()
        .rposition(|l| l.starts_with("B: "))
        .map(|at| lines[at..lines.len().min(at + rows + 2)].join("\n"));
    (moves, board)
}

/// `r c` (1-based) as a square.
fn parse_move_line(text: &[u8]) -> Option<Square> {
    let text = std::str::from_utf8(text).ok()?;
    let mut numbers = text.split_whitespace().map(str::parse::<u8>);
    let (Some(Ok(row @ 1..=16)), Some(Ok(column @ 1..=16)), None) =
        (numbers.next(), numbers.next(), numbers.next())
    else {
        return None;
    };
    Some(Square::new(row - 1, column - 1))
}

/// The first byte where `actual` departs from `expected` (including going on past its end),
/// looking only after the `verified` bytes already found equal, and moving that on: each
/// byte is compared once, however the output arrives.
fn first_difference(actual: &[u8], expected: &[u8], verified: &mut usize) -> Option<usize> {
    let common = actual.len().min(expected.len());
    let from = (*verified).min(common);
    let found = actual[from..common]
        .iter()
        .zip(&expected[from..common])
        .position(|(a, e)| a != e)
        .map(|offset| from + offset);
    *verified = found.unwrap_or(common);
    found.or((actual.len() > expected.len()).then_some(expected.len()))
}

/// The first line of `output`, if complete.
fn first_line(output: &[u8]) -> Option<&str> {
    let end = output.iter().position(|&b| b == b'\n')?;
    std::str::from_utf8(&output[..end]).ok()
}

/// The rule set a rules line names.
fn rules_of(line: &str) -> Option<Variant> {
    match line {
        "FULL" => Some(Variant::Full),
        "SIMPLE" => Some(Variant::Simple),
        _ => None,
    }
}

/// The line starting at byte `start` (without its newline; what there is of it if it is
/// not complete), or `None` if nothing is there.
fn line_at(text: &[u8], start: usize) -> Option<String> {
    let rest = text.get(start..).filter(|rest| !rest.is_empty())?;
    let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
    let line = String::from_utf8_lossy(&rest[..end]);
    if line.chars().count() <= SHOWN_LINE {
        return Some(line.into_owned());
    }
    let mut cut: String = line.chars().take(SHOWN_LINE).collect();
    cut.push_str("...");
    Some(cut)
}

/// Line `index` (0-based) of `text`.
fn nth_line(text: &[u8], index: usize) -> Option<String> {
    let start = if index == 0 {
        0
    } else {
        text.iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .nth(index - 1)
            .map(|(at, _)| at + 1)?
    };
    line_at(text, start)
}

/// Complete lines in `text`.
fn line_count(text: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', text).count()
}

/// A line with what cannot be seen made visible: quoted, `\r` and `\t` escaped, trailing
/// spaces shown as `·`.
pub fn visible(line: &str) -> String {
    let body = line.trim_end_matches(' ');
    let trailing = line.len() - body.len();
    let mut shown = String::from("\"");
    for c in body.chars() {
        match c {
            '\r' => shown.push_str("\\r"),
            '\t' => shown.push_str("\\t"),
            '"' => shown.push_str("\\\""),
            c if c.is_control() => shown.push_str(&c.escape_unicode().to_string()),
            c => shown.push(c),
        }
    }
    shown.push_str(&"·".repeat(trailing));
    shown.push('"');
    shown
}

/// `exit status 1`, `killed by signal 9`.
fn describe_exit(status: std::process::ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    status.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters_are_shown() {
        assert_eq!(visible("B . .  "), "\"B . .··\"");
        assert_eq!(visible("VALID\r"), "\"VALID\\r\"");
        assert_eq!(visible("a\tb"), "\"a\\tb\"");
    }

    #[test]
    fn classification() {
        let c = |e: &str, a: &str| classify(5, Some(e), Some(a), false, None).0;
        assert_eq!(c("B . .", "B . . "), Class::TrailingWhitespace);
        assert_eq!(c("VALID", "VALID\r"), Class::TrailingWhitespace);
        assert_eq!(c("VALID", "Enter move: VALID"), Class::ExtraOutput);
        assert_eq!(c("TURN: B", "TURN: W"), Class::WrongPass);
        assert_eq!(c("WINNER: B", "TURN: W"), Class::WrongPass);
        assert_eq!(c("WINNER: B", "WINNER: W"), Class::WrongWinner);
        assert_eq!(c("VALID", "INVALID"), Class::WrongOutput);
        assert_eq!(
            classify(
                5,
                Some("TURN: B"),
                Some("Your move"),
                false,
                Some("TURN: B".into())
            )
            .0,
            Class::ExtraOutput
        );
        assert_eq!(
            classify(5, Some("VALID"), Some("Enter"), true, None).0,
            Class::ExtraOutput
        );
        assert_eq!(
            classify(0, Some("FULL"), Some("Full"), false, None).0,
            Class::WrongRulesLine
        );
        assert_eq!(
            classify(9, None, Some("bye"), false, None).0,
            Class::ExtraOutput
        );
    }

    #[test]
    fn differences_and_lines() {
        let difference =
            |actual: &[u8], expected: &[u8]| first_difference(actual, expected, &mut 0);
        assert_eq!(difference(b"abc", b"abd"), Some(2));
        assert_eq!(difference(b"ab", b"abc"), None);
        assert_eq!(difference(b"abcd", b"abc"), Some(3));
        let mut verified = 0;
        assert_eq!(first_difference(b"ab", b"abcdef", &mut verified), None);
        assert_eq!(verified, 2);
        assert_eq!(first_difference(b"abcX", b"abcdef", &mut verified), Some(3));
        assert_eq!(verified, 3);
        assert_eq!(nth_line(b"a\nb\nc", 2).as_deref(), Some("c"));
        assert_eq!(nth_line(b"a\nb\n", 2), None);
        assert_eq!(line_at(b"a\nbc", 2).as_deref(), Some("bc"));
        assert_eq!(parse_move_line(b" 3 4\r\n"), Some(Square::new(2, 3)));
        assert_eq!(parse_move_line(b"3 4 5\n"), None);
    }
}
