//! Other programs run as children: a program under test (`othello check`, the class
//! grader) or an engine (`othello tournament`). One place for what they all need:
//!
//! - **A process group of its own**, so that whatever the program starts is stopped with it
//!   ([`Program::stop`], and when the program exits, [`Program::wait_exit`]); on Linux it
//!   also dies with the thread that started it, even when this process is killed outright.
//! - **Bounded reading with deadlines**: a thread reads its stdout into a bounded channel
//!   ([`Chunks`] of bytes, or [`Lines`] of at most [`MAX_LINE_LEN`](crate::MAX_LINE_LEN) bytes), so a wait can time
//!   out and a program that floods its output is held back by its full pipe instead of
//!   filling memory; the last [`STDERR_KEPT`] bytes of its stderr are kept for reports.
//! - **Nothing left behind**: every running program is listed, so that [`kill_all`] can stop
//!   them all when this process is interrupted.
//!
//! Nothing here prints.

use std::{
    io::{self, Read, Write},
    process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio},
    sync::{
        Arc, Mutex, MutexGuard, PoisonError,
        mpsc::{self, Receiver, RecvTimeoutError, SyncSender},
    },
    thread,
    time::{Duration, Instant},
};

use crate::{Line, LineReader, ReadError};

mod cgroup;
mod confine;

pub use cgroup::{CgroupRoot, CgroupVersion, MemoryGroup};
pub use confine::{Confinement, kill_user, processes_of_this_user};

/// How much of a program's stderr is kept: its last this many bytes.
pub const STDERR_KEPT: usize = 64 * 1024;

/// How often a wait for a program to exit looks again.
const EXIT_POLL: Duration = Duration::from_millis(5);

/// How a program's stdout is passed on: by its reading thread, item by item, through a
/// channel that holds a few items at most.
pub trait Framing: Send + 'static {
    /// What one item is.
    type Item: Send + 'static;

    /// Reads `stdout` to its end (or until nobody receives), sending each item.
    fn forward(self, stdout: ChildStdout, sender: &SyncSender<Self::Item>);
}

/// Stdout in chunks of bytes, as they arrive (at most 64 KiB each).
#[derive(Clone, Copy, Debug, Default)]
pub struct Chunks;

impl Framing for Chunks {
    type Item = Vec<u8>;

    fn forward(self, mut stdout: ChildStdout, sender: &SyncSender<Vec<u8>>) {
        let mut buffer = vec![0; 64 * 1024];
        while let Ok(n @ 1..) = stdout.read(&mut buffer) {
            if sender.send(buffer[..n].to_vec()).is_err() {
                return;
            }
        }
    }
}

/// Stdout line by line (bytes that are not UTF-8 replaced); a line longer than
/// [`MAX_LINE_LEN`](crate::MAX_LINE_LEN) bytes is never held whole.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lines;

/// An item of [`Lines`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputLine {
    /// A line, without its line ending.
    Text(String),
    /// A line longer than [`MAX_LINE_LEN`](crate::MAX_LINE_LEN) bytes, dropped.
    TooLong,
}

impl Framing for Lines {
    type Item = OutputLine;

    fn forward(self, stdout: ChildStdout, sender: &SyncSender<OutputLine>) {
        let mut lines = LineReader::new(stdout);
        while let Ok(Some(line)) = lines.next_line(|| Ok::<(), ReadError>(())) {
            let item = match line {
                Line::Text(bytes) => OutputLine::Text(String::from_utf8_lossy(bytes).into_owned()),
                Line::TooLong => OutputLine::TooLong,
            };
            if sender.send(item).is_err() {
                return;
            }
        }
    }
}

/// Why no output came.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Silence {
    /// The deadline passed first.
    Timeout,
    /// Stdout has ended (the program closed it or exited).
    Ended,
}

/// How to start a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartOptions {
    /// Items of output read ahead of the caller: beyond them the reading thread waits, and
    /// so does the program, on its full pipe.
    pub read_ahead: usize,
    /// Writes to its stdin fail with [`io::ErrorKind::WouldBlock`] instead of waiting when
    /// the pipe is full (a program that stops reading cannot hang the caller).
    pub nonblocking_stdin: bool,
    /// Limits and isolation for a program that is not trusted (none by default).
    pub confinement: Option<Confinement>,
    /// Stop its whole group when this process dies, even by SIGKILL (a guard process kills
    /// it when a pipe only this process holds ends): for programs that start others, such
    /// as engines behind a script.
    pub guarded: bool,
}

impl Default for StartOptions {
    fn default() -> StartOptions {
        StartOptions {
            read_ahead: 4,
            nonblocking_stdin: false,
            confinement: None,
            guarded: false,
        }
    }
}

/// What the stderr thread keeps.
#[derive(Debug, Default)]
struct Stderr {
    /// The last bytes written (up to twice [`STDERR_KEPT`] between trims).
    tail: Vec<u8>,
    /// Stderr has ended.
    done: bool,
}

/// A running program, in a process group of its own, stopped (with its group) when dropped.
///
/// It dies with the thread that started it, on Linux, even when this process is killed
/// with SIGKILL: start it from a thread that lives as long as it should.
#[derive(Debug)]
pub struct Program<F: Framing> {
    child: Child,
    stdin: Option<ChildStdin>,
    output: Receiver<F::Item>,
    stderr: Arc<Mutex<Stderr>>,
    /// Its exit status, once it has been reaped.
    status: Option<ExitStatus>,
    /// The guard of its group, if asked for ([`StartOptions::guarded`]).
    guard: Option<Child>,
}

impl<F: Framing> Program<F> {
    /// Starts `argv` (a program and its arguments) with piped stdin, stdout and stderr.
    ///
    /// # Errors
    /// The [`io::Error`] of starting it (no program given, not found, not executable...).
    pub fn start(argv: &[String], framing: F, options: &StartOptions) -> io::Result<Program<F>> {
        let (program, arguments) = argv
            .split_first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no program given"))?;
        let mut command = Command::new(program);
        command
            .args(arguments)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(confinement) = &options.confinement {
            // Before `own_group`: changing the user clears the parent-death signal it sets.
            confinement.apply(&mut command)?;
            become_subreaper();
        }
        // A confined program gets a session of its own (and so a group): no controlling
        // terminal to reach the caller's through.
        own_group(&mut command, options.confinement.is_some());
        // Listed before it can be interrupted between starting and being listed.
        let mut running = running();
        let mut child = command.spawn()?;
        running.push(child.id());
        drop(running);
        let (sender, output) = mpsc::sync_channel(options.read_ahead);
        let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
        // Once `program` exists, dropping it on an error below stops the child.
        let mut program = Program {
            stdin: child.stdin.take(),
            output,
            stderr: Arc::default(),
            status: None,
            child,
            guard: None,
        };
        if options.guarded {
            program.guard = Some(guard_group(program.child.id())?);
        }
        let (Some(stdout), Some(stderr)) = (stdout, stderr) else {
            return Err(io::Error::other("the program's pipes were not opened"));
        };
        #[cfg(unix)]
        if options.nonblocking_stdin
            && let Some(stdin) = &program.stdin
        {
            non_blocking(stdin)?;
        }
        thread::Builder::new()
            .name("program-stdout".into())
            .spawn(move || framing.forward(stdout, &sender))?;
        let kept = Arc::clone(&program.stderr);
        thread::Builder::new()
            .name("program-stderr".into())
            .spawn(move || keep_stderr(stderr, &kept))?;
        Ok(program)
    }

    /// The next item of output, waiting until `deadline` at most.
    ///
    /// # Errors
    /// [`Silence`]: the deadline passed, or stdout has ended.
    pub fn receive(&mut self, deadline: Instant) -> Result<F::Item, Silence> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.output.recv_timeout(left) {
            Ok(item) => Ok(item),
            Err(RecvTimeoutError::Timeout) => Err(Silence::Timeout),
            Err(RecvTimeoutError::Disconnected) => Err(Silence::Ended),
        }
    }

    /// Writes `bytes` to the program's stdin.
    ///
    /// # Errors
    /// The write's [`io::Error`]: [`io::ErrorKind::BrokenPipe`] once it no longer reads (or
    /// after [`Program::close_stdin`]), [`io::ErrorKind::WouldBlock`] when the pipe is full
    /// and stdin is non-blocking.
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| io::Error::from(io::ErrorKind::BrokenPipe))?;
        stdin.write_all(bytes)?;
        stdin.flush()
    }

    /// Writes `bytes` from a thread of its own, then closes stdin: for input sent all at
    /// once, which may not fit in the pipe while the program's output is not being read.
    pub fn write_all_and_close(&mut self, bytes: Vec<u8>) {
        if let Some(mut stdin) = self.stdin.take() {
            thread::spawn(move || {
                let _ = stdin.write_all(&bytes);
            });
        }
    }

    /// Closes the program's stdin: it reads the end of its input.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Its exit status, if it exits within `timeout`. Once it has exited, whatever it left
    /// running in its group (a `sleep &`, say) is killed too.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if self.status.is_some() || self.has_exited() {
                return self.stop();
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(EXIT_POLL);
        }
    }

    /// Kills the program and everything in its group, reaps it, and returns its exit
    /// status (the same status again if it was stopped before).
    pub fn stop(&mut self) -> Option<ExitStatus> {
        if self.status.is_some() {
            return self.status;
        }
        self.stdin = None;
        // Before the group is gone: a guard left to act later could name a group reused.
        if let Some(mut guard) = self.guard.take() {
            let _ = guard.kill();
            let _ = guard.wait();
        }
        // Under the list's lock, so that `kill_all` never sees a program that was reaped.
        let mut running = running();
        kill_group(&self.child);
        let _ = self.child.kill();
        self.status = self.child.wait().ok();
        let id = self.child.id();
        // What is left of its group and was handed to this process (once it is a
        // subreaper) is reaped too; elsewhere it went to init, and nothing waits here.
        reap_group(id);
        running.retain(|&pid| pid != id);
        self.status
    }

    /// Whether the program itself has exited, without reaping it: its process id (and so
    /// its group's) stays taken until it is reaped, so the group can still be killed safely.
    fn has_exited(&mut self) -> bool {
        #[cfg(unix)]
        {
            let pid: libc::id_t = self.child.id();
            // SAFETY: `info` is plain data the call fills in; WNOWAIT leaves the child
            // unreaped.
            unsafe {
                let mut info: libc::siginfo_t = std::mem::zeroed();
                let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
                libc::waitid(libc::P_PID, pid, &mut info, flags) == 0 && info.si_pid() != 0
            }
        }
        #[cfg(not(unix))]
        {
            // Without process groups there is nothing else to stop: reaping is safe.
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    self.status = Some(status);
                    true
                }
                _ => false,
            }
        }
    }

    /// Whether the program (or anything it started that stayed in its group or session) is
    /// computing rather than waiting: one of its processes runnable, or their CPU time
    /// growing over `sample`. A program that is waiting for input it will never get is not;
    /// one that is merely slow (or starved on a loaded machine) is. `false` where this
    /// cannot be seen (not Linux).
    pub fn busy(&self, sample: Duration) -> bool {
        #[cfg(target_os = "linux")]
        {
            let Ok(id) = i32::try_from(self.child.id()) else {
                return false;
            };
            let first = group_cpu(id);
            if first.runnable {
                return true;
            }
            thread::sleep(sample);
            let second = group_cpu(id);
            second.runnable || second.ticks > first.ticks
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = sample;
            false
        }
    }

    /// Waits until the program's stderr has ended, for at most `timeout`.
    pub fn wait_stderr(&self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        while !self.stderr().done && Instant::now() < deadline {
            thread::sleep(EXIT_POLL);
        }
    }

    /// The last `count` lines the program wrote on stderr (of the last [`STDERR_KEPT`]
    /// bytes), joined by newlines.
    pub fn stderr_lines(&self, count: usize) -> String {
        let stderr = self.stderr();
        let text = String::from_utf8_lossy(&stderr.tail);
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(count)..].join("\n")
    }

    /// The last line of stderr that is not blank, trimmed.
    pub fn stderr_last_line(&self) -> Option<String> {
        let stderr = self.stderr();
        let text = String::from_utf8_lossy(&stderr.tail);
        text.lines()
            .rev()
            .map(str::trim)
            .find(|line| !line.is_empty())
            .map(str::to_owned)
    }

    fn stderr(&self) -> MutexGuard<'_, Stderr> {
        // Bytes appended and trimmed cannot be left half-changed: a poisoned lock is sound.
        self.stderr.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<F: Framing> Drop for Program<F> {
    /// Stops the program and everything it started.
    fn drop(&mut self) {
        self.stop();
    }
}

/// Puts the program started by `command` in a process group of its own (with
/// `new_session`, in a session of its own, which makes one too) and, on Linux, makes it die
/// with the thread that starts it.
fn own_group(command: &mut Command, new_session: bool) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        if new_session {
            // SAFETY: setsid is async-signal-safe.
            unsafe {
                command.pre_exec(|| {
                    if libc::setsid() < 0 {
                        return Err(io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        } else {
            command.process_group(0);
        }
    }
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: getpid is async-signal-safe; the closure makes only such calls between
        // fork and exec.
        let parent = unsafe { libc::getpid() };
        unsafe {
            command.pre_exec(move || {
                // Dies with the thread that started it, and so with this process even
                // when it is killed with SIGKILL (no chance to stop its children itself).
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // This process may have died before the line above.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
}

/// Starts the guard of process group `group`: a shell, in a group of its own (a Ctrl-C
/// meant for this process does not end it first), that waits on a pipe only this process
/// holds and, when the pipe ends (this process has died, however), kills the group. The
/// parent-death signal of [`own_group`] reaches the program alone, not what it started
/// (`sleep &` in an engine's script); [`Program::stop`] kills the guard before the group.
fn guard_group(group: u32) -> io::Result<Child> {
    let mut command = Command::new("/bin/sh");
    command
        .args(["-c", "read line; kill -KILL \"-$1\"", "othello-guard"])
        .arg(group.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    command.spawn()
}

/// Makes this process the one that inherits (and must reap) the orphans of the programs it
/// starts, instead of the system's init: what a confined program leaves behind is then
/// reaped at once ([`reap_group`]), and stops counting against its user's process limit.
fn become_subreaper() {
    #[cfg(target_os = "linux")]
    // SAFETY: a plain system call about this process.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1);
    }
}

/// How long [`reap_group`] waits for a killed group's last members.
const REAP_GRACE: Duration = Duration::from_secs(2);

/// Reaps the members of the (killed) group `group` that are this process's children now,
/// until none is left or [`REAP_GRACE`] has passed.
fn reap_group(group: u32) {
    #[cfg(unix)]
    if let Ok(group) = i32::try_from(group) {
        let deadline = Instant::now() + REAP_GRACE;
        loop {
            // SAFETY: a plain system call; only members of this group, which this process
            // started and has killed, are reaped.
            let reaped = unsafe { libc::waitpid(-group, std::ptr::null_mut(), libc::WNOHANG) };
            match reaped {
                pid if pid > 0 => continue,
                0 if Instant::now() < deadline => thread::sleep(Duration::from_millis(1)),
                _ => return,
            }
        }
    }
    #[cfg(not(unix))]
    let _ = group;
}

/// Kills what is left of `child`'s process group. Called only while the child is unreaped
/// (it leads the group, made at spawn), so the number names no other group.
fn kill_group(child: &Child) {
    #[cfg(unix)]
    if let Ok(group) = i32::try_from(child.id()) {
        // SAFETY: a plain system call on the group the child leads.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
    #[cfg(not(unix))]
    let _ = child;
}

/// Whether process `pid` exists (what a run's leftovers are named by).
pub fn process_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        i32::try_from(pid).is_ok_and(|pid| {
            // SAFETY: signal 0 only checks.
            let found = unsafe { libc::kill(pid, 0) } == 0;
            found || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
        })
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// The entries of `dir` that a process left behind when it died: named `PREFIX` then its
/// process id (then anything after a `-`), that process no longer running.
pub fn left_by_dead(dir: &std::path::Path, prefix: &str) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            name.strip_prefix(prefix)
                .and_then(|rest| rest.split('-').next())
                .and_then(|pid| pid.parse::<u32>().ok())
                .is_some_and(|pid| !process_alive(pid))
        })
        .map(|entry| entry.path())
        .collect()
}

/// What the processes of a group or session are doing.
#[cfg(target_os = "linux")]
#[derive(Clone, Copy, Debug, Default)]
struct GroupCpu {
    /// One of them is running or runnable.
    runnable: bool,
    /// Their CPU time, in clock ticks.
    ticks: u64,
}

/// The processes whose process group or session is `id` (the leader's id), from `/proc`.
#[cfg(target_os = "linux")]
fn group_cpu(id: i32) -> GroupCpu {
    let mut total = GroupCpu::default();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return total;
    };
    for entry in entries.flatten() {
        if !entry
            .file_name()
            .to_string_lossy()
            .bytes()
            .all(|b| b.is_ascii_digit())
        {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // After the command's name (in parentheses, which may hold anything): state, ppid,
        // pgrp, session, ..., utime (the 12th field after it), stime.
        let Some(rest) = stat.rsplit_once(')').map(|(_, rest)| rest) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let number = |index: usize| fields.get(index).and_then(|f| f.parse::<i64>().ok());
        let (Some(group), Some(session)) = (number(2), number(3)) else {
            continue;
        };
        if group != i64::from(id) && session != i64::from(id) {
            continue;
        }
        total.runnable |= fields.first() == Some(&"R");
        let ticks = number(11).unwrap_or(0) + number(12).unwrap_or(0);
        total.ticks += u64::try_from(ticks).unwrap_or(0);
    }
    total
}

/// Makes writes to `stdin` fail with `WouldBlock` instead of waiting when the pipe is full.
#[cfg(unix)]
fn non_blocking(stdin: &ChildStdin) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = stdin.as_raw_fd();
    // SAFETY: plain system calls on a descriptor this process owns.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The stderr thread: keeps the last bytes, then says stderr has ended.
fn keep_stderr(mut stderr: impl Read, kept: &Mutex<Stderr>) {
    let mut buffer = [0; 8192];
    while let Ok(n @ 1..) = stderr.read(&mut buffer) {
        let mut kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.tail.extend_from_slice(&buffer[..n]);
        if kept.tail.len() > 2 * STDERR_KEPT {
            let excess = kept.tail.len() - STDERR_KEPT;
            kept.tail.drain(..excess);
        }
    }
    kept.lock().unwrap_or_else(PoisonError::into_inner).done = true;
}

/// The process ids (each its group's) of the programs running.
static RUNNING: Mutex<Vec<u32>> = Mutex::new(Vec::new());

fn running() -> MutexGuard<'static, Vec<u32>> {
    // A list of numbers cannot be left half-changed: a poisoned lock is still sound.
    RUNNING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// How long [`kill_all`] waits for the programs it killed to be gone.
const KILL_GRACE: Duration = Duration::from_millis(200);

/// Kills every running [`Program`] with everything it started, and waits (a moment at
/// most) until each is gone. Returns holding the list locked: no program starts (or is
/// reaped) until the guard is dropped, so hold it until this process exits.
pub fn kill_all() -> MutexGuard<'static, Vec<u32>> {
    let running = running();
    #[cfg(unix)]
    {
        let groups: Vec<i32> = running
            .iter()
            .filter_map(|&pid| i32::try_from(pid).ok())
            .collect();
        for &group in &groups {
            // SAFETY: a plain system call; listed programs are reaped only under this
            // lock (after leaving the list), so each number names its own group.
            unsafe {
                libc::kill(-group, libc::SIGKILL);
            }
        }
        let deadline = Instant::now() + KILL_GRACE;
        for &pid in &groups {
            // SAFETY: a plain system call on a child of this process; no status is read.
            while unsafe { libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG) } == 0
                && Instant::now() < deadline
            {
                thread::sleep(EXIT_POLL);
            }
        }
    }
    running
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".into(), "-c".into(), script.into()]
    }

    fn soon_enough() -> Instant {
        Instant::now() + Duration::from_secs(5)
    }

    /// Whether a process `pid` exists (a zombie counts).
    fn alive(pid: i32) -> bool {
        // SAFETY: signal 0 only checks.
        unsafe { libc::kill(pid, 0) == 0 }
    }

    #[test]
    fn lines_and_chunks_arrive_and_then_the_end() {
        let mut program = Program::start(
            &sh("echo one; printf 'two\\r\\n'; head -c 5000 /dev/zero | tr '\\0' x; echo"),
            Lines,
            &StartOptions::default(),
        )
        .unwrap();
        assert_eq!(
            program.receive(soon_enough()),
            Ok(OutputLine::Text("one".into()))
        );
        assert_eq!(
            program.receive(soon_enough()),
            Ok(OutputLine::Text("two".into()))
        );
        assert_eq!(program.receive(soon_enough()), Ok(OutputLine::TooLong));
        assert_eq!(program.receive(soon_enough()), Err(Silence::Ended));
        assert!(program.wait_exit(Duration::from_secs(5)).unwrap().success());

        let mut program = Program::start(&sh("cat"), Chunks, &StartOptions::default()).unwrap();
        program.write(b"echoed").unwrap();
        assert_eq!(program.receive(soon_enough()).unwrap(), b"echoed");
        let soon = Instant::now() + Duration::from_millis(50);
        assert_eq!(program.receive(soon), Err(Silence::Timeout));
        program.close_stdin();
        assert_eq!(program.receive(soon_enough()), Err(Silence::Ended));
    }

    #[test]
    fn stderr_keeps_its_last_lines() {
        let mut program = Program::start(
            &sh("echo first >&2; echo second >&2; echo '  ' >&2; exit 3"),
            Chunks,
            &StartOptions::default(),
        )
        .unwrap();
        let status = program.wait_exit(Duration::from_secs(5)).unwrap();
        assert_eq!(status.code(), Some(3));
        program.wait_stderr(Duration::from_secs(5));
        assert_eq!(program.stderr_last_line().as_deref(), Some("second"));
        assert_eq!(program.stderr_lines(2), "second\n  ");
        assert_eq!(
            program.stop(),
            Some(status),
            "stopping again gives the same status"
        );
    }

    /// A program that exits leaves nothing behind; one that is stopped takes its group
    /// with it; neither is listed afterwards.
    #[test]
    fn its_whole_group_goes_with_it() {
        let mut program = Program::start(
            &sh("sleep 60 & echo $!; exit 0"),
            Lines,
            &StartOptions::default(),
        )
        .unwrap();
        let Ok(OutputLine::Text(pid)) = program.receive(soon_enough()) else {
            panic!("no pid");
        };
        let sleeper: i32 = pid.parse().unwrap();
        assert!(program.wait_exit(Duration::from_secs(5)).is_some());
        let deadline = Instant::now() + Duration::from_secs(5);
        while alive(sleeper) && Instant::now() < deadline {
            thread::sleep(EXIT_POLL);
        }
        assert!(
            !alive(sleeper),
            "the background sleep was killed when its parent exited"
        );

        let mut program = Program::start(
            &sh("sleep 60 & echo $!; wait"),
            Lines,
            &StartOptions::default(),
        )
        .unwrap();
        let Ok(OutputLine::Text(pid)) = program.receive(soon_enough()) else {
            panic!("no pid");
        };
        let (leader, sleeper) = (program.child.id(), pid.parse::<i32>().unwrap());
        assert!(running().contains(&leader));
        assert!(
            program.wait_exit(Duration::from_millis(50)).is_none(),
            "still waiting"
        );
        drop(program);
        assert!(!running().contains(&leader));
        let deadline = Instant::now() + Duration::from_secs(5);
        while alive(sleeper) && Instant::now() < deadline {
            thread::sleep(EXIT_POLL);
        }
        assert!(!alive(sleeper));
    }

    #[test]
    fn a_program_that_does_not_read_cannot_block_a_writer() {
        let options = StartOptions {
            nonblocking_stdin: true,
            ..StartOptions::default()
        };
        let mut program = Program::start(&sh("sleep 60"), Chunks, &options).unwrap();
        let block = vec![b'x'; 1 << 20];
        let error = program.write(&block).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::WouldBlock);
        program.stop();
        let error = program.write(b"x").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_computing_program_is_busy_and_a_waiting_one_is_not() {
        let options = StartOptions::default();
        let waiting = Program::start(&sh("read line; sleep 60"), Chunks, &options).unwrap();
        let computing = Program::start(&sh("while :; do :; done"), Chunks, &options).unwrap();
        thread::sleep(Duration::from_millis(50));
        assert!(!waiting.busy(Duration::from_millis(200)));
        assert!(computing.busy(Duration::from_millis(200)));
    }

    #[test]
    fn a_missing_program_does_not_start() {
        let missing = Program::start(
            &["/nonexistent/program".to_owned()],
            Chunks,
            &StartOptions::default(),
        );
        assert_eq!(missing.unwrap_err().kind(), io::ErrorKind::NotFound);
        let nothing = Program::start(&[], Chunks, &StartOptions::default());
        assert_eq!(nothing.unwrap_err().kind(), io::ErrorKind::InvalidInput);
    }
}
