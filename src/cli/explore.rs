//! `othello explore`: an opening explorer over WTHOR game files: after the moves given, each
//! move played next with its number of games, how they ended and the average disc result.

use std::{io::Write, path::PathBuf};

use clap::Args;
use othello::{MoveList, Shape, analysis::explorer::Explorer, wthor::WthorGames};

use super::CliError;

/// The largest WTHOR file read: the federation's yearly files are a few MiB.
const WTHOR_FILE: u64 = 256 << 20;

/// The bytes of the WTHOR file at `path`.
fn wthor_bytes(path: &std::path::Path) -> Result<Vec<u8>, CliError> {
    crate::files::read_limited(path, WTHOR_FILE).map_err(|source| CliError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// What a WTHOR file does not fit, said with its name.
fn not_wthor(path: &std::path::Path, error: impl std::fmt::Display) -> CliError {
    CliError::Usage {
        message: format!("{}: {error}", path.display()),
    }
}

/// The WTHOR game file at `path` and its board.
///
/// # Errors
/// [`CliError::Read`] or [`CliError::Usage`] (no WTHOR game file).
pub(super) fn read_games(path: &std::path::Path) -> Result<(WthorGames, Shape), CliError> {
    let games = WthorGames::from_bytes(&wthor_bytes(path)?).map_err(|e| not_wthor(path, e))?;
    let shape = games.shape().map_err(|error| not_wthor(path, error))?;
    Ok((games, shape))
}

/// The WTHOR names file (players or tournaments) at `path`, of `size`-byte records.
///
/// # Errors
/// [`CliError::Read`] or [`CliError::Usage`].
pub(super) fn read_names(
    path: &std::path::Path,
    size: usize,
) -> Result<othello::wthor::WthorNames, CliError> {
    othello::wthor::WthorNames::from_bytes(&wthor_bytes(path)?, size)
        .map_err(|error| not_wthor(path, error))
}

/// `othello explore FILE.wtb... [--after MOVES]`.
#[derive(Debug, Args)]
pub struct ExploreArgs {
    /// WTHOR game files (`.wtb`), all of one board (8x8 or 10x10).
    #[arg(value_name = "FILE.wtb", required = true)]
    files: Vec<PathBuf>,
    /// The moves played so far, as a move list (f5d6c3); the start when not given. Any of
    /// the four first moves: the games are turned to meet it.
    #[arg(long, value_name = "MOVES", default_value = "")]
    after: String,
}

impl ExploreArgs {
    /// Reads the files and prints the table.
    ///
    /// # Errors
    /// [`CliError::Read`] for a file that cannot be read, [`CliError::Usage`] for one that
    /// is no WTHOR game file, files of two boards, or moves that do not replay.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let after = self
            .after
            .parse::<MoveList>()
            .map_err(|error| CliError::Usage {
                message: format!("--after: {error}"),
            })?
            .0;
        let mut explorer: Option<(Shape, Explorer)> = None;
        let mut skipped = 0;
        let mut repeated = 0;
        let mut seen = std::collections::HashSet::new();
        for path in &self.files {
            let (games, shape) = read_games(path)?;
            let (known, explorer) = explorer.get_or_insert_with(|| (shape, Explorer::new(shape)));
            if *known != shape {
                return Err(not_wthor(
                    path,
                    format!("its games are on {shape}, the files before on {known}"),
                ));
            }
            for game in &games.games {
                // A game whose moves do not replay, or whose score cannot be, is left out
                // (and counted); one given twice (the same file twice) counts once.
                let Ok((record, black)) = game.result(shape) else {
                    skipped += 1;
                    continue;
                };
                if !seen.insert(game_key(games.header.year, game, &record.moves)) {
                    repeated += 1;
                } else if explorer.add(&record.moves, black).is_err() {
                    skipped += 1;
                }
            }
        }
        let Some((_, mut explorer)) = explorer else {
            unreachable!("clap requires a file");
        };
        let next = explorer.next(&after).map_err(|error| CliError::Usage {
            message: format!("--after: {error}"),
        })?;
        let after = othello::MoveList(after).to_string();
        write_table(out, &after, &next, explorer.len(), (skipped, repeated))?;
        Ok(())
    }
}

/// The explorer's answer as a table.
fn write_table(
    out: &mut impl Write,
    after: &str,
    next: &othello::analysis::explorer::Next,
    total: usize,
    (skipped, repeated): (usize, usize),
) -> std::io::Result<()> {
    let position = if after.is_empty() {
        "the start".to_owned()
    } else {
        after.to_owned()
    };
    write!(
        out,
        "after {position}: {} of {}",
        crate::words::count(next.games, "game"),
        total
    )?;
    for (count, why) in [
        (skipped, "left out: their moves do not replay"),
        (repeated, "given again, counted once"),
    ] {
        if count > 0 {
            write!(
                out,
                " ({} {why})",
                crate::words::count(count as u64, "game")
            )?;
        }
    }
    writeln!(out)?;
    if next.moves.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "{:<5} {:>8} {:>7} {:>7} {:>7} {:>7} {:>8}",
        "move", "games", "black", "draw", "white", "score", "discs"
    )?;
    for stats in &next.moves {
        let share = |count: u64| 100.0 * count as f64 / stats.games as f64;
        writeln!(
            out,
            "{:<5} {:>8} {:>6.1}% {:>6.1}% {:>6.1}% {:>6.1}% {:>+8.1}",
            stats.square.to_string(),
            stats.games,
            share(stats.black_wins),
            share(stats.draws),
            share(stats.white_wins),
            stats.black_score(),
            // 0.0, not -0.0, for an average that rounds to nothing.
            stats.average + 0.0
        )?;
    }
    Ok(())
}

/// What makes a WTHOR game the same game in two files or two imports: a digest of its year,
/// its tournament's and players' numbers and its moves (not their names: a players file
/// with a name corrected names the same games).
pub(super) fn game_key(
    year: u16,
    game: &othello::wthor::WthorGame,
    moves: &[othello::Square],
) -> String {
    use sha2::{Digest, Sha256};
    let text = format!(
        "{year} {} {} {} {}",
        game.tournament,
        game.black,
        game.white,
        othello::MoveList(moves.to_vec())
    );
    Sha256::digest(text.as_bytes())[..16]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}
