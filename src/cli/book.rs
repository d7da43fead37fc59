//! `othello book`: build, grow, inspect and merge opening books (see `engine::book` for
//! what a book holds and how it grows).

use std::{
    io::Write,
    path::{Path, PathBuf},
    time::Instant,
};

use clap::{Args, Subcommand};
use othello::{
    Board, Color, Shape, Square,
    engine::{
        Node, Node8, Selectivity, SquareSet,
        book::{self, Book, GrowOptions},
        eval::{DISC, Score},
    },
};

use super::{
    CliError,
    output::{OutputKind, check_output},
};

/// The largest book file read.
const BOOK_FILE: u64 = 512 << 20;

/// `othello book`.
#[derive(Debug, Args)]
pub struct BookArgs {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, Subcommand)]
#[command(next_line_help = true)]
enum Action {
    /// Grow a book (a new one if the file does not exist) by searching the positions after
    /// moves close to the best on its lines. Saved every --save-every positions: stopped,
    /// it loses at most that much, and run again it goes on.
    Grow(GrowArgs),
    /// A book's size and depths, and the book moves of a position (the start, or after
    /// --moves) with their values.
    Show(ShowArgs),
    /// Merge books into one (the deeper search wins where two have a position).
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
struct GrowArgs {
    /// The book file to grow.
    #[arg(long, value_name = "FILE")]
    book: PathBuf,
    /// Positions to add.
    #[arg(long, default_value_t = 1000)]
    positions: usize,
    /// Follow every move within this many discs of the best.
    #[arg(long, value_name = "DISCS", default_value_t = 2.0)]
    window: f64,
    /// Add positions up to this many moves into the game.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=60))]
    plies: u32,
    /// Each position's moves are searched this deep.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..=60))]
    depth: u32,
    /// How selective those searches are (percent).
    #[arg(long, value_name = "PERCENT", default_value = "95")]
    selectivity: Selectivity,
    /// Save after this many positions.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..))]
    save_every: u64,
}

#[derive(Debug, Args)]
struct ShowArgs {
    /// The book (default: the built-in one).
    #[arg(long, value_name = "FILE")]
    book: Option<PathBuf>,
    /// Moves from the start, as f5d6c3 (passes are played on their own).
    #[arg(long, value_name = "MOVES", default_value = "")]
    moves: String,
}

#[derive(Debug, Args)]
struct MergeArgs {
    /// The merged book to write (a new file, or a book: one of the books merged too).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Write over an --out file that is not a book.
    #[arg(long)]
    force: bool,
    /// The books to merge.
    #[arg(required = true, num_args = 1..)]
    books: Vec<PathBuf>,
}

impl BookArgs {
    /// Runs the action.
    ///
    /// # Errors
    /// [`CliError`] for unusable arguments or files.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        match self.action {
            Action::Grow(args) => args.run(out),
            Action::Show(args) => args.run(out),
            Action::Merge(args) => args.run(out),
        }
    }
}

/// Reads a book file.
///
/// # Errors
/// [`CliError::Read`] if it cannot be read, [`CliError::Usage`] if it is not a whole book.
pub fn load_book(path: &Path) -> Result<Book, CliError> {
    let bytes = crate::files::read_limited(path, BOOK_FILE).map_err(|source| CliError::Read {
        path: path.to_owned(),
        source,
    })?;
    Book::from_bytes(&bytes).map_err(|error| CliError::Usage {
        message: format!("{}: {error}", path.display()),
    })
}

/// A book file, told by its first bytes (what `--out` may replace without `--force`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BookFile;

impl OutputKind for BookFile {
    fn words(self) -> &'static str {
        "a book"
    }

    fn of(path: &Path) -> Result<BookFile, &'static str> {
        let mut start = Vec::new();
        let file = crate::files::open_regular(path).map_err(|_| "no regular file")?;
        std::io::Read::read_to_end(&mut std::io::Read::take(file, 8), &mut start)
            .map_err(|_| "nothing readable")?;
        if start == Book::MAGIC {
            Ok(BookFile)
        } else {
            Err("no book")
        }
    }
}

fn save_book(path: &Path, book: &Book) -> Result<(), CliError> {
    crate::files::write_bytes(path, &book.to_bytes()).map_err(|source| CliError::WriteFile {
        path: path.to_owned(),
        source,
    })
}

fn start() -> Node8 {
    Node8::from_board(&Board::standard(Shape::STANDARD), Color::Black)
}

impl GrowArgs {
    fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        if !(0.0..=128.0).contains(&self.window) {
            return Err(CliError::Usage {
                message: format!("--window {}: from 0 to 128 discs", self.window),
            });
        }
        let mut book = if self.book.exists() {
            load_book(&self.book)?
        } else {
            Book::new()
        };
        let options = GrowOptions {
            positions: self.save_every as usize,
            window: (self.window * f64::from(DISC)).round() as i32,
            plies: self.plies,
            depth: self.depth,
            selectivity: self.selectivity,
            eval: othello::engine::eval::Evaluator::default(),
        };
        let started = Instant::now();
        let before = book.len();
        let mut added = 0;
        while added < self.positions {
            let chunk = GrowOptions {
                positions: options.positions.min(self.positions - added),
                ..options
            };
            let grown = book::grow(&mut book, &start(), &chunk, &|_| {});
            save_book(&self.book, &book)?;
            added += grown;
            writeln!(
                out,
                "{} positions ({added} added, {:.0} s)",
                book.len(),
                started.elapsed().as_secs_f64()
            )?;
            if grown < chunk.positions {
                writeln!(
                    out,
                    "no more lines within {} discs before move {}",
                    self.window, self.plies
                )?;
                break;
            }
        }
        writeln!(
            out,
            "{}: {} positions, {} new",
            self.book.display(),
            book.len(),
            book.len() - before
        )?;
        Ok(())
    }
}

impl ShowArgs {
    fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let loaded;
        let book = match &self.book {
            Some(path) => {
                loaded = load_book(path)?;
                &loaded
            }
            None => Book::builtin(),
        };
        let mut node = start();
        let text = self.moves.trim();
        let mut rest = text;
        while !rest.is_empty() {
            let Some((square, after)) = rest
                .get(..2)
                .and_then(|mv| mv.parse::<Square>().ok())
                .map(|square| (square, &rest[2..]))
            else {
                return Err(CliError::Usage {
                    message: format!("--moves {text:?}: expected moves like f5d6c3 from {rest:?}"),
                });
            };
            let Some(index) = node.index(square).filter(|&i| node.moves().contains(i)) else {
                return Err(CliError::Usage {
                    message: format!("--moves {text:?}: {square} is not legal here"),
                });
            };
            node = node.play(index);
            if node.moves().is_empty()
                && let Some(passed) = node.after_pass()
            {
                node = passed;
            }
            rest = after;
        }
        writeln!(out, "book: {} positions", book.len())?;
        match book.moves(&node) {
            None => writeln!(out, "this position is not in the book")?,
            Some(moves) => {
                let entry = book.entry(&node).expect("a book position");
                let depth = if entry.selectivity.is_none() {
                    entry.depth.to_string()
                } else {
                    format!("{}@{}", entry.depth, entry.selectivity)
                };
                let value = Score(book.value(&node).unwrap_or(0));
                writeln!(out, "searched {depth}; value {value}")?;
                for mv in moves {
                    let source = if mv.in_book { "book" } else { "search" };
                    writeln!(
                        out,
                        "  {}  {:>6}  {source}",
                        mv.square,
                        Score(mv.score).to_string()
                    )?;
                }
            }
        }
        Ok(())
    }
}

impl MergeArgs {
    fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        check_output(&self.out, &[], BookFile, self.force)?;
        let mut merged = Book::new();
        for path in &self.books {
            merged.merge(&load_book(path)?);
        }
        save_book(&self.out, &merged)?;
        writeln!(out, "{}: {} positions", self.out.display(), merged.len())?;
        Ok(())
    }
}
