//! The openings a tournament's games start from: transcripts read from a file, or random
//! legal moves drawn from the tournament's seed. Every opening is checked once, here, so the
//! game loop can start from it without a failure path.

use std::{
    io,
    path::{Path, PathBuf},
};

use othello::{
    Full, Game, Line, LineReader, MAX_LINE_LEN, MoveList, ParseMoveListError, ReadError,
    ReplayError, Setup, Shape, Square,
};
use rand::{RngExt, SeedableRng, rngs::StdRng};
use thiserror::Error;

use othello::engine::mix;

/// What [`mix`] is asked for when it seeds a random opening.
const OPENING_SEED: u64 = 3;

/// An opening: moves from the standard 8 × 8 start, known to be legal and to leave the game
/// going.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    moves: Vec<Square>,
    /// The position after it.
    game: Game<Full>,
}

impl Opening {
    /// The opening `moves`, if they replay legally from the standard start and leave a side
    /// to move.
    ///
    /// # Errors
    /// [`BadOpening::Illegal`] or [`BadOpening::Over`].
    pub fn new(moves: Vec<Square>) -> Result<Opening, BadOpening> {
        let game = Game::<Full>::replay(Setup::standard(Shape::STANDARD), moves.iter().copied())?;
        if game.is_over() {
            return Err(BadOpening::Over);
        }
        Ok(Opening { moves, game })
    }

    /// The moves, in order.
    pub fn moves(&self) -> &[Square] {
        &self.moves
    }

    /// The game after the opening, ready to be played on.
    pub fn game(&self) -> Game<Full> {
        self.game.clone()
    }

    /// The moves as a transcript such as `f5d6c3` (empty for the standard start itself).
    pub fn transcript(&self) -> String {
        MoveList(self.moves.clone()).to_string()
    }
}

/// Why a line of an openings file is not an opening.
#[derive(Debug, Error)]
pub enum BadOpening {
    /// The line is too long to be a transcript.
    #[error("longer than {MAX_LINE_LEN} bytes")]
    TooLong,
    /// The line is not UTF-8.
    #[error("not UTF-8 text")]
    NotText,
    /// The line holds something other than squares.
    #[error("{0}")]
    Syntax(#[from] ParseMoveListError),
    /// A move is not legal where it is played.
    #[error("{0}")]
    Illegal(#[from] ReplayError),
    /// The opening ends the game.
    #[error("the game is over after it")]
    Over,
}

/// An openings file that cannot be used.
#[derive(Debug, Error)]
pub enum OpeningsError {
    /// The file cannot be read.
    #[error("cannot read openings file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A line is not a legal opening.
    #[error("openings file {}: line {line}: {problem}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// The 1-based line number.
        line: usize,
        /// What is wrong with it.
        problem: BadOpening,
    },
    /// The file holds no opening.
    #[error(
        "openings file {}: no openings in it (one transcript a line, such as f5d6c3)",
        path.display()
    )]
    Empty {
        /// The file.
        path: PathBuf,
    },
}

/// The `count` openings of a tournament from the file at `path`: its transcripts in order,
/// cycling when it has fewer than `count` (one transcript a line, such as `f5d6c3` or
/// `F5 D6 C3`; blank lines and lines starting with `%` or `#` are skipped). Every line is
/// checked, but only the first `count` openings are kept, so a long file costs no memory.
///
/// # Errors
/// [`OpeningsError`]: the file cannot be read, a line is not a legal opening, or there is
/// none.
pub fn from_file(path: &Path, count: usize) -> Result<Vec<Opening>, OpeningsError> {
    let read_error = |source| OpeningsError::Read {
        path: path.to_owned(),
        source,
    };
    let file = crate::files::open_regular(path).map_err(read_error)?;
    let mut lines = LineReader::new(file);
    let mut found: Vec<Opening> = Vec::new();
    let mut number = 0;
    loop {
        number += 1;
        let line = match lines.next_line(|| Ok::<(), ReadError>(())) {
            Ok(None) => break,
            Ok(Some(line)) => line,
            Err(ReadError(source)) => return Err(read_error(source)),
        };
        let bad = |problem| OpeningsError::Line {
            path: path.to_owned(),
            line: number,
            problem,
        };
        let text = match line {
            Line::TooLong => return Err(bad(BadOpening::TooLong)),
            Line::Text(bytes) => std::str::from_utf8(bytes)
                .map_err(|_| bad(BadOpening::NotText))?
                .trim(),
        };
        if text.is_empty() || text.starts_with('%') || text.starts_with('#') {
            continue;
        }
        let opening = text
            .parse::<MoveList>()
            .map_err(BadOpening::from)
            .and_then(|moves| Opening::new(moves.0))
            .map_err(bad)?;
        if found.len() < count {
            found.push(opening);
        }
    }
    if found.is_empty() {
        return Err(OpeningsError::Empty {
            path: path.to_owned(),
        });
    }
    Ok(cycle(&found, count))
}

/// `count` openings of `moves` random legal moves each, reproducible from `seed`. A move
/// that would end the game is never drawn (an opening that ends the game before `moves`
/// stops short, which no real game from the start comes near).
pub fn random(count: usize, moves: u32, seed: u64) -> Vec<Opening> {
    (0..count)
        .map(|index| {
            let mut rng = StdRng::seed_from_u64(mix(seed, index as u64, OPENING_SEED));
            let mut game = Game::<Full>::new(Setup::standard(Shape::STANDARD));
            for _ in 0..moves {
                let going: Vec<Square> = game
                    .legal_moves()
                    .iter()
                    .filter(|&square| {
                        let mut next = game.clone();
                        next.play(square).is_ok() && !next.is_over()
                    })
                    .collect();
                if going.is_empty() {
                    break;
                }
                let square = going[rng.random_range(0..going.len())];
                if game.play(square).is_err() {
                    break; // cannot happen: the move was just played on a copy
                }
            }
            let moves: Vec<Square> = game.moves().collect();
            Opening { moves, game }
        })
        .collect()
}

/// `count` openings taken from `found` in order, starting again from the first when they
/// run out.
fn cycle(found: &[Opening], count: usize) -> Vec<Opening> {
    found.iter().cycle().take(count).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        io::Write::write_all(&mut file, text.as_bytes()).unwrap();
        file
    }

    #[test]
    fn a_file_is_read_in_order_and_cycled() {
        let openings = file("% from a book\n\nf5d6c3\n# another\n  F5 F6 \r\n");
        let found = from_file(openings.path(), 5).unwrap();
        let transcripts: Vec<String> = found.iter().map(Opening::transcript).collect();
        assert_eq!(transcripts, ["f5d6c3", "f5f6", "f5d6c3", "f5f6", "f5d6c3"]);
        assert_eq!(found[0].game().history().len(), 3);
        // Only what is needed is kept, but every line is checked.
        assert_eq!(from_file(openings.path(), 1).unwrap().len(), 1);
    }

    #[test]
    fn bad_files_say_where_and_why() {
        let message = |text: &str| from_file(file(text).path(), 2).unwrap_err().to_string();
        assert!(
            message("f5d6\nf5a1\n").ends_with("line 2: move 2: illegal move a1: it flips no disc"),
            "{}",
            message("f5d6\nf5a1\n")
        );
        assert!(message("f5\nhello\n").contains("line 2: move 1: "));
        assert!(message("# nothing\n\n").contains("no openings in it"));
        assert!(message(&"f5".repeat(3000)).ends_with("line 1: longer than 4096 bytes"));
        let missing = from_file(Path::new("/no/such/openings"), 1).unwrap_err();
        assert!(matches!(missing, OpeningsError::Read { .. }), "{missing}");
        // A wipeout: the game is over after nine moves.
        assert!(message("d3c3b3d2e1d6d7e3f4").ends_with("line 1: the game is over after it"));
    }

    #[test]
    fn random_openings_repeat_with_their_seed() {
        let a = random(3, 6, 9);
        assert_eq!(a, random(3, 6, 9));
        assert_ne!(a, random(3, 6, 10));
        assert!(
            a.iter()
                .all(|o| o.moves().len() == 6 && !o.game().is_over())
        );
        assert_ne!(a[0], a[1]);
        assert!(random(2, 0, 1).iter().all(|o| o.transcript().is_empty()));
    }
}
