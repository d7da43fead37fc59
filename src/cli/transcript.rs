//! `othello transcript`: a grader session as a person reads it, input lines interleaved with
//! the output where they are read.
//!
//! It streams: the grader runs on the input as it is read, one line at a time, and each
//! line is shown as the grader reads it, so any input (even gigabytes of move lines) takes
//! as little memory as the grader itself. What is not printable text in an input line (a
//! control character, a byte that is not UTF-8) is shown escaped, so a binary file cannot
//! drive the terminal.

use std::{
    cell::RefCell,
    io::{self, BufRead, Read, Write},
};

use clap::Args;
use othello::{Printable, Variant, protocol};

use super::{CliError, Rules};

/// `othello transcript [--rules ..] [FILE.in]`.
#[derive(Debug, Args)]
pub struct TranscriptArgs {
    /// Rule set.
    #[arg(long, value_enum, default_value_t = Rules::Full)]
    rules: Rules,
    /// The grader input (default: stdin).
    #[arg(value_name = "FILE.in")]
    input: Option<std::path::PathBuf>,
}

impl TranscriptArgs {
    /// Prints the transcript of the file or of stdin.
    ///
    /// # Errors
    /// [`CliError::Read`] or [`CliError::Write`].
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        match &self.input {
            Some(path) => {
                let file = crate::files::open_regular(path).map_err(|source| CliError::Read {
                    path: path.clone(),
                    source,
                })?;
                let input = io::BufReader::with_capacity(64 * 1024, file);
                run(self.rules.into(), input, out).map(drop)
            }
            None => run(self.rules.into(), io::stdin().lock(), out).map(drop),
        }
    }
}

/// Prints the interleaved transcript of `input` under `variant`: the output, each input line
/// prefixed with `> ` where it is read (without its line ending, `\r\n` included), and a
/// final `# othello: ...` line if the grader would fail (input lines it never reads are not
/// shown). Returns the grader's exit status.
///
/// # Errors
/// [`CliError::Read`] if the input cannot be read; [`CliError::Write`] if the
/// output fails.
fn run(variant: Variant, input: impl BufRead, out: &mut impl Write) -> Result<u8, CliError> {
    let out = RefCell::new(out);
    let mut feeder = Echo {
        input,
        out: &out,
        at_line_start: true,
        held_cr: false,
        text: Printable::default(),
        failure: None,
        line_bytes: 0,
        read: 0,
    };
    let result = protocol::run(&mut feeder, Shared(&out), variant);
    // A line the grader stopped in (too long for a header, or the input's limit) ends
    // here, with a count of what was not shown.
    if !feeder.at_line_start && !result.as_ref().is_err_and(|error| error.is_broken_pipe()) {
        feeder.end_line()?;
    }
    if let Some(failure) = feeder.failure.take() {
        // The transcript ends as a transcript does, its last line saying why.
        let mut out = out.borrow_mut();
        writeln!(out, "# othello: {failure} (the transcript stops here)")?;
        out.flush()?;
        return Err(failure);
    }
    let out = out.into_inner();
    let status = match result {
        Ok(_) => 0,
        Err(error) if error.is_broken_pipe() => {
            return Err(CliError::Write(io::ErrorKind::BrokenPipe.into()));
        }
        Err(error) => {
            let status = error.exit_status();
            writeln!(out, "# othello: {error} (exit status {status})")?;
            status
        }
    };
    out.flush()?;
    Ok(status)
}

/// The output, shared with the input's echo.
struct Shared<'a, W>(&'a RefCell<W>);

impl<W: Write> Write for Shared<'_, W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        // The echo decides when to flush; the protocol flushes before every read.
        Ok(())
    }
}

/// Serves the input to the grader at most one line per read, echoing each line (made
/// visible) to the output as it goes: the grader has flushed everything it prints before a
/// line by the time it reads it, so the echo lands where the line is read.
struct Echo<'a, R, W> {
    input: R,
    out: &'a RefCell<W>,
    at_line_start: bool,
    /// A `\r` not yet shown: dropped if the line ends right after it.
    held_cr: bool,
    text: Printable,
    /// Why reading or echoing failed (reported instead of the grader's error).
    failure: Option<CliError>,
    /// Bytes of the current line so far (only the first [`ECHOED`] are shown).
    line_bytes: u64,
    /// Bytes of input so far (at most [`INPUT_LIMIT`]).
    read: u64,
}

/// The most bytes of an input line shown: the longest line the grader reads
/// ([`othello::MAX_LINE_LEN`]); the rest is counted, not shown, so a line of megabytes does
/// not become megabytes of output.
const ECHOED: u64 = othello::MAX_LINE_LEN as u64;

/// The most input read: more than any grader case (see [`crate::files::LIST_FILE`]), so an
/// endless input (`/dev/zero` on stdin) ends with an error.
const INPUT_LIMIT: u64 = crate::files::LIST_FILE;

impl<R: BufRead, W: Write> Echo<'_, R, W> {
    /// Echoes `bytes` of the current line (no newline among them).
    fn echo(&mut self, bytes: &[u8]) -> io::Result<()> {
        let room = ECHOED.saturating_sub(self.line_bytes);
        self.line_bytes += bytes.len() as u64;
        let bytes = &bytes[..bytes.len().min(room as usize)];
        let mut shown = Vec::with_capacity(bytes.len() + 8);
        for &byte in bytes {
            if self.held_cr {
                self.text.push(b"\r", &mut shown);
                self.held_cr = false;
            }
            if byte == b'\r' {
                self.held_cr = true;
            } else {
                self.text.push(&[byte], &mut shown);
            }
        }
        self.out.borrow_mut().write_all(&shown)
    }

    /// Ends the echoed line.
    fn end_line(&mut self) -> io::Result<()> {
        let mut shown = Vec::new();
        self.text.finish(&mut shown);
        if self.line_bytes > ECHOED {
            let more = self.line_bytes - ECHOED;
            shown.extend_from_slice(format!(" [... {more} more bytes]").as_bytes());
        }
        self.line_bytes = 0;
        shown.push(b'\n');
        self.held_cr = false;
        self.at_line_start = true;
        self.out.borrow_mut().write_all(&shown)
    }

    fn serve(&mut self, buffer: &mut [u8]) -> Result<usize, CliError> {
        let read_error = |source| CliError::Read {
            path: "input".into(),
            source,
        };
        let chunk = self.input.fill_buf().map_err(read_error)?;
        if chunk.is_empty() {
            if !self.at_line_start {
                self.end_line()?; // a last line without a newline
            }
            return Ok(0);
        }
        let end = memchr::memchr(b'\n', chunk).map_or(chunk.len(), |at| at + 1);
        let served = end.min(buffer.len());
        self.read += served as u64;
        if self.read > INPUT_LIMIT {
            return Err(read_error(io::Error::new(
                io::ErrorKind::FileTooLarge,
                format!(
                    "longer than {} MiB: more than any grader input",
                    INPUT_LIMIT >> 20
                ),
            )));
        }
        buffer[..served].copy_from_slice(&chunk[..served]);
        self.input.consume(served);
        let bytes = &buffer[..served];
        if self.at_line_start {
            self.out.borrow_mut().write_all(b"> ")?;
            self.at_line_start = false;
        }
        match bytes.split_last() {
            Some((b'\n', line)) => {
                self.echo(line)?;
                self.end_line()?;
            }
            _ => self.echo(bytes)?,
        }
        Ok(served)
    }
}

impl<R: BufRead, W: Write> Read for Echo<'_, R, W> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        if buffer.is_empty() || self.failure.is_some() {
            return Ok(0);
        }
        match self.serve(buffer) {
            Ok(served) => Ok(served),
            Err(failure) => {
                self.failure = Some(failure);
                // Stop the grader; the failure is reported instead of its error.
                Err(io::ErrorKind::Other.into())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transcript(input: &[u8]) -> (String, u8) {
        let mut out = Vec::new();
        let status = run(Variant::Full, input, &mut out).unwrap();
        (String::from_utf8(out).unwrap(), status)
    }

    #[test]
    fn matches_the_reference_transcript() {
        let spec = b"4\n4\nW\n>\nB . . .\n. W . .\n. . . .\n. . . .\n3 3\n1 1\n";
        let (text, status) = transcript(spec);
        let reference = othello::grading::check::reference::Reference::run(Variant::Full, spec);
        assert_eq!(text.as_bytes(), reference.transcript(), "{text}");
        assert_eq!(status, 0);
        let truncated = b"4\n4\nB\n>\n. . . .\n. B W .\n. W B .\n. . . .\n2 4\r\n";
        let (text, status) = transcript(truncated);
        let reference =
            othello::grading::check::reference::Reference::run(Variant::Full, truncated);
        assert_eq!(text.as_bytes(), reference.transcript(), "{text}");
        assert_eq!(status, 3);
    }

    #[test]
    fn control_bytes_and_binary_are_shown_escaped() {
        let input = b"4\n4\nB\n>\n. . . .\n. B W .\n. W B .\n. . . .\n\x1b[2J\x07 \xff\xfe\r9\r\n\xc3\xa9t\xc3\xa9\n";
        let (text, status) = transcript(input);
        assert!(
            text.contains("> \\u{1b}[2J\\u{7} \\xff\\xfe\\r9\nINVALID\n"),
            "{text}"
        );
        assert!(text.contains("> été\nINVALID\n"), "{text}");
        assert_eq!(status, 3);
        assert!(!text.bytes().any(|b| b < 0x20 && b != b'\n'), "{text:?}");
    }

    /// Endless move lines after a 4x4 setup.
    struct Endless {
        setup: &'static [u8],
        served: usize,
    }

    impl Read for Endless {
        fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
            let mut n = 0;
            while n < buffer.len() {
                buffer[n] = match self.setup.get(self.served) {
                    Some(&byte) => byte,
                    None if (self.served - self.setup.len()).is_multiple_of(2) => b'x',
                    None => b'\n',
                };
                self.served += 1;
                n += 1;
            }
            Ok(n)
        }
    }

    /// Takes `left` bytes, then says its reader went away.
    struct Closing {
        left: usize,
    }

    impl Write for Closing {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            if self.left == 0 {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
            let taken = bytes.len().min(self.left);
            self.left -= taken;
            Ok(taken)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn it_streams_endless_input_and_stops_when_the_output_closes() {
        let input = io::BufReader::new(Endless {
            setup: b"4\n4\nB\n>\n. . . .\n. B W .\n. W B .\n. . . .\n",
            served: 0,
        });
        let mut out = Closing { left: 1 << 20 };
        let error = run(Variant::Full, input, &mut out).unwrap_err();
        assert!(error.is_broken_pipe(), "{error}");
    }

    #[test]
    fn a_character_split_between_reads_stays_whole() {
        let mut shown = Vec::new();
        let mut visible = Printable::default();
        visible.push(&[0xc3], &mut shown);
        assert!(shown.is_empty());
        visible.push(&[0xa9, b'!'], &mut shown);
        assert_eq!(shown, "é!".as_bytes());
        visible.push(&[0xe2, 0x82], &mut shown);
        visible.finish(&mut shown);
        assert_eq!(shown, "é!\\xe2\\x82".as_bytes());
    }
}
