//! A class's submissions: found in a directory (one per subdirectory, `.zip`, `.tar.gz` or
//! `.tgz`), and each copied or unpacked into a directory of the grader's own before it
//! runs, so that nothing a submission does touches the originals. Unpacking is bounded
//! (bytes and files) and never writes outside its directory: absolute paths, `..` and
//! links are skipped and listed.

use std::{
    fs::{self, File},
    io::{self, Read, Write},
    path::{Component, Path, PathBuf},
};

use sha2::{Digest, Sha256};
use thiserror::Error;

/// Most bytes a submission may unpack to.
pub const MAX_BYTES: u64 = 64 << 20;

/// Most files a submission may hold.
pub const MAX_FILES: u64 = 10_000;

/// Where a submission comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// A directory.
    Directory,
    /// A `.zip` archive.
    Zip,
    /// A `.tar.gz` or `.tgz` archive.
    TarGz,
}

/// One student's submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    /// Its name in every report: the directory's name, or the archive's without extension.
    pub name: String,
    /// Where it is.
    pub source: PathBuf,
    /// What it is.
    pub kind: SourceKind,
}

/// The submissions could not be listed.
#[derive(Debug, Error)]
pub enum ListError {
    /// The directory cannot be read.
    #[error("cannot read the submissions in {path}: {source}")]
    Read {
        /// Where.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// Two entries give the same name.
    #[error("two submissions would both be called {0:?} (a directory and an archive?): rename one")]
    SameName(String),
    /// No submission at all.
    #[error("no submissions in {0} (subdirectories, .zip, .tar.gz or .tgz files)")]
    None(PathBuf),
}

/// A submission that cannot be unpacked: every case fails, with this reason.
#[derive(Debug, Error)]
pub enum UnpackError {
    /// Reading it failed, or the archive is damaged.
    #[error("cannot unpack it: {0}")]
    Damaged(String),
    /// It is larger than allowed.
    #[error("it is larger than {} MiB or {MAX_FILES} files unpacked", MAX_BYTES >> 20)]
    TooLarge,
    /// Writing the copy failed (a problem on the grader's side).
    #[error("cannot copy it: {0}")]
    Copy(#[from] io::Error),
}

/// What unpacking made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unpacked {
    /// The directory to grade from: the copy, or its only folder if it holds nothing else.
    pub root: PathBuf,
    /// SHA-256 of its files (paths and contents): a changed submission is graded again.
    pub fingerprint: String,
    /// Entries left out (links, unsafe paths), one line each.
    pub skipped: Vec<String>,
}

/// Lists the submissions in `dir`, by name; with `single`, `dir` itself is the one
/// submission (named `submission`).
///
/// # Errors
/// [`ListError`]: unreadable, two with one name, or none.
pub fn list(dir: &Path, single: bool) -> Result<Vec<Submission>, ListError> {
    let read_error = |source| ListError::Read {
        path: dir.to_owned(),
        source,
    };
    if single {
        if !fs::metadata(dir).map_err(read_error)?.is_dir() {
            return Err(ListError::None(dir.to_owned()));
        }
        return Ok(vec![Submission {
            name: "submission".to_owned(),
            source: dir.to_owned(),
            kind: SourceKind::Directory,
        }]);
    }
    let mut submissions = Vec::new();
    for entry in fs::read_dir(dir).map_err(read_error)? {
        let entry = entry.map_err(read_error)?;
        let file_name = entry.file_name().to_string_lossy().into_owned();
        if file_name.starts_with('.') {
            continue;
        }
        let is_dir = fs::metadata(entry.path()).map_err(read_error)?.is_dir();
        if is_dir && entry.path().join(super::journal::DIRECTORY).is_dir() {
            // A report directory of the grader's own (`--out` among the submissions).
            continue;
        }
        let (name, kind) = if is_dir {
            (file_name.clone(), SourceKind::Directory)
        } else if let Some(stem) = file_name.strip_suffix(".zip") {
            (stem.to_owned(), SourceKind::Zip)
        } else if let Some(stem) = file_name
            .strip_suffix(".tar.gz")
            .or_else(|| file_name.strip_suffix(".tgz"))
        {
            (stem.to_owned(), SourceKind::TarGz)
        } else {
            continue;
        };
        submissions.push(Submission {
            name,
            source: entry.path(),
            kind,
        });
    }
    submissions.sort_by(|a, b| a.name.cmp(&b.name));
    if let Some(pair) = submissions
        .windows(2)
        .find(|pair| pair[0].name == pair[1].name)
    {
        return Err(ListError::SameName(pair[0].name.clone()));
    }
    if submissions.is_empty() {
        return Err(ListError::None(dir.to_owned()));
    }
    Ok(submissions)
}

/// Copies or unpacks `submission` into `into` (made; it must not exist yet).
///
/// # Errors
/// [`UnpackError`]: damaged, too large, or the copy cannot be written.
pub fn unpack(submission: &Submission, into: &Path) -> Result<Unpacked, UnpackError> {
    fs::create_dir_all(into)?;
    let mut writer = Writer {
        into,
        bytes: 0,
        files: 0,
        skipped: Vec::new(),
    };
    match submission.kind {
        SourceKind::Directory => copy_directory(&submission.source, &mut writer)?,
        SourceKind::Zip => unzip(&submission.source, &mut writer)?,
        SourceKind::TarGz => untar(&submission.source, &mut writer)?,
    }
    let skipped = writer.skipped;
    let root = only_folder(into)?;
    Ok(Unpacked {
        fingerprint: fingerprint(&root)?,
        root,
        skipped,
    })
}

/// Writes the files of a submission under its directory, within the bounds.
struct Writer<'a> {
    into: &'a Path,
    bytes: u64,
    files: u64,
    skipped: Vec<String>,
}

impl Writer<'_> {
    /// Where `relative` goes, if it is a safe path (only plain components).
    fn target(&mut self, relative: &Path) -> Option<PathBuf> {
        let safe = relative
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
            && relative.components().next().is_some();
        if safe {
            Some(self.into.join(relative))
        } else {
            self.skipped
                .push(format!("{}: not a plain relative path", relative.display()));
            None
        }
    }

    fn directory(&mut self, relative: &Path) -> Result<(), UnpackError> {
        if let Some(path) = self.target(relative) {
            fs::create_dir_all(path)?;
        }
        Ok(())
    }

    /// Copies `content` into the file `relative`, executable if `executable`.
    fn file(
        &mut self,
        relative: &Path,
        content: &mut dyn Read,
        executable: bool,
    ) -> Result<(), UnpackError> {
        let Some(path) = self.target(relative) else {
            return Ok(());
        };
        self.files += 1;
        if self.files > MAX_FILES {
            return Err(UnpackError::TooLarge);
        }
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        let mut file = File::create(&path)?;
        let left = MAX_BYTES - self.bytes;
        let copied = io::copy(&mut content.take(left + 1), &mut file)
            .map_err(|error| UnpackError::Damaged(error.to_string()))?;
        if copied > left {
            return Err(UnpackError::TooLarge);
        }
        self.bytes += copied;
        file.flush()?;
        #[cfg(unix)]
        if executable {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755))?;
        }
        #[cfg(not(unix))]
        let _ = executable;
        Ok(())
    }

    fn skip(&mut self, relative: &Path, what: &str) {
        self.skipped.push(format!("{}: {what}", relative.display()));
    }
}

fn copy_directory(source: &Path, writer: &mut Writer<'_>) -> Result<(), UnpackError> {
    let damaged = |error: io::Error| UnpackError::Damaged(error.to_string());
    let mut pending = vec![PathBuf::new()];
    while let Some(relative) = pending.pop() {
        let mut entries: Vec<_> = fs::read_dir(source.join(&relative))
            .map_err(damaged)?
            .collect::<Result<_, _>>()
            .map_err(damaged)?;
        entries.sort_by_key(fs::DirEntry::file_name);
        for entry in entries {
            let path = relative.join(entry.file_name());
            let meta = fs::symlink_metadata(entry.path()).map_err(damaged)?;
            if meta.is_dir() && entry.path().join(super::journal::DIRECTORY).is_dir() {
                // A report directory of the grader's own (`--out` inside the submission).
                writer.skip(&path, "a report directory of othello grade, left out");
            } else if meta.is_dir() {
                writer.directory(&path)?;
                pending.push(path);
            } else if meta.is_file() {
                let mut file = File::open(entry.path()).map_err(damaged)?;
                writer.file(&path, &mut file, is_executable(&meta))?;
            } else {
                writer.skip(&path, "a link or special file, left out");
            }
        }
    }
    Ok(())
}

fn is_executable(meta: &fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

fn unzip(source: &Path, writer: &mut Writer<'_>) -> Result<(), UnpackError> {
    let damaged = |error: zip::result::ZipError| UnpackError::Damaged(error.to_string());
    let file = File::open(source).map_err(|error| UnpackError::Damaged(error.to_string()))?;
    let mut archive = zip::ZipArchive::new(file).map_err(damaged)?;
    for index in 0..archive.len() {
        let mut entry = archive.by_index(index).map_err(damaged)?;
        let name = PathBuf::from(entry.name().map_err(damaged)?.into_owned());
        // Absolute names are refused too (the crate would only make them relative).
        let plain = name
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        let Some(relative) = entry.enclosed_name().filter(|_| plain) else {
            writer.skip(&name, "not a plain relative path");
            continue;
        };
        if entry.is_dir() {
            writer.directory(&relative)?;
        } else if entry.is_symlink() {
            writer.skip(&relative, "a link, left out");
        } else {
            let executable = entry.unix_mode().is_some_and(|mode| mode & 0o111 != 0);
            writer.file(&relative, &mut entry, executable)?;
        }
    }
    Ok(())
}

fn untar(source: &Path, writer: &mut Writer<'_>) -> Result<(), UnpackError> {
    let damaged = |error: io::Error| UnpackError::Damaged(error.to_string());
    let file = File::open(source).map_err(damaged)?;
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    for entry in archive.entries().map_err(damaged)? {
        let mut entry = entry.map_err(damaged)?;
        let relative = entry.path().map_err(damaged)?.into_owned();
        // `./main.py` is `main.py`.
        let relative: PathBuf = relative
            .components()
            .filter(|c| *c != Component::CurDir)
            .collect();
        if relative.as_os_str().is_empty() {
            continue;
        }
        let header = entry.header();
        let executable = header.mode().is_ok_and(|mode| mode & 0o111 != 0);
        match header.entry_type() {
            tar::EntryType::Directory => writer.directory(&relative)?,
            tar::EntryType::Regular | tar::EntryType::Continuous => {
                writer.file(&relative, &mut entry, executable)?;
            }
            _ => writer.skip(&relative, "a link or special file, left out"),
        }
    }
    Ok(())
}

/// `dir`, or the one folder in it if it holds nothing else (an archive of `alice/...`).
fn only_folder(dir: &Path) -> io::Result<PathBuf> {
    let entries: Vec<_> = fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    match entries.as_slice() {
        [only] if only.file_type()?.is_dir() => Ok(only.path()),
        _ => Ok(dir.to_owned()),
    }
}

/// SHA-256 over every file's relative path, length and content, in path order.
fn fingerprint(root: &Path) -> io::Result<String> {
    let mut files = Vec::new();
    let mut pending = vec![root.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir)? {
            let entry = entry?;
            if entry.file_type()?.is_dir() {
                pending.push(entry.path());
            } else {
                files.push(entry.path());
            }
        }
    }
    files.sort();
    let mut hasher = Sha256::new();
    for path in files {
        let relative = path.strip_prefix(root).unwrap_or(&path);
        let content = fs::read(&path)?;
        hasher.update(relative.to_string_lossy().as_bytes());
        hasher.update([0]);
        hasher.update((content.len() as u64).to_le_bytes());
        hasher.update(&content);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archives_unpack_safely_and_within_bounds() {
        let dir = tempfile::tempdir().unwrap();
        // A zip with a folder, a file, a path that climbs out, and an absolute one.
        let zip_path = dir.path().join("alice.zip");
        let mut zip = zip::ZipWriter::new(File::create(&zip_path).unwrap());
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .unix_permissions(0o755);
        zip.add_directory("alice/", options).unwrap();
        zip.start_file("alice/main.py", options).unwrap();
        zip.write_all(b"print('FULL')\n").unwrap();
        zip.start_file("../escape.txt", options).unwrap();
        zip.write_all(b"out").unwrap();
        zip.start_file("/etc/evil", options).unwrap();
        zip.write_all(b"out").unwrap();
        zip.finish().unwrap();
        let submissions = list(dir.path(), false).unwrap();
        assert_eq!(submissions.len(), 1);
        assert_eq!(submissions[0].name, "alice");
        let into = dir.path().join("work");
        let unpacked = unpack(&submissions[0], &into).unwrap();
        assert_eq!(unpacked.skipped.len(), 2, "{:?}", unpacked.skipped);
        assert!(!dir.path().join("escape.txt").exists());
        // Two entries went astray, so the copy holds alice/ only: graded from inside it.
        assert_eq!(unpacked.root, into.join("alice"));
        assert_eq!(
            fs::read(unpacked.root.join("main.py")).unwrap(),
            b"print('FULL')\n"
        );
        // Unpacking it again gives the same fingerprint; another file changes it.
        let again = unpack(&submissions[0], &dir.path().join("again")).unwrap();
        assert_eq!(again.fingerprint, unpacked.fingerprint);
        fs::write(again.root.join("extra"), b"x").unwrap();
        assert_ne!(fingerprint(&again.root).unwrap(), unpacked.fingerprint);
    }

    #[test]
    fn a_bomb_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bomb.tar.gz");
        let encoder = flate2::write::GzEncoder::new(
            File::create(&path).unwrap(),
            flate2::Compression::best(),
        );
        let mut tar = tar::Builder::new(encoder);
        let mut header = tar::Header::new_gnu();
        header.set_size(MAX_BYTES + 1);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, "zeros", io::repeat(0).take(MAX_BYTES + 1))
            .unwrap();
        tar.into_inner().unwrap().finish().unwrap();
        assert!(fs::metadata(&path).unwrap().len() < 1 << 20);
        let submissions = list(dir.path(), false).unwrap();
        let error = unpack(&submissions[0], &dir.path().join("work")).unwrap_err();
        assert!(matches!(error, UnpackError::TooLarge), "{error}");
    }

    #[test]
    fn names_must_differ() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("bob")).unwrap();
        fs::write(dir.path().join("bob.zip"), b"").unwrap();
        fs::write(dir.path().join("notes.txt"), b"").unwrap();
        assert!(matches!(
            list(dir.path(), false),
            Err(ListError::SameName(name)) if name == "bob"
        ));
    }
}
