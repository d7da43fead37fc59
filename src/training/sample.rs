//! Training positions and the file they stream to and from.
//!
//! # The samples file
//!
//! `OTHSAMP1` (8 bytes), then one record of 24 bytes a position, little-endian: the discs
//! of the side to move (8), of the opponent (8), the number of the game it comes from (4),
//! its label in evaluation units (2, signed), the kind of label (1: 0 none yet, 1 exact, 2
//! searched) and the search depth (1). Fixed-size records let a long step resume where it
//! stopped: the records already written are counted, and a last one cut short is dropped.

use std::{
    fs::{File, OpenOptions},
    io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write},
    path::Path,
};

/// The file's first bytes.
pub(crate) const MAGIC: &[u8; 8] = b"OTHSAMP1";

/// Bytes a record.
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
}

/// One training position, seen from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Discs of the side to move (bit `row * 8 + column`).
    pub player: u64,
    /// Discs of the opponent.
    pub opponent: u64,
    /// The game it comes from: positions of one game are alike, so a held-out set is made
    /// of whole games.
    pub game: u32,
    /// The label, in evaluation units (`DISC` a disc), for the side to move.
    pub score: i16,
    /// How the label was found.
    pub label: Label,
}

impl Sample {
    /// Empty squares.
    pub fn empties(&self) -> u32 {
        64 - (self.player | self.opponent).count_ones()
    }

    /// The record's bytes.
    pub(crate) fn to_bytes(self) -> [u8; RECORD] {
        let mut bytes = [0; RECORD];
        bytes[..8].copy_from_slice(&self.player.to_le_bytes());
        bytes[8..16].copy_from_slice(&self.opponent.to_le_bytes());
        bytes[16..20].copy_from_slice(&self.game.to_le_bytes());
        bytes[20..22].copy_from_slice(&self.score.to_le_bytes());
        (bytes[22], bytes[23]) = match self.label {
            Label::None => (0, 0),
            Label::Exact => (1, 0),
            Label::Searched(depth) => (2, depth),
        };
        bytes
    }

    /// A record from its bytes; `None` if it is not one (discs on one square twice, an
    /// unknown kind of label).
    pub(crate) fn from_bytes(bytes: &[u8; RECORD]) -> Option<Sample> {
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let (player, opponent) = (word(0), word(8));
        let label = match (bytes[22], bytes[23]) {
            (0, 0) => Label::None,
            (1, 0) => Label::Exact,
            (2, depth) => Label::Searched(depth),
            _ => return None,
        };
        (player & opponent == 0).then_some(Sample {
            player,
            opponent,
            game: u32::from_le_bytes(bytes[16..20].try_into().expect("4 bytes")),
            score: i16::from_le_bytes([bytes[20], bytes[21]]),
            label,
        })
    }
}

/// Reads the samples of a file, one at a time.
#[derive(Debug)]
pub struct SampleReader {
    input: BufReader<File>,
}

impl SampleReader {
    /// Opens `path`, checking its first bytes. A header cut short (a file stopped as it
    /// was begun) is a file with no samples yet.
    ///
    /// # Errors
    /// If it cannot be read or is not a samples file.
    #[cfg(test)]
    pub(crate) fn open(path: &Path) -> io::Result<SampleReader> {
        SampleReader::from_file(File::open(path)?, path)
    }

    /// Reads the samples of `file`, already open (checked to be a regular file, say) and
    /// named `path` in errors, checking its first bytes. A header cut short (a file stopped
    /// as it was begun) is a file with no samples yet.
    ///
    /// # Errors
    /// If it cannot be read or is not a samples file.
    pub fn from_file(file: File, path: &Path) -> io::Result<SampleReader> {
        let mut input = BufReader::with_capacity(1 << 20, file);
        let mut magic = Vec::with_capacity(MAGIC.len());
        (&mut input)
            .take(MAGIC.len() as u64)
            .read_to_end(&mut magic)?;
        if !MAGIC.starts_with(&magic) {
            return Err(not_samples(path));
        }
        Ok(SampleReader { input })
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
        let mut samples = Vec::new();
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
        let mut bytes = [0; RECORD];
        let mut filled = 0;
        while filled < RECORD {
            match self.input.read(&mut bytes[filled..])? {
                0 => return Ok(None),
                n => filled += n,
            }
        }
        Sample::from_bytes(&bytes)
            .map(Some)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "a damaged sample record"))
    }
}

fn not_samples(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{} is not a samples file (OTHSAMP1)", path.display()),
    )
}

/// Appends samples to a file.
#[derive(Debug)]
pub struct SampleWriter {
    output: BufWriter<File>,
}

impl SampleWriter {
    /// Opens `path` to append to it, creating it if need be; returns the writer and the
    /// whole records already there (a record cut short at the end is dropped).
    ///
    /// # Errors
    /// If it cannot be opened or is not a samples file.
    pub fn append(path: &Path) -> io::Result<(SampleWriter, u64)> {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        let length = file.metadata()?.len();
        let mut magic = Vec::with_capacity(MAGIC.len());
        (&mut file)
            .take(MAGIC.len() as u64)
            .read_to_end(&mut magic)?;
        if !MAGIC.starts_with(&magic) {
            return Err(not_samples(path));
        }
        // A header cut short is written again whole.
        let records = if length < MAGIC.len() as u64 {
            file.set_len(0)?;
            file.seek(SeekFrom::Start(0))?;
            file.write_all(MAGIC)?;
            0
        } else {
            let records = (length - 8) / RECORD as u64;
            file.set_len(8 + records * RECORD as u64)?;
            records
        };
        file.seek(SeekFrom::End(0))?;
        Ok((
            SampleWriter {
                output: BufWriter::with_capacity(1 << 20, file),
            },
            records,
        ))
    }

    /// Writes `samples`.
    ///
    /// # Errors
    /// If writing fails.
    pub fn write(&mut self, samples: &[Sample]) -> io::Result<()> {
        for sample in samples {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(n: u32) -> Sample {
        Sample {
            player: 0x0000_0008_1000_0000 | u64::from(n),
            opponent: 0x0000_0010_0800_0000,
            game: n,
            score: -(n as i16) * 37,
            label: match n % 3 {
                0 => Label::None,
                1 => Label::Exact,
                _ => Label::Searched(n as u8),
            },
        }
    }

    #[test]
    fn records_round_trip_and_files_resume() {
        for n in 0..20 {
            assert_eq!(Sample::from_bytes(&sample(n).to_bytes()), Some(sample(n)));
        }
        let mut overlapping = sample(1).to_bytes();
        overlapping[8] = 0x01;
        assert_eq!(Sample::from_bytes(&overlapping), None);

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("samples.bin");
        let (mut writer, before) = SampleWriter::append(&path).unwrap();
        assert_eq!(before, 0);
        writer
            .write(&(0..5).map(sample).collect::<Vec<_>>())
            .unwrap();
        writer.flush().unwrap();
        drop(writer);
        // A stop in the middle of a record: the part is dropped on resuming.
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(&[1, 2, 3]).unwrap();
        drop(file);
        let (mut writer, before) = SampleWriter::append(&path).unwrap();
        assert_eq!(before, 5);
        writer.write(&[sample(5)]).unwrap();
        writer.flush().unwrap();
        assert_eq!(
            SampleReader::read_all(&path).unwrap(),
            (0..6).map(sample).collect::<Vec<_>>()
        );
        std::fs::write(&path, b"not samples").unwrap();
        assert!(SampleReader::open(&path).is_err());
        assert!(SampleWriter::append(&path).is_err());
    }
}
