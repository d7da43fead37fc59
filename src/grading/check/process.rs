//! The program under test, as the checker sees it: a [`Program`] (its own process group,
//! bounded reading, stderr kept) whose stdout is gathered, up to a bounded prefix, for
//! comparison with the expected output.

use std::{
    io,
    time::{Duration, Instant},
};

use crate::process::{Chunks, Confinement, Program, Silence, StartOptions};

/// A running program under test.
pub(crate) struct Process {
    program: Program<Chunks>,
    /// What the program has written on stdout, up to `keep` bytes.
    pub(crate) stdout: Vec<u8>,
    /// The most bytes of stdout kept; the rest is only counted.
    keep: usize,
    /// Bytes written on stdout in all.
    printed: u64,
    /// Whether its stdout has ended.
    pub(crate) eof: bool,
}

impl Process {
    /// Starts `argv` (a program and its arguments), confined if asked, keeping the first
    /// `keep` bytes of its stdout.
    pub(crate) fn start(
        argv: &[String],
        keep: usize,
        confinement: Option<Confinement>,
    ) -> io::Result<Process> {
        let options = StartOptions {
            confinement,
            ..StartOptions::default()
        };
        Ok(Process {
            program: Program::start(argv, Chunks, &options)?,
            stdout: Vec::new(),
            keep,
            printed: 0,
            eof: false,
        })
    }

    /// Bytes written on stdout in all, kept or not.
    pub(crate) fn printed(&self) -> u64 {
        self.printed
    }

    /// Whether stdout went on past what is kept.
    pub(crate) fn overflowed(&self) -> bool {
        self.printed > self.stdout.len() as u64
    }

    /// Takes in stdout until `done(stdout, eof)` holds; false if `deadline` passes first,
    /// however much output keeps coming. Output keeps arriving in the meantime, so a wait
    /// can also end the moment something is seen to be wrong.
    pub(crate) fn wait_until(
        &mut self,
        deadline: Instant,
        mut done: impl FnMut(&[u8], bool) -> bool,
    ) -> bool {
        loop {
            if done(&self.stdout, self.eof) {
                return true;
            }
            if self.eof || Instant::now() >= deadline {
                return false;
            }
            match self.program.receive(deadline) {
                Ok(chunk) => {
                    self.printed += chunk.len() as u64;
                    let room = self.keep.saturating_sub(self.stdout.len());
                    self.stdout
                        .extend_from_slice(&chunk[..chunk.len().min(room)]);
                }
                Err(Silence::Ended) => self.eof = true,
                Err(Silence::Timeout) => return done(&self.stdout, self.eof),
            }
        }
    }

    /// Sends `bytes` to the program's stdin; false if it no longer reads (the pipe is closed).
    pub(crate) fn send(&mut self, bytes: &[u8]) -> bool {
        if self.program.write(bytes).is_err() {
            self.program.close_stdin();
            return false;
        }
        true
    }

    /// Sends `bytes` from another thread, then closes stdin (for input sent all at once,
    /// which may not fit in the pipe while the program's output is not being read).
    pub(crate) fn send_all_and_close(&mut self, bytes: Vec<u8>) {
        self.program.write_all_and_close(bytes);
    }

    /// Closes the program's stdin: it reads the end of its input.
    pub(crate) fn close_stdin(&mut self) {
        self.program.close_stdin();
    }

    /// Its exit status, if it exits within `timeout`. Once it has exited, whatever it left
    /// running in its group (a `sleep &`, say) is killed too: the case is over.
    pub(crate) fn wait_exit(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        self.program.wait_exit(timeout)
    }

    /// Whether it is computing rather than waiting for input ([`Program::busy`]).
    pub(crate) fn busy(&self) -> bool {
        self.program.busy(Duration::from_millis(100))
    }

    /// Waits until the program's stderr has ended, for at most `timeout`.
    pub(crate) fn wait_stderr(&self, timeout: Duration) {
        self.program.wait_stderr(timeout);
    }

    /// The last part of what the program wrote on stderr.
    pub(crate) fn stderr_tail(&self, lines: usize) -> String {
        self.program.stderr_lines(lines)
    }
}
