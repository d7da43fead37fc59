//! The output files commands write on a person's behalf: what an `--out` may name, so an
//! hour's work or another kind of file (weights, a book, the README) is never lost to a
//! typo.

use std::path::Path;

use super::CliError;

/// A kind of file a command writes, told apart by its content.
pub trait OutputKind: Copy + PartialEq {
    /// The kind, in words (`a book`).
    fn words(self) -> &'static str;

    /// What the file at `path` holds, if it is a kind this program writes; `Err(words)`
    /// for anything else.
    ///
    /// # Errors
    /// The file is not of a kind this program writes: what to call it instead.
    fn of(path: &Path) -> Result<Self, &'static str>;

    /// Whether a command that writes `self` may go on with (or replace) a file of `found`.
    fn accepts(self, found: Self) -> bool {
        self == found
    }
}

/// What `--out` may be for a command that writes `own`: a new file (its directory made if
/// need be), or a file `own` accepts; never one of `inputs`, nor a file of another kind
/// unless `force` says so. Returns whether an existing file is of another kind (and
/// `force` says to replace it).
///
/// # Errors
/// [`CliError::Usage`] for an input or a file of another kind, [`CliError::WriteFile`]
/// if the directory cannot be made.
pub fn check_output<K: OutputKind>(
    out: &Path,
    inputs: &[&Path],
    own: K,
    force: bool,
) -> Result<bool, CliError> {
    let usage = |message: String| Err(CliError::Usage { message });
    if let Some(input) = inputs.iter().find(|input| same_file(input, out)) {
        return usage(format!(
            "--out {} is the input {}: give the step a file of its own",
            out.display(),
            input.display()
        ));
    }
    if std::fs::symlink_metadata(out).is_err() {
        if let Some(dir) = out.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| CliError::WriteFile {
                path: dir.to_owned(),
                source,
            })?;
        }
        return Ok(false);
    }
    if crate::files::is_irregular(out) {
        return usage(format!(
            "--out {}: not a regular file, so not replaced",
            out.display()
        ));
    }
    let what = match K::of(out) {
        Ok(found) if own.accepts(found) => return Ok(false),
        Ok(found) => found.words(),
        Err(what) => what,
    };
    if force {
        return Ok(true);
    }
    usage(format!(
        "{} exists and holds {what}, not {}: not replaced (--force replaces it)",
        out.display(),
        own.words()
    ))
}

/// Whether `a` and `b` name the same file (through links and `..` too).
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
