//! What the reference prints for an input, and when: the grader run in memory with its input
//! fed one line per read, recording how much output had been flushed before each line was
//! read. That is exactly what a harness driving a program line by line waits for before
//! sending the line.

use std::{
    cell::RefCell,
    io::{self, Read, Write},
    rc::Rc,
};

use crate::{Variant, protocol};

/// One input line the reference read, and the output it had printed before reading it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputLine {
    /// The line with its line ending (the last line of an input may have none).
    pub text: Vec<u8>,
    /// Bytes of output printed before the line was read.
    pub output_before: usize,
}

/// The reference's whole run on one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// Everything it printed on stdout.
    pub output: Vec<u8>,
    /// The input lines it read, in order (lines after the end of the game are never read).
    pub lines: Vec<InputLine>,
    /// Bytes of output printed before it found the end of the input, if it read that far.
    pub eof_output_before: Option<usize>,
    /// Its exit status: 0, 2 (malformed header or board) or 3 (input ended mid-game).
    pub status: u8,
    /// The error it reports on stderr (without the `othello: ` prefix), if any.
    pub error: Option<String>,
}

impl Reference {
    /// Runs the grader on `input` under `variant`.
    pub fn run(variant: Variant, input: &[u8]) -> Reference {
        let output = Rc::new(RefCell::new(Vec::new()));
        let mut feeder = LineFeeder {
            rest: input,
            line_left: 0,
            output: Rc::clone(&output),
            lines: Vec::new(),
            eof_output_before: None,
        };
        let result = protocol::run(&mut feeder, SharedOutput(Rc::clone(&output)), variant);
        let (status, error) = match result {
            Ok(_) => (0, None),
            Err(error) => (error.exit_status(), Some(error.to_string())),
        };
        let output = output.borrow().clone();
        Reference {
            output,
            lines: feeder.lines,
            eof_output_before: feeder.eof_output_before,
            status,
            error,
        }
    }

    /// The interleaved transcript a person reads: the output, with each input line written
    /// where it was read, prefixed by `> ` (without its line ending; a `\r` before it is
    /// dropped too), and at the end, if the run failed, a line `# othello: <error> (exit
    /// status N)`.
    pub fn transcript(&self) -> Vec<u8> {
        let mut text = self.interleaved(self.output.len());
        if let Some(error) = &self.error {
            let note = format!("# othello: {error} (exit status {})\n", self.status);
            text.extend_from_slice(note.as_bytes());
        }
        text
    }

    /// The transcript (as [`Reference::transcript`] writes it) of the first `lines` lines of
    /// output and the input read before them: what a program that goes wrong on line
    /// `lines + 1` got right.
    pub fn transcript_until(&self, lines: usize) -> Vec<u8> {
        let end = memchr::memchr_iter(b'\n', &self.output)
            .nth(lines.wrapping_sub(1))
            .map_or(self.output.len(), |newline| newline + 1);
        self.interleaved(if lines == 0 { 0 } else { end })
    }

    /// The output up to byte `end`, with the input lines read before it interleaved.
    fn interleaved(&self, end: usize) -> Vec<u8> {
        let mut text = Vec::with_capacity(end * 2);
        let mut printed = 0;
        for line in self
            .lines
            .iter()
            .take_while(|line| line.output_before <= end)
        {
            text.extend_from_slice(&self.output[printed..line.output_before]);
            printed = line.output_before;
            text.extend_from_slice(b"> ");
            let content = line.text.strip_suffix(b"\n").unwrap_or(&line.text);
            text.extend_from_slice(content.strip_suffix(b"\r").unwrap_or(content));
            text.push(b'\n');
        }
        text.extend_from_slice(&self.output[printed..end]);
        text
    }
}

/// The output, shared with the feeder so that it can see how much has been flushed.
struct SharedOutput(Rc<RefCell<Vec<u8>>>);

impl Write for SharedOutput {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Serves the input one line per read (less if the reader's buffer is smaller), noting the
/// output printed before each new line. The protocol flushes its output before every read,
/// so the note is what a harness would have seen.
struct LineFeeder<'a> {
    rest: &'a [u8],
    /// Bytes of the current line not served yet (0: the next read starts a new line).
    line_left: usize,
    output: Rc<RefCell<Vec<u8>>>,
    lines: Vec<InputLine>,
    eof_output_before: Option<usize>,
}

impl Read for LineFeeder<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        if self.line_left == 0 {
            if self.rest.is_empty() {
                self.eof_output_before
                    .get_or_insert(self.output.borrow().len());
                return Ok(0);
            }
            let length = memchr::memchr(b'\n', self.rest).map_or(self.rest.len(), |at| at + 1);
            self.lines.push(InputLine {
                text: self.rest[..length].to_vec(),
                output_before: self.output.borrow().len(),
            });
            self.line_left = length;
        }
        let served = self.line_left.min(buffer.len());
        buffer[..served].copy_from_slice(&self.rest[..served]);
        self.rest = &self.rest[served..];
        self.line_left -= served;
        Ok(served)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = "4\n4\nW\n>\nB . . .\n. W . .\n. . . .\n. . . .\n3 3\n1 1\n";

    #[test]
    fn records_what_was_printed_before_each_line() {
        let reference = Reference::run(Variant::Full, SPEC.as_bytes());
        assert_eq!(reference.status, 0);
        // The rules line comes before the first header line; the state block and TURN
        // before the move; the line after the end of the game is never read.
        let before: Vec<usize> = reference.lines.iter().map(|l| l.output_before).collect();
        assert_eq!(before[..8], [5; 8]);
        assert_eq!(reference.lines.len(), 9);
        let first_state = "FULL\nB: 1  W: 1\nB . . .\n. W . .\n. . . .\n. . . .\nTURN: B\n";
        assert_eq!(before[8], first_state.len());
        assert_eq!(reference.eof_output_before, None);
        let transcript = String::from_utf8(reference.transcript()).unwrap();
        assert!(
            transcript.starts_with("FULL\n> 4\n> 4\n> W\n> >\n> B . . .\n"),
            "{transcript}"
        );
        assert!(
            transcript.contains("TURN: B\n> 3 3\nVALID\n"),
            "{transcript}"
        );
        assert!(transcript.ends_with("WINNER: B\n"), "{transcript}");
    }

    #[test]
    fn the_end_of_the_input_and_long_lines() {
        let truncated = "4\n4\nB\n>\n. . . .\n. B W .\n. W B .\n. . . .\n2 4\r\n";
        let reference = Reference::run(Variant::Full, truncated.as_bytes());
        assert_eq!(reference.status, 3);
        assert_eq!(reference.eof_output_before, Some(reference.output.len()));
        let transcript = String::from_utf8(reference.transcript()).unwrap();
        assert!(transcript.contains("> 2 4\nVALID\n"), "{transcript}");
        assert!(
            transcript.ends_with(
                "TURN: W\n# othello: input ended before the game was over (exit status 3)\n"
            ),
            "{transcript}"
        );

        let long = format!("{}\n", "9".repeat(20_000));
        let input = format!("4\n4\nB\n>\n. . . .\n. B W .\n. W B .\n. . . .\n{long}");
        let reference = Reference::run(Variant::Full, input.as_bytes());
        assert_eq!(reference.lines.last().unwrap().text.len(), 20_001);
        assert!(reference.output.ends_with(b"TURN: B\nINVALID\n"));
        let malformed = Reference::run(Variant::Simple, b"5\n");
        assert_eq!(
            (malformed.status, malformed.output.as_slice()),
            (2, &b"SIMPLE\n"[..])
        );
    }
}
