//! Training positions and the file they stream to and from.
//!
//! # The samples file
//!
//! Two formats, both a header then fixed-size records, little-endian throughout:
//!
//! - `OTHSAMP1` (8 bytes), then 24 bytes a position: the standard 8 × 8 board under FULL
//!   rules, most discs winning, as one whole run wrote it (the files of the 8 × 8
//!   generations).
//! - `OTHSAMP2` (8 bytes), then rows (1), columns (1), the rule set (1: 0 FULL, 1 SIMPLE),
//!   the win rule (1: 0 most, 1 fewest), the shard's number (4) and the number of shards
//!   (4; 0 of 1 for a whole run, see [`Shard`]), the run (8: a fingerprint of the step's
//!   options, [`SampleHeader::run`]), whether the step finished (1), 3 zero bytes: 32 bytes.
//!   Every other kind of game, or a shard, is written so.
//!
//! A record is the discs of the side to move, then of the opponent, `B` bytes each (the
//! board's squares in reading order, bit `row * columns + column`, `B` the squares over 8
//! rounded up: 8 on 8 × 8), the number of the game it comes from (4), its label in
//! evaluation units (2, signed), the kind of label (1: 0 none yet, 1 exact, 2 searched, 3 the
//! final disc difference of the self-play game it comes from) and the search depth (1). Fixed-size records let a long step resume where it stopped: the
//! records already written are counted, and a last one cut short is dropped.

use std::{
    fs::{File, OpenOptions},
    io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write},
    path::Path,
};

use crate::engine::{Node, SquareSet};
use crate::{Board, Color, GameKind, Shape, Variant, WinRule};

/// The first bytes of a whole run's file on the standard board.
pub(crate) const MAGIC: &[u8; 8] = b"OTHSAMP1";

/// The first bytes of every other file.
const MAGIC2: &[u8; 8] = b"OTHSAMP2";

/// Bytes of an `OTHSAMP2` header.
const HEADER2: usize = 32;

/// Where an `OTHSAMP2` header says whether the step finished.
const COMPLETE_AT: u64 = 28;

/// Bytes a record on the standard board.
pub const RECORD: usize = 24;

/// How a sample's score was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    /// Not scored yet.
    None,
    /// By the exact solver: the final disc difference with perfect play.
    Exact,
    /// By a search this many plies deep.
    Searched(u8),
    /// By how its own self-play game ended: the final disc difference of the rest of a game
    /// played at a fixed level (`train selfplay --result-labels`), an unbiased but noisy
    /// estimate that costs nothing beyond the game.
    Result,
}

/// One part of a step cut in `count` for as many machines (`--shard index/count`): shard
/// `index` plays (or labels) the `index`-th of `count` equal runs of games (or positions), so
/// the shards' files, merged in order, are the file one whole run writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    /// Which part, from 0.
    pub index: u32,
    /// How many parts.
    pub count: u32,
}

impl Shard {
    /// The whole run: part 0 of 1.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// The items of `0..total` this shard takes.
    pub fn range(self, total: u64) -> std::ops::Range<u64> {
        let count = u64::from(self.count.max(1));
        let at = |index: u64| total * index / count;
        at(u64::from(self.index))..at(u64::from(self.index) + 1)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `i/n`, with `i` below `n`.
    fn from_str(text: &str) -> Result<Shard, String> {
        let error = || format!("expected a shard as i/n with i from 0 to n - 1, not {text:?}");
        let (index, count) = text.split_once('/').ok_or_else(error)?;
        let (index, count): (u32, u32) = (
            index.trim().parse().map_err(|_| error())?,
            count.trim().parse().map_err(|_| error())?,
        );
        (index < count)
            .then_some(Shard { index, count })
            .ok_or_else(error)
    }
}

/// What a samples file holds: its kind of game, which run and which shard of it wrote it,
/// and whether that step finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampleHeader {
    /// The rule set, board and win rule of every position in it.
    pub kind: GameKind,
    /// Which part of a run it is.
    pub shard: Shard,
    /// A fingerprint of the step's options (and of its input's run): a step goes on with a
    /// file only under the same options, and shards merge only with shards of their run.
    /// 0 where a file does not say (`OTHSAMP1`).
    pub run: u64,
    /// Whether the step wrote all it had to (its shard's every game, or position).
    pub complete: bool,
}

impl SampleHeader {
    /// A whole run's file of `kind` (of no known run).
    pub const fn whole(kind: GameKind) -> SampleHeader {
        SampleHeader {
            kind,
            shard: Shard::WHOLE,
            run: 0,
            complete: false,
        }
    }

    /// Whether a file with this header holds positions of the step that `other` describes:
    /// the same kind of game, shard and run (a file that does not name its run is taken
    /// for any).
    pub fn same_step(self, other: SampleHeader) -> bool {
        self.kind == other.kind
            && self.shard == other.shard
            && (self.run == other.run || self.run == 0 || other.run == 0)
    }

    /// Whether it is written in the first format, which says nothing but its kind: a whole
    /// run on the standard board that names no run (the files of the first generations,
    /// which go on in their format when a step resumes them).
    fn legacy(self) -> bool {
        self.kind == GameKind::STANDARD && self.shard == Shard::WHOLE && self.run == 0
    }

    /// The header's bytes: `OTHSAMP1` for a file of the first format, so that those files
    /// stay as they were.
    pub(crate) fn to_bytes(self) -> Vec<u8> {
        if self.legacy() {
            return MAGIC.to_vec();
        }
        let mut bytes = MAGIC2.to_vec();
        bytes.extend([
            self.kind.shape.rows(),
            self.kind.shape.columns(),
            u8::from(self.kind.variant == Variant::Simple),
            u8::from(self.kind.rule == WinRule::FewestDiscs),
        ]);
        bytes.extend(self.shard.index.to_le_bytes());
        bytes.extend(self.shard.count.to_le_bytes());
        bytes.extend(self.run.to_le_bytes());
        bytes.extend([u8::from(self.complete), 0, 0, 0]);
        bytes
    }

    /// The header at the start of a file; `Ok(None)` where the file stops before its
    /// header ends (a file stopped as it was begun: no samples yet).
    pub(crate) fn read(input: &mut impl Read, path: &Path) -> io::Result<Option<SampleHeader>> {
        let mut magic = Vec::with_capacity(8);
        input.take(8).read_to_end(&mut magic)?;
        if MAGIC.starts_with(&magic) && magic.len() < 8 {
            return Ok(None);
        }
        if magic == MAGIC {
            return Ok(Some(SampleHeader::whole(GameKind::STANDARD)));
        }
        if !MAGIC2.starts_with(&magic) {
            return Err(not_samples(path));
        }
        let mut rest = Vec::with_capacity(HEADER2 - 8);
        input.take((HEADER2 - 8) as u64).read_to_end(&mut rest)?;
        if magic.len() < 8 || rest.len() < HEADER2 - 8 {
            return Ok(None);
        }
        let word = |at: usize| u32::from_le_bytes(rest[at..at + 4].try_into().expect("4 bytes"));
        let damaged = || {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: a damaged samples header", path.display()),
            )
        };
        let shape = Shape::new(rest[0], rest[1]).map_err(|_| damaged())?;
        let variant = match rest[2] {
            0 => Variant::Full,
            1 => Variant::Simple,
            _ => return Err(damaged()),
        };
        let rule = match rest[3] {
            0 => WinRule::MostDiscs,
            1 => WinRule::FewestDiscs,
            _ => return Err(damaged()),
        };
        let shard = Shard {
            index: word(4),
            count: word(8),
        };
        let run = u64::from_le_bytes(rest[12..20].try_into().expect("8 bytes"));
        if shard.index >= shard.count || rest[20] > 1 || rest[21..] != [0, 0, 0] {
            return Err(damaged());
        }
        Ok(Some(SampleHeader {
            kind: GameKind::new(variant, shape, rule),
            shard,
            run,
            complete: rest[20] == 1,
        }))
    }

    /// Bytes of the header.
    fn len(self) -> u64 {
        self.to_bytes().len() as u64
    }

    /// Bytes of a record.
    pub fn record(self) -> usize {
        2 * disc_bytes(self.kind.shape) + 8
    }
}

/// Bytes of one side's discs on `shape`.
fn disc_bytes(shape: Shape) -> usize {
    shape.cells().div_ceil(8)
}

/// Discs on a board of any shape: bit `row * columns + column` (so on the standard board,
/// the engine's `u64` layout).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Discs([u64; 4]);

impl Discs {
    /// The discs of a standard-board `u64`.
    pub const fn from_bits8(bits: u64) -> Discs {
        Discs([bits, 0, 0, 0])
    }

    /// The first 64 squares: the whole board on 8 × 8.
    pub const fn bits8(self) -> u64 {
        self.0[0]
    }

    /// Whether square number `k` (reading order) holds a disc.
    pub const fn contains(self, k: usize) -> bool {
        self.0[k / 64] >> (k % 64) & 1 == 1
    }

    /// Puts a disc on square number `k`.
    pub fn insert(&mut self, k: usize) {
        self.0[k / 64] |= 1 << (k % 64);
    }

    /// How many discs.
    pub fn len(self) -> u32 {
        self.0.iter().map(|word| word.count_ones()).sum()
    }

    /// Whether there are none.
    pub fn is_empty(self) -> bool {
        self.0 == [0; 4]
    }

    /// The four words of bits, the first 64 squares first.
    pub(crate) const fn words(self) -> [u64; 4] {
        self.0
    }

    /// The numbers of the squares with a disc, in reading order.
    pub(crate) fn squares(self) -> impl Iterator<Item = usize> {
        self.0.into_iter().enumerate().flat_map(|(word, mut bits)| {
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let k = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    64 * word + k
                })
            })
        })
    }

    fn overlaps(self, other: Discs) -> bool {
        self.0.iter().zip(other.0).any(|(a, b)| a & b != 0)
    }

    /// The discs of `set`, a set of `node`'s squares, on `shape`.
    fn of<N: Node>(node: &N, mut set: N::Set, shape: Shape) -> Discs {
        let mut discs = Discs::default();
        while let Some(index) = set.pop() {
            let square = node.square(index);
            discs.insert(
                usize::from(square.row()) * usize::from(shape.columns())
                    + usize::from(square.column()),
            );
        }
        discs
    }

    fn write(self, bytes: &mut [u8]) {
        let all: Vec<u8> = self.0.iter().flat_map(|word| word.to_le_bytes()).collect();
        bytes.copy_from_slice(&all[..bytes.len()]);
    }

    fn read(bytes: &[u8]) -> Discs {
        let mut all = [0u8; 32];
        all[..bytes.len()].copy_from_slice(bytes);
        Discs(std::array::from_fn(|k| {
            u64::from_le_bytes(all[8 * k..8 * k + 8].try_into().expect("8 bytes"))
        }))
    }
}

/// One training position, seen from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The rule set, board and win rule.
    pub kind: GameKind,
    /// Discs of the side to move.
    pub player: Discs,
    /// Discs of the opponent.
    pub opponent: Discs,
    /// The game it comes from: positions of one game are alike, so a held-out set is made
    /// of whole games.
    pub game: u32,
    /// The label, in evaluation units (`DISC` a disc), for the side to move.
    pub score: i16,
    /// How the label was found.
    pub label: Label,
}

impl Sample {
    /// A standard-board position (unlabelled) from the discs of the side to move and of
    /// the opponent.
    pub const fn standard(player: u64, opponent: u64, game: u32) -> Sample {
        Sample {
            kind: GameKind::STANDARD,
            player: Discs::from_bits8(player),
            opponent: Discs::from_bits8(opponent),
            game,
            score: 0,
            label: Label::None,
        }
    }

    /// `node`, a position of `kind`, unlabelled.
    pub fn of_node<N: Node>(node: &N, kind: GameKind, game: u32) -> Sample {
        Sample {
            kind,
            player: Discs::of(node, node.player(), kind.shape),
            opponent: Discs::of(node, node.opponent(), kind.shape),
            game,
            score: 0,
            label: Label::None,
        }
    }

    /// On the standard board: the discs of the side to move and of the opponent.
    pub const fn bits8(&self) -> (u64, u64) {
        (self.player.bits8(), self.opponent.bits8())
    }

    /// Empty squares.
    pub fn empties(&self) -> u32 {
        self.kind.shape.cells() as u32 - self.player.len() - self.opponent.len()
    }

    /// The position as a board, the side to move playing Black.
    pub fn board(&self) -> Board {
        let shape = self.kind.shape;
        let mut board = Board::empty(shape);
        for (k, square) in shape.squares().enumerate() {
            if self.player.contains(k) {
                board.set(square, Some(Color::Black));
            } else if self.opponent.contains(k) {
                board.set(square, Some(Color::White));
            }
        }
        board
    }

    /// The record's bytes.
    pub(crate) fn to_bytes(self) -> Vec<u8> {
        let side = disc_bytes(self.kind.shape);
        let mut bytes = vec![0; 2 * side + 8];
        self.player.write(&mut bytes[..side]);
        self.opponent.write(&mut bytes[side..2 * side]);
        let rest = &mut bytes[2 * side..];
        rest[..4].copy_from_slice(&self.game.to_le_bytes());
        rest[4..6].copy_from_slice(&self.score.to_le_bytes());
        (rest[6], rest[7]) = match self.label {
            Label::None => (0, 0),
            Label::Exact => (1, 0),
            Label::Searched(depth) => (2, depth),
            Label::Result => (3, 0),
        };
        bytes
    }

    /// A record of `kind` from its bytes; `None` if it is not one (discs on one square
    /// twice or off the board, an unknown kind of label).
    pub(crate) fn from_bytes(bytes: &[u8], kind: GameKind) -> Option<Sample> {
        let side = disc_bytes(kind.shape);
        let (player, opponent) = (
            Discs::read(&bytes[..side]),
            Discs::read(&bytes[side..2 * side]),
        );
        let rest = &bytes[2 * side..];
        let label = match (rest[6], rest[7]) {
            (0, 0) => Label::None,
            (1, 0) => Label::Exact,
            (2, depth) => Label::Searched(depth),
            (3, 0) => Label::Result,
            _ => return None,
        };
        let cells = kind.shape.cells();
        let on_board = |discs: Discs| (cells..256).all(|k| !discs.contains(k));
        (!player.overlaps(opponent) && on_board(player) && on_board(opponent)).then_some(Sample {
            kind,
            player,
            opponent,
            game: u32::from_le_bytes(rest[..4].try_into().expect("4 bytes")),
            score: i16::from_le_bytes([rest[4], rest[5]]),
            label,
        })
    }
}

/// Runs `body` with `node` the sample's position, on the fastest representation of its
/// kind of game (with the side to move first).
macro_rules! on_sample {
    ($sample:expr, |$node:ident| $body:expr) => {{
        let sample: &$crate::training::Sample = $sample;
        if sample.kind.variant == $crate::Variant::Full
            && sample.kind.shape == $crate::Shape::STANDARD
        {
            let (player, opponent) = sample.bits8();
            $crate::engine::on_node!(bits = player, opponent, |$node| $body)
        } else {
            let board = sample.board();
            $crate::engine::on_node!(
                variant = sample.kind.variant,
                &board,
                $crate::Color::Black,
                |$node| $body
            )
        }
    }};
}
pub(crate) use on_sample;

/// Reads the samples of a file, one at a time.
#[derive(Debug)]
pub struct SampleReader {
    input: BufReader<File>,
    header: Option<SampleHeader>,
    /// The whole records the file held when opened (what to reserve room for).
    records: u64,
    /// Whether it ended part-way through a record when opened.
    cut: bool,
}

impl SampleReader {
    /// Opens `path`, checking its header. A header cut short (a file stopped as it was
    /// begun) is a file with no samples yet.
    ///
    /// # Errors
    /// If it cannot be read or is not a samples file.
    #[cfg(test)]
    pub(crate) fn open(path: &Path) -> io::Result<SampleReader> {
        SampleReader::from_file(File::open(path)?, path)
    }

    /// Reads the samples of `file`, already open (checked to be a regular file, say) and
    /// named `path` in errors, checking its header. A header cut short (a file stopped as
    /// it was begun) is a file with no samples yet.
    ///
    /// # Errors
    /// If it cannot be read or is not a samples file.
    pub fn from_file(file: File, path: &Path) -> io::Result<SampleReader> {
        let length = file.metadata()?.len();
        let mut input = BufReader::with_capacity(1 << 20, file);
        let mut header = SampleHeader::read(&mut input, path)?;
        let cut = header
            .is_some_and(|found| length.saturating_sub(found.len()) % found.record() as u64 != 0);
        // A file marked finished that ends in part of a record was cut short since: it is
        // not finished (a step goes on with it; the next steps refuse it).
        if let Some(found) = &mut header
            && found.complete
            && cut
        {
            found.complete = false;
        }
        let records = header.map_or(0, |found| {
            length.saturating_sub(found.len()) / found.record() as u64
        });
        Ok(SampleReader {
            input,
            header,
            records,
            cut,
        })
    }

    /// Whether the file ended part-way through a record when opened: a step stopped as it
    /// wrote, or a file cut short since (of either format).
    pub fn cut(&self) -> bool {
        self.cut
    }

    /// What the file holds; `None` for a file stopped before its header was written whole
    /// (it has no samples).
    pub fn header(&self) -> Option<SampleHeader> {
        self.header
    }

    /// Every sample of `path`.
    ///
    /// # Errors
    /// See [`SampleReader::open`] and [`SampleReader::next_sample`].
    #[cfg(test)]
    pub(crate) fn read_all(path: &Path) -> io::Result<Vec<Sample>> {
        SampleReader::open(path)?.read_rest()
    }

    /// Every sample not read yet.
    ///
    /// # Errors
    /// See [`SampleReader::next_sample`].
    pub fn read_rest(mut self) -> io::Result<Vec<Sample>> {
        // Room for them all at once: growing by doubling would hold up to three times as
        // much for a moment (4 GB of samples are 50 million positions).
        let mut samples = Vec::with_capacity(usize::try_from(self.records).unwrap_or(0));
        while let Some(sample) = self.next_sample()? {
            samples.push(sample);
        }
        Ok(samples)
    }

    /// The next sample; `None` at the end (a last record cut short is dropped).
    ///
    /// # Errors
    /// If reading fails or a record is not one.
    pub fn next_sample(&mut self) -> io::Result<Option<Sample>> {
        let Some(header) = self.header else {
            return Ok(None);
        };
        let mut bytes = [0; 2 * 32 + 8];
        let bytes = &mut bytes[..header.record()];
        let mut filled = 0;
        while filled < bytes.len() {
            match self.input.read(&mut bytes[filled..])? {
                0 => return Ok(None),
                n => filled += n,
            }
        }
        Sample::from_bytes(bytes, header.kind)
            .map(Some)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "a damaged sample record"))
    }
}

fn not_samples(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "{} is not a samples file (OTHSAMP1 or OTHSAMP2)",
            path.display()
        ),
    )
}

/// Appends samples to a file.
#[derive(Debug)]
pub struct SampleWriter {
    output: BufWriter<File>,
    header: SampleHeader,
}

impl SampleWriter {
    /// Opens `path` to append samples of `header`'s kind and shard to it, creating it if
    /// need be; returns the writer and the whole records already there (a record cut short
    /// at the end is dropped).
    ///
    /// # Errors
    /// If it cannot be opened, is not a samples file, or holds other positions (another
    /// kind of game or another shard).
    pub fn append(path: &Path, mut header: SampleHeader) -> io::Result<(SampleWriter, u64)> {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        let length = file.metadata()?.len();
        let found = SampleHeader::read(&mut file, path)?;
        let records = match found {
            // A header cut short is written again whole.
            None => {
                file.set_len(0)?;
                file.seek(SeekFrom::Start(0))?;
                file.write_all(&header.to_bytes())?;
                0
            }
            Some(found) if !found.same_step(header) => {
                let what = if (found.kind, found.shard) == (header.kind, header.shard) {
                    "another run's positions (other options, or another input)".to_owned()
                } else {
                    format!("positions of {} (shard {})", found.kind, found.shard)
                };
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "{} holds {what}, not of {} (shard {}) with these options: remove it \
                         or write to another file",
                        path.display(),
                        header.kind,
                        header.shard
                    ),
                ));
            }
            Some(found) => {
                // A file of the first format goes on in it (it cannot say its run).
                if found.legacy() {
                    header.run = 0;
                }
                let records = (length - header.len()) / header.record() as u64;
                file.set_len(header.len() + records * header.record() as u64)?;
                // Going on: not finished until the step says so again.
                if !header.legacy() {
                    file.seek(SeekFrom::Start(COMPLETE_AT))?;
                    file.write_all(&[0])?;
                }
                records
            }
        };
        file.seek(SeekFrom::End(0))?;
        Ok((
            SampleWriter {
                output: BufWriter::with_capacity(1 << 20, file),
                header,
            },
            records,
        ))
    }

    /// Writes `samples` (each of the file's kind).
    ///
    /// # Errors
    /// If writing fails, or a sample is of another kind of game.
    pub fn write(&mut self, samples: &[Sample]) -> io::Result<()> {
        for sample in samples {
            if sample.kind != self.header.kind {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "a position of {} in a file of {}",
                        sample.kind, self.header.kind
                    ),
                ));
            }
            self.output.write_all(&sample.to_bytes())?;
        }
        Ok(())
    }

    /// Writes what is buffered and syncs it to disk: what is written so far survives a
    /// stop.
    ///
    /// # Errors
    /// If writing fails.
    pub fn flush(&mut self) -> io::Result<()> {
        self.output.flush()?;
        self.output.get_ref().sync_data()
    }

    /// Flushes, and marks the file as finished: the step wrote all it had to (`train merge`
    /// joins finished shards only).
    ///
    /// # Errors
    /// If writing fails.
    pub fn finish(mut self) -> io::Result<()> {
        self.flush()?;
        if !self.header.legacy() {
            let file = self.output.get_mut();
            file.seek(SeekFrom::Start(COMPLETE_AT))?;
            file.write_all(&[1])?;
            file.sync_data()?;
        }
        Ok(())
    }
}

/// Keeps the first `records` samples of the file at `path` and drops the rest (a game
/// begun and cut short, to be played again whole).
///
/// # Errors
/// If the file cannot be read or written, or is not a samples file.
pub fn truncate(path: &Path, records: u64) -> io::Result<()> {
    let mut file = OpenOptions::new().read(true).write(true).open(path)?;
    if let Some(header) = SampleHeader::read(&mut file, path)? {
        file.set_len(header.len() + records * header.record() as u64)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(n: u32) -> Sample {
        Sample {
            score: -(n as i16) * 37,
            label: match n % 4 {
                0 => Label::None,
                1 => Label::Exact,
                2 => Label::Result,
                _ => Label::Searched(n as u8),
            },
            ..Sample::standard(
                0x0000_0008_1000_0000 | u64::from(n),
                0x0000_0010_0800_0000,
                n,
            )
        }
    }

    #[test]
    fn records_round_trip_and_files_resume() {
        for n in 0..20 {
            let bytes = sample(n).to_bytes();
            assert_eq!(bytes.len(), RECORD);
            assert_eq!(
                Sample::from_bytes(&bytes, GameKind::STANDARD),
                Some(sample(n))
            );
        }
        let mut overlapping = sample(1).to_bytes();
        overlapping[8] = 0x01;
        assert_eq!(Sample::from_bytes(&overlapping, GameKind::STANDARD), None);

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("samples.bin");
        let whole = SampleHeader::whole(GameKind::STANDARD);
        // A run's file on the standard board says its run and whether it finished.
        let run = SampleHeader { run: 7, ..whole };
        let (mut writer, _) = SampleWriter::append(&path, run).unwrap();
        writer.write(&[sample(0)]).unwrap();
        writer.finish().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..8], MAGIC2);
        assert_eq!(
            SampleReader::open(&path).unwrap().header(),
            Some(SampleHeader {
                complete: true,
                ..run
            })
        );
        std::fs::remove_file(&path).unwrap();
        // One that names no run (the first generations') keeps the first format; a step
        // going on with such a file, whatever its run, writes on in it.
        let (mut writer, before) = SampleWriter::append(&path, whole).unwrap();
        assert_eq!(before, 0);
        writer
            .write(&(0..5).map(sample).collect::<Vec<_>>())
            .unwrap();
        writer.flush().unwrap();
        drop(writer);
        // The first format, byte for byte.
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..8], MAGIC);
        assert_eq!(bytes.len(), 8 + 5 * RECORD);
        // A stop in the middle of a record: the part is dropped on resuming.
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(&[1, 2, 3]).unwrap();
        drop(file);
        let (mut writer, before) = SampleWriter::append(&path, run).unwrap();
        assert_eq!(before, 5);
        writer.write(&[sample(5)]).unwrap();
        writer.flush().unwrap();
        assert_eq!(
            SampleReader::read_all(&path).unwrap(),
            (0..6).map(sample).collect::<Vec<_>>()
        );
        // Another shard or kind of game is not appended to it.
        let shard = SampleHeader {
            shard: Shard { index: 1, count: 3 },
            run: 5,
            ..whole
        };
        assert!(SampleWriter::append(&path, shard).is_err());
        truncate(&path, 2).unwrap();
        assert_eq!(SampleReader::read_all(&path).unwrap().len(), 2);
        std::fs::write(&path, b"not samples").unwrap();
        assert!(SampleReader::open(&path).is_err());
        assert!(SampleWriter::append(&path, whole).is_err());
    }

    #[test]
    fn any_shape_round_trips_with_its_header() {
        let dir = tempfile::tempdir().unwrap();
        for (rows, columns, variant, rule) in [
            (6, 6, Variant::Full, WinRule::MostDiscs),
            (8, 8, Variant::Simple, WinRule::FewestDiscs),
            (10, 12, Variant::Full, WinRule::FewestDiscs),
            (16, 16, Variant::Simple, WinRule::MostDiscs),
        ] {
            let kind = GameKind::new(variant, Shape::new(rows, columns).unwrap(), rule);
            let cells = kind.shape.cells();
            let samples: Vec<Sample> = (0..7u32)
                .map(|n| {
                    let (mut player, mut opponent) = (Discs::default(), Discs::default());
                    player.insert(n as usize);
                    player.insert(cells - 1);
                    opponent.insert(cells - 2 - n as usize);
                    Sample {
                        kind,
                        player,
                        opponent,
                        game: n / 2,
                        score: n as i16 * 100 - 300,
                        label: Label::Searched(4),
                    }
                })
                .collect();
            let header = SampleHeader {
                kind,
                shard: Shard { index: 2, count: 5 },
                run: 0x1234_5678_9abc_def1,
                complete: false,
            };
            let path = dir.path().join(kind.slug());
            let (mut writer, _) = SampleWriter::append(&path, header).unwrap();
            writer.write(&samples).unwrap();
            writer.flush().unwrap();
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(bytes.len(), HEADER2 + 7 * (2 * cells.div_ceil(8) + 8));
            let reader = SampleReader::open(&path).unwrap();
            assert_eq!(reader.header(), Some(header));
            assert_eq!(reader.read_rest().unwrap(), samples);
            // Finished, it says so; going on with it, it says so no more.
            let (writer, _) = SampleWriter::append(&path, header).unwrap();
            writer.finish().unwrap();
            let finished = SampleReader::open(&path).unwrap().header().unwrap();
            assert_eq!(
                finished,
                SampleHeader {
                    complete: true,
                    ..header
                }
            );
            drop(SampleWriter::append(&path, header).unwrap());
            assert_eq!(SampleReader::open(&path).unwrap().header(), Some(header));
            // Another run's positions are not appended to it.
            let other = SampleHeader { run: 7, ..header };
            assert!(SampleWriter::append(&path, other).is_err());
            // A sample's board: the side to move as Black.
            let board = samples[0].board();
            assert_eq!(board.count(Color::Black), 2);
            assert_eq!(board.count(Color::White), 1);
            assert_eq!(samples[0].empties(), cells as u32 - 3);
            // Another kind is refused, both ways.
            let standard = Sample::standard(1, 2, 0);
            let (mut writer, before) = SampleWriter::append(&path, header).unwrap();
            assert_eq!(before, 7);
            assert!(writer.write(&[standard]).is_err());
            assert!(SampleWriter::append(&path, SampleHeader::whole(GameKind::STANDARD)).is_err());
        }
        // A header cut short: no samples yet, written again whole on appending.
        let path = dir.path().join("cut");
        std::fs::write(&path, &MAGIC2[..8]).unwrap();
        let reader = SampleReader::open(&path).unwrap();
        assert_eq!(reader.header(), None);
        assert!(reader.read_rest().unwrap().is_empty());
    }

    #[test]
    fn shards_cut_a_run_into_equal_consecutive_parts() {
        let parts: Vec<_> = (0..3)
            .map(|index| Shard { index, count: 3 }.range(10))
            .collect();
        assert_eq!(parts, [0..3, 3..6, 6..10]);
        assert_eq!(Shard::WHOLE.range(10), 0..10);
        assert_eq!("1/3".parse(), Ok(Shard { index: 1, count: 3 }));
        for bad in ["3/3", "1", "a/2", "-1/2", "0/0"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
