//! Files the program reads and writes on a person's behalf, in one place: whole-file reads
//! that refuse what is not a regular file and stop at a size no such file reaches (so
//! `/dev/zero` or a FIFO named by mistake is an error, not a hang or a memory blow-up),
//! replacement that leaves either the old file or the whole new one, and exclusive locks
//! that say which process holds them.

use std::{
    fs::{self, File, TryLockError},
    io::{self, Read, Write},
    path::Path,
};

/// The largest saved game, position, grader input or record read whole: a 16 × 16 game
/// with its comments is a few KiB.
pub const GAME_FILE: u64 = 1 << 20;

/// The largest list read whole: an OBF suite, a grader case (with many invalid lines).
pub const LIST_FILE: u64 = 64 << 20;

/// The largest weights file: today's are a few MiB compressed.
pub const WEIGHTS_FILE: u64 = 256 << 20;

/// The largest packed positions file read (`train unpack`): what it unpacks to is at most
/// as big (`othello::training::pack::MAX_BLOCKS`), and it packs smaller.
pub const PACKED_FILE: u64 = 1 << 30;

/// The whole of the regular file at `path`, if it is at most `limit` bytes.
///
/// # Errors
/// The file cannot be opened or read, is not a regular file (a directory, a FIFO, a
/// device), or is larger than `limit`.
pub fn read_limited(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!(
                "larger than {}: more than any file of this kind",
                size_text(limit)
            ),
        ));
    }
    Ok(bytes)
}

/// [`read_limited`] as UTF-8 text.
///
/// # Errors
/// Those of [`read_limited`], and text that is not UTF-8.
pub fn read_text(path: &Path, limit: u64) -> io::Result<String> {
    String::from_utf8(read_limited(path, limit)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// Opens `path` for reading if it is a regular file (checked before opening: opening a
/// FIFO would wait for a writer).
///
/// # Errors
/// The file is missing, cannot be opened, or is not a regular file.
pub fn open_regular(path: &Path) -> io::Result<File> {
    refuse_irregular(&fs::metadata(path)?)?;
    let file = File::open(path)?;
    // What was opened, in case it changed in between.
    refuse_irregular(&file.metadata()?)?;
    Ok(file)
}

fn refuse_irregular(metadata: &fs::Metadata) -> io::Result<()> {
    if metadata.is_file() {
        return Ok(());
    }
    let what = if metadata.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    };
    Err(io::Error::new(io::ErrorKind::InvalidInput, what))
}

/// Whether something other than a regular file is at `path` (a directory, a FIFO, a
/// device): nothing to replace with a saved file.
pub fn is_irregular(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|metadata| {
        let metadata = if metadata.is_symlink() {
            fs::metadata(path).ok()
        } else {
            Some(metadata)
        };
        metadata.is_some_and(|metadata| !metadata.is_file())
    })
}

/// Writes a new file at `path` through `write`: into a temporary file beside it, synced,
/// then renamed over `path`, so `path` holds either what it held or the whole new file.
/// The new file gets the permissions a plain new file would (the umask applies). Refuses
/// to replace anything but a regular file (a rename would put a file where a device node
/// or a FIFO was).
///
/// # Errors
/// `path` is not a regular file, or writing, syncing or renaming fails (the messages do
/// not name the temporary file).
pub fn write_replacing(
    path: &Path,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    prepare_replacing(path, write)?.commit()
}

/// A new file written and synced beside the one it replaces, not yet in its place: files
/// that belong together are all written first, then [`Replacement::commit`]ted one after
/// another, so that a stop while writing leaves every old file as it was. Dropped
/// uncommitted, it is removed.
#[derive(Debug)]
pub struct Replacement {
    file: tempfile::NamedTempFile,
    path: std::path::PathBuf,
}

impl Replacement {
    /// Puts the new file in its place (a rename).
    ///
    /// # Errors
    /// The rename fails.
    pub fn commit(self) -> io::Result<()> {
        self.file.persist(&self.path).map_err(|error| error.error)?;
        Ok(())
    }
}

/// The first half of [`write_replacing`]: the new file written and synced beside `path`.
///
/// # Errors
/// Those of [`write_replacing`] but the rename's.
pub fn prepare_replacing(
    path: &Path,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<Replacement> {
    if is_irregular(path) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file: only files are replaced",
        ));
    }
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".othello-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let mut file = builder
        .tempfile_in(dir)
        .map_err(|error| io::Error::new(error.kind(), strip_path(&error)))?;
    // The plain file: tempfile's own writer would add its name to every error.
    write(file.as_file_mut())?;
    file.as_file().sync_all()?;
    Ok(Replacement {
        file,
        path: path.to_owned(),
    })
}

/// [`write_replacing`] with `bytes`.
///
/// # Errors
/// Those of [`write_replacing`].
pub fn write_bytes(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_replacing(path, |file| file.write_all(bytes))
}

/// An error's message without tempfile's ` at path "..."`.
fn strip_path(error: &io::Error) -> String {
    let text = error.to_string();
    match text.find(" at path ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

/// `1 MiB`, `64 MiB`.
fn size_text(bytes: u64) -> String {
    format!("{} MiB", bytes >> 20)
}

/// An exclusive lock on a file, held until dropped (or the process ends, however it
/// ends: the system releases it). The file holds the holder's process id, so a second
/// process can say who holds it.
#[derive(Debug)]
pub struct Lock {
    _file: File,
}

/// A lock held by another process.
#[derive(Debug)]
pub struct Held {
    /// The holder's process id, if it wrote one.
    pub pid: Option<u32>,
}

impl Lock {
    /// Takes the lock at `path` (created if missing), without waiting.
    ///
    /// # Errors
    /// `Ok(Err(Held))` if another process holds it; `Err` if the file cannot be opened.
    pub fn try_acquire(path: &Path) -> io::Result<Result<Lock, Held>> {
        let mut file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                let _ = file.take(32).read_to_string(&mut text);
                return Ok(Err(Held {
                    pid: text.trim().parse().ok(),
                }));
            }
            Err(TryLockError::Error(error)) => return Err(error),
        }
        file.set_len(0)?;
        file.write_all(format!("{}\n", std::process::id()).as_bytes())?;
        file.flush()?;
        Ok(Ok(Lock { _file: file }))
    }
}

impl Held {
    /// `process 1234`, or `another process` when it is not known.
    pub fn holder(&self) -> String {
        self.pid.map_or_else(
            || "another process".to_owned(),
            |pid| format!("process {pid}"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_refuse_devices_directories_and_oversized_files() {
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("small.txt");
        fs::write(&small, "f5d6\n").unwrap();
        assert_eq!(read_text(&small, 100).unwrap(), "f5d6\n");
        let error = read_limited(&small, 3).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::FileTooLarge);
        assert!(
            error.to_string().starts_with("larger than 0 MiB"),
            "{error}"
        );
        let error = read_limited(dir.path(), 100).unwrap_err();
        assert_eq!(error.to_string(), "a directory");
        #[cfg(unix)]
        {
            let error = read_limited(Path::new("/dev/zero"), GAME_FILE).unwrap_err();
            assert_eq!(error.to_string(), "not a regular file");
            let fifo = dir.path().join("fifo");
            let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
            // SAFETY: a plain system call with a valid C string.
            assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
            let error = read_limited(&fifo, GAME_FILE).unwrap_err();
            assert_eq!(
                error.to_string(),
                "not a regular file",
                "no wait for a writer"
            );
            let error = write_bytes(&fifo, b"x").unwrap_err();
            assert!(
                error.to_string().starts_with("not a regular file"),
                "{error}"
            );
            assert!(is_irregular(&fifo));
        }
    }

    #[test]
    fn a_lock_is_held_until_dropped_and_names_its_holder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        let lock = Lock::try_acquire(&path).unwrap().unwrap();
        let held = Lock::try_acquire(&path).unwrap().unwrap_err();
        assert_eq!(held.pid, Some(std::process::id()));
        assert_eq!(held.holder(), format!("process {}", std::process::id()));
        drop(lock);
        assert!(Lock::try_acquire(&path).unwrap().is_ok());
    }

    #[test]
    fn replaced_files_get_plain_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        write_bytes(&path, b"one").unwrap();
        write_bytes(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let plain = dir.path().join("plain.txt");
            fs::write(&plain, "").unwrap();
            let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&path), mode(&plain));
        }
    }
}
