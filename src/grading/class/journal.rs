//! What a run has graded so far, kept in the report directory as it goes, so that a run
//! that is killed picks up where it stopped and grades nothing twice.
//!
//! `.grade/run.json` holds a fingerprint of everything that decides a result (command,
//! build, rules, limits, the cases' names and contents): another run into the same
//! directory with other settings is refused. `.grade/NAME.jsonl` holds, per submission, the
//! fingerprint of its files on the first line and then one finished case per line, each
//! line written whole and flushed; a line cut short by a kill is ignored (that case is run
//! again). A submission whose files changed is graded again. The points are not in the
//! fingerprint: reports can be made again with other points without running anything.

use std::{
    collections::BTreeMap,
    fs::{self, File, OpenOptions},
    io::{self, BufRead, BufReader, Write},
    path::{Path, PathBuf},
    sync::Mutex,
};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::CaseResult;

/// The journal's directory inside the report directory.
pub const DIRECTORY: &str = ".grade";

/// The journal cannot be used.
#[derive(Debug, Error)]
pub enum JournalError {
    /// Reading or writing it failed.
    #[error("the grading journal {path}: {source}")]
    Io {
        /// Which file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// It holds a run with other settings.
    #[error(
        "{0} holds a run with other settings (command, build, rules, limits or cases): \
         give another --out, or --restart to discard it"
    )]
    OtherRun(PathBuf),
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct RunFile {
    version: u32,
    settings: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct Header {
    fingerprint: String,
    /// What unpacking left out, for the reports of a run that does not unpack it again.
    #[serde(default)]
    skipped: Vec<String>,
}

/// What the journal holds of a submission.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recorded {
    /// What unpacking left out.
    pub skipped: Vec<String>,
    /// The cases graded, by name.
    pub results: BTreeMap<String, CaseResult>,
}

/// The journal of a run.
#[derive(Debug)]
pub struct Journal {
    dir: PathBuf,
    /// Serialises appends (one line at a time per file is enough, but they are short).
    lock: Mutex<()>,
}

impl Journal {
    /// Opens the journal in `out` for a run with the `settings` fingerprint: a new one, or
    /// the one left by a run with the same settings (discarded first with `restart`).
    ///
    /// # Errors
    /// [`JournalError`]: cannot be read or written, or a run with other settings.
    pub fn open(out: &Path, settings: &str, restart: bool) -> Result<Journal, JournalError> {
        let dir = out.join(DIRECTORY);
        let io_error = |path: &Path| {
            let path = path.to_owned();
            move |source| JournalError::Io { path, source }
        };
        let run_path = dir.join("run.json");
        let wanted = RunFile {
            version: 1,
            settings: settings.to_owned(),
        };
        if restart && dir.exists() {
            fs::remove_dir_all(&dir).map_err(io_error(&dir))?;
        }
        match fs::read(&run_path) {
            Ok(bytes) => {
                let found: Option<RunFile> = serde_json::from_slice(&bytes).ok();
                if found.as_ref() != Some(&wanted) {
                    return Err(JournalError::OtherRun(out.to_owned()));
                }
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                fs::create_dir_all(&dir).map_err(io_error(&dir))?;
                let text = serde_json::to_vec(&wanted).expect("plain data");
                write_whole(&run_path, &text).map_err(io_error(&run_path))?;
            }
            Err(error) => return Err(io_error(&run_path)(error)),
        }
        Ok(Journal {
            dir,
            lock: Mutex::new(()),
        })
    }

    fn file_of(&self, submission: &str) -> PathBuf {
        self.dir.join(format!("{submission}.jsonl"))
    }

    /// The cases already graded for `submission` whose files have `fingerprint` (by case
    /// name); none, and its old results dropped, if its files changed. `skipped` is kept
    /// with them.
    ///
    /// # Errors
    /// [`JournalError::Io`] if its file cannot be read or reset.
    pub fn start(
        &self,
        submission: &str,
        fingerprint: &str,
        skipped: &[String],
    ) -> Result<BTreeMap<String, CaseResult>, JournalError> {
        let path = self.file_of(submission);
        let io_error = |source| JournalError::Io {
            path: path.clone(),
            source,
        };
        if let Some((header, recorded)) = self.read(submission)?
            && header.fingerprint == fingerprint
        {
            return Ok(recorded.results);
        }
        let header = Header {
            fingerprint: fingerprint.to_owned(),
            skipped: skipped.to_vec(),
        };
        let mut text = serde_json::to_vec(&header).expect("plain data");
        text.push(b'\n');
        write_whole(&path, &text).map_err(io_error)?;
        Ok(BTreeMap::new())
    }

    /// What the journal holds of `submission`, whatever its files are now (`None`: nothing).
    ///
    /// # Errors
    /// [`JournalError::Io`] if its file cannot be read.
    pub fn recorded(&self, submission: &str) -> Result<Option<Recorded>, JournalError> {
        Ok(self.read(submission)?.map(|(_, recorded)| recorded))
    }

    /// Forgets what was graded of `submission`: it is graded again from nothing.
    ///
    /// # Errors
    /// [`JournalError::Io`] if its file cannot be removed.
    pub fn forget(&self, submission: &str) -> Result<(), JournalError> {
        let path = self.file_of(submission);
        match fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(JournalError::Io { path, source }),
        }
    }

    /// The header and results of `submission`'s file, if it has one with a header.
    fn read(&self, submission: &str) -> Result<Option<(Header, Recorded)>, JournalError> {
        let path = self.file_of(submission);
        let io_error = |source| JournalError::Io {
            path: path.clone(),
            source,
        };
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(io_error(error)),
        };
        let mut lines = BufReader::new(file).lines();
        let Some(header) = lines
            .next()
            .and_then(Result::ok)
            .and_then(|line| serde_json::from_str::<Header>(&line).ok())
        else {
            return Ok(None);
        };
        let mut results = BTreeMap::new();
        for line in lines {
            let line = line.map_err(io_error)?;
            // A line cut short by a kill does not parse: that case runs again.
            if let Ok(result) = serde_json::from_str::<CaseResult>(&line) {
                results.insert(result.case.clone(), result);
            }
        }
        let skipped = header.skipped.clone();
        Ok(Some((header, Recorded { skipped, results })))
    }

    /// Adds a finished case of `submission`.
    ///
    /// # Errors
    /// [`JournalError::Io`] if it cannot be written.
    pub fn record(&self, submission: &str, result: &CaseResult) -> Result<(), JournalError> {
        let path = self.file_of(submission);
        let mut line = serde_json::to_vec(result).expect("plain data");
        line.push(b'\n');
        let _guard = self.lock.lock().unwrap_or_else(|error| error.into_inner());
        OpenOptions::new()
            .append(true)
            .open(&path)
            .and_then(|mut file| {
                // A line cut short earlier (a kill mid-write) must not swallow this one.
                let length = file.metadata()?.len();
                if length > 0 && !ends_with_newline(&path, length)? {
                    file.write_all(b"\n")?;
                }
                file.write_all(&line)?;
                file.flush()
            })
            .map_err(|source| JournalError::Io { path, source })
    }
}

fn ends_with_newline(path: &Path, length: u64) -> io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(length - 1))?;
    let mut last = [0];
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

/// Writes `path` whole: to a temporary file first, then renamed over it.
fn write_whole(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let temporary = path.with_extension("new");
    fs::write(&temporary, bytes)?;
    fs::rename(&temporary, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(case: &str) -> CaseResult {
        CaseResult {
            case: case.to_owned(),
            class: None,
            seconds: 0.5,
            notes: Vec::new(),
            failure: None,
        }
    }

    #[test]
    fn a_line_cut_short_is_run_again_and_other_settings_are_refused() {
        let out = tempfile::tempdir().unwrap();
        let journal = Journal::open(out.path(), "settings-1", false).unwrap();
        assert!(journal.start("ann", "files-1", &[]).unwrap().is_empty());
        journal.record("ann", &result("1.in")).unwrap();
        // A kill in the middle of writing the second line.
        let path = out.path().join(DIRECTORY).join("ann.jsonl");
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(br#"{"case":"2.in","cla"#).unwrap();
        drop(journal);

        let journal = Journal::open(out.path(), "settings-1", false).unwrap();
        let done = journal.start("ann", "files-1", &[]).unwrap();
        assert_eq!(done.keys().collect::<Vec<_>>(), ["1.in"]);
        journal.record("ann", &result("2.in")).unwrap();
        let done = journal.start("ann", "files-1", &[]).unwrap();
        assert_eq!(done.keys().collect::<Vec<_>>(), ["1.in", "2.in"]);
        // Changed files: graded again from nothing, what unpacking left out kept.
        let skipped = ["x: a link".to_owned()];
        assert!(
            journal
                .start("ann", "files-2", &skipped)
                .unwrap()
                .is_empty()
        );
        let recorded = journal.recorded("ann").unwrap().unwrap();
        assert_eq!(recorded.skipped, skipped);
        journal.forget("ann").unwrap();
        assert_eq!(journal.recorded("ann").unwrap(), None);

        assert!(matches!(
            Journal::open(out.path(), "settings-2", false),
            Err(JournalError::OtherRun(_))
        ));
        let journal = Journal::open(out.path(), "settings-2", true).unwrap();
        assert!(journal.start("ann", "files-2", &[]).unwrap().is_empty());
    }
}
