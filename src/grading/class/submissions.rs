//! A class's submissions: found in a directory (one per entry: a subdirectory or an
//! archive, `.zip`, `.tar`, `.tar.gz`/`.tgz` or `.tar.xz`/`.txz` in any letter case; any
//! other file is listed too, as a submission that cannot be used), and each copied or
//! unpacked into a directory of the grader's own before it runs, so that nothing a
//! submission does touches the originals. Unpacking is bounded (bytes and files) and never
//! writes outside its directory: absolute paths, `..` and links are skipped and listed, and
//! so is macOS's metadata (`__MACOSX/`, `.DS_Store`, `._*`). A submission whose files are
//! all in one folder, however deep (`hw3/bob/main.py`), is graded from inside it.

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
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// A directory.
    Directory,
    /// A `.zip` archive.
    Zip,
    /// A tar archive, compressed or not.
    Tar(Compression),
    /// A file that is no submission the grader can read (a `.rar`, a lone `.py`): every
    /// case fails as `bad-submission`, with this reason.
    Unusable(String),
}

/// How a tar archive is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// `.tar`.
    None,
    /// `.tar.gz`, `.tgz`.
    Gzip,
    /// `.tar.xz`, `.txz`.
    Xz,
}

/// The archives read, by how their names end (in any letter case), longest first: a zip
/// (`None`) or a tar archive compressed so.
const ARCHIVES: [(&str, Option<Compression>); 6] = [
    (".tar.gz", Some(Compression::Gzip)),
    (".tar.xz", Some(Compression::Xz)),
    (".tgz", Some(Compression::Gzip)),
    (".txz", Some(Compression::Xz)),
    (".tar", Some(Compression::None)),
    (".zip", None),
];

/// What the grader reads, for messages.
pub const READABLE: &str = "a folder, .zip, .tar, .tar.gz, .tgz, .tar.xz or .txz";

/// Whether a file or folder is macOS's metadata, never part of a submission.
pub fn is_macos_metadata(name: &str) -> bool {
    name == "__MACOSX" || name == ".DS_Store" || name.starts_with("._")
}

/// Whether a folder is a version control system's history (a clone's `.git`): not part of
/// the program, and often far larger than it.
pub fn is_version_control(name: &str) -> bool {
    matches!(name, ".git" | ".hg" | ".svn")
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
    #[error("no submissions in {0} (each is {READABLE})")]
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
    /// It is no submission the grader can read.
    #[error("{0}")]
    Unusable(String),
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
        // Hidden entries and macOS's metadata are nobody's submission.
        if file_name.starts_with('.') || is_macos_metadata(&file_name) {
            continue;
        }
        let meta = fs::metadata(entry.path());
        let is_dir = meta.as_ref().is_ok_and(fs::Metadata::is_dir);
        if is_dir && entry.path().join(super::journal::DIRECTORY).is_dir() {
            // A report directory of the grader's own (`--out` among the submissions).
            continue;
        }
        let lower = file_name.to_lowercase();
        let archive = ARCHIVES
            .iter()
            .find(|(suffix, _)| lower.ends_with(suffix) && lower.len() > suffix.len());
        let (name, kind) = match (meta, archive) {
            (Ok(_), _) if is_dir => (file_name.clone(), SourceKind::Directory),
            (Ok(meta), Some((suffix, compression))) if meta.is_file() => {
                let stem = file_name[..file_name.len() - suffix.len()].to_owned();
                (stem, compression.map_or(SourceKind::Zip, SourceKind::Tar))
            }
            (Ok(meta), _) if meta.is_file() => {
                let reason = format!("{file_name:?} is not {READABLE}");
                (file_name.clone(), SourceKind::Unusable(reason))
            }
            (Ok(_), _) => {
                let reason = format!("{file_name:?} is not a regular file or folder");
                (file_name.clone(), SourceKind::Unusable(reason))
            }
            (Err(error), _) => {
                let reason = format!("{file_name:?} cannot be read: {error}");
                (file_name.clone(), SourceKind::Unusable(reason))
            }
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
        histories: std::collections::BTreeSet::new(),
    };
    match &submission.kind {
        SourceKind::Directory => copy_directory(&submission.source, &mut writer)?,
        SourceKind::Zip => unzip(&submission.source, &mut writer)?,
        SourceKind::Tar(compression) => untar(&submission.source, *compression, &mut writer)?,
        SourceKind::Unusable(reason) => return Err(UnpackError::Unusable(reason.clone())),
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
    /// The version control folders met, each said once in `skipped`.
    histories: std::collections::BTreeSet<PathBuf>,
}

impl Writer<'_> {
    /// Where `relative` goes, if it is a safe path (only plain components) and no part of
    /// macOS's metadata (left out without a word: every Finder zip has it).
    fn target(&mut self, relative: &Path) -> Option<PathBuf> {
        let safe = relative
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
            && relative.components().next().is_some();
        if !safe {
            self.skipped
                .push(format!("{}: not a plain relative path", relative.display()));
            return None;
        }
        let metadata = relative
            .components()
            .any(|part| is_macos_metadata(&part.as_os_str().to_string_lossy()));
        let mut history = PathBuf::new();
        for part in relative.components() {
            history.push(part);
            if is_version_control(&part.as_os_str().to_string_lossy()) {
                self.history(&history);
                return None;
            }
        }
        (!metadata).then(|| self.into.join(relative))
    }

    /// Notes (once) that the version control folder `relative` is left out.
    fn history(&mut self, relative: &Path) {
        if self.histories.insert(relative.to_owned()) {
            self.skip(relative, "version control history, left out");
        }
    }

    fn directory(&mut self, relative: &Path) -> Result<(), UnpackError> {
        if let Some(path) = self.target(relative) {
            fs::create_dir_all(path)?;
        }
        Ok(())
    }

    /// Copies `content` into the file `relative`, executable if `executable`; an archive's
    /// entry that holds less than the `declared` size is damaged (a truncated archive).
    fn file(
        &mut self,
        relative: &Path,
        content: &mut dyn Read,
        executable: bool,
        declared: Option<u64>,
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
        if let Some(declared) = declared.filter(|&declared| copied < declared) {
            return Err(UnpackError::Damaged(format!(
                "{} is cut short: {copied} of its {declared} bytes (a truncated archive?)",
                relative.display()
            )));
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
                let name = entry.file_name().to_string_lossy().into_owned();
                if is_macos_metadata(&name) {
                    continue;
                }
                if is_version_control(&name) {
                    writer.history(&path);
                    continue;
                }
                writer.directory(&path)?;
                pending.push(path);
            } else if meta.is_file() {
                let mut file = File::open(entry.path()).map_err(damaged)?;
                writer.file(&path, &mut file, is_executable(&meta), None)?;
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
            let declared = entry.size();
            writer.file(&relative, &mut entry, executable, Some(declared))?;
        }
    }
    Ok(())
}

fn untar(
    source: &Path,
    compression: Compression,
    writer: &mut Writer<'_>,
) -> Result<(), UnpackError> {
    let damaged = |error: io::Error| UnpackError::Damaged(error.to_string());
    let file = File::open(source).map_err(damaged)?;
    let reader: Box<dyn Read> = match compression {
        Compression::None => Box::new(file),
        Compression::Gzip => Box::new(flate2::read::GzDecoder::new(file)),
        Compression::Xz => Box::new(io::Cursor::new(unxz(file)?)),
    };
    let mut archive = tar::Archive::new(reader);
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
                let declared = header.size().ok();
                writer.file(&relative, &mut entry, executable, declared)?;
            }
            _ => writer.skip(&relative, "a link or special file, left out"),
        }
    }
    Ok(())
}

/// Most bytes an `.xz` stream may decompress to: the files' bound and their tar headers.
const MAX_XZ_BYTES: u64 = MAX_BYTES + MAX_FILES * 2048;

/// The decompressed bytes of an `.xz` stream, within [`MAX_XZ_BYTES`] (held in memory: the
/// decoder writes rather than reads).
fn unxz(file: File) -> Result<Vec<u8>, UnpackError> {
    /// A buffer that refuses to grow past the bound.
    struct Bounded(Vec<u8>);
    impl Write for Bounded {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            if self.0.len() as u64 + bytes.len() as u64 > MAX_XZ_BYTES {
                return Err(io::Error::new(io::ErrorKind::FileTooLarge, "too large"));
            }
            self.0.extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut output = Bounded(Vec::new());
    match lzma_rs::xz_decompress(&mut io::BufReader::new(file), &mut output) {
        Ok(()) => Ok(output.0),
        Err(lzma_rs::error::Error::IoError(error))
            if error.kind() == io::ErrorKind::FileTooLarge =>
        {
            Err(UnpackError::TooLarge)
        }
        Err(error) => Err(UnpackError::Damaged(format!(
            "not a valid .xz file: {error}"
        ))),
    }
}

/// `dir`, or the folder it holds if it holds nothing else, and so on down (an archive of
/// `alice/...`, or of `hw3/bob/...`).
fn only_folder(dir: &Path) -> io::Result<PathBuf> {
    let mut dir = dir.to_owned();
    loop {
        let entries: Vec<_> = fs::read_dir(&dir)?.collect::<Result<_, _>>()?;
        match entries.as_slice() {
            [only] if only.file_type()?.is_dir() => dir = only.path(),
            _ => return Ok(dir),
        }
    }
}

/// Most bytes of one source file read for the similarity report (the whole submission is
/// bounded by [`MAX_BYTES`] anyway; comments padding a copy out are read and dropped).
pub const MAX_SOURCE_FILE: u64 = 16 << 20;

/// The source files under `dir` (or `dir` itself, a file), by path relative to it, that
/// the similarity report reads (those whose language it knows), and the other files
/// there, each with why it is not compared: the report says so, so that code hidden in a
/// `.txt` file is seen to be missed.
pub fn source_files(dir: &Path) -> (Vec<crate::grading::similarity::SourceFile>, Vec<String>) {
    use crate::grading::similarity::{SourceFile, tokens::Syntax};
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    let mut read = |path: &Path, name: String| {
        let Ok(meta) = fs::metadata(path) else { return };
        if !meta.is_file() || meta.len() == 0 {
            return;
        }
        if Syntax::of(&name).is_none() {
            skipped.push(format!("{name}: not source code the report reads"));
        } else if meta.len() > MAX_SOURCE_FILE {
            skipped.push(format!("{name}: larger than {} MiB", MAX_SOURCE_FILE >> 20));
        } else if let Ok(bytes) = fs::read(path) {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            files.push(SourceFile { path: name, text });
        }
    };
    if dir.is_file() {
        let name = dir
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        read(dir, name);
    } else {
        for name in files_in(dir) {
            read(&dir.join(&name), name);
        }
    }
    (files, skipped)
}

/// The source code of `submission`, unpacked into `into` (made) to be read: none if it
/// cannot be unpacked.
pub fn source_code(submission: &Submission, into: &Path) -> crate::grading::similarity::Source {
    let (files, skipped) = unpack(submission, into)
        .map(|unpacked| source_files(&unpacked.root))
        .unwrap_or_default();
    crate::grading::similarity::Source {
        name: submission.name.clone(),
        files,
        skipped,
    }
}

/// The files under `dir`, by path relative to it, in order (`src/main.py`).
pub fn files_in(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(folder) = pending.pop() {
        let Ok(entries) = fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                pending.push(entry.path());
            } else if let Ok(relative) = entry.path().strip_prefix(dir) {
                files.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    files.sort();
    files
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

    /// A tar archive of `files` (path, content), compressed as `compression` says.
    fn tarball(files: &[(&str, &[u8])], compression: Compression) -> Vec<u8> {
        let mut tar = tar::Builder::new(Vec::new());
        for (path, content) in files {
            let mut header = tar::Header::new_gnu();
            header.set_size(content.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            tar.append_data(&mut header, path, *content).unwrap();
        }
        let plain = tar.into_inner().unwrap();
        match compression {
            Compression::None => plain,
            Compression::Gzip => {
                let mut encoder =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                encoder.write_all(&plain).unwrap();
                encoder.finish().unwrap()
            }
            Compression::Xz => {
                let mut out = Vec::new();
                lzma_rs::xz_compress(&mut io::Cursor::new(plain), &mut out).unwrap();
                out
            }
        }
    }

    #[test]
    fn every_entry_is_a_submission_in_any_letter_case_and_macos_metadata_is_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let main: &[u8] = b"print('FULL')\n";
        // A Finder zip: the folder, and __MACOSX/ with its AppleDouble files beside it.
        let mut zip = zip::ZipWriter::new(File::create(dir.path().join("ann.ZIP")).unwrap());
        let options = zip::write::SimpleFileOptions::default();
        for (name, content) in [
            ("ann/main.py", main),
            ("ann/.DS_Store", b"\0\0"),
            ("__MACOSX/ann/._main.py", b"\0\x05"),
        ] {
            zip.start_file(name, options).unwrap();
            zip.write_all(content).unwrap();
        }
        zip.finish().unwrap();
        // Nested two folders deep, in .tar.xz; and a plain .tar.
        fs::write(
            dir.path().join("bob.tar.xz"),
            tarball(&[("hw3/bob/main.py", main)], Compression::Xz),
        )
        .unwrap();
        fs::write(
            dir.path().join("cy.tar"),
            tarball(&[("./main.py", main)], Compression::None),
        )
        .unwrap();
        fs::write(dir.path().join("dee.rar"), b"Rar!").unwrap();
        fs::write(dir.path().join(".DS_Store"), b"").unwrap();
        fs::create_dir(dir.path().join("__MACOSX")).unwrap();
        let submissions = list(dir.path(), false).unwrap();
        let names: Vec<_> = submissions.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["ann", "bob", "cy", "dee.rar"]);
        for submission in &submissions[..3] {
            let into = dir.path().join("work").join(&submission.name);
            let unpacked = unpack(submission, &into).unwrap();
            assert_eq!(files_in(&unpacked.root), ["main.py"], "{}", submission.name);
            assert!(unpacked.skipped.is_empty(), "{:?}", unpacked.skipped);
        }
        let error = unpack(&submissions[3], &dir.path().join("work/dee")).unwrap_err();
        assert_eq!(error.to_string(), format!("\"dee.rar\" is not {READABLE}"));
        // An .xz that is not one, and an .xz bomb.
        fs::write(dir.path().join("eve.txz"), b"not xz").unwrap();
        let bomb = dir.path().join("fay.tar.xz");
        let zeros = vec![0u8; (MAX_XZ_BYTES + 1) as usize];
        let mut packed = Vec::new();
        lzma_rs::xz_compress(&mut io::Cursor::new(zeros), &mut packed).unwrap();
        fs::write(&bomb, packed).unwrap();
        let submissions = list(dir.path(), false).unwrap();
        let find = |name: &str| submissions.iter().find(|s| s.name == name).unwrap();
        let error = unpack(find("eve"), &dir.path().join("work/eve")).unwrap_err();
        assert!(matches!(error, UnpackError::Damaged(_)), "{error}");
        let error = unpack(find("fay"), &dir.path().join("work/fay")).unwrap_err();
        assert!(matches!(error, UnpackError::TooLarge), "{error}");
    }

    #[test]
    fn a_truncated_archive_is_damaged() {
        let dir = tempfile::tempdir().unwrap();
        // A header that declares 300 bytes, and no data after it.
        let mut header = tar::Header::new_gnu();
        header.set_path("main.py").unwrap();
        header.set_size(300);
        header.set_mode(0o644);
        header.set_cksum();
        let mut packed = Vec::new();
        let plain = header.as_bytes().to_vec();
        lzma_rs::xz_compress(&mut io::Cursor::new(plain), &mut packed).unwrap();
        fs::write(dir.path().join("cut.tar.xz"), packed).unwrap();
        let submissions = list(dir.path(), false).unwrap();
        let error = unpack(&submissions[0], &dir.path().join("work")).unwrap_err();
        assert!(
            matches!(&error, UnpackError::Damaged(why) if why.contains("cut short")),
            "{error}"
        );
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
