//! The box a submission runs in: bubblewrap where it works (no network, no view of the
//! grader's files, other submissions or the cases: `view.rs`, a private `/tmp`, its own
//! process and user namespaces), under resource limits set at exec ([`Confinement`]); the
//! memory of a whole case limited together in a control group where the system allows it;
//! run as root, each job runs as a user of its own (so the process limit counts only its
//! processes, and everything left of a case can be killed by its user) with a size-bounded
//! `/tmp`. Where something cannot be had, the fallback says what it lacks: every report
//! carries [`Sandbox::protections`].

mod view;

use std::{
    fmt, fs, io,
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::process::{
    CgroupRoot, CgroupVersion, Confinement, MemoryGroup, kill_user, processes_of_this_user,
};
pub use view::AllowReadError;
use view::View;

/// World-writable folders besides `/tmp` that a program could fill without bubblewrap:
/// each gets a private, bounded tmpfs where mounting works.
const SHARED_SCRATCH: [&str; 2] = ["/var/tmp", "/dev/shm"];

/// The name of the control groups and scratch directories of a run: this, then the
/// grader's process id.
pub const RUN_PREFIX: &str = "othello-grade-";

/// Where a submission's directory is seen from inside bubblewrap.
pub const INSIDE: &str = "/submission";

/// Run as root, each job runs as a user id of its own: this, plus 256 times the grader's
/// process id (unique among the graders running at once), plus the job's number.
pub const FIRST_USER: u32 = 1_000_000;

/// Which box to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SandboxChoice {
    /// Bubblewrap if it works here, else the fallback (reported).
    Auto,
    /// Bubblewrap or nothing: refuse to grade without it.
    Bubblewrap,
    /// Only resource limits, a process group and a clean environment.
    Limits,
}

/// The resource limits of each run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceLimits {
    /// CPU seconds per process.
    pub cpu_seconds: u64,
    /// Bytes of memory for a whole case (all its processes together) where a control group
    /// can be had, else of address space per process.
    pub memory: u64,
    /// Processes at once.
    pub processes: u64,
    /// Largest file written, in bytes.
    pub file_size: u64,
    /// Files open at once.
    pub open_files: u64,
    /// Size of the private `/tmp`, in bytes (bounded only when run as root).
    pub tmp_size: u64,
}

impl Default for ResourceLimits {
    fn default() -> ResourceLimits {
        const MIB: u64 = 1 << 20;
        ResourceLimits {
            cpu_seconds: 30,
            memory: 1024 * MIB,
            processes: 64,
            file_size: 16 * MIB,
            open_files: 64,
            tmp_size: 64 * MIB,
        }
    }
}

/// The kind of box actually used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxKind {
    /// Bubblewrap namespaces plus the limits.
    Bubblewrap,
    /// The limits alone (a weaker fallback).
    LimitsOnly,
}

impl fmt::Display for SandboxKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SandboxKind::Bubblewrap => "bubblewrap",
            SandboxKind::LimitsOnly => "limits only (weaker fallback)",
        })
    }
}

/// What the box does and does not do, for every report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Protections {
    /// The kind of box.
    pub kind: SandboxKind,
    /// What holds, one item each.
    pub holds: Vec<String>,
    /// What does not (empty with bubblewrap run as root).
    pub missing: Vec<String>,
}

impl Protections {
    /// One paragraph for a report.
    pub fn summary(&self) -> String {
        let mut text = format!("Sandbox: {}. {}.", self.kind, self.holds.join("; "));
        if !self.missing.is_empty() {
            text.push_str(&format!(" Not enforced: {}.", self.missing.join("; ")));
        }
        text
    }
}

/// The box could not be set up.
#[derive(Debug, Error)]
pub enum SandboxError {
    /// An `--allow-read` path cannot be shown.
    #[error(transparent)]
    AllowRead(#[from] AllowReadError),
    /// Bubblewrap was required but does not work here.
    #[error(
        "bubblewrap does not work here ({0}); install Debian's bubblewrap, or choose --sandbox limits"
    )]
    NoBubblewrap(String),
    /// The scratch space for the jobs could not be made.
    #[error("cannot prepare the sandbox's scratch space {path}: {source}")]
    Scratch {
        /// Where.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
}

/// The box, ready to wrap commands.
#[derive(Debug)]
pub struct Sandbox {
    kind: SandboxKind,
    limits: ResourceLimits,
    /// Each job runs as a user of its own (run as root, where changing user works).
    own_users: bool,
    /// Each run gets a size-bounded tmpfs as `/tmp` (run as root, where mounting works).
    bounded_tmp: bool,
    /// Why a user of its own or a bounded `/tmp` is not used, if not.
    root_notes: Vec<String>,
    /// Where the jobs' private directories are (each `job-N`).
    scratch: PathBuf,
    /// What the box shows of the files, and what of the grader's it covers.
    view: View,
    /// How memory is limited.
    memory: Memory,
    /// Why bubblewrap is not used, if it is not.
    fallback_reason: Option<String>,
}

/// How memory is limited.
#[derive(Debug)]
enum Memory {
    /// A control group per job: a case's processes together.
    Groups(Vec<MemoryGroup>, CgroupVersion),
    /// An address-space limit per process (the JVM told to fit in it), and why there is
    /// no control group.
    PerProcess(String),
}

/// What a case ran into, seen from outside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaseWatch {
    job: usize,
    oom_kills: u64,
}

/// How a program is to be run: inside the box, the submission's directory read-only (a
/// test case) or writable (its build).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// The submission cannot change its own files.
    ReadOnly,
    /// The build writes its program beside its sources.
    Writable,
}

impl Sandbox {
    /// Sets up the box: scratch space under `scratch` (made, with a directory per job), and
    /// for [`SandboxChoice::Auto`] or [`SandboxChoice::Bubblewrap`] a trial run of bubblewrap
    /// with the very options every run gets.
    ///
    /// # Errors
    /// [`SandboxError`]: no scratch space, or bubblewrap required but not working.
    /// `allowed` are the `--allow-read` paths; `private` the grader's own (cases, points,
    /// reports, the submissions), covered wherever they would show, as the program running
    /// now and every copy of it in view are.
    pub fn new(
        choice: SandboxChoice,
        limits: ResourceLimits,
        scratch: &Path,
        jobs: usize,
        allowed: &[PathBuf],
        private: &[PathBuf],
    ) -> Result<Sandbox, SandboxError> {
        // SAFETY: a plain system call.
        let root = cfg!(target_os = "linux") && unsafe { libc::geteuid() } == 0;
        let scratch_error = |source| SandboxError::Scratch {
            path: scratch.to_owned(),
            source,
        };
        for job in 0..jobs.max(1) {
            fs::create_dir_all(scratch.join(format!("job-{job}/tmp"))).map_err(scratch_error)?;
        }
        fs::create_dir_all(scratch.join("trial")).map_err(scratch_error)?;
        fs::create_dir_all(scratch.join("empty")).map_err(scratch_error)?;
        fs::write(scratch.join("empty-file"), b"").map_err(scratch_error)?;
        open_to_all(scratch).map_err(scratch_error)?;
        let mut private = private.to_vec();
        private.push(scratch.to_owned());
        let view = View::new(allowed, &private, root)?;
        let memory = match CgroupRoot::find() {
            Ok(cgroups) => {
                cgroups.remove_stale(RUN_PREFIX);
                let name = format!("{RUN_PREFIX}{}", std::process::id());
                match cgroups.groups(&name, jobs.max(1), limits.memory) {
                    Ok(groups) => Memory::Groups(groups, cgroups.version()),
                    Err(error) => {
                        Memory::PerProcess(format!("cannot make a control group: {error}"))
                    }
                }
            }
            Err(reason) => Memory::PerProcess(reason),
        };
        let mut sandbox = Sandbox {
            kind: SandboxKind::LimitsOnly,
            limits,
            own_users: root,
            bounded_tmp: root,
            root_notes: Vec::new(),
            scratch: scratch.to_owned(),
            view,
            memory: Memory::PerProcess("not tried yet".to_owned()),
            fallback_reason: None,
        };
        // What root may do here (a container may forbid mounting, or even changing user):
        // tried with the limits alone first.
        if root && let Err(reason) = sandbox.trial() {
            sandbox.bounded_tmp = false;
            sandbox
                .root_notes
                .push(format!("no tmpfs may be mounted here ({reason})"));
            if let Err(reason) = sandbox.trial() {
                sandbox.own_users = false;
                sandbox
                    .root_notes
                    .push(format!("the user cannot be changed here ({reason})"));
            }
        }
        sandbox.memory = memory;
        if let Memory::Groups(..) = sandbox.memory
            && let Err(reason) = sandbox.trial()
        {
            // Made, but not to be joined here.
            sandbox.memory = Memory::PerProcess(format!("cannot join a control group: {reason}"));
        }
        for job in 0..jobs.max(1) {
            sandbox.give_tmp(job).map_err(scratch_error)?;
        }
        if choice == SandboxChoice::Limits {
            sandbox.fallback_reason = Some("--sandbox limits was chosen".to_owned());
            return Ok(sandbox);
        }
        sandbox.kind = SandboxKind::Bubblewrap;
        if let Err(reason) = sandbox.trial() {
            // Where bubblewrap works without the --allow-read directories, they are what
            // fails: say so rather than fall back (or blame bubblewrap).
            let allowed: Vec<PathBuf> = sandbox
                .view
                .shown
                .iter()
                .filter(|shown| shown.allowed)
                .map(|shown| shown.inside.clone())
                .collect();
            if !allowed.is_empty() {
                let view = sandbox.view.clone();
                sandbox.view.shown.retain(|shown| !shown.allowed);
                let without = sandbox.trial();
                sandbox.view = view;
                if without.is_ok() {
                    return Err(SandboxError::AllowRead(AllowReadError {
                        path: allowed[0].clone(),
                        reason: format!("bubblewrap cannot show it ({reason})"),
                    }));
                }
            }
            if choice == SandboxChoice::Bubblewrap {
                return Err(SandboxError::NoBubblewrap(reason));
            }
            sandbox.kind = SandboxKind::LimitsOnly;
            sandbox.fallback_reason = Some(format!("bubblewrap does not work here: {reason}"));
        }
        Ok(sandbox)
    }

    /// Gives job `job`'s temporary directory to its user (where it is not a tmpfs of its
    /// own, the user must be able to write in it).
    fn give_tmp(&self, job: usize) -> io::Result<()> {
        match self.user_of(job) {
            Some(user) if !self.bounded_tmp => {
                change_owner(&self.scratch.join(format!("job-{job}/tmp")), user)
            }
            _ => Ok(()),
        }
    }

    /// Runs `true` in the box as a case would be run.
    fn trial(&self) -> Result<(), String> {
        self.run_in_trial(&["true".to_owned()])
    }

    /// Whether `program` (a command's first word that names no file of the submission's)
    /// can be found inside the box, as a case would look for it: a missing interpreter is
    /// the grader's problem, not a failure of every student.
    ///
    /// # Errors
    /// What says it is not there.
    pub fn find(&self, program: &str) -> Result<(), String> {
        let look = ["sh", "-c", "command -v \"$1\"", "sh", program].map(str::to_owned);
        self.run_in_trial(&look).map_err(|_| {
            let inside = match self.kind {
                SandboxKind::Bubblewrap => {
                    " inside the sandbox (only the system's /usr, /bin \
                                           and /lib are there: give the program's full path \
                                           and --allow-read its directory)"
                }
                SandboxKind::LimitsOnly => "",
            };
            format!("{program} is not found{inside}")
        })
    }

    /// Runs `argv` in the trial directory, confined as a case is; its failure, with stderr.
    fn run_in_trial(&self, argv: &[String]) -> Result<(), String> {
        let dir = self.scratch.join("trial");
        let (argv, confinement) = self.wrap(argv, &dir, Access::ReadOnly, 0);
        let mut command = Command::new(&argv[0]);
        command
            .args(&argv[1..])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        confinement
            .apply(&mut command)
            .map_err(|error| error.to_string())?;
        let output = command.output().map_err(|error| match error.kind() {
            io::ErrorKind::NotFound => format!("{} is not installed", argv[0]),
            _ => error.to_string(),
        })?;
        if output.status.success() {
            Ok(())
        } else {
            let stderr = String::from_utf8_lossy(&output.stderr);
            Err(format!("{}: {}", output.status, stderr.trim()))
        }
    }

    /// The kind of box in use.
    pub fn kind(&self) -> SandboxKind {
        self.kind
    }

    /// The resource limits.
    pub fn limits(&self) -> ResourceLimits {
        self.limits
    }

    /// The directory a submission's command sees as `{dir}`.
    pub fn dir_seen(&self, dir: &Path) -> PathBuf {
        match self.kind {
            SandboxKind::Bubblewrap => PathBuf::from(INSIDE),
            SandboxKind::LimitsOnly => dir.to_owned(),
        }
    }

    /// The user id a job runs as, when run as root.
    pub fn user_of(&self, job: usize) -> Option<u32> {
        // Process ids are below 2^22 on Linux, jobs at most 256: below 2^31.
        let base = FIRST_USER + (std::process::id() % (1 << 22)) * 256;
        self.own_users.then(|| base + job as u32 % 256)
    }

    /// The command line and confinement that run `argv` for the submission in `dir`, as
    /// job `job` (jobs never run two programs at once).
    pub fn wrap(
        &self,
        argv: &[String],
        dir: &Path,
        access: Access,
        job: usize,
    ) -> (Vec<String>, Confinement) {
        let tmp = self.scratch.join(format!("job-{job}/tmp"));
        let processes = if self.own_users {
            self.limits.processes
        } else {
            // The limit counts all of this user's processes: leave room for those running.
            processes_of_this_user() + self.limits.processes
        };
        let (cgroup, address_space) = match &self.memory {
            Memory::Groups(groups, _) => (Some(groups[job].dir().to_owned()), None),
            Memory::PerProcess(_) => (None, Some(self.limits.memory)),
        };
        let mut confinement = Confinement {
            cpu_seconds: Some(self.limits.cpu_seconds),
            address_space,
            processes: Some(processes),
            file_size: Some(self.limits.file_size),
            open_files: Some(self.limits.open_files),
            user: self.user_of(job),
            private_tmpfs: if self.bounded_tmp {
                let mut mounts = vec![(tmp.clone(), self.limits.tmp_size)];
                if self.kind == SandboxKind::LimitsOnly {
                    // Without bubblewrap the system's other shared folders are in view:
                    // private and bounded too.
                    mounts.extend(
                        SHARED_SCRATCH
                            .iter()
                            .map(PathBuf::from)
                            .filter(|path| path.is_dir())
                            .map(|path| (path, self.limits.tmp_size)),
                    );
                }
                mounts
            } else {
                Vec::new()
            },
            cgroup,
            environment: None,
            directory: None,
        };
        match self.kind {
            SandboxKind::Bubblewrap => {
                confinement.environment = Some(self.environment(Path::new("/tmp")));
                let mut command = vec![
                    "bwrap".to_owned(),
                    "--unshare-all".to_owned(),
                    // Not --new-session: its own process stays in the group that is killed
                    // at the end of a case (the session is new already), and with it the
                    // namespace and everything in it.
                    "--die-with-parent".to_owned(),
                ];
                let bind = |command: &mut Vec<String>, option: &str, from: &Path, to: &Path| {
                    command.extend([
                        option.to_owned(),
                        from.display().to_string(),
                        to.display().to_string(),
                    ]);
                };
                // In this order: a later mount covers what an earlier one shows, so the
                // private /tmp comes before what --allow-read shows below it, and the
                // covers of the grader's files after everything they would show in.
                for path in view::SYSTEM.iter().map(Path::new) {
                    if let Ok(target) = fs::read_link(path) {
                        bind(&mut command, "--symlink", &target, path);
                    }
                }
                if self.bounded_tmp {
                    bind(&mut command, "--bind", &tmp, Path::new("/tmp"));
                } else {
                    command.extend(["--tmpfs".to_owned(), "/tmp".to_owned()]);
                }
                for shown in &self.view.shown {
                    bind(&mut command, "--ro-bind", &shown.host, &shown.inside);
                }
                for mask in &self.view.masks {
                    let cover = if mask.folder { "empty" } else { "empty-file" };
                    bind(
                        &mut command,
                        "--ro-bind",
                        &self.scratch.join(cover),
                        &mask.path,
                    );
                }
                let submission = match access {
                    Access::ReadOnly => "--ro-bind",
                    Access::Writable => "--bind",
                };
                bind(&mut command, submission, dir, Path::new(INSIDE));
                command.extend(
                    ["--proc", "/proc", "--dev", "/dev", "--chdir", INSIDE, "--"]
                        .map(str::to_owned),
                );
                command.extend(argv.iter().cloned());
                (command, confinement)
            }
            SandboxKind::LimitsOnly => {
                if !self.bounded_tmp {
                    // Without a tmpfs of its own, the job's directory is emptied before each
                    // run instead.
                    let _ = empty_directory(&tmp);
                }
                let mut environment = self.environment(&tmp);
                // Every file is in view anyway: the caller's PATH finds what it finds.
                if let Some(path) = std::env::var_os("PATH") {
                    environment[0].1 = path.to_string_lossy().into_owned();
                }
                confinement.environment = Some(environment);
                confinement.directory = Some(dir.to_owned());
                (argv.to_vec(), confinement)
            }
        }
    }

    /// The environment inside the box: a plain `PATH`, `HOME` and `TMPDIR` in its private
    /// temporary directory; where memory is limited per process, options that let the JVM
    /// start within it (its reservations of address space are far beyond what it uses).
    fn environment(&self, tmp: &Path) -> Vec<(String, String)> {
        let tmp = tmp.display().to_string();
        let mut environment = vec![
            (
                "PATH".to_owned(),
                "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin".to_owned(),
            ),
            ("HOME".to_owned(), tmp.clone()),
            ("TMPDIR".to_owned(), tmp),
            ("LANG".to_owned(), "C.UTF-8".to_owned()),
            ("PYTHONDONTWRITEBYTECODE".to_owned(), "1".to_owned()),
        ];
        if let Memory::PerProcess(_) = self.memory {
            environment.extend([
                ("MALLOC_ARENA_MAX".to_owned(), "2".to_owned()),
                (
                    "JAVA_TOOL_OPTIONS".to_owned(),
                    java_options(self.limits.memory),
                ),
            ]);
        }
        environment
    }

    /// Notes what a case may run into, before it starts as job `job`.
    pub fn case_starts(&self, job: usize) -> CaseWatch {
        let oom_kills = match &self.memory {
            Memory::Groups(groups, _) => groups[job].oom_kills(),
            Memory::PerProcess(_) => 0,
        };
        CaseWatch { job, oom_kills }
    }

    /// After a case (or a build): kills everything it left (a detached daemon included:
    /// its control group, and run as root its user, have every process it started), and
    /// says which limit it ran into that its ending cannot show (the memory of the whole
    /// case, whose processes the system killed).
    pub fn case_ends(&self, watch: CaseWatch) -> Option<String> {
        if let Some(user) = self.user_of(watch.job) {
            kill_user(user);
            if self.kind == SandboxKind::LimitsOnly {
                // Without bubblewrap the system's /tmp was in view and writable: what the
                // job's user left there goes.
                remove_owned_by(Path::new("/tmp"), user);
            }
        }
        match &self.memory {
            Memory::Groups(groups, _) => {
                let group = &groups[watch.job];
                group.kill_all();
                (group.oom_kills() > watch.oom_kills).then(|| {
                    format!(
                        "the memory limit ({} MiB for the whole case)",
                        self.limits.memory >> 20
                    )
                })
            }
            Memory::PerProcess(_) => None,
        }
    }

    /// Prepares a submission's directory for the box: readable by every job's user, and
    /// for a build owned by the one that builds (when run as root).
    ///
    /// # Errors
    /// The [`io::Error`] of changing its permissions or owner.
    pub fn hand_over(&self, dir: &Path, builder: Option<usize>) -> io::Result<()> {
        open_to_all(dir)?;
        if let Some(user) = builder.and_then(|job| self.user_of(job)) {
            change_owner(dir, user)?;
        }
        Ok(())
    }

    /// What the box does and does not do.
    pub fn protections(&self) -> Protections {
        let limits = self.limits;
        let mib = |bytes: u64| bytes >> 20;
        let memory = match &self.memory {
            Memory::Groups(..) => {
                format!("{} MiB of memory for the whole case", mib(limits.memory))
            }
            Memory::PerProcess(_) => {
                format!("{} MiB of address space per process", mib(limits.memory))
            }
        };
        let mut holds = vec![
            format!(
                "limits: {} s of CPU per process, {memory}, {} processes, files up to {} MiB, {} open files",
                limits.cpu_seconds,
                limits.processes,
                mib(limits.file_size),
                limits.open_files
            ),
            "a clean environment".to_owned(),
        ];
        let mut missing = Vec::new();
        match &self.memory {
            Memory::Groups(_, version) => holds.push(format!(
                "a control group per job (cgroup {}): a case's processes share its memory \
                 limit, and all of them are killed at its end",
                match version {
                    CgroupVersion::V2 => "v2",
                    CgroupVersion::V1 => "v1",
                }
            )),
            Memory::PerProcess(reason) => missing.push(format!(
                "a memory limit for the whole case ({reason}): each process may use {} MiB \
                 of address space, and the JVM is given options to start within it \
                 (JAVA_TOOL_OPTIONS, MALLOC_ARENA_MAX)",
                mib(limits.memory)
            )),
        }
        if self.own_users {
            holds.push(
                "a user of its own per job: everything running as it is killed at the end of \
                 each case, processes that left its group (setsid, a double fork) too"
                    .to_owned(),
            );
        } else {
            missing.push(format!(
                "a user of its own per job (the process limit counts the grader's user's \
                 processes too, and a process that leaves its group can outlive its case \
                 unless a control group holds it): {}",
                self.root_notes
                    .last()
                    .map_or("run as root for it", String::as_str)
            ));
        }
        holds.push("its own process group, killed whole at the end of each case".to_owned());
        if self.bounded_tmp {
            holds.push(format!("a private /tmp of {} MiB", mib(limits.tmp_size)));
        } else {
            missing.push(format!(
                "a size bound on the private /tmp: {}",
                self.root_notes
                    .first()
                    .map_or("run as root for it", String::as_str)
            ));
        }
        match self.kind {
            SandboxKind::Bubblewrap => holds.push(
                "bubblewrap: no network, its own process, user and mount namespaces, only the \
                 system's read-only directories and its own submission in view, the grader's \
                 program, cases and reports covered"
                    .to_owned(),
            ),
            SandboxKind::LimitsOnly => {
                missing.push(format!(
                    "network isolation and a private view of the files (the grader's own \
                     program, the cases, other submissions are all in view): {}",
                    self.fallback_reason
                        .as_deref()
                        .unwrap_or("bubblewrap is not used")
                ));
                if self.bounded_tmp {
                    holds.push(format!(
                        "private /var/tmp and /dev/shm of {} MiB each",
                        mib(limits.tmp_size)
                    ));
                }
                missing.push(format!(
                    "a private /tmp: a program can write files of up to {} MiB each into the \
                     system's {} during its case{}",
                    mib(limits.file_size),
                    if self.bounded_tmp {
                        "/tmp"
                    } else {
                        "/tmp, /var/tmp and /dev/shm"
                    },
                    if self.own_users {
                        "; what its user left in /tmp is removed after it"
                    } else {
                        ""
                    }
                ));
            }
        }
        Protections {
            kind: self.kind,
            holds,
            missing,
        }
    }
}

/// JVM options that fit in `memory` bytes of address space per process: the heap a
/// quarter of it, small reservations for classes and compiled code, one garbage collector
/// thread.
fn java_options(memory: u64) -> String {
    format!(
        "-Xmx{}m -XX:CompressedClassSpaceSize=64m -XX:ReservedCodeCacheSize=32m \
         -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss1m",
        (memory >> 20) / 4
    )
}

/// Removes the entries of `dir` (not below it: `/tmp` is sticky, a user can only make
/// entries of its own there) that `user` owns.
fn remove_owned_by(dir: &Path, user: u32) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            if meta.uid() == user {
                let _ = if meta.is_dir() {
                    fs::remove_dir_all(entry.path())
                } else {
                    fs::remove_file(entry.path())
                };
            }
        }
    }
    #[cfg(not(unix))]
    let _ = (dir, user);
}

/// Makes `dir` and everything in it readable (and directories enterable) by everyone, so
/// that a job's user can read it (the directories above it must let them through: the
/// scratch space is made under the system's temporary directory for that).
fn open_to_all(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let widen = |path: &Path, bits: u32| -> io::Result<()> {
            let meta = fs::symlink_metadata(path)?;
            if meta.file_type().is_symlink() {
                return Ok(());
            }
            let mode = meta.permissions().mode();
            let bits = if meta.is_dir() || mode & 0o111 != 0 {
                bits | 0o111
            } else {
                bits
            };
            if mode & bits != bits {
                fs::set_permissions(path, fs::Permissions::from_mode(mode | bits))?;
            }
            Ok(())
        };
        for entry in walk(dir)? {
            widen(&entry, 0o444)?;
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Gives `dir` and everything in it to `user`.
fn change_owner(dir: &Path, user: u32) -> io::Result<()> {
    #[cfg(unix)]
    for path in walk(dir)? {
        std::os::unix::fs::lchown(&path, Some(user), Some(user))?;
    }
    #[cfg(not(unix))]
    let _ = (dir, user);
    Ok(())
}

/// `dir` and everything under it (symbolic links listed, not followed).
fn walk(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut paths = vec![dir.to_owned()];
    let mut index = 0;
    while let Some(path) = paths.get(index).cloned() {
        index += 1;
        if fs::symlink_metadata(&path)?.is_dir() {
            for entry in fs::read_dir(&path)? {
                paths.push(entry?.path());
            }
        }
    }
    Ok(paths)
}

/// Removes everything inside `dir`, keeping it.
fn empty_directory(dir: &Path) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if fs::symlink_metadata(&path)?.is_dir() {
            fs::remove_dir_all(&path)?;
        } else {
            fs::remove_file(&path)?;
        }
    }
    Ok(())
}
