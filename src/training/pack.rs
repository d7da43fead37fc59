//! Positions files packed as the games they come from, about twenty-five times smaller
//! than the records (`othello train pack` and `unpack`): self-play data worth keeping when
//! the files it was written to are not (a machine that does not keep its disk between
//! sessions keeps what is committed).
//!
//! A game's positions follow one another by one move (and a pass where one is forced), so
//! a game is kept as its first position, the move that leads from each position to the
//! next (its place among the legal moves), the move that ends the game, and each label
//! only where it is not the game's result (the self-play's result labels are recomputed
//! from the end). Positions that do not follow one another (a deduplicated file's) start a
//! block of their own; anything the packing cannot express is kept as it is, so every file
//! unpacks to exactly its own bytes (each block is unpacked again and compared as it is
//! packed).
//!
//! # The packed file
//!
//! Little-endian throughout:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | `OTHPACK1` |
//! | 1 | length of the samples file's header: 8 or 32 |
//! | 8 or 32 | the samples file's header, as it was |
//! | 8 | positions |
//! | 8 | bytes of the blocks, unpacked |
//! | 8 | bytes of the blocks, DEFLATE-compressed |
//! | n | the blocks, compressed |
//! | 32 | SHA-256 of the header's bytes, the count of positions and the blocks, unpacked |
//!
//! A block: the game's number, as the difference from the block before's (zigzag varint),
//! its positions `n` (varint), the first position's discs (as in a record), `n - 1` links
//! (a byte each: the move's place among the legal moves, taken in the set's order), the end
//! (the move after the last position that ends the game, or 255 where none is kept), then
//! `n` labels: 0 for the game's result as the end gives it, or 1 and the record's last four
//! bytes (score, kind of label, depth).

use std::io;

use miniz_oxide::{deflate::compress_to_vec, inflate::decompress_to_vec_with_limit};
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::{Label, Sample, SampleHeader, sample::on_sample};
use crate::engine::{Node, SquareSet, eval::DISC};
use crate::{GameKind, WinRule};

/// The packed file's first bytes.
pub const MAGIC: &[u8; 8] = b"OTHPACK1";

/// The most bytes a packed file's blocks unpack to, held in memory as they are packed and
/// unpacked: about 400 million positions of self-play in game order, or 40 million in
/// any order (a bigger file is packed as shards).
pub const MAX_BLOCKS: u64 = 1 << 30;

/// The fewest bytes a position takes in the blocks (a link and a label's code): a file
/// that says it holds more positions than this allows is refused before it is unpacked,
/// so that what `unpack` writes is bounded by what the file unpacks to.
const LEAST_BYTES_A_POSITION: u64 = 2;

/// A link or end that is not a move's place.
const NONE: u8 = 255;

/// Why a packed file was refused.
#[derive(Debug, Error)]
pub enum PackError {
    /// Not a packed file.
    #[error("not a packed positions file (it does not start with OTHPACK1)")]
    Magic,
    /// Shorter or longer than its header says, or damaged where it says how long it is.
    #[error("the packed file is truncated or has bytes after its end")]
    Length,
    /// The header of the positions it holds is not one.
    #[error("the packed file's samples header is damaged: {0}")]
    Header(io::Error),
    /// Says it unpacks to more than a packed file may.
    #[error("the packed file says it unpacks to {0} bytes, more than the {MAX_BLOCKS} allowed")]
    TooBig(u64),
    /// The positions given to pack would unpack to more than a packed file may.
    #[error(
        "too many positions for one packed file ({0} bytes unpacked, {MAX_BLOCKS} allowed): \
         pack it in parts (a step's shards, or dedup's input files one by one)"
    )]
    TooMany(u64),
    /// Says it holds more positions than its blocks can.
    #[error("the packed file says it holds {positions} positions in {length} bytes: it cannot")]
    Count {
        /// Positions it says it holds.
        positions: u64,
        /// Bytes its blocks unpack to.
        length: u64,
    },
    /// The compressed blocks do not decompress to the size announced.
    #[error("the packed positions do not decompress")]
    Compression,
    /// The blocks are not those the checksum was made of.
    #[error("the packed file is corrupted (its checksum does not match)")]
    Checksum,
    /// A block says what cannot be (a move that is not legal, discs off the board).
    #[error("the packed positions are damaged: {0}")]
    Damaged(&'static str),
}

/// Packs a positions file's samples as they are read, game by game.
#[derive(Debug)]
pub struct Packer {
    header: SampleHeader,
    blocks: Vec<u8>,
    game: Vec<Sample>,
    previous_game: u32,
    positions: u64,
    blocks_written: u64,
}

impl Packer {
    /// A packer for the samples of a file with `header`.
    pub fn new(header: SampleHeader) -> Packer {
        Packer {
            header,
            blocks: Vec::new(),
            game: Vec::new(),
            previous_game: 0,
            positions: 0,
            blocks_written: 0,
        }
    }

    /// Adds the file's next sample.
    ///
    /// # Errors
    /// A sample of another kind of game than the header's, or more positions than a packed
    /// file holds ([`MAX_BLOCKS`]).
    pub fn add(&mut self, sample: Sample) -> Result<(), PackError> {
        if sample.kind != self.header.kind {
            return Err(PackError::Damaged("a position of another kind of game"));
        }
        if self
            .game
            .last()
            .is_some_and(|last| last.game != sample.game)
        {
            self.flush_game();
            // Refused as soon as it is too big, not once it has all been held.
            if self.blocks.len() as u64 > MAX_BLOCKS {
                return Err(PackError::TooMany(self.blocks.len() as u64));
            }
        }
        self.game.push(sample);
        self.positions += 1;
        Ok(())
    }

    /// Positions added so far.
    pub fn positions(&self) -> u64 {
        self.positions
    }

    /// Blocks written so far (a game whose positions follow one another is one).
    pub fn blocks(&self) -> u64 {
        self.blocks_written
    }

    /// The packed file's bytes.
    ///
    /// # Errors
    /// If the blocks would unpack to more than [`MAX_BLOCKS`].
    pub fn finish(mut self) -> Result<Vec<u8>, PackError> {
        self.flush_game();
        let length = self.blocks.len() as u64;
        if length > MAX_BLOCKS {
            return Err(PackError::TooMany(length));
        }
        Ok(file_bytes(self.header, self.positions, &self.blocks))
    }

    /// Writes the game's positions as blocks, each checked to unpack to them.
    fn flush_game(&mut self) {
        let game = std::mem::take(&mut self.game);
        let mut rest = &game[..];
        while !rest.is_empty() {
            let (block, taken) = encode_block(rest, self.header.kind, self.previous_game);
            let start = self.blocks.len();
            self.blocks.extend_from_slice(&block);
            let mut decoded = Vec::with_capacity(taken);
            let mut reader = &self.blocks[start..];
            let verified = decode_block(
                &mut reader,
                self.header.kind,
                self.header.record() - 8,
                self.previous_game,
                &mut decoded,
            )
            .is_ok()
                && reader.is_empty()
                && decoded == rest[..taken];
            if !verified {
                // Not expressible as moves (it should not happen): each position kept as it is.
                self.blocks.truncate(start);
                let single = &rest[..1];
                let block = encode_plain(single[0], self.previous_game);
                self.blocks.extend_from_slice(&block);
                self.previous_game = single[0].game;
                self.blocks_written += 1;
                rest = &rest[1..];
                continue;
            }
            self.previous_game = rest[0].game;
            self.blocks_written += 1;
            rest = &rest[taken..];
        }
    }
}

/// The packed file of `positions` positions whose blocks are `blocks`, from a samples file
/// with `header`.
fn file_bytes(header: SampleHeader, positions: u64, blocks: &[u8]) -> Vec<u8> {
    let header = header.to_bytes();
    let compressed = compress_to_vec(blocks, 10);
    let mut bytes = Vec::with_capacity(compressed.len() + 100);
    bytes.extend_from_slice(MAGIC);
    bytes.push(header.len() as u8);
    bytes.extend_from_slice(&header);
    bytes.extend_from_slice(&positions.to_le_bytes());
    bytes.extend_from_slice(&(blocks.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&(compressed.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&compressed);
    bytes.extend_from_slice(&checksum(&header, positions, blocks));
    bytes
}

/// What the checksum is made of: the header, the count and the blocks, unpacked.
fn checksum(header: &[u8], positions: u64, blocks: &[u8]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(header);
    hasher.update(positions.to_le_bytes());
    hasher.update(blocks);
    hasher.finalize().into()
}

/// A packed file, read and checked.
#[derive(Debug)]
pub struct Packed {
    header: SampleHeader,
    positions: u64,
    blocks: Vec<u8>,
}

impl Packed {
    /// Reads the packed file's `bytes`, checking every field, the lengths and the checksum.
    ///
    /// # Errors
    /// If the bytes are not a whole packed file, as [`PackError`] says.
    pub fn from_bytes(bytes: &[u8]) -> Result<Packed, PackError> {
        let mut input = bytes;
        let magic = take(&mut input, 8).ok_or(PackError::Magic)?;
        if magic != MAGIC {
            return Err(PackError::Magic);
        }
        let header_length = usize::from(
            *take(&mut input, 1)
                .ok_or(PackError::Length)?
                .first()
                .expect("a byte"),
        );
        if header_length != 8 && header_length != 32 {
            return Err(PackError::Header(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("a header of {header_length} bytes"),
            )));
        }
        let header_bytes = take(&mut input, header_length).ok_or(PackError::Length)?;
        let header = SampleHeader::read(
            &mut { header_bytes },
            std::path::Path::new("the packed file"),
        )
        .map_err(PackError::Header)?
        .ok_or(PackError::Length)?;
        if header.to_bytes() != header_bytes {
            return Err(PackError::Header(io::Error::new(
                io::ErrorKind::InvalidData,
                "not as a samples file writes it",
            )));
        }
        let mut word = || {
            take(&mut input, 8)
                .map(|bytes| u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
                .ok_or(PackError::Length)
        };
        let (positions, length, compressed) = (word()?, word()?, word()?);
        if length > MAX_BLOCKS {
            return Err(PackError::TooBig(length));
        }
        if positions > length / LEAST_BYTES_A_POSITION {
            return Err(PackError::Count { positions, length });
        }
        let compressed = usize::try_from(compressed).map_err(|_| PackError::Length)?;
        let deflated = take(&mut input, compressed).ok_or(PackError::Length)?;
        let expected = take(&mut input, 32).ok_or(PackError::Length)?;
        if !input.is_empty() {
            return Err(PackError::Length);
        }
        let blocks = decompress_to_vec_with_limit(deflated, length as usize)
            .map_err(|_| PackError::Compression)?;
        if blocks.len() as u64 != length {
            return Err(PackError::Compression);
        }
        if checksum(header_bytes, positions, &blocks)[..] != *expected {
            return Err(PackError::Checksum);
        }
        Ok(Packed {
            header,
            positions,
            blocks,
        })
    }

    /// The header of the positions file it unpacks to.
    pub fn header(&self) -> SampleHeader {
        self.header
    }

    /// How many positions it holds.
    pub fn positions(&self) -> u64 {
        self.positions
    }

    /// Hands the positions to `emit`, a block at a time, in the order they were packed.
    ///
    /// # Errors
    /// A damaged block (the checksum matched, so it was packed so), or what `emit` returns.
    pub fn unpack(
        &self,
        mut emit: impl FnMut(&[Sample]) -> io::Result<()>,
    ) -> Result<(), UnpackError> {
        let kind = self.header.kind;
        let disc_bytes = self.header.record() - 8;
        let mut input = &self.blocks[..];
        let mut previous_game = 0;
        let mut samples = Vec::new();
        let mut count = 0u64;
        while !input.is_empty() {
            samples.clear();
            decode_block(&mut input, kind, disc_bytes, previous_game, &mut samples)?;
            previous_game = samples[0].game;
            count += samples.len() as u64;
            if count > self.positions {
                return Err(PackError::Damaged("more positions than the header says").into());
            }
            emit(&samples).map_err(UnpackError::Write)?;
        }
        if count != self.positions {
            return Err(PackError::Damaged("fewer positions than the header says").into());
        }
        Ok(())
    }
}

/// Why unpacking stopped.
#[derive(Debug, Error)]
pub enum UnpackError {
    /// The packed file.
    #[error(transparent)]
    Packed(#[from] PackError),
    /// Writing the positions.
    #[error(transparent)]
    Write(io::Error),
}

/// The first `n` bytes of `input`, taken off it.
fn take<'a>(input: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    (input.len() >= n).then(|| {
        let (first, rest) = input.split_at(n);
        *input = rest;
        first
    })
}

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn get_varint(input: &mut &[u8]) -> Result<u64, PackError> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *take(input, 1)
            .ok_or(PackError::Damaged("a block cut short"))?
            .first()
            .expect("a byte");
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Ok(value);
        }
    }
    Err(PackError::Damaged("a number too long"))
}

fn put_game(out: &mut Vec<u8>, game: u32, previous: u32) {
    let delta = i64::from(game) - i64::from(previous);
    put_varint(out, ((delta << 1) ^ (delta >> 63)) as u64);
}

fn get_game(input: &mut &[u8], previous: u32) -> Result<u32, PackError> {
    let zigzag = get_varint(input)?;
    let delta = (zigzag >> 1) as i64 ^ -((zigzag & 1) as i64);
    i64::from(previous)
        .checked_add(delta)
        .and_then(|game| u32::try_from(game).ok())
        .ok_or(PackError::Damaged("a game number out of range"))
}

/// The record's last four bytes: score, kind of label, depth.
fn label_bytes(sample: &Sample) -> [u8; 4] {
    let bytes = sample.to_bytes();
    bytes[bytes.len() - 4..].try_into().expect("4 bytes")
}

/// One position as a block of its own, every label kept.
fn encode_plain(sample: Sample, previous: u32) -> Vec<u8> {
    let mut out = Vec::new();
    put_game(&mut out, sample.game, previous);
    put_varint(&mut out, 1);
    let bytes = sample.to_bytes();
    out.extend_from_slice(&bytes[..bytes.len() - 8]);
    out.push(NONE);
    out.push(1);
    out.extend_from_slice(&label_bytes(&sample));
    out
}

/// The move at `place` among `node`'s legal moves (in the set's order).
fn nth_move<N: Node>(node: &N, place: u8) -> Option<crate::engine::Index<N>> {
    let mut moves = node.moves();
    for _ in 0..place {
        moves.pop();
    }
    moves.pop()
}

/// The link from `node` to the position `next` (discs of its side to move and of the
/// other): the move's place, and whether the side to move passes after it.
fn link_to<N: Node>(node: &N, kind: GameKind, next: &Sample) -> Option<(u8, bool)> {
    let mut moves = node.moves();
    let mut place = 0u8;
    while let Some(mv) = moves.pop() {
        let child = node.play(mv);
        let passed = child.moves().is_empty();
        if let Some(child) = if passed {
            child.after_pass()
        } else {
            Some(child)
        } {
            let sample = Sample::of_node(&child, kind, next.game);
            if (sample.player, sample.opponent) == (next.player, next.opponent) {
                return Some((place, passed));
            }
        }
        place = place.checked_add(1).filter(|&place| place != NONE)?;
    }
    None
}

/// The places of the moves from `node` that end the game, each with the final score for
/// `node`'s side to move.
fn ends<N: Node>(node: &N, rule: WinRule) -> Vec<(u8, i32)> {
    let mut moves = node.moves();
    let mut ends = Vec::new();
    let mut place = 0u8;
    while let Some(mv) = moves.pop() {
        let child = node.play(mv);
        if child.is_game_over() {
            ends.push((place, -child.final_score(rule)));
        }
        match place.checked_add(1).filter(|&place| place != NONE) {
            Some(next) => place = next,
            None => break,
        }
    }
    ends
}

/// The longest run of `samples` (one game's) that follow one another by moves, from the
/// first, as a block; and how many it holds.
fn encode_block(samples: &[Sample], kind: GameKind, previous: u32) -> (Vec<u8>, usize) {
    let mut links = Vec::new();
    // For each position, whether its side to move is the first's.
    let mut sides = vec![true];
    for pair in samples.windows(2) {
        let Some((link, passed)) = on_sample!(&pair[0], |node| link_to(&node, kind, &pair[1]))
        else {
            break;
        };
        links.push(link);
        let side = *sides.last().expect("a side");
        sides.push(if passed { side } else { !side });
    }
    let taken = sides.len();
    let block = &samples[..taken];
    let last_side = sides[taken - 1];
    let derived = |score: i32, k: usize| -> i16 {
        let score = score * DISC;
        (if sides[k] == last_side { score } else { -score }) as i16
    };
    // The end: a move from the last position that ends the game with the result its
    // result labels say (or the first that ends it, where none says).
    let ends = on_sample!(&block[taken - 1], |node| ends(&node, kind.rule));
    let chosen = match block
        .iter()
        .position(|sample| sample.label == Label::Result)
    {
        Some(k) => ends
            .iter()
            .find(|&&(_, score)| derived(score, k) == block[k].score),
        None => ends.first(),
    };
    let mut out = Vec::new();
    put_game(&mut out, block[0].game, previous);
    put_varint(&mut out, taken as u64);
    let first = block[0].to_bytes();
    out.extend_from_slice(&first[..first.len() - 8]);
    out.extend_from_slice(&links);
    out.push(chosen.map_or(NONE, |&(place, _)| place));
    for (k, sample) in block.iter().enumerate() {
        let is_derived = sample.label == Label::Result
            && chosen.is_some_and(|&(_, score)| derived(score, k) == sample.score);
        if is_derived {
            out.push(0);
        } else {
            out.push(1);
            out.extend_from_slice(&label_bytes(sample));
        }
    }
    (out, taken)
}

/// Reads one block into `out` (its positions, in order).
fn decode_block(
    input: &mut &[u8],
    kind: GameKind,
    disc_bytes: usize,
    previous: u32,
    out: &mut Vec<Sample>,
) -> Result<(), PackError> {
    let game = get_game(input, previous)?;
    let n = get_varint(input)?;
    // Each position takes a byte at least: a count beyond the bytes left is damage, not
    // room to reserve.
    if n == 0 || n > input.len() as u64 {
        return Err(PackError::Damaged("a block's count of positions"));
    }
    let n = n as usize;
    let discs = take(input, disc_bytes).ok_or(PackError::Damaged("a block cut short"))?;
    let mut record = discs.to_vec();
    record.extend_from_slice(&game.to_le_bytes());
    record.extend_from_slice(&[0, 0, 0, 0]);
    let first = Sample::from_bytes(&record, kind).ok_or(PackError::Damaged("a first position"))?;
    let links = take(input, n - 1).ok_or(PackError::Damaged("a block cut short"))?;
    let end = *take(input, 1)
        .ok_or(PackError::Damaged("a block cut short"))?
        .first()
        .expect("a byte");
    let start = out.len();
    out.push(first);
    // The positions, and for each whether its side to move is the first's.
    let mut sides = vec![true];
    for &link in links {
        let last = *out.last().expect("a position");
        let (next, passed) = on_sample!(&last, |node| {
            let mv = nth_move(&node, link).ok_or(PackError::Damaged("a move that is not legal"))?;
            let child = node.play(mv);
            let passed = child.moves().is_empty();
            let child = if passed {
                child.after_pass()
            } else {
                Some(child)
            };
            let child = child.ok_or(PackError::Damaged("a move after the game's end"))?;
            Ok::<_, PackError>((Sample::of_node(&child, kind, game), passed))
        })?;
        let side = *sides.last().expect("a side");
        sides.push(if passed { side } else { !side });
        out.push(next);
    }
    let last_side = *sides.last().expect("a side");
    let result = if end == NONE {
        None
    } else {
        let last = *out.last().expect("a position");
        Some(on_sample!(&last, |node| {
            let mv = nth_move(&node, end).ok_or(PackError::Damaged("an end that is not legal"))?;
            let child = node.play(mv);
            if !child.is_game_over() {
                return Err(PackError::Damaged("an end that does not end the game"));
            }
            Ok(-child.final_score(kind.rule))
        })?)
    };
    for (k, side) in sides.into_iter().enumerate() {
        let code = *take(input, 1)
            .ok_or(PackError::Damaged("a block cut short"))?
            .first()
            .expect("a byte");
        let sample = &mut out[start + k];
        match code {
            0 => {
                let score = result.ok_or(PackError::Damaged("a result without an end"))? * DISC;
                sample.score = if side == last_side { score } else { -score } as i16;
                sample.label = Label::Result;
            }
            1 => {
                let bytes = take(input, 4).ok_or(PackError::Damaged("a block cut short"))?;
                let mut record = sample.to_bytes();
                let at = record.len() - 4;
                record[at..].copy_from_slice(bytes);
                *sample = Sample::from_bytes(&record, kind)
                    .ok_or(PackError::Damaged("an unknown kind of label"))?;
            }
            _ => return Err(PackError::Damaged("an unknown label code")),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::eval::Evaluator;
    use crate::training::{LabelOptions, LabelTables, SelfPlayOptions, Shard, game_table, label};
    use crate::{Shape, Variant};

    /// `games` self-play games of `kind` at level 3 from openings of 2 to 12 random moves,
    /// labelled by their results from 16 plies after the start and by depth-2 searches before (exact
    /// from 6), as the data at scale is made.
    fn result_games(kind: GameKind, seed: u64, games: u32) -> Vec<Sample> {
        let play = SelfPlayOptions {
            kind,
            eval: Evaluator::Classic,
            opening: (2, 12),
            result_labels: Some(kind.shape.cells() as u32 - 16),
            ..SelfPlayOptions::new(seed).at_level(3)
        };
        let options = LabelOptions {
            exact_empties: 6,
            depth: 2,
            eval: Evaluator::Classic,
            ..LabelOptions::new()
        };
        let (mut table, mut tables) = (game_table(), LabelTables::new());
        (0..games)
            .flat_map(|game| crate::training::self_play_game(game, &play, &mut table))
            .map(|sample| label(sample, &options, &mut tables))
            .collect()
    }

    fn header(kind: GameKind) -> SampleHeader {
        SampleHeader {
            kind,
            shard: Shard { index: 1, count: 3 },
            run: 0x1234_5678_9abc_def1,
            complete: true,
        }
    }

    /// The packed file's bytes, and how many blocks it holds.
    fn pack(header: SampleHeader, samples: &[Sample]) -> (Vec<u8>, u64) {
        let mut packer = Packer::new(header);
        for &sample in samples {
            packer.add(sample).unwrap();
        }
        assert_eq!(packer.positions(), samples.len() as u64);
        packer.flush_game();
        let blocks = packer.blocks();
        (packer.finish().unwrap(), blocks)
    }

    fn unpack(bytes: &[u8]) -> Result<(SampleHeader, Vec<Sample>), UnpackError> {
        let packed = Packed::from_bytes(bytes)?;
        let mut samples = Vec::new();
        packed.unpack(|block| {
            samples.extend_from_slice(block);
            Ok(())
        })?;
        Ok((packed.header(), samples))
    }

    /// Self-play games of every kind unpack to exactly their positions and labels, a game
    /// a block, in a small part of their records' bytes.
    #[test]
    fn self_play_games_unpack_to_themselves_a_game_a_block() {
        for (kind, seed) in [
            (GameKind::STANDARD, 3),
            (
                GameKind::new(Variant::Full, Shape::STANDARD, WinRule::FewestDiscs),
                4,
            ),
            (
                GameKind::new(
                    Variant::Simple,
                    Shape::new(6, 6).unwrap(),
                    WinRule::MostDiscs,
                ),
                5,
            ),
            (
                GameKind::new(
                    Variant::Full,
                    Shape::new(10, 10).unwrap(),
                    WinRule::MostDiscs,
                ),
                6,
            ),
        ] {
            let samples = result_games(kind, seed, 12);
            let labels: Vec<Label> = samples.iter().map(|s| s.label).collect();
            assert!(labels.contains(&Label::Result), "{kind}");
            assert!(
                labels
                    .iter()
                    .any(|l| matches!(l, Label::Searched(_) | Label::Exact)),
                "{kind}"
            );
            let (bytes, blocks) = pack(header(kind), &samples);
            assert_eq!(blocks, 12, "{kind}: one block a game");
            let (found, unpacked) = unpack(&bytes).unwrap();
            assert_eq!(found, header(kind));
            assert_eq!(unpacked, samples, "{kind}");
            let records = samples.len() * header(kind).record();
            assert!(
                bytes.len() * 6 < records,
                "{kind}: {} bytes packed for {records} bytes of records",
                bytes.len()
            );
        }
    }

    /// Positions that do not follow one another (shuffled, thinned as a dedup leaves
    /// them, labels of every kind, results that are not the game's), and a file of the
    /// first format, unpack to themselves too.
    #[test]
    fn any_positions_unpack_to_themselves() {
        let mut samples = result_games(GameKind::STANDARD, 7, 10);
        // Thinned: every third position gone.
        let mut k = 0;
        samples.retain(|_| {
            k += 1;
            k % 3 != 0
        });
        // Labels of every kind, one result off by a disc, an unlabelled position with a score.
        samples[1].label = Label::None;
        samples[1].score = 0;
        samples[2].label = Label::Exact;
        samples[2].score = -5;
        samples[5].label = Label::None;
        samples[5].score = 17;
        if let Some(result) = samples.iter_mut().rev().find(|s| s.label == Label::Result) {
            result.score += DISC as i16;
        }
        // Games out of order, and one game's positions split.
        samples.swap(3, 40);
        samples.rotate_left(25);
        let legacy = SampleHeader::whole(GameKind::STANDARD);
        for header in [header(GameKind::STANDARD), legacy] {
            let (bytes, _) = pack(header, &samples);
            let (found, unpacked) = unpack(&bytes).unwrap();
            assert_eq!(found, header);
            assert_eq!(unpacked, samples);
        }
        // An empty file too.
        let (bytes, blocks) = pack(header(GameKind::STANDARD), &[]);
        assert_eq!(blocks, 0);
        assert_eq!(unpack(&bytes).unwrap().1, []);
    }

    /// Every byte of a packed file changed, and every length cut, is refused with an
    /// error: never a panic, never other positions (a few bits of the compressed stream
    /// change nothing it unpacks to: the checksum is of what it unpacks to).
    #[test]
    fn damaged_files_are_refused() {
        let samples = result_games(GameKind::STANDARD, 8, 2);
        let (bytes, _) = pack(header(GameKind::STANDARD), &samples);
        for at in 0..bytes.len() {
            for flip in [0x01, 0x80, 0xff] {
                let mut damaged = bytes.clone();
                damaged[at] ^= flip;
                match unpack(&damaged) {
                    Err(_) => {}
                    Ok((found, read)) => {
                        let expected = (header(GameKind::STANDARD), samples.clone());
                        assert_eq!((found, read), expected, "byte {at} ^ {flip:#x}");
                    }
                }
            }
        }
        for length in 0..bytes.len() {
            assert!(unpack(&bytes[..length]).is_err(), "cut at {length}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(
            unpack(&longer),
            Err(UnpackError::Packed(PackError::Length))
        ));
    }

    /// Blocks that match their checksum but say what cannot be (made by hand, as a packer
    /// with a fault would) are refused.
    #[test]
    fn impossible_blocks_are_refused() {
        let header = header(GameKind::STANDARD);
        let start = Sample::standard(0x0000_0008_1000_0000, 0x0000_0010_0800_0000, 4);
        let discs = &start.to_bytes()[..16];
        let block = |count: u64, links: &[u8], end: u8, labels: &[u8]| {
            let mut out = Vec::new();
            put_game(&mut out, 4, 0);
            put_varint(&mut out, count);
            out.extend_from_slice(discs);
            out.extend_from_slice(links);
            out.push(end);
            out.extend_from_slice(labels);
            out
        };
        let refused = |blocks: Vec<u8>, positions: u64, why: &str| {
            let file = file_bytes(header, positions, &blocks);
            match unpack(&file) {
                Err(UnpackError::Packed(PackError::Damaged(said))) => {
                    assert_eq!(said, why);
                }
                other => panic!("{why}: {other:?}"),
            }
        };
        // Four moves from the start: a fifth place is not one.
        refused(
            block(2, &[4], NONE, &[1, 0, 0, 0, 0, 1, 0, 0, 0, 0]),
            2,
            "a move that is not legal",
        );
        refused(
            block(1, &[], 0, &[0]),
            1,
            "an end that does not end the game",
        );
        refused(block(1, &[], NONE, &[0]), 1, "a result without an end");
        refused(block(1, &[], NONE, &[2]), 1, "an unknown label code");
        refused(
            block(1, &[], NONE, &[1, 0, 0, 9, 0]),
            1,
            "an unknown kind of label",
        );
        refused(
            block(1, &[], NONE, &[1, 0, 0, 0, 0]),
            2,
            "fewer positions than the header says",
        );
        refused(
            block(1, &[], NONE, &[1, 0, 0, 0, 0]),
            0,
            "more positions than the header says",
        );
        refused(
            block(1 << 40, &[], NONE, &[]),
            1,
            "a block's count of positions",
        );
        let mut overlapping = block(1, &[], NONE, &[1, 0, 0, 0, 0]);
        overlapping[2..10].copy_from_slice(&u64::MAX.to_le_bytes());
        refused(overlapping, 1, "a first position");
        // More positions than its 24 bytes can hold: refused before it is unpacked.
        let file = file_bytes(header, 13, &block(1, &[], NONE, &[1, 0, 0, 0, 0]));
        assert!(matches!(
            unpack(&file),
            Err(UnpackError::Packed(PackError::Count { positions: 13, .. }))
        ));
        // A game number below zero.
        let mut below = Vec::new();
        put_varint(&mut below, 1);
        refused(below, 0, "a game number out of range");
    }

    /// The data kept in the repository (`data/selfplay-8x8`) is whole: every packed file
    /// reads (its lengths and checksum) as positions of standard Othello, the shards are
    /// finished shards of one run of 20, and the test set unpacks to its 106,102 positions,
    /// each labelled.
    #[test]
    fn the_kept_data_is_whole() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/selfplay-8x8");
        let mut shards = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|extension| extension != "pack") {
                continue;
            }
            let packed = Packed::from_bytes(&std::fs::read(&path).unwrap())
                .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            let header = packed.header();
            assert_eq!(header.kind, GameKind::STANDARD, "{}", path.display());
            if path.file_name().unwrap() == "test.pack" {
                let mut samples = Vec::new();
                packed
                    .unpack(|block| {
                        samples.extend_from_slice(block);
                        Ok(())
                    })
                    .unwrap();
                assert_eq!(samples.len(), 106_102);
                assert!(samples.iter().all(|sample| sample.label != Label::None));
            } else {
                assert!(header.complete, "{}", path.display());
                assert_eq!(header.shard.count, 20, "{}", path.display());
                assert_eq!(
                    path.file_name().unwrap().to_string_lossy(),
                    format!("labelled-{}.pack", header.shard.index)
                );
                shards.push(header.run);
            }
        }
        shards.dedup();
        assert!(shards.len() <= 1, "the shards of one run");
    }
}
