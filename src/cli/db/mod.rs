//! `othello db`: the web server's database, migrated or copied, its games read from or
//! written to WTHOR files ([`wthor`]); the work is [`crate::server::database`].

use std::{io::Write, path::PathBuf};

use clap::{Args, Subcommand};

use super::CliError;
use crate::server::{database, puzzles, store::Target};

mod wthor;

/// The server's database, as every `othello db` action but `copy` names it.
#[derive(Clone, Debug, Args)]
pub struct Database {
    /// The database: a file, or postgres://user:password@host:port/name.
    #[arg(
        long = "db",
        value_name = "PATH|URL",
        env = "DATABASE_URL",
        default_value = "othello.db"
    )]
    pub target: Target,
}

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
        #[command(flatten)]
        db: Database,
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
    /// Add the games of WTHOR files (the French federation's database: `.wtb` games, with
    /// the `.JOU` players and `.TRN` tournaments they name) to the game database the
    /// server's opening explorer reads. A game whose moves do not replay is left out; one
    /// already there is kept once.
    Import(wthor::ImportArgs),
    /// Write the server's own finished games of standard Othello on one board (8x8 or
    /// 10x10) as WTHOR files: the games (`.wtb`), their players (`.JOU`) and tournaments
    /// (`.TRN`), which `othello explore`, `db import` and other programs read.
    Export(wthor::ExportArgs),
    /// Add the puzzles of a file (from `othello puzzles make`) to a database, each checked
    /// first (its moves the position's, its answer alone keeping the result); those the
    /// database has keep their ratings. A SQLite file no server is using, or PostgreSQL.
    Puzzles {
        /// The puzzles file.
        file: PathBuf,
        #[command(flatten)]
        db: Database,
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
                database::migrate(&db.target)?;
                writeln!(out, "{}: up to date", db.target)?;
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
                let count = database::add_puzzles(&db.target, puzzles)?;
                writeln!(
                    out,
                    "{}: {read} puzzles read; {} has {count}",
                    file.display(),
                    db.target
                )?;
            }
            Action::Import(import) => import.run(out)?,
            Action::Export(export) => export.run(out)?,
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
