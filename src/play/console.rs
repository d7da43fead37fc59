//! The console's input and output, with the prompt discipline: output is flushed before
//! every read; on a terminal, a line editor with history reads instead.

use std::io::{self, Read, Write};

use othello::{Line, LineReader};

use super::{PlayError, Style};

/// Input and output, with the prompt discipline: output is flushed before every read.
pub(super) struct Console<'o, I, O> {
    pub(super) lines: LineReader<I>,
    /// On a terminal: a line editor with history, read instead of `lines`.
    pub(super) editor: Option<rustyline::DefaultEditor>,
    pub(super) out: &'o mut O,
    pub(super) echo: bool,
    pub(super) style: Style,
    pub(super) terminal: bool,
}

impl<I: Read, O: Write> Console<'_, I, O> {
    /// Writes `text` and a newline.
    pub(super) fn say(&mut self, text: &str) -> io::Result<()> {
        writeln!(self.out, "{text}")
    }

    /// Writes `prompt` (which ends in `>`), then reads a line; `None` at the end of the
    /// input. A terminal gets a space after the prompt to type after; otherwise the line
    /// read is written after the prompt (`● Black to move> d3`), so that no line ends in a
    /// space.
    pub(super) fn ask(&mut self, prompt: &str) -> Result<Option<String>, PlayError> {
        if let Some(editor) = self.editor.as_mut() {
            self.out.flush()?;
            return match editor.readline(&format!("{prompt} ")) {
                Ok(line) => {
                    if !line.trim().is_empty() {
                        let _ = editor.add_history_entry(line.as_str());
                    }
                    Ok(Some(line))
                }
                // Ctrl-D or Ctrl-C: leave, as at the end of piped input.
                Err(
                    rustyline::error::ReadlineError::Eof
                    | rustyline::error::ReadlineError::Interrupted,
                ) => Ok(None),
                Err(error) => Err(error.into()),
            };
        }
        write!(self.out, "{prompt}")?;
        if !self.echo {
            write!(self.out, " ")?;
        }
        let out = &mut *self.out;
        let line = self
            .lines
            .next_line(|| out.flush().map_err(PlayError::Write))?;
        let (text, shown) = match line {
            None => {
                // The input ended: finish the prompt's line.
                writeln!(self.out)?;
                return Ok(None);
            }
            Some(Line::TooLong) => {
                let text = "(a line too long to read)".to_owned();
                (text.clone(), text)
            }
            Some(Line::Text(bytes)) => (
                String::from_utf8_lossy(bytes).into_owned(),
                // Shown back as the transcript shows input: nothing that drives a terminal.
                othello::printable(bytes),
            ),
        };
        if self.echo {
            let shown = shown.trim_end();
            if shown.is_empty() {
                writeln!(self.out)?;
            } else {
                writeln!(self.out, " {shown}")?;
            }
        }
        Ok(Some(text))
    }
}

impl<I, O> Console<'_, I, O> {
    /// The terminal's width in columns, on a terminal.
    pub(super) fn width(&self) -> Option<usize> {
        if !self.terminal {
            return None;
        }
        terminal_size::terminal_size().map(|(width, _)| usize::from(width.0))
    }
}
