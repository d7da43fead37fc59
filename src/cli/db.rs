//! `othello db`: the web server's database, migrated or copied; the work is
//! [`crate::server::database`].

use std::{
    io::Write,
    io::{self, Read},
    path::{Path, PathBuf},
};

use clap::{Args, Subcommand};

use super::CliError;
use crate::server::{database, store::Target};

/// `othello db`.
#[derive(Debug, Args)]
pub struct DbArgs {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// Bring a database's schema up to date (creating it if need be), as `serve` does when
    /// it starts: a SQLite file or a PostgreSQL URL.
    Migrate {
        /// The database: a file, or postgres://user:password@host:port/name.
        #[arg(
            long,
            value_name = "PATH|URL",
            env = "DATABASE_URL",
            default_value = "othello.db"
        )]
        db: Target,
    },
    /// Copy every game, account, session, challenge and rating of a SQLite file (no
    /// server may be running on it) into an empty PostgreSQL database, keeping every id:
    /// links, logins and ratings carry over. Then serve on PostgreSQL.
    Copy {
        /// The SQLite file.
        #[arg(long, value_name = "PATH")]
        from: PathBuf,
        /// The PostgreSQL database (postgres://...), empty.
        #[arg(long, value_name = "URL")]
        to: Target,
    },
}

impl DbArgs {
    /// Runs the action.
    ///
    /// # Errors
    /// [`CliError::Serve`] if a database cannot be opened or the copy fails.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        match self.action {
            Action::Migrate { db } => {
                if let Target::Sqlite(path) = &db {
                    check_sqlite_file(path)?;
                }
                database::migrate(&db)?;
                writeln!(out, "{db}: up to date")?;
            }
            Action::Copy { from, to } => {
                let Target::Postgres(url) = &to else {
                    return Err(CliError::Usage {
                        message: "--to: a PostgreSQL URL (postgres://...)".into(),
                    });
                };
                check_sqlite_file(&from)?;
                let copied = database::copy(&from, url)?;
                let counts: Vec<String> = copied
                    .iter()
                    .map(|(table, rows)| format!("{table} {rows}"))
                    .collect();
                writeln!(
                    out,
                    "copied {} into {to}: {}",
                    from.display(),
                    counts.join(", ")
                )?;
            }
        }
        Ok(())
    }
}

/// The first bytes of every SQLite database file.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Checks, before anything is opened or created beside it (the lock file), that `path` is
/// a SQLite database or nothing yet: not a FIFO or a device (which SQLite reports as a
/// disk I/O error, after waiting on a FIFO), not another kind of file (`--db README.md`).
/// An empty file is a database not begun.
///
/// # Errors
/// [`CliError::Usage`] naming the path and what it is.
pub fn check_sqlite_file(path: &Path) -> Result<(), CliError> {
    let refuse = |what: &str| {
        Err(CliError::Usage {
            message: format!("{}: {what}, not a SQLite database", path.display()),
        })
    };
    match std::fs::symlink_metadata(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
        _ => {}
    }
    let mut start = Vec::new();
    match crate::files::open_regular(path) {
        Ok(file) => file.take(SQLITE_MAGIC.len() as u64).read_to_end(&mut start),
        Err(error) => return refuse(&error.to_string()),
    }
    .map_err(|source| CliError::Read {
        path: path.to_owned(),
        source,
    })?;
    if start.is_empty() || start == SQLITE_MAGIC {
        return Ok(());
    }
    refuse("another kind of file")
}
