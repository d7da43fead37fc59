//! What a submission sees inside bubblewrap: the system's directories and those given with
//! `--allow-read`, read-only, with the grader's own files covered wherever they would show.
//! A submission that runs the grader's program (a reference implementation of the very
//! protocol it is graded on) or reads the cases would score full marks, so the program
//! running the grader, every copy of it in view, the cases, the points, the reports, the
//! other submissions and the scratch space are each hidden under an empty file or folder.

use std::{
    fs,
    io::{self, Read},
    path::{Path, PathBuf},
};

/// Directories shown read-only at their own paths (those that are symbolic links, such as
/// `/bin` on a merged-`/usr` system, are made the same links inside).
pub(super) const SYSTEM: [&str; 8] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
];

/// What the box has of its own (its `/tmp`, `/proc`, `/dev`, the submission), which no
/// `--allow-read` directory may cover.
const OWN: [&str; 4] = ["/tmp", "/proc", "/dev", super::INSIDE];

/// A path covered inside the box.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Mask {
    /// Where, inside the box.
    pub(super) path: PathBuf,
    /// A folder (covered by an empty folder) or a file (by an empty file).
    pub(super) folder: bool,
}

/// A host directory shown read-only inside the box.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Shown {
    /// The host's path, links resolved.
    pub(super) host: PathBuf,
    /// Where it shows inside the box.
    pub(super) inside: PathBuf,
    /// Shown by `--allow-read` (searched whole for builds of the grader).
    pub(super) allowed: bool,
}

/// The box's view of the files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct View {
    /// The system's directories that are not links, then the `--allow-read` ones.
    pub(super) shown: Vec<Shown>,
    /// The grader's own files, where they would show.
    pub(super) masks: Vec<Mask>,
}

/// An `--allow-read` path that cannot be shown.
#[derive(Debug, thiserror::Error)]
#[error("--allow-read {path}: {reason}")]
pub struct AllowReadError {
    /// The path as given.
    pub path: PathBuf,
    /// Why.
    pub reason: String,
}

impl View {
    /// The view with `allowed` shown besides the system, and `private` (with the program
    /// running now, and any copy of it in view) covered wherever it would show.
    /// `others_only`: the box's user is nobody the files know (run as root, each job is a
    /// user of its own), so only what is open to everyone can be read.
    ///
    /// # Errors
    /// [`AllowReadError`]: an `--allow-read` path that is not there, or that the box's user
    /// could not read.
    pub(super) fn new(
        allowed: &[PathBuf],
        private: &[PathBuf],
        others_only: bool,
    ) -> Result<View, AllowReadError> {
        let mut shown: Vec<Shown> = SYSTEM
            .iter()
            .map(PathBuf::from)
            .filter(|path| {
                path.symlink_metadata()
                    .is_ok_and(|meta| !meta.file_type().is_symlink())
            })
            .map(|path| Shown {
                host: path.canonicalize().unwrap_or_else(|_| path.clone()),
                inside: path,
                allowed: false,
            })
            .collect();
        for path in allowed {
            let error = |reason: String| AllowReadError {
                path: path.clone(),
                reason,
            };
            let host = path
                .canonicalize()
                .map_err(|source| error(source.to_string()))?;
            readable(&host, others_only).map_err(error)?;
            let inside = absolute(path);
            // What the box needs of its own cannot be covered by a shown directory.
            if let Some(needed) = OWN.iter().find(|own| {
                Path::new(own).starts_with(&inside) || Path::new(own).starts_with(&host)
            }) {
                return Err(error(format!(
                    "it would cover {needed}, which the box needs of its own: name a \
                     directory below it"
                )));
            }
            shown.push(Shown {
                host,
                inside,
                allowed: true,
            });
        }
        let mut hidden: Vec<PathBuf> = private
            .iter()
            .filter_map(|path| path.canonicalize().ok())
            .collect();
        if let Ok(program) = std::env::current_exe().and_then(|p| p.canonicalize()) {
            hidden.extend(graders_in(&program, &shown));
            hidden.push(program);
        }
        hidden.sort();
        hidden.dedup();
        let mut masks = Vec::new();
        for path in hidden {
            let folder = path.is_dir();
            for root in &shown {
                if let Ok(below) = path.strip_prefix(&root.host) {
                    let inside = if below.as_os_str().is_empty() {
                        root.inside.clone()
                    } else {
                        root.inside.join(below)
                    };
                    masks.push(Mask {
                        path: inside,
                        folder,
                    });
                }
            }
        }
        masks.sort_by(|a, b| a.path.cmp(&b.path));
        masks.dedup();
        Ok(View { shown, masks })
    }
}

/// `path` made absolute against the current directory (bubblewrap wants absolute paths).
fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir().map_or_else(|_| path.to_owned(), |dir| dir.join(path))
    }
}

/// Whether the box's user can read `path` (a folder: list and enter it) and reach it.
fn readable(path: &Path, others_only: bool) -> Result<(), String> {
    #[cfg(unix)]
    {
        use std::os::unix::{ffi::OsStrExt, fs::PermissionsExt};
        if !others_only {
            let name = std::ffi::CString::new(path.as_os_str().as_bytes())
                .map_err(|_| "a path with a NUL byte".to_owned())?;
            let mode = if path.is_dir() {
                libc::R_OK | libc::X_OK
            } else {
                libc::R_OK
            };
            // SAFETY: a plain system call on a valid C string.
            if unsafe { libc::access(name.as_ptr(), mode) } != 0 {
                return Err(format!("cannot read it: {}", io::Error::last_os_error()));
            }
            return Ok(());
        }
        let mode = |path: &Path| {
            fs::metadata(path)
                .map(|meta| meta.permissions().mode())
                .map_err(|error| format!("{}: {error}", path.display()))
        };
        for ancestor in path.ancestors().skip(1) {
            if mode(ancestor)? & 0o001 == 0 {
                return Err(format!(
                    "the sandbox's user cannot reach it: {} is not open to others (chmod o+x)",
                    ancestor.display()
                ));
            }
        }
        let wanted = if path.is_dir() { 0o005 } else { 0o004 };
        if mode(path)? & wanted != wanted {
            return Err(format!(
                "the sandbox's user cannot read it: it is not open to others (chmod o+r{})",
                if path.is_dir() { "x" } else { "" }
            ));
        }
        Ok(())
    }
    #[cfg(not(unix))]
    {
        let _ = (path, others_only);
        Ok(())
    }
}

/// A string every build of the grader carries (the protocol's own message for input that
/// ends mid-game), which no system program has.
const GRADER_MARK: &[u8] = b"input ended before the game was over";

/// Programs found by their mark are between these sizes (a release build is about
/// 20 MiB, a debug one some hundreds).
const GRADER_SIZES: std::ops::RangeInclusive<u64> = (256 << 10)..=(1 << 30);

/// The grader's program wherever else it shows under the shown directories (links not
/// followed), to be covered: the same bytes under any name; a file named `othello...`;
/// and any other build of it (stripped, older, debug) among the programs of a `bin` or
/// `sbin` folder or of an `--allow-read` folder, known by [`GRADER_MARK`] in its
/// read-only data. A build hidden elsewhere in the system's folders under another name is
/// not looked for (reading every file there would take minutes): install the grader
/// outside `/usr` (docs/gradescope/setup.sh does).
fn graders_in(program: &Path, shown: &[Shown]) -> Vec<PathBuf> {
    let Ok(size) = fs::metadata(program).map(|meta| meta.len()) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut pending: Vec<(PathBuf, bool)> = shown
        .iter()
        .map(|root| (root.host.clone(), root.allowed))
        .collect();
    while let Some((dir, allowed)) = pending.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        let programs = allowed
            || dir
                .file_name()
                .is_some_and(|name| matches!(name.to_str(), Some("bin" | "sbin" | "games")));
        for entry in entries.flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                pending.push((entry.path(), allowed));
                continue;
            }
            if !meta.is_file() {
                continue;
            }
            let path = entry.path();
            let named = entry
                .file_name()
                .to_string_lossy()
                .to_lowercase()
                .starts_with("othello");
            let copy = meta.len() == size && same_content(program, &path);
            let build = programs
                && GRADER_SIZES.contains(&meta.len())
                && elf_data_contains(&path, GRADER_MARK);
            if named || copy || build {
                found.push(path);
            }
        }
    }
    found
}

/// Whether `path` is an ELF program whose read-only data holds `needle` (where it has no
/// section table, anywhere in it).
fn elf_data_contains(path: &Path, needle: &[u8]) -> bool {
    use std::io::{Seek, SeekFrom};
    let Ok(mut file) = fs::File::open(path) else {
        return false;
    };
    let mut header = [0u8; 64];
    if read_full(&mut file, &mut header).ok() != Some(64) || &header[..4] != b"\x7fELF" {
        return false;
    }
    // 64-bit little-endian only (what the grader is built as here).
    if header[4] != 2 || header[5] != 1 {
        return false;
    }
    let u16_at = |bytes: &[u8], at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
    let u64_at = |bytes: &[u8], at: usize| {
        u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
    };
    let (table, entry_size) = (u64_at(&header, 0x28), u16_at(&header, 0x3a) as usize);
    let (count, names) = (
        u16_at(&header, 0x3c) as usize,
        u16_at(&header, 0x3e) as usize,
    );
    let mut sections = vec![0u8; entry_size * count];
    let readable = entry_size >= 0x28
        && names < count
        && file.seek(SeekFrom::Start(table)).is_ok()
        && read_full(&mut file, &mut sections).ok() == Some(sections.len());
    let mut range = |at: u64, len: u64| -> Option<Vec<u8>> {
        let mut bytes = vec![0u8; usize::try_from(len.min(1 << 30)).ok()?];
        file.seek(SeekFrom::Start(at)).ok()?;
        (read_full(&mut file, &mut bytes).ok()? == bytes.len()).then_some(bytes)
    };
    if !readable {
        let whole = fs::metadata(path).map_or(0, |meta| meta.len());
        return range(0, whole).is_some_and(|bytes| memchr::memmem::find(&bytes, needle).is_some());
    }
    let section = |index: usize| &sections[index * entry_size..(index + 1) * entry_size];
    let strings = section(names);
    let Some(names) = range(u64_at(strings, 0x18), u64_at(strings, 0x20)) else {
        return false;
    };
    (0..count).any(|index| {
        let entry = section(index);
        let name_at = u32::from_le_bytes(entry[..4].try_into().expect("4 bytes")) as usize;
        let name = names
            .get(name_at..)
            .and_then(|rest| rest.split(|&b| b == 0).next());
        name == Some(b".rodata".as_slice())
            && range(u64_at(entry, 0x18), u64_at(entry, 0x20))
                .is_some_and(|bytes| memchr::memmem::find(&bytes, needle).is_some())
    })
}

/// Whether two files hold the same bytes.
fn same_content(a: &Path, b: &Path) -> bool {
    let (Ok(mut a), Ok(mut b)) = (fs::File::open(a), fs::File::open(b)) else {
        return false;
    };
    let (mut left, mut right) = (vec![0; 1 << 16], vec![0; 1 << 16]);
    loop {
        let (Ok(n), Ok(m)) = (read_full(&mut a, &mut left), read_full(&mut b, &mut right)) else {
            return false;
        };
        if n != m || left[..n] != right[..m] {
            return false;
        }
        if n == 0 {
            return true;
        }
    }
}

/// Reads until `buffer` is full or the file ends.
fn read_full(file: &mut fs::File, buffer: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read(&mut buffer[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_files_in_view_are_covered_and_copies_found() {
        let dir = tempfile::tempdir().unwrap();
        let shown = dir.path().join("opt");
        fs::create_dir_all(shown.join("bin")).unwrap();
        fs::create_dir_all(shown.join("course/cases")).unwrap();
        let program = shown.join("bin/tool");
        fs::write(&program, b"the grader's program").unwrap();
        // A copy under another name, and a file of the same size that differs.
        fs::write(shown.join("course/renamed"), b"the grader's program").unwrap();
        fs::write(shown.join("course/same-size"), b"the grader's pr0gram").unwrap();
        let outside = dir.path().join("elsewhere");
        fs::create_dir(&outside).unwrap();
        let roots = vec![Shown {
            host: shown.canonicalize().unwrap(),
            inside: PathBuf::from("/opt/x"),
            allowed: true,
        }];
        let mut copies = graders_in(&program.canonicalize().unwrap(), &roots);
        copies.sort();
        let canonical = |path: &Path| path.canonicalize().unwrap();
        assert_eq!(
            copies,
            vec![
                canonical(&program),
                canonical(&shown.join("course/renamed"))
            ]
        );
        let view = View::new(
            std::slice::from_ref(&shown),
            &[
                shown.join("course/cases"),
                outside.clone(),
                shown.join("missing"),
            ],
            false,
        )
        .unwrap();
        let inside = absolute(&shown);
        let masks: Vec<(PathBuf, bool)> = view
            .masks
            .iter()
            .map(|mask| (mask.path.clone(), mask.folder))
            .collect();
        // The cases in view are covered; what is not in view needs nothing.
        assert!(
            masks.contains(&(inside.join("course/cases"), true)),
            "{masks:?}"
        );
        assert!(!masks.iter().any(|(path, _)| path.starts_with(&outside)));
        assert!(view.shown.iter().any(|root| root.inside == inside));
    }

    #[test]
    fn other_builds_of_the_grader_are_found_by_their_mark() {
        // This test's own program is a build of the library: it carries the mark. A copy
        // with a byte more is no longer the same file, but the same program.
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        fs::create_dir(&bin).unwrap();
        let mut bytes = fs::read(std::env::current_exe().unwrap()).unwrap();
        bytes.push(0);
        fs::write(bin.join("tool"), &bytes).unwrap();
        fs::write(dir.path().join("othello-notes.txt"), b"by its name").unwrap();
        assert!(elf_data_contains(&bin.join("tool"), GRADER_MARK));
        assert!(!elf_data_contains(Path::new("/bin/sh"), GRADER_MARK));
        let roots = [Shown {
            host: dir.path().canonicalize().unwrap(),
            inside: PathBuf::from("/opt/x"),
            allowed: false,
        }];
        let elsewhere = tempfile::tempdir().unwrap();
        let program = elsewhere.path().join("running");
        fs::write(&program, b"x").unwrap();
        let mut found = graders_in(&program, &roots);
        found.sort();
        let root = dir.path().canonicalize().unwrap();
        assert_eq!(
            found,
            [root.join("bin/tool"), root.join("othello-notes.txt")]
        );
    }

    #[test]
    fn an_unreadable_or_missing_path_is_named() {
        let missing = View::new(&[PathBuf::from("/nonexistent/jdk")], &[], false).unwrap_err();
        assert!(
            missing
                .to_string()
                .starts_with("--allow-read /nonexistent/jdk: "),
            "{missing}"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let dir = tempfile::tempdir().unwrap();
            let closed = dir.path().join("closed");
            fs::create_dir_all(closed.join("jdk")).unwrap();
            fs::set_permissions(&closed, fs::Permissions::from_mode(0o700)).unwrap();
            fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
            let error = View::new(&[closed.join("jdk")], &[], true).unwrap_err();
            assert!(error.to_string().contains("not open to others"), "{error}");
        }
    }
}
