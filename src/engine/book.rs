//! The opening book: positions of the standard 8 × 8 game (FULL rules, most discs winning)
//! with every legal move scored by a deep search, built and grown by the engine itself.
//!
//! A position's value is negamax over its moves: a move whose position is also in the book
//! is worth what that position is worth (from the other side), any other move what its
//! search said. Growing the book (`Book::deviations`, searched by [`grow`]) adds the
//! positions of the moves that are close to the best one of positions on good lines, the
//! way the strong engines' book learning deviates from the main lines: as the book deepens,
//! the values near its root are those of ever deeper searches.
//!
//! Positions are stored once per symmetry class (the board's eight symmetries), moves in
//! the stored orientation.
//!
//! # The book file
//!
//! Little-endian throughout:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | `OTHBOOK` and a zero byte |
//! | 2 | format version: 1 |
//! | 4 | positions |
//! | per position | 8 player, 8 opponent, 1 search depth, 1 selectivity (percent), 1 moves, then 1 square (0 to 63) and 2 score (evaluation units) a move |
//! | 32 | SHA-256 of everything before it |
//!
//! Reading checks the magic, the version, every field, the length and the checksum, so a
//! truncated or damaged file is refused with a [`BookError`] rather than played from.

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    sync::OnceLock,
};

use rand::{Rng, RngExt};
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::{
    Limits, Node, Node8, SearchOptions, Selectivity, SquareSet, TranspositionTable,
    eval::{DISC, Evaluator},
    search,
};
use crate::{Square, WinRule};

/// The file's first bytes.
const MAGIC: &[u8; 8] = b"OTHBOOK\0";

/// The format this code reads and writes.
const VERSION: u16 = 1;

/// The book shipped with the program (`data/book.bin`).
static BUILTIN: &[u8] = include_bytes!("../../data/book.bin");

/// Why a book file was refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum BookError {
    /// Not a book file.
    #[error("not a book file (it does not start with OTHBOOK)")]
    Magic,
    /// A version this program does not read.
    #[error("book file version {0}; this program reads version {VERSION}")]
    Version(u16),
    /// Shorter or longer than its contents say.
    #[error("the book file is truncated or has bytes after its end")]
    Length,
    /// The contents are not those the checksum was made of.
    #[error("the book file is damaged (its checksum does not match)")]
    Checksum,
    /// A position or move that cannot be.
    #[error("the book file has an impossible position or move (position {0})")]
    Position(usize),
}

/// A book position: every legal move and its score, from one search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookEntry {
    /// How deep the search was.
    pub depth: u8,
    /// How selective it was.
    pub selectivity: Selectivity,
    /// Every legal move (in the stored orientation) and its score for the side to move,
    /// in evaluation units.
    pub moves: Vec<(u8, i16)>,
}

/// One move of a book position as [`Book::moves`] gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move.
    pub square: Square,
    /// Its value for the side to move, in evaluation units: the book's negamax where the
    /// move leads into the book, else its search score.
    pub score: i32,
    /// Whether the position after it is in the book.
    pub in_book: bool,
}

/// Positions and their scored moves, by symmetry class; and the negamax value of each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Book {
    entries: BTreeMap<(u64, u64), BookEntry>,
    /// Each position's value for its side to move (recomputed after every change).
    values: HashMap<(u64, u64), i32>,
}

impl Book {
    /// The first eight bytes of a book file.
    pub const MAGIC: &'static [u8; 8] = MAGIC;

    /// An empty book.
    pub fn new() -> Book {
        Book::default()
    }

    /// The book shipped with the program.
    pub fn builtin() -> &'static Book {
        static BOOK: OnceLock<Book> = OnceLock::new();
        BOOK.get_or_init(|| Book::from_bytes(BUILTIN).expect("the built-in book reads"))
    }

    /// Positions in the book.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book has no position.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The book's entry for `node`, in the stored orientation.
    pub fn entry(&self, node: &Node8) -> Option<&BookEntry> {
        self.entries.get(&canonical(node).0)
    }

    /// `node`'s value for its side to move, if it is in the book.
    pub fn value(&self, node: &Node8) -> Option<i32> {
        self.values.get(&canonical(node).0).copied()
    }

    /// Every legal move of `node` with its book value, best first; `None` if `node` is not
    /// in the book.
    pub fn moves(&self, node: &Node8) -> Option<Vec<BookMove>> {
        let (key, symmetry) = canonical(node);
        let entry = self.entries.get(&key)?;
        let mut moves: Vec<BookMove> = entry
            .moves
            .iter()
            .map(|&(stored, score)| {
                // Stored moves are legal in the stored position, so in any image of it.
                let index = symmetry.inverse().square(u32::from(stored));
                let value = self.after(&node.play(index));
                BookMove {
                    square: node.square(index),
                    score: value.unwrap_or(i32::from(score)),
                    in_book: value.is_some(),
                }
            })
            .collect();
        moves.sort_by_key(|mv| -mv.score);
        Some(moves)
    }

    /// A move of `node` from the book: one of those within `margin` (evaluation units) of
    /// the best, each as likely; `None` when `node` is not in the book.
    pub(crate) fn choose(&self, node: &Node8, margin: i32, rng: &mut impl Rng) -> Option<Square> {
        let moves = self.moves(node)?;
        let best = moves.first()?.score;
        let close: Vec<&BookMove> = moves
            .iter()
            .filter(|mv| mv.score >= best - margin.max(0))
            .collect();
        Some(close[rng.random_range(0..close.len())].square)
    }

    /// Puts `entry` in for `node` (whose orientation its moves are in: see [`search_entry`]),
    /// replacing a shallower one; then values are recomputed.
    #[cfg(test)]
    pub(crate) fn insert(&mut self, node: &Node8, entry: BookEntry) {
        self.insert_quietly(node, entry);
        self.refresh();
    }

    /// Adds every position of `other`, keeping the deeper search where both have one.
    pub fn merge(&mut self, other: &Book) {
        for (key, entry) in &other.entries {
            let keep = self.entries.get(key).is_some_and(|mine| {
                (mine.depth, mine.selectivity) >= (entry.depth, entry.selectivity)
            });
            if !keep {
                self.entries.insert(*key, entry.clone());
            }
        }
        self.refresh();
    }

    fn insert_quietly(&mut self, node: &Node8, entry: BookEntry) {
        let (key, symmetry) = canonical(node);
        let entry = BookEntry {
            moves: entry
                .moves
                .iter()
                .map(|&(square, score)| (symmetry.square(u32::from(square)) as u8, score))
                .collect(),
            ..entry
        };
        let keep = self
            .entries
            .get(&key)
            .is_some_and(|old| (old.depth, old.selectivity) > (entry.depth, entry.selectivity));
        if !keep {
            self.entries.insert(key, entry);
        }
    }

    /// The value of the position after a move, from the mover's side, if it is in the book:
    /// a position whose side to move must pass counts as the position after the pass.
    fn after(&self, child: &Node8) -> Option<i32> {
        if !child.moves().is_empty() {
            return self.value(child).map(|value| -value);
        }
        child.after_pass().and_then(|passed| self.value(&passed))
    }

    /// Recomputes every value, leaves first (positions with more discs first: a move only
    /// adds discs).
    fn refresh(&mut self) {
        let mut keys: Vec<(u64, u64)> = self.entries.keys().copied().collect();
        keys.sort_by_key(|&(player, opponent)| std::cmp::Reverse((player | opponent).count_ones()));
        self.values.clear();
        for key in keys {
            let node = Node8::new(key.0, key.1);
            let entry = &self.entries[&key];
            let value = entry
                .moves
                .iter()
                .map(|&(square, score)| {
                    self.after(&node.play(u32::from(square)))
                        .unwrap_or(i32::from(score))
                })
                .max()
                .unwrap_or(0);
            self.values.insert(key, value);
        }
    }

    /// The positions to add next: from `root`, along every move within `window` of the
    /// best, the positions after such moves that the book does not have yet, up to `plies`
    /// moves from `root` (passes do not count). Nearest the root first (breadth first), each
    /// once, in a fixed order.
    pub(crate) fn deviations(&self, root: &Node8, window: i32, plies: u32) -> Vec<Node8> {
        let mut seen = HashSet::new();
        let mut found = Vec::new();
        let mut queue = std::collections::VecDeque::from([(*root, 0)]);
        while let Some((node, ply)) = queue.pop_front() {
            let node = if node.moves().is_empty() {
                match node.after_pass() {
                    Some(passed) => passed,
                    None => continue,
                }
            } else {
                node
            };
            if !seen.insert(canonical(&node).0) {
                continue;
            }
            let Some(moves) = self.moves(&node) else {
                found.push(node);
                continue;
            };
            if ply == plies {
                continue;
            }
            let best = moves.first().map_or(0, |mv| mv.score);
            for mv in moves.iter().filter(|mv| mv.score >= best - window) {
                if let Some(index) = node.index(mv.square) {
                    queue.push_back((node.play(index), ply + 1));
                }
            }
        }
        found
    }

    /// The book as a file (see the module's notes).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(16 + self.entries.len() * 40);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
        for (&(player, opponent), entry) in &self.entries {
            bytes.extend_from_slice(&player.to_le_bytes());
            bytes.extend_from_slice(&opponent.to_le_bytes());
            bytes.push(entry.depth);
            bytes.push(entry.selectivity.percent());
            bytes.push(entry.moves.len() as u8);
            for &(square, score) in &entry.moves {
                bytes.push(square);
                bytes.extend_from_slice(&score.to_le_bytes());
            }
        }
        let checksum = Sha256::digest(&bytes);
        bytes.extend_from_slice(&checksum);
        bytes
    }

    /// Reads a book file.
    ///
    /// # Errors
    /// [`BookError`] for anything but a whole, undamaged book of this version.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, BookError> {
        if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
            return Err(BookError::Magic);
        }
        let mut reader = Reader {
            bytes,
            at: MAGIC.len(),
        };
        let version = u16::from_le_bytes(reader.take()?);
        if version != VERSION {
            return Err(BookError::Version(version));
        }
        let body = bytes.len().checked_sub(32).ok_or(BookError::Length)?;
        if Sha256::digest(&bytes[..body])[..] != bytes[body..] {
            return Err(BookError::Checksum);
        }
        reader.bytes = &bytes[..body];
        let count = u32::from_le_bytes(reader.take()?) as usize;
        let mut book = Book::new();
        for number in 0..count {
            let player = u64::from_le_bytes(reader.take()?);
            let opponent = u64::from_le_bytes(reader.take()?);
            let [depth, percent, moves] = reader.take()?;
            let node = Node8::new(player, opponent);
            let selectivity = Selectivity::from_percent(percent);
            let legal = node.moves();
            let mut entry = BookEntry {
                depth,
                selectivity: selectivity.ok_or(BookError::Position(number))?,
                moves: Vec::with_capacity(usize::from(moves)),
            };
            for _ in 0..moves {
                let [square, low, high] = reader.take()?;
                if square >= 64 || legal & (1 << square) == 0 {
                    return Err(BookError::Position(number));
                }
                entry.moves.push((square, i16::from_le_bytes([low, high])));
            }
            let valid = player & opponent == 0
                && canonical(&node).0 == (player, opponent)
                && !entry.moves.is_empty();
            if !valid || book.entries.insert((player, opponent), entry).is_some() {
                return Err(BookError::Position(number));
            }
        }
        if reader.at != body {
            return Err(BookError::Length);
        }
        book.refresh();
        Ok(book)
    }
}

/// Reads fixed-size fields in order.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], BookError> {
        let field = self
            .bytes
            .get(self.at..self.at + N)
            .ok_or(BookError::Length)?;
        self.at += N;
        Ok(field.try_into().expect("N bytes"))
    }
}

/// One of the board's eight symmetries: a flip of the rows, of the columns, and of the
/// diagonal, each optional (applied in that order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Symmetry(u8);

impl Symmetry {
    const ALL: [Symmetry; 8] = [
        Symmetry(0),
        Symmetry(1),
        Symmetry(2),
        Symmetry(3),
        Symmetry(4),
        Symmetry(5),
        Symmetry(6),
        Symmetry(7),
    ];

    fn board(self, mut bits: u64) -> u64 {
        if self.0 & 1 != 0 {
            bits = bits.swap_bytes();
        }
        if self.0 & 2 != 0 {
            bits = mirror_columns(bits);
        }
        if self.0 & 4 != 0 {
            bits = transpose(bits);
        }
        bits
    }

    fn square(self, index: u32) -> u32 {
        self.board(1 << index).trailing_zeros()
    }

    /// The symmetry that undoes this one: the flips in the reverse order. Row and column
    /// flips commute; the diagonal flip swaps which of them comes after it.
    fn inverse(self) -> Symmetry {
        if self.0 & 4 == 0 {
            return self;
        }
        let (rows, columns) = (self.0 & 1, (self.0 >> 1) & 1);
        Symmetry(4 | columns | rows << 1)
    }
}

/// Reverses the bits within each byte: columns a..h become h..a.
fn mirror_columns(bits: u64) -> u64 {
    let bits = ((bits >> 1) & 0x5555_5555_5555_5555) | ((bits & 0x5555_5555_5555_5555) << 1);
    let bits = ((bits >> 2) & 0x3333_3333_3333_3333) | ((bits & 0x3333_3333_3333_3333) << 2);
    ((bits >> 4) & 0x0f0f_0f0f_0f0f_0f0f) | ((bits & 0x0f0f_0f0f_0f0f_0f0f) << 4)
}

/// Swaps rows and columns (bit `8r + c` to bit `8c + r`).
fn transpose(bits: u64) -> u64 {
    let mut bits = bits;
    let t = (bits ^ (bits << 28)) & 0x0f0f_0f0f_0000_0000;
    bits ^= t ^ (t >> 28);
    let t = (bits ^ (bits << 14)) & 0x3333_0000_3333_0000;
    bits ^= t ^ (t >> 14);
    let t = (bits ^ (bits << 7)) & 0x5500_5500_5500_5500;
    bits ^= t ^ (t >> 7);
    bits
}

/// The stored form of `node` (the least of its eight images) and the symmetry that makes
/// it.
fn canonical(node: &Node8) -> ((u64, u64), Symmetry) {
    let (player, opponent) = (node.player(), node.opponent());
    Symmetry::ALL
        .iter()
        .map(|&symmetry| ((symmetry.board(player), symmetry.board(opponent)), symmetry))
        .min_by_key(|&(key, _)| key)
        .expect("eight symmetries")
}

/// A book entry for `node` (in its own orientation): every move ranked by a search
/// `depth` deep at `selectivity` on `eval`.
pub(crate) fn search_entry(
    node: &Node8,
    depth: u32,
    selectivity: Selectivity,
    eval: Evaluator,
    tt: &mut TranspositionTable,
) -> BookEntry {
    let options = SearchOptions {
        ranked_moves: node.moves().len() as usize,
        selectivity,
        ..SearchOptions::new(WinRule::MostDiscs, Limits::depth(depth), eval)
    };
    let report = search(node, &options, tt, None, &mut |_| {});
    BookEntry {
        depth: report.depth.min(u32::from(u8::MAX)) as u8,
        selectivity: report.selectivity,
        moves: report
            .ranked
            .iter()
            .filter_map(|ranked| {
                let index = node.index(ranked.square)?;
                let score = ranked.score.clamp(-64 * DISC, 64 * DISC) as i16;
                Some((index as u8, score))
            })
            .collect(),
    }
}

/// How [`grow`] grows a book.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GrowOptions {
    /// Positions to add at most.
    pub positions: usize,
    /// Follow moves this close to the best (evaluation units).
    pub window: i32,
    /// Add positions up to this many moves from the start.
    pub plies: u32,
    /// Each new position's moves are searched this deep...
    pub depth: u32,
    /// ...at this selectivity...
    pub selectivity: Selectivity,
    /// ...on this evaluation.
    pub eval: Evaluator,
}

/// Grows `book` from `root` by rounds of `Book::deviations`, each searched on every core,
/// until `options.positions` are added or no line within the window leaves the book
/// before `options.plies`; `progress` hears the positions added so far. Returns how many
/// were added.
pub fn grow(
    book: &mut Book,
    root: &Node8,
    options: &GrowOptions,
    progress: &(dyn Fn(usize) + Sync),
) -> usize {
    let mut added = 0;
    while added < options.positions {
        let mut next = book.deviations(root, options.window, options.plies);
        next.truncate(options.positions - added);
        if next.is_empty() {
            break;
        }
        let done = std::sync::atomic::AtomicUsize::new(added);
        let entries: Vec<(Node8, BookEntry)> = next
            .par_iter()
            .map_init(
                || TranspositionTable::new(16),
                |tt, node| {
                    tt.clear();
                    let entry =
                        search_entry(node, options.depth, options.selectivity, options.eval, tt);
                    progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1);
                    (*node, entry)
                },
            )
            .collect();
        added += entries.len();
        for (node, entry) in &entries {
            book.insert_quietly(node, entry.clone());
        }
        book.refresh();
    }
    added
}

#[cfg(test)]
mod tests;
