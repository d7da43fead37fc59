//! One case in progress: the program driven line by line (or piped), its output compared
//! with the reference's as it arrives, and the first difference made a [`Failure`].

use std::time::{Duration, Instant};

use super::{
    Case, CheckOptions, Class, EXIT_TIMEOUT, Failure, HELD_BACK_WINDOW, Mode, REST_OF_LINE,
    RulesChoice, SLOW_START, STDERR_LINES,
    classify::{classify, context},
    lines::{
        describe_exit, first_difference, first_line, line_at, line_count, nth_line, rules_of,
        visible,
    },
    process::Process,
    reference::Reference,
};
use crate::Variant;

/// More bytes than any rules line (`SIMPLE`, with a `\r` or trailing spaces) could have:
/// a first line that runs past it without a newline is wrong, whatever follows.
const LONGEST_RULES_LINE: usize = 256;

/// The reference's exit status for a malformed header or board.
const MALFORMED: u8 = 2;

/// Whether the first line is in (or cannot be a rules line any more): the wait for it ends.
fn first_line_settled(out: &[u8], eof: bool) -> bool {
    out.contains(&b'\n') || eof || out.len() > LONGEST_RULES_LINE
}

/// One case in progress.
pub(super) struct Checker<'a> {
    pub(super) options: &'a CheckOptions,
    pub(super) case: &'a Case,
    pub(super) process: Process,
    pub(super) reference: Option<Reference>,
    /// Bytes of the output already found equal to the reference's.
    pub(super) verified: usize,
    /// Input lines sent so far.
    pub(super) sent: usize,
    /// Their bytes.
    pub(super) sent_bytes: Vec<u8>,
    pub(super) start: Instant,
    /// Remarks on a case that do not fail it (a slow start).
    pub(super) notes: Vec<String>,
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
    pub(super) fn variant(&self) -> Option<Variant> {
        match self.options.rules {
            RulesChoice::Fixed(variant) => Some(variant),
            RulesChoice::Auto => rules_of(first_line(&self.process.stdout)?),
        }
    }

    /// The end of a wait for output that starts at `from`: the line timeout later, or the
    /// end of the case's time budget if that comes first.
    fn deadline(&self, from: Instant) -> Instant {
        let wait = from + self.options.line_timeout;
        match self.options.case_limit {
            Some(limit) => wait.min(self.start + limit),
            None => wait,
        }
    }

    /// Whether the case's time budget is spent.
    fn over_budget(&self) -> bool {
        self.options
            .case_limit
            .is_some_and(|limit| self.start.elapsed() >= limit)
    }

    fn expected(&self) -> &[u8] {
        &self
            .reference
            .as_ref()
            .expect("known once the rules are")
            .output
    }

    pub(super) fn run(&mut self) -> Verdict {
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
            } else if reference.status == MALFORMED {
                // The reference stopped at the broken header or board line; a harness
                // would still have sent the lines after it (no output comes between them),
                // and a program may read the whole board before it checks it.
                let rest =
                    self.case.input[self.sent_bytes.len().min(self.case.input.len())..].to_vec();
                self.process.send_all_and_close(rest);
            }
        }
        let end = self.expected().len();
        self.output_up_to(end)?;
        self.the_end()
    }

    /// Interactive start: nothing is sent before the rules line, which may take as long as
    /// any other wait (the course names no start-up time); one later than [`SLOW_START`]
    /// is noted, never failed.
    fn rules_line(&mut self) -> Result<Variant, Box<Failure>> {
        if !self
            .process
            .wait_until(self.deadline(self.start), first_line_settled)
        {
            return Err(self.stalled(0));
        }
        let variant = self.check_rules_text()?;
        let after = self.start.elapsed();
        if after > SLOW_START {
            self.notes.push(format!(
                "slow start: the rules line came after {:.1} s (passed: the course names no start-up time, but a harness that waits only {} s would fail it)",
                after.as_secs_f64(),
                SLOW_START.as_secs()
            ));
        }
        Ok(variant)
    }

    /// Piped start: whatever comes first.
    fn wait_for_first_line(&mut self) -> Result<Variant, Box<Failure>> {
        let deadline = self.deadline(Instant::now());
        if !self.process.wait_until(deadline, first_line_settled) {
            return Err(self.stalled(0));
        }
        self.check_rules_text()
    }

    /// The rule set the first line names, as the options want it.
    fn check_rules_text(&mut self) -> Result<Variant, Box<Failure>> {
        if self.options.rules == RulesChoice::Auto
            && let Some(failure) = self.died_at_start()
        {
            return Err(failure);
        }
        let line = first_line(&self.process.stdout);
        let named = line.and_then(rules_of);
        let variant = match (self.options.rules, named) {
            (RulesChoice::Fixed(variant), _) => variant,
            (RulesChoice::Auto, Some(variant)) => variant,
            (RulesChoice::Auto, None) => {
                let out = &self.process.stdout;
                let note = match line {
                    None if out.len() > LONGEST_RULES_LINE => format!(
                        "the first line must be FULL or SIMPLE, but it runs on for more than {LONGEST_RULES_LINE} bytes: {}",
                        visible(std::str::from_utf8(&out[..40]).unwrap_or("(not UTF-8)"))
                    ),
                    None if out.is_empty() => "it printed nothing and ended its output".to_owned(),
                    None => format!(
                        "the first line must be FULL or SIMPLE; it printed {} and ended its output",
                        visible(&String::from_utf8_lossy(out))
                    ),
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

    /// A program that ended before printing a whole first line, with a failure status or
    /// a crash (a missing file, a usage error): a crash, not a wrong rules line.
    fn died_at_start(&mut self) -> Option<Box<Failure>> {
        if !self.process.eof || first_line(&self.process.stdout).is_some() {
            return None;
        }
        let status = self.process.wait_exit(EXIT_TIMEOUT)?;
        if status.success() && !self.looks_crashed(status) {
            return None;
        }
        let note = format!(
            "it ended with {} before printing its rules line",
            describe_exit(status)
        );
        let mut failure = self.failure_at_line(Class::Crash, 0, note);
        failure.expected = None;
        Some(failure)
    }

    /// Waits until the output reaches `target` bytes, all as the reference has them, for
    /// at most the line timeout (however much else the program prints meanwhile).
    fn output_up_to(&mut self, target: usize) -> Verdict {
        let expected = &self
            .reference
            .as_ref()
            .expect("known once the rules are")
            .output;
        let deadline = self.deadline(Instant::now());
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

    /// Whether an ending is a crash: a signal (or a status above 128, as bubblewrap and
    /// shells report one), or a traceback or panic on stderr. Any other status is the
    /// program's own choice: after the right output it is a wrong exit status, whatever
    /// its number.
    fn looks_crashed(&self, status: std::process::ExitStatus) -> bool {
        let stderr = self.process.stderr_tail(usize::MAX);
        status.code().is_none_or(|code| !(0..=128).contains(&code))
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

    /// Nothing came in time: the case's budget spent, a slow program (still computing, or
    /// printing only well after its input ended), or output held back (it appears the
    /// moment the input ends: stdout not flushed before reading).
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
        let line = expected
            .as_ref()
            .map_or(0, |expected| line_count(&expected[..line_start]));
        let over_budget = self.over_budget();
        // Looked at before its input is closed, which would wake a waiting program.
        let busy = !over_budget && self.process.busy();
        let (class, note) = if over_budget {
            let limit = self.options.case_limit.unwrap_or_default().as_secs_f64();
            (
                Class::Timeout,
                format!(
                    "the case took longer than its time budget of {limit:.1} s (each wait for \
                     output may take {waited:.1} s, the whole case {limit:.1} s)"
                ),
            )
        } else if busy {
            (
                Class::Timeout,
                format!(
                    "nothing more within {waited:.1} s, and it was still computing (its \
                     processes were running, not waiting for input): too slow"
                ),
            )
        } else {
            self.process.close_stdin();
            let before = self.process.printed();
            let closed = Instant::now();
            self.process.wait_until(closed + EXIT_TIMEOUT, |out, eof| {
                eof || out.len() as u64 > before
            });
            let after = closed.elapsed();
            if self.process.printed() > before && after <= HELD_BACK_WINDOW {
                (
                    Class::MissingFlush,
                    "nothing came while it waited for input, then its output arrived the \
                     moment the input ended: it does not flush stdout before reading"
                        .to_owned(),
                )
            } else if self.process.printed() > before {
                (
                    Class::Timeout,
                    format!(
                        "nothing more within {waited:.1} s; its output came {:.1} s after \
                         that: too slow",
                        waited + after.as_secs_f64()
                    ),
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
            }
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
        // A program that is ending gets a moment to, so that its exit status and the end
        // of its stderr (a traceback, say) make it into the report.
        let exit = self.process.wait_exit(REST_OF_LINE).map(describe_exit);
        if exit.is_some() {
            self.process.wait_stderr(REST_OF_LINE);
        }
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
