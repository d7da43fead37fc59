//! Limits and isolation for a program that is not trusted (a student's submission), set
//! between fork and exec so that they hold from its first instruction: resource limits
//! (rlimits), another user to run as, a size-bounded private `/tmp`, and a clean
//! environment. Namespaces (network, other files) come from bubblewrap, started under these
//! limits by the class grader; this is what holds with or without it.

use std::{ffi::CString, io, path::PathBuf, process::Command};

/// Limits and isolation applied to a program as it starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Confinement {
    /// CPU seconds for each of its processes (SIGXCPU, then SIGKILL, beyond).
    pub cpu_seconds: Option<u64>,
    /// Bytes of address space for each process (allocations beyond fail).
    pub address_space: Option<u64>,
    /// Processes its user may have at once (counted for the whole user: see
    /// [`Confinement::user`] and [`processes_of_this_user`]).
    pub processes: Option<u64>,
    /// Largest file it may write, in bytes (SIGXFSZ, or `EFBIG` where that is ignored).
    pub file_size: Option<u64>,
    /// Files it may have open at once.
    pub open_files: Option<u64>,
    /// Run as this user and group id instead (only root can): its own processes are then
    /// the only ones its process limit counts, and it can write nothing of the caller's.
    pub user: Option<u32>,
    /// Mount a tmpfs of this many bytes on each of these directories first, in a mount
    /// namespace of the program's own (only root can): a private `/tmp` (or `/var/tmp`,
    /// `/dev/shm`) that cannot fill the disk.
    pub private_tmpfs: Vec<(PathBuf, u64)>,
    /// Join this control group (its directory) first: its memory limit then counts the
    /// program and everything it starts, together ([`MemoryGroup`](super::MemoryGroup)).
    pub cgroup: Option<PathBuf>,
    /// Exactly these environment variables (`None`: the caller's).
    pub environment: Option<Vec<(String, String)>>,
    /// The directory it starts in (`None`: the caller's).
    pub directory: Option<PathBuf>,
}

impl Confinement {
    /// Sets up `command` to start confined.
    ///
    /// # Errors
    /// [`io::ErrorKind::InvalidInput`] for a path with a NUL byte; on systems other than
    /// Linux, [`io::ErrorKind::Unsupported`] for anything but the environment and directory.
    pub fn apply(&self, command: &mut Command) -> io::Result<()> {
        if let Some(environment) = &self.environment {
            command.env_clear();
            command.envs(environment.iter().map(|(name, value)| (name, value)));
        }
        if let Some(directory) = &self.directory {
            command.current_dir(directory);
        }
        self.apply_limits(command)
    }

    #[cfg(target_os = "linux")]
    fn apply_limits(&self, command: &mut Command) -> io::Result<()> {
        use std::os::unix::{ffi::OsStrExt, process::CommandExt};

        let c_string = |bytes: &[u8]| {
            CString::new(bytes).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
        };
        let tmpfs: Vec<(CString, CString)> = self
            .private_tmpfs
            .iter()
            .map(|(directory, bytes)| {
                Ok((
                    c_string(directory.as_os_str().as_bytes())?,
                    c_string(format!("size={bytes},mode=1777").as_bytes())?,
                ))
            })
            .collect::<io::Result<_>>()?;
        let cgroup = match &self.cgroup {
            Some(directory) => Some(c_string(
                directory.join("cgroup.procs").as_os_str().as_bytes(),
            )?),
            None => None,
        };
        let limits: Vec<(libc::__rlimit_resource_t, u64)> = [
            (libc::RLIMIT_CPU, self.cpu_seconds),
            (libc::RLIMIT_AS, self.address_space),
            (libc::RLIMIT_NPROC, self.processes),
            (libc::RLIMIT_FSIZE, self.file_size),
            (libc::RLIMIT_NOFILE, self.open_files),
            // A crash leaves no core file to fill the disk.
            (libc::RLIMIT_CORE, Some(0)),
        ]
        .into_iter()
        .filter_map(|(resource, value)| Some((resource, value?)))
        .collect();
        let user = self.user;
        let fail = || Err(io::Error::last_os_error());
        // SAFETY: between fork and exec the closure makes only system calls, on values
        // made before the fork.
        unsafe {
            command.pre_exec(move || {
                if !tmpfs.is_empty() {
                    if libc::unshare(libc::CLONE_NEWNS) != 0 {
                        return fail();
                    }
                    // Nothing mounted here reaches the caller's namespace.
                    let root = c"/".as_ptr();
                    let private = libc::MS_REC | libc::MS_PRIVATE;
                    if libc::mount(
                        std::ptr::null(),
                        root,
                        std::ptr::null(),
                        private,
                        std::ptr::null(),
                    ) != 0
                    {
                        return fail();
                    }
                    let flags = libc::MS_NOSUID | libc::MS_NODEV;
                    let kind = c"tmpfs".as_ptr();
                    for (directory, options) in &tmpfs {
                        if libc::mount(
                            kind,
                            directory.as_ptr(),
                            kind,
                            flags,
                            options.as_ptr().cast(),
                        ) != 0
                        {
                            return fail();
                        }
                    }
                }
                if let Some(procs) = &cgroup {
                    // "0" is the writer itself; its children follow it into the group.
                    let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                    if fd < 0 {
                        return fail();
                    }
                    let written = libc::write(fd, c"0".as_ptr().cast(), 1);
                    libc::close(fd);
                    if written != 1 {
                        return fail();
                    }
                }
                for &(resource, value) in &limits {
                    let limit = libc::rlimit {
                        rlim_cur: value,
                        rlim_max: value,
                    };
                    if libc::setrlimit(resource, &limit) != 0 {
                        return fail();
                    }
                }
                if let Some(id) = user
                    && (libc::setgroups(0, std::ptr::null()) != 0
                        || libc::setgid(id) != 0
                        || libc::setuid(id) != 0)
                {
                    return fail();
                }
                Ok(())
            });
        }
        Ok(())
    }

    #[cfg(not(target_os = "linux"))]
    fn apply_limits(&self, _command: &mut Command) -> io::Result<()> {
        let limited = [
            self.cpu_seconds,
            self.address_space,
            self.processes,
            self.file_size,
            self.open_files,
        ]
        .iter()
        .any(Option::is_some);
        if limited || self.user.is_some() || !self.private_tmpfs.is_empty() || self.cgroup.is_some()
        {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "limits and isolation need Linux",
            ));
        }
        Ok(())
    }
}

/// Kills every process running as `user` (a user id of the grader's own, never a person's:
/// everything of it goes) and reaps those left to this process, waiting a few seconds at
/// most until none is left; whether none is. A program that leaves its process group
/// (`setsid`, a double fork) is still its user's. Only root can.
pub fn kill_user(user: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let left = processes_of(user);
            if left.is_empty() {
                return true;
            }
            // Reap those that are zombies of this process's (a subreaper inherits them).
            // SAFETY: plain system calls; the ids are of this user's processes only, and
            // no program of the grader runs as it at this point.
            for &pid in &left {
                unsafe {
                    libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG);
                }
            }
            if std::time::Instant::now() >= deadline {
                return processes_of(user).is_empty();
            }
            // kill(-1) from a process of that user reaches all of its processes at once,
            // with no window for an id to be reused.
            let mut command = Command::new("/bin/true");
            command.uid(user).gid(user);
            // SAFETY: between fork and exec only system calls.
            unsafe {
                command.pre_exec(|| {
                    libc::kill(-1, libc::SIGKILL);
                    libc::_exit(0);
                });
            }
            let _ = command.status();
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = user;
        false
    }
}

/// The ids of the processes whose real user is `user` (zombies included).
#[cfg(target_os = "linux")]
fn processes_of(user: u32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            // The directory's owner is not the user for a process that is not dumpable.
            let status = std::fs::read_to_string(entry.path().join("status")).ok()?;
            let real: u32 = status
                .lines()
                .find_map(|line| line.strip_prefix("Uid:"))?
                .split_whitespace()
                .next()?
                .parse()
                .ok()?;
            (real == user).then_some(pid)
        })
        .collect()
}

/// How many processes this process's user has now (0 where that cannot be read): a process
/// limit for a program run as the same user must leave room for them.
pub fn processes_of_this_user() -> u64 {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::MetadataExt;
        // SAFETY: a plain system call.
        let me = unsafe { libc::getuid() };
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return 0;
        };
        let count = entries
            .flatten()
            .filter(|entry| {
                entry
                    .file_name()
                    .to_string_lossy()
                    .bytes()
                    .all(|b| b.is_ascii_digit())
            })
            .filter(|entry| entry.metadata().is_ok_and(|meta| meta.uid() == me))
            .count();
        // Threads count as processes for the limit: reckon a few for each.
        count as u64 * 4
    }
    #[cfg(not(target_os = "linux"))]
    0
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::process::{Chunks, Program, StartOptions};

    fn run(script: &str, confinement: Confinement) -> (Option<std::process::ExitStatus>, String) {
        let options = StartOptions {
            confinement: Some(confinement),
            ..StartOptions::default()
        };
        let argv = ["sh".to_owned(), "-c".to_owned(), script.to_owned()];
        let mut program = Program::start(&argv, Chunks, &options).unwrap();
        let status = program.wait_exit(Duration::from_secs(20));
        program.wait_stderr(Duration::from_secs(5));
        (status, program.stderr_lines(4))
    }

    #[test]
    fn limits_hold_from_the_start() {
        let limited = Confinement {
            file_size: Some(4096),
            open_files: Some(32),
            cpu_seconds: Some(7),
            ..Confinement::default()
        };
        let (status, _) = run(
            "test \"$(ulimit -f)\" = 8 && test \"$(ulimit -n)\" = 32 && test \"$(ulimit -t)\" = 7",
            limited.clone(),
        );
        assert!(status.unwrap().success());
        // Writing past the file size limit fails.
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("big");
        let script = format!("head -c 100000 /dev/zero > {}", file.display());
        let (status, _) = run(&script, limited);
        assert!(!status.unwrap().success());
        assert!(std::fs::metadata(&file).unwrap().len() <= 4096);
    }

    #[test]
    fn environment_and_directory_are_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let confinement = Confinement {
            environment: Some(vec![
                ("PATH".into(), "/usr/bin:/bin".into()),
                ("ONLY".into(), "this".into()),
            ]),
            directory: Some(dir.path().to_owned()),
            ..Confinement::default()
        };
        let script = format!(
            "test \"$ONLY\" = this && test -z \"$HOME\" && test \"$(pwd -P)\" = \"{}\"",
            dir.path().canonicalize().unwrap().display()
        );
        assert!(run(&script, confinement).0.unwrap().success());
    }
}
