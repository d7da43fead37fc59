//! `othello db`: the web server's database, migrated or copied; the work is
//! [`crate::server::database`].

use std::{io::Write, path::PathBuf};

use clap::{Args, Subcommand};

use super::CliError;
use crate::server::{database, puzzles, store::Target};

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
    /// Add the puzzles of a file (from `othello puzzles make`) to a database, each checked
    /// first (its moves the position's, its answer alone keeping the result); those the
    /// database has keep their ratings. A SQLite file no server is using, or PostgreSQL.
    Puzzles {
        /// The puzzles file.
        file: PathBuf,
        /// The database: a file, or postgres://user:password@host:port/name.
        #[arg(
            long,
            value_name = "PATH|URL",
            env = "DATABASE_URL",
            default_value = "othello.db"
        )]
        db: Target,
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
                database::migrate(&db)?;
                writeln!(out, "{db}: up to date")?;
            }
            Action::Puzzles { file, db } => {
                let records = super::puzzles::read_records(&file, false)?;
                let puzzles = records
                    .iter()
                    .map(|record| {
                        record
                            .puzzle()
                            .map(|puzzle| puzzles::new_puzzle(puzzle, record.source.clone()))
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|error| CliError::Usage {
                        message: format!("{}: {error}", file.display()),
                    })?;
                let read = puzzles.len();
                let count = database::add_puzzles(&db, puzzles)?;
                writeln!(
                    out,
                    "{}: {read} puzzles read; {db} has {count}",
                    file.display()
                )?;
            }
            Action::Copy { from, to } => {
                let Target::Postgres(url) = &to else {
                    return Err(CliError::Usage {
                        message: "--to: a PostgreSQL URL (postgres://...)".into(),
                    });
                };
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
