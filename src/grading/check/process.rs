//! A program under test: started with piped stdin, stdout and stderr in a process group of
//! its own (so that everything it starts is stopped with it); its stdout arrives in chunks
//! through a bounded channel (so waits can time out, and a program that floods its output
//! is held back by the pipe instead of filling memory), and only a bounded prefix of it is
//! kept; its stderr is kept (the last part) for the report.

use std::{
    io::{self, Read, Write},
    process::{Child, ChildStdin, Command, ExitStatus, Stdio},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
        mpsc::{self, Receiver, RecvTimeoutError},
    },
    thread,
    time::{Duration, Instant},
};

/// How much of the program's stderr is kept: its last this many bytes.
const STDERR_KEPT: usize = 64 * 1024;

/// How often a wait for the program to exit looks again.
const EXIT_POLL: Duration = Duration::from_millis(5);

/// Chunks of stdout read ahead of the checker: beyond them the reader waits, and so does
/// the program, on its full pipe.
const CHUNKS_AHEAD: usize = 4;

/// A running program.
pub(crate) struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    chunks: Receiver<Vec<u8>>,
    /// What the program has written on stdout, up to `keep` bytes.
    pub(crate) stdout: Vec<u8>,
    /// The most bytes of stdout kept; the rest is only counted.
    keep: usize,
    /// Bytes written on stdout in all.
    printed: u64,
    /// Whether its stdout has ended.
    pub(crate) eof: bool,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Set when its stderr has ended.
    stderr_done: Arc<AtomicBool>,
    status: Option<ExitStatus>,
}

impl Process {
    /// Starts `argv` (a program and its arguments), keeping the first `keep` bytes of its
    /// stdout.
    pub(crate) fn start(argv: &[String], keep: usize) -> io::Result<Process> {
        let (program, arguments) = argv
            .split_first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no program given"))?;
        let mut command = Command::new(program);
        command
            .args(arguments)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = command.spawn()?;
        let mut stdout = child.stdout.take().expect("piped stdout");
        let (sender, chunks) = mpsc::sync_channel(CHUNKS_AHEAD);
        thread::spawn(move || {
            let mut buffer = vec![0; 64 * 1024];
            while let Ok(n @ 1..) = stdout.read(&mut buffer) {
                if sender.send(buffer[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        let mut errors = child.stderr.take().expect("piped stderr");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&stderr);
        let stderr_done = Arc::new(AtomicBool::new(false));
        let done = Arc::clone(&stderr_done);
        thread::spawn(move || {
            let mut buffer = [0; 8192];
            while let Ok(n @ 1..) = errors.read(&mut buffer) {
                let mut kept = kept.lock().expect("not poisoned");
                kept.extend_from_slice(&buffer[..n]);
                if kept.len() > 2 * STDERR_KEPT {
                    let excess = kept.len() - STDERR_KEPT;
                    kept.drain(..excess);
                }
            }
            done.store(true, Ordering::Release);
        });
        Ok(Process {
            stdin: child.stdin.take(),
            child,
            chunks,
            stdout: Vec::new(),
            keep,
            printed: 0,
            eof: false,
            stderr,
            stderr_done,
            status: None,
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
            if self.eof {
                return false;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            match self.chunks.recv_timeout(left) {
                Ok(chunk) => {
                    self.printed += chunk.len() as u64;
                    let room = self.keep.saturating_sub(self.stdout.len());
                    self.stdout
                        .extend_from_slice(&chunk[..chunk.len().min(room)]);
                }
                Err(RecvTimeoutError::Disconnected) => self.eof = true,
                Err(RecvTimeoutError::Timeout) => return done(&self.stdout, self.eof),
            }
        }
    }

    /// Sends `bytes` to the program's stdin; false if it no longer reads (the pipe is closed).
    pub(crate) fn send(&mut self, bytes: &[u8]) -> bool {
        let Some(stdin) = self.stdin.as_mut() else {
            return false;
        };
        if stdin.write_all(bytes).and_then(|()| stdin.flush()).is_err() {
            self.stdin = None;
            return false;
        }
        true
    }

    /// Sends `bytes` from another thread, then closes stdin (for input sent all at once,
    /// which may not fit in the pipe while the program's output is not being read).
    pub(crate) fn send_all_and_close(&mut self, bytes: Vec<u8>) {
        if let Some(mut stdin) = self.stdin.take() {
            thread::spawn(move || {
                let _ = stdin.write_all(&bytes);
            });
        }
    }

    /// Closes the program's stdin: it reads the end of its input.
    pub(crate) fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Its exit status, if it exits within `timeout`. Once it has exited, whatever it left
    /// running in its group (a `sleep &`, say) is killed too: the case is over.
    pub(crate) fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if self.status.is_none() && self.leader_exited() {
                self.kill_group();
                self.status = self.child.try_wait().ok().flatten();
            }
            if self.status.is_some() || Instant::now() >= deadline {
                return self.status;
            }
            thread::sleep(EXIT_POLL);
        }
    }

    /// Whether the program itself has exited, without reaping it: its process id (and so
    /// its group's) stays taken until it is reaped, so the group can still be killed safely.
    fn leader_exited(&mut self) -> bool {
        #[cfg(unix)]
        {
            let pid: libc::id_t = self.child.id();
            // SAFETY: `info` is plain data the call fills in; WNOWAIT leaves the child
            // unreaped for `try_wait` below.
            unsafe {
                let mut info: libc::siginfo_t = std::mem::zeroed();
                let found = libc::waitid(
                    libc::P_PID,
                    pid,
                    &mut info,
                    libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
                );
                found == 0 && info.si_pid() != 0
            }
        }
        #[cfg(not(unix))]
        {
            self.child.try_wait().ok().flatten().is_some()
        }
    }

    /// Waits until the program's stderr has ended, for at most `timeout`.
    pub(crate) fn wait_stderr(&self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        while !self.stderr_done.load(Ordering::Acquire) && Instant::now() < deadline {
            thread::sleep(EXIT_POLL);
        }
    }

    /// The last part of what the program wrote on stderr.
    pub(crate) fn stderr_tail(&self, lines: usize) -> String {
        let stderr = self.stderr.lock().expect("not poisoned");
        let text = String::from_utf8_lossy(&stderr);
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// Kills everything in the program's process group (not reaping anything). Called only
    /// while the leader is unreaped, so the group's number names no other processes.
    fn kill_group(&self) {
        #[cfg(unix)]
        if let Ok(group) = i32::try_from(self.child.id()) {
            // SAFETY: a plain system call on the group the child leads, made at spawn.
            unsafe {
                libc::kill(-group, libc::SIGKILL);
            }
        }
    }
}

impl Drop for Process {
    /// Stops the program and everything it started, at the end of every case, passed or
    /// failed: a background child of a program that exited was killed when it exited.
    fn drop(&mut self) {
        self.stdin = None;
        if self.status.is_none() {
            self.kill_group();
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
