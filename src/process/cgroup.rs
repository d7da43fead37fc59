//! A memory limit for a whole tree of processes: a control group that a confined program
//! joins as it starts ([`Confinement::cgroup`](super::Confinement::cgroup)), so that
//! everything it starts is counted together and stays in the group however it detaches
//! (a `setsid` daemon included). cgroup v2 where the system lets this process make groups
//! with the memory controller, else the v1 memory hierarchy. Linux only; elsewhere
//! [`CgroupRoot::find`] says why there is none.

use std::{
    fs, io,
    path::{Path, PathBuf},
    thread,
    time::{Duration, Instant},
};

/// Which cgroup interface a group uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CgroupVersion {
    /// The unified hierarchy (`memory.max`, `memory.events`, `cgroup.kill`).
    V2,
    /// The v1 memory controller (`memory.limit_in_bytes`, `memory.oom_control`).
    V1,
}

/// Where this process may make memory-limited groups: its own group's directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CgroupRoot {
    dir: PathBuf,
    version: CgroupVersion,
}

/// A group with a memory limit, removed (its processes killed) when dropped.
#[derive(Debug)]
pub struct MemoryGroup {
    dir: PathBuf,
    version: CgroupVersion,
    /// Groups made to hold it, removed after it (innermost first).
    parents: Vec<PathBuf>,
}

/// How long [`MemoryGroup::kill_all`] keeps at it.
const KILL_GRACE: Duration = Duration::from_secs(5);

impl CgroupRoot {
    /// The place to make groups in, or why there is none here (no cgroup file system, no
    /// memory controller, no permission).
    ///
    /// # Errors
    /// The reason, in a few words.
    pub fn find() -> Result<CgroupRoot, String> {
        if !cfg!(target_os = "linux") {
            return Err("control groups need Linux".to_owned());
        }
        let mounts = fs::read_to_string("/proc/self/mountinfo")
            .map_err(|error| format!("cannot read /proc/self/mountinfo: {error}"))?;
        let groups = fs::read_to_string("/proc/self/cgroup")
            .map_err(|error| format!("cannot read /proc/self/cgroup: {error}"))?;
        let mut reasons = Vec::new();
        match v2_root(&mounts, &groups) {
            Ok(root) => return Ok(root),
            Err(reason) => reasons.push(format!("cgroup v2: {reason}")),
        }
        match v1_root(&mounts, &groups) {
            Ok(root) => return Ok(root),
            Err(reason) => reasons.push(format!("cgroup v1: {reason}")),
        }
        Err(reasons.join("; "))
    }

    /// The interface its groups use.
    pub fn version(&self) -> CgroupVersion {
        self.version
    }

    /// Makes the group `name/leaf` for each leaf, each limited to `bytes` of memory (swap
    /// included where the system counts it), with `name` made first and removed last.
    ///
    /// # Errors
    /// The [`io::Error`] of making a group or setting its limit.
    pub fn groups(&self, name: &str, leaves: usize, bytes: u64) -> io::Result<Vec<MemoryGroup>> {
        let parent = self.dir.join(name);
        match fs::create_dir(&parent) {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(error),
        }
        if self.version == CgroupVersion::V2 {
            // Its children get the memory controller too.
            if let Err(error) = fs::write(parent.join("cgroup.subtree_control"), "+memory") {
                let _ = fs::remove_dir(&parent);
                return Err(error);
            }
        }
        let mut groups = Vec::new();
        for leaf in 0..leaves {
            let dir = parent.join(format!("job-{leaf}"));
            match fs::create_dir(&dir) {
                Ok(()) => {}
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
                Err(error) => return Err(error),
            }
            let group = MemoryGroup {
                dir,
                version: self.version,
                // Only the last one removes the parent.
                parents: if leaf + 1 == leaves {
                    vec![parent.clone()]
                } else {
                    Vec::new()
                },
            };
            group.limit(bytes)?;
            groups.push(group);
        }
        // Dropped in order: the last one (which removes the parent) goes last.
        Ok(groups)
    }

    /// Removes the groups `prefix<pid>` that processes left behind when they died,
    /// killing what is left in them.
    pub fn remove_stale(&self, prefix: &str) {
        for parent in super::left_by_dead(&self.dir, prefix) {
            if let Ok(leaves) = fs::read_dir(&parent) {
                for leaf in leaves.flatten() {
                    if leaf.path().join("cgroup.procs").exists() {
                        drop(MemoryGroup {
                            dir: leaf.path(),
                            version: self.version,
                            parents: Vec::new(),
                        });
                    }
                }
            }
            let _ = fs::remove_dir(&parent);
        }
    }
}

impl MemoryGroup {
    /// The group's directory (what a program joins).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn limit(&self, bytes: u64) -> io::Result<()> {
        match self.version {
            CgroupVersion::V2 => {
                fs::write(self.dir.join("memory.max"), bytes.to_string())?;
                // No swap to spill into, where the system has it.
                let _ = fs::write(self.dir.join("memory.swap.max"), "0");
            }
            CgroupVersion::V1 => {
                fs::write(self.dir.join("memory.limit_in_bytes"), bytes.to_string())?;
                let _ = fs::write(
                    self.dir.join("memory.memsw.limit_in_bytes"),
                    bytes.to_string(),
                );
            }
        }
        Ok(())
    }

    /// How many times the system has killed a process of the group for its memory limit
    /// (where it does not say, how many times the limit was hit).
    pub fn oom_kills(&self) -> u64 {
        let (file, key) = match self.version {
            CgroupVersion::V2 => ("memory.events", "oom_kill"),
            CgroupVersion::V1 => ("memory.oom_control", "oom_kill"),
        };
        let text = fs::read_to_string(self.dir.join(file)).unwrap_or_default();
        text.lines()
            .find_map(|line| line.strip_prefix(key)?.trim().parse().ok())
            .or_else(|| {
                fs::read_to_string(self.dir.join("memory.failcnt"))
                    .ok()?
                    .trim()
                    .parse()
                    .ok()
            })
            .unwrap_or(0)
    }

    /// The process ids in the group now.
    pub fn processes(&self) -> Vec<i32> {
        fs::read_to_string(self.dir.join("cgroup.procs"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.trim().parse().ok())
            .collect()
    }

    /// Kills every process in the group and waits (a few seconds at most) until it is
    /// empty; whether it is.
    pub fn kill_all(&self) -> bool {
        if self.version == CgroupVersion::V2 {
            let _ = fs::write(self.dir.join("cgroup.kill"), "1");
        }
        let deadline = Instant::now() + KILL_GRACE;
        loop {
            let processes = self.processes();
            if processes.is_empty() {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            #[cfg(unix)]
            for pid in processes {
                // SAFETY: a plain system call; the ids were read from the group a moment
                // ago (an id reused in between would need the whole id space to wrap).
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
            thread::sleep(Duration::from_millis(1));
        }
    }
}

impl Drop for MemoryGroup {
    fn drop(&mut self) {
        self.kill_all();
        // A group is removed once its last process is gone, which may take a moment.
        let deadline = Instant::now() + KILL_GRACE;
        for dir in std::iter::once(&self.dir).chain(&self.parents) {
            while fs::remove_dir(dir).is_err() && dir.exists() && Instant::now() < deadline {
                thread::sleep(Duration::from_millis(5));
            }
        }
    }
}

/// The cgroup v2 directory of this process, if this process may give its children the
/// memory controller there.
fn v2_root(mounts: &str, groups: &str) -> Result<CgroupRoot, String> {
    let own = groups
        .lines()
        .find_map(|line| line.strip_prefix("0::"))
        .ok_or("this process is in no v2 group")?;
    let (mount, root) = mount_of(mounts, |fstype, _| fstype == "cgroup2")
        .ok_or("no cgroup2 file system is mounted")?;
    let dir = join_below(&mount, &root, own).ok_or("this process's group is not in view")?;
    let controllers = fs::read_to_string(dir.join("cgroup.controllers"))
        .map_err(|error| format!("{}: {error}", dir.display()))?;
    if !controllers.split_whitespace().any(|c| c == "memory") {
        return Err("the memory controller is not given to this process's group".to_owned());
    }
    let subtree = dir.join("cgroup.subtree_control");
    let enabled = fs::read_to_string(&subtree)
        .unwrap_or_default()
        .split_whitespace()
        .any(|c| c == "memory");
    if !enabled {
        // Refused where this group holds processes itself (the rule of no internal
        // processes) or where it is not ours to change.
        fs::write(&subtree, "+memory").map_err(|error| {
            format!(
                "cannot enable the memory controller in {}: {error}",
                dir.display()
            )
        })?;
    }
    writable(&dir)?;
    Ok(CgroupRoot {
        dir,
        version: CgroupVersion::V2,
    })
}

/// The v1 memory hierarchy's directory of this process.
fn v1_root(mounts: &str, groups: &str) -> Result<CgroupRoot, String> {
    let own = groups
        .lines()
        .find_map(|line| {
            let mut parts = line.splitn(3, ':');
            let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
            controllers
                .split(',')
                .any(|c| c == "memory")
                .then_some(path)
        })
        .ok_or("this process is in no memory group")?;
    let (mount, root) = mount_of(mounts, |fstype, options| {
        fstype == "cgroup" && options.split(',').any(|o| o == "memory")
    })
    .ok_or("the memory controller is not mounted")?;
    let dir = join_below(&mount, &root, own).ok_or("this process's group is not in view")?;
    if !dir.join("memory.limit_in_bytes").exists() {
        return Err(format!("{} has no memory.limit_in_bytes", dir.display()));
    }
    writable(&dir)?;
    Ok(CgroupRoot {
        dir,
        version: CgroupVersion::V1,
    })
}

/// Whether groups can be made in `dir` (tried).
fn writable(dir: &Path) -> Result<(), String> {
    let trial = dir.join(format!("othello-trial-{}", std::process::id()));
    fs::create_dir(&trial)
        .map_err(|error| format!("cannot make groups in {}: {error}", dir.display()))?;
    let _ = fs::remove_dir(&trial);
    Ok(())
}

/// The mount point and mounted root of the first mount whose type and super options
/// `wanted` accepts, from `/proc/self/mountinfo`.
fn mount_of(mounts: &str, wanted: impl Fn(&str, &str) -> bool) -> Option<(PathBuf, String)> {
    mounts.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        let fields: Vec<&str> = left.split(' ').collect();
        let mut right = right.split(' ');
        let (fstype, _source, options) = (right.next()?, right.next()?, right.next()?);
        (fields.len() >= 5 && wanted(fstype, options))
            .then(|| (PathBuf::from(unescape(fields[4])), unescape(fields[3])))
    })
}

/// The directory of the group `path` (as `/proc/self/cgroup` names it) under a mount of
/// the hierarchy's `root` at `mount`.
fn join_below(mount: &Path, root: &str, path: &str) -> Option<PathBuf> {
    let relative = if root == "/" {
        path
    } else {
        path.strip_prefix(root)?
    };
    let relative = relative.trim_start_matches('/');
    // A group outside the mounted part shows as "/.." in a namespace.
    if relative.split('/').any(|part| part == "..") {
        return None;
    }
    Some(if relative.is_empty() {
        mount.to_owned()
    } else {
        mount.join(relative)
    })
}

/// `/proc/self/mountinfo` escapes spaces and a few others as `\040` and the like.
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let octal = bytes
            .get(index + 1..index + 4)
            .and_then(|digits| std::str::from_utf8(digits).ok())
            .and_then(|digits| u8::from_str_radix(digits, 8).ok());
        if bytes[index] == b'\\'
            && let Some(value) = octal
        {
            out.push(value);
            index += 4;
        } else {
            out.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTS: &str = "\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
";

    #[test]
    fn groups_are_found_below_their_mounts() {
        let (mount, root) = mount_of(MOUNTS, |fstype, options| {
            fstype == "cgroup" && options.split(',').any(|o| o == "memory")
        })
        .unwrap();
        assert_eq!(
            (mount.as_path(), root.as_str()),
            (Path::new("/sys/fs/cgroup/memory"), "/")
        );
        assert_eq!(
            join_below(&mount, &root, "/process_api/7e"),
            Some(PathBuf::from("/sys/fs/cgroup/memory/process_api/7e"))
        );
        // A namespace's mount shows only part of the hierarchy.
        assert_eq!(
            join_below(
                Path::new("/sys/fs/cgroup"),
                "/docker/abc",
                "/docker/abc/inner"
            ),
            Some(PathBuf::from("/sys/fs/cgroup/inner"))
        );
        assert_eq!(
            join_below(Path::new("/m"), "/", "/"),
            Some(PathBuf::from("/m"))
        );
        assert_eq!(join_below(Path::new("/m"), "/a", "/b"), None);
        assert_eq!(join_below(Path::new("/m"), "/", "/../x"), None);
        assert_eq!(unescape("/a\\040b"), "/a b");
    }
}
