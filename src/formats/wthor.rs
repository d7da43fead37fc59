//! WTHOR, the French Othello federation's game database files: games (`.wtb`), players
//! (`.JOU`) and tournaments (`.TRN`), each a 16-byte header and fixed-size records in
//! little-endian order.
//!
//! Every field is kept as read, unknown bytes included (the creation date, the reserved
//! byte, whatever follows a name's terminating zero, a game's unused move bytes), so that a
//! file read and written again is the same file, byte for byte. What a file holds is checked
//! only as far as its layout goes (a size, a record count); what its games mean (legal moves,
//! known players) is [`WthorGame::record`]'s business.
//!
//! Games on 8 × 8 take 68 bytes (60 moves), on 10 × 10 104 bytes (96 moves); a move is coded
//! `10 × row + column`, rows and columns counted from 1 (`11` is a1, `88` h8; on 10 × 10
//! `110` is j10), `0` after the last move; passes are not written.
//!
//! ```
//! use othello::wthor::{WthorGames, WthorNames};
//! use othello::{MoveList, Record, Setup, Shape, Variant};
//!
//! let mut record = Record::new(Variant::Full, Setup::standard(Shape::STANDARD));
//! record.moves = "f5d6c3d3c4".parse::<MoveList>()?.0;
//! let mut games = WthorGames::new(Shape::STANDARD, 2026)?;
//! games.push(&record, 0, 1, 2)?;
//! let bytes = games.to_bytes();
//! assert_eq!(bytes.len(), 16 + 68);
//! let read = WthorGames::from_bytes(&bytes)?;
//! assert_eq!(read.to_bytes(), bytes, "byte for byte");
//! assert_eq!(read.games[0].record(Shape::STANDARD)?.moves, record.moves);
//!
//! let players = WthorNames::players(["ann", "bob", "cid"])?;
//! assert_eq!(WthorNames::from_bytes(&players.to_bytes(), 20)?.name(2), Some("cid".into()));
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use thiserror::Error;

use crate::{Color, Record, Setup, Shape, Square, Variant};

/// The header's size, in bytes.
pub const HEADER: usize = 16;

/// A player's record in a `.JOU` file, in bytes (the name, ended by a zero).
pub const PLAYER_BYTES: usize = 20;

/// A tournament's record in a `.TRN` file, in bytes.
pub const TOURNAMENT_BYTES: usize = 26;

/// What a WTHOR file's bytes do not fit.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum WthorError {
    /// Shorter than a header.
    #[error("a WTHOR file starts with a 16-byte header; this one has {0} bytes")]
    TooShort(usize),
    /// A board size byte other than 0, 8 or 10.
    #[error("a WTHOR game file is for 8 x 8 (0 or 8) or 10 x 10 (10), not board size {0}")]
    BoardSize(u8),
    /// The records are not the number the header says.
    #[error(
        "the header says {declared} record{} of {size} bytes, but {bytes} bytes follow it",
        if *declared == 1 { "" } else { "s" }
    )]
    Records {
        /// The header's count.
        declared: u64,
        /// Each record's size.
        size: usize,
        /// The bytes after the header.
        bytes: usize,
    },
    /// More records than the format can count.
    #[error("a WTHOR file holds at most {max} records, not {count}")]
    TooMany {
        /// How many were given.
        count: usize,
        /// The format's limit.
        max: u64,
    },
    /// A shape WTHOR has no games for.
    #[error("WTHOR keeps 8 x 8 and 10 x 10 games, not {0}")]
    Shape(Shape),
    /// A game that is not standard Othello from the standard start, or too long.
    #[error("WTHOR keeps standard Othello games from the standard start, most discs winning")]
    NotStandard,
    /// A name that does not fit its record, or has characters Latin-1 lacks.
    #[error("{name:?} does not fit a {size}-byte WTHOR name (Latin-1, with its ending zero)")]
    Name {
        /// The name.
        name: String,
        /// The record's size.
        size: usize,
    },
    /// A move byte that names no square of the board.
    #[error("game move {ply}: byte {code} names no square of {shape}")]
    BadSquare {
        /// The move's number, from 1.
        ply: usize,
        /// The byte.
        code: u8,
        /// The board.
        shape: Shape,
    },
    /// A score byte more than the board's squares.
    #[error("a score of {discs} discs on {shape}, which has {cells} squares")]
    Score {
        /// The byte.
        discs: u8,
        /// The board.
        shape: Shape,
        /// Its squares.
        cells: usize,
    },
    /// A move that is not legal when it comes.
    #[error("game move {ply}: {square} is not legal")]
    Illegal {
        /// The move's number, from 1.
        ply: usize,
        /// The move.
        square: Square,
    },
}

/// A WTHOR file's header, every byte of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WthorHeader {
    /// When the file was made: century, year in the century, month, day.
    pub created: [u8; 4],
    /// The number of games (`.wtb`).
    pub games: u32,
    /// The number of names (`.JOU`, `.TRN`).
    pub names: u16,
    /// The year the games were played.
    pub year: u16,
    /// The board's size: 0 or 8 for 8 × 8, 10 for 10 × 10.
    pub board: u8,
    /// 0 for games, 1 for solitaires.
    pub kind: u8,
    /// The depth from which the theoretical scores are exact.
    pub depth: u8,
    /// Reserved.
    pub reserved: u8,
}

impl WthorHeader {
    fn read(bytes: &[u8]) -> Result<WthorHeader, WthorError> {
        let header = bytes
            .get(..HEADER)
            .ok_or(WthorError::TooShort(bytes.len()))?;
        let u16_at = |at: usize| u16::from_le_bytes([header[at], header[at + 1]]);
        Ok(WthorHeader {
            created: [header[0], header[1], header[2], header[3]],
            games: u32::from_le_bytes([header[4], header[5], header[6], header[7]]),
            names: u16_at(8),
            year: u16_at(10),
            board: header[12],
            kind: header[13],
            depth: header[14],
            reserved: header[15],
        })
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.created);
        out.extend_from_slice(&self.games.to_le_bytes());
        out.extend_from_slice(&self.names.to_le_bytes());
        out.extend_from_slice(&self.year.to_le_bytes());
        out.extend_from_slice(&[self.board, self.kind, self.depth, self.reserved]);
    }

    /// A header for `year`'s records, made today (by the system's clock, in UTC).
    fn new(year: u16) -> WthorHeader {
        let days = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_secs() / 86_400);
        let (year_now, month, day) = civil_date(days);
        WthorHeader {
            created: [
                (year_now / 100) as u8,
                (year_now % 100) as u8,
                month as u8,
                day as u8,
            ],
            games: 0,
            names: 0,
            year,
            board: 0,
            kind: 0,
            depth: 0,
            reserved: 0,
        }
    }
}

/// The date `days` after 1970-01-01 (the proleptic Gregorian calendar).
fn civil_date(days: u64) -> (u64, u64, u64) {
    // Howard Hinnant's days-to-civil, for days since the epoch that are not negative.
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// The records after `header`: exactly `count` of `size` bytes.
fn records(
    bytes: &[u8],
    count: u64,
    size: usize,
) -> Result<std::slice::Chunks<'_, u8>, WthorError> {
    let body = &bytes[HEADER..];
    if body.len() as u64 != count * size as u64 {
        return Err(WthorError::Records {
            declared: count,
            size,
            bytes: body.len(),
        });
    }
    Ok(body.chunks(size))
}

/// A `.wtb` file: its header and its games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WthorGames {
    /// The header (its game count is the games' when written; [`WthorGames::push`] keeps it
    /// so).
    pub header: WthorHeader,
    /// The games, in the file's order.
    pub games: Vec<WthorGame>,
}

/// One game of a `.wtb` file, as its bytes say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WthorGame {
    /// Its tournament's number in the `.TRN` file.
    pub tournament: u16,
    /// Black's number in the `.JOU` file.
    pub black: u16,
    /// White's.
    pub white: u16,
    /// Black's discs at the end, the empty squares counted for the winner (halved in a
    /// draw).
    pub black_discs: u8,
    /// Black's discs with perfect play from the header's depth on.
    pub theoretical: u8,
    /// The move bytes, all of them (60 on 8 × 8, 96 on 10 × 10; zeros after the last).
    pub moves: Vec<u8>,
}

/// The shape a header's board byte names.
fn shape_of(board: u8) -> Result<Shape, WthorError> {
    let side = match board {
        0 | 8 => 8,
        10 => 10,
        other => return Err(WthorError::BoardSize(other)),
    };
    Shape::new(side, side).map_err(|_| WthorError::BoardSize(board))
}

/// The move bytes a game of `shape` has.
fn move_bytes(shape: Shape) -> usize {
    usize::from(shape.rows()) * usize::from(shape.columns()) - 4
}

impl WthorGames {
    /// An empty file of games on `shape` (8 × 8 or 10 × 10) played in `year`, made today.
    ///
    /// # Errors
    /// [`WthorError::Shape`] for another board.
    pub fn new(shape: Shape, year: u16) -> Result<WthorGames, WthorError> {
        let board = match (shape.rows(), shape.columns()) {
            (8, 8) => 8,
            (10, 10) => 10,
            _ => return Err(WthorError::Shape(shape)),
        };
        Ok(WthorGames {
            header: WthorHeader {
                board,
                ..WthorHeader::new(year)
            },
            games: Vec::new(),
        })
    }

    /// The board its games are played on.
    ///
    /// # Errors
    /// [`WthorError::BoardSize`] for a header naming no board WTHOR has.
    pub fn shape(&self) -> Result<Shape, WthorError> {
        shape_of(self.header.board)
    }

    /// Reads a `.wtb` file's bytes. Any bytes of the right size read; whether each game
    /// replays is [`WthorGame::record`]'s to say.
    ///
    /// # Errors
    /// [`WthorError`] for a short file, an unknown board size, or records that are not
    /// the number the header says.
    pub fn from_bytes(bytes: &[u8]) -> Result<WthorGames, WthorError> {
        let header = WthorHeader::read(bytes)?;
        let shape = shape_of(header.board)?;
        let moves = move_bytes(shape);
        let games = records(bytes, u64::from(header.games), 8 + moves)?
            .map(|game| WthorGame {
                tournament: u16::from_le_bytes([game[0], game[1]]),
                black: u16::from_le_bytes([game[2], game[3]]),
                white: u16::from_le_bytes([game[4], game[5]]),
                black_discs: game[6],
                theoretical: game[7],
                moves: game[8..].to_vec(),
            })
            .collect();
        Ok(WthorGames { header, games })
    }

    /// The file's bytes (the header's game count is the number of games).
    pub fn to_bytes(&self) -> Vec<u8> {
        let header = WthorHeader {
            games: u32::try_from(self.games.len()).unwrap_or(u32::MAX),
            ..self.header
        };
        let mut out = Vec::with_capacity(HEADER + self.games.len() * 68);
        header.write(&mut out);
        for game in &self.games {
            out.extend_from_slice(&game.tournament.to_le_bytes());
            out.extend_from_slice(&game.black.to_le_bytes());
            out.extend_from_slice(&game.white.to_le_bytes());
            out.extend_from_slice(&[game.black_discs, game.theoretical]);
            out.extend_from_slice(&game.moves);
        }
        out
    }

    /// Adds `record` (standard Othello from the standard start on this file's board,
    /// played to its end or not) as a game of `tournament` between players `black` and
    /// `white`; its score is Black's discs where it stopped (the empty squares counted for
    /// whoever has more discs), also as the theoretical score.
    ///
    /// # Errors
    /// [`WthorError::NotStandard`] for another game; [`WthorError::Illegal`] for a move
    /// that does not replay.
    pub fn push(
        &mut self,
        record: &Record,
        tournament: u16,
        black: u16,
        white: u16,
    ) -> Result<(), WthorError> {
        self.push_won(record, [tournament, black, white], None)
    }

    /// [`push`](WthorGames::push) for a game whose result is not only its board's: `won`
    /// is `Some(winner)` (`Some(None)` a draw) for a game that ended otherwise (resigned,
    /// lost on time), scored by [`score`]. `numbers` are the tournament's, Black's and
    /// White's.
    ///
    /// # Errors
    /// Those of [`push`](WthorGames::push).
    pub fn push_won(
        &mut self,
        record: &Record,
        numbers: [u16; 3],
        won: Option<Option<Color>>,
    ) -> Result<(), WthorError> {
        let [tournament, black, white] = numbers;
        let shape = self.shape()?;
        if record.variant != Variant::Full
            || record.setup != Setup::standard(shape)
            || record.moves.len() > move_bytes(shape)
        {
            return Err(WthorError::NotStandard);
        }
        let game = replay(record, shape)?;
        let mut moves: Vec<u8> = record
            .moves
            .iter()
            .map(|square| 10 * (square.row() + 1) + square.column() + 1)
            .collect();
        moves.resize(move_bytes(shape), 0);
        let (black_discs, white_discs) = (game.count(Color::Black), game.count(Color::White));
        let winner = won.unwrap_or(match black_discs.cmp(&white_discs) {
            std::cmp::Ordering::Greater => Some(Color::Black),
            std::cmp::Ordering::Less => Some(Color::White),
            std::cmp::Ordering::Equal => None,
        });
        let discs = score([black_discs, white_discs], shape.cells() as u32, winner) as u8;
        let games = u32::try_from(self.games.len() + 1).map_err(|_| WthorError::TooMany {
            count: self.games.len() + 1,
            max: u64::from(u32::MAX),
        })?;
        self.games.push(WthorGame {
            tournament,
            black,
            white,
            black_discs: discs,
            theoretical: discs,
            moves,
        });
        self.header.games = games;
        Ok(())
    }
}

/// Black's discs in `game` as the federation counts them: the empty squares go to whoever
/// has more discs, halved in a draw.
fn black_score(game: &crate::AnyGame) -> u32 {
    let discs = [game.count(Color::Black), game.count(Color::White)];
    let winner = match discs[0].cmp(&discs[1]) {
        std::cmp::Ordering::Greater => Some(Color::Black),
        std::cmp::Ordering::Less => Some(Color::White),
        std::cmp::Ordering::Equal => None,
    };
    score(discs, game.board().shape().cells() as u32, winner)
}

/// Black's score, as a WTHOR game's score byte holds it, for a game that stopped with
/// `discs` (Black's, White's) on a board of `cells` squares and was won by `winner`
/// (`None`: a draw). The empty squares go to the winner, halved in a draw; a winner still
/// not ahead then (one who won on time or by resignation while behind) is given the whole
/// board, so that the score always names the winner.
///
/// ```
/// use othello::{Color, wthor::score};
/// assert_eq!(score([40, 20], 64, Some(Color::Black)), 44); // 44-20: 4 empties to Black
/// assert_eq!(score([40, 20], 64, Some(Color::White)), 0); // White won on time: 0-64
/// assert_eq!(score([30, 30], 64, None), 32);
/// ```
pub fn score(discs: [u32; 2], cells: u32, winner: Option<Color>) -> u32 {
    let [black, white] = discs;
    let empty = cells.saturating_sub(black + white);
    match winner {
        Some(Color::Black) if black + empty > white => black + empty,
        Some(Color::Black) => cells,
        Some(Color::White) if white + empty > black => black,
        Some(Color::White) => 0,
        None => black + empty / 2,
    }
}

/// Replays `record`'s moves, naming the first that is not legal.
fn replay(record: &Record, shape: Shape) -> Result<crate::AnyGame, WthorError> {
    let mut game = crate::AnyGame::new(Variant::Full, Setup::standard(shape));
    for (ply, &square) in record.moves.iter().enumerate() {
        game.play(square).map_err(|_| WthorError::Illegal {
            ply: ply + 1,
            square,
        })?;
    }
    Ok(game)
}

impl WthorGame {
    /// The game as a record of standard Othello on `shape` (the file's): its moves up to
    /// the first zero byte, checked by replaying them; no players (their names are in the
    /// `.JOU` file).
    ///
    /// # Errors
    /// [`WthorError::BadSquare`] for a byte that names no square, [`WthorError::Illegal`]
    /// for a move that is not legal then.
    pub fn record(&self, shape: Shape) -> Result<Record, WthorError> {
        let mut record = Record::new(Variant::Full, Setup::standard(shape));
        for (ply, &code) in self.moves.iter().enumerate() {
            if code == 0 {
                break;
            }
            let bad = || WthorError::BadSquare {
                ply: ply + 1,
                code,
                shape,
            };
            // code = 10 (row + 1) + column + 1, rows and columns from 0 here.
            let (row, column) = (((code - 1) / 10).wrapping_sub(1), (code - 1) % 10);
            if row >= shape.rows() || column >= shape.columns() {
                return Err(bad());
            }
            record.moves.push(Square::new(row, column));
        }
        replay(&record, shape)?;
        Ok(record)
    }

    /// The game as a record (see [`WthorGame::record`]) and Black's disc difference at its
    /// end: the board's (the empty squares for the winner) when the moves play it to the
    /// end, else its score byte's (a game resigned or lost on time).
    ///
    /// # Errors
    /// Those of [`WthorGame::record`]; [`WthorError::Score`] for a score byte of more
    /// discs than the board has squares.
    pub fn result(&self, shape: Shape) -> Result<(Record, i32), WthorError> {
        let record = self.record(shape)?;
        let cells = shape.cells();
        if usize::from(self.black_discs) > cells {
            return Err(WthorError::Score {
                discs: self.black_discs,
                shape,
                cells,
            });
        }
        let game = replay(&record, shape)?;
        let black = if game.is_over() {
            black_score(&game) as i32
        } else {
            i32::from(self.black_discs)
        };
        Ok((record, 2 * black - cells as i32))
    }
}

/// A `.JOU` (players) or `.TRN` (tournaments) file: its header and its names, each record
/// as its bytes are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WthorNames {
    /// The header (its name count is the records' when written).
    pub header: WthorHeader,
    /// Each record's bytes ([`PLAYER_BYTES`] or [`TOURNAMENT_BYTES`] each).
    pub records: Vec<Vec<u8>>,
}

impl WthorNames {
    /// Reads a file of names whose records are `size` bytes ([`PLAYER_BYTES`] for `.JOU`,
    /// [`TOURNAMENT_BYTES`] for `.TRN`).
    ///
    /// # Errors
    /// [`WthorError`] for a short file or records that are not the number the header says.
    pub fn from_bytes(bytes: &[u8], size: usize) -> Result<WthorNames, WthorError> {
        let header = WthorHeader::read(bytes)?;
        let records = records(bytes, u64::from(header.names), size.max(1))?
            .map(<[u8]>::to_vec)
            .collect();
        Ok(WthorNames { header, records })
    }

    /// A `.JOU` file of these players (numbered from 0 in this order), made today.
    ///
    /// # Errors
    /// [`WthorError::Name`] for a name longer than 19 Latin-1 characters or with others.
    pub fn players<S: AsRef<str>>(
        names: impl IntoIterator<Item = S>,
    ) -> Result<WthorNames, WthorError> {
        WthorNames::of(names, PLAYER_BYTES)
    }

    /// A `.TRN` file of these tournaments (numbered from 0 in this order), made today.
    ///
    /// # Errors
    /// [`WthorError::Name`] for a name longer than 25 Latin-1 characters or with others.
    pub fn tournaments<S: AsRef<str>>(
        names: impl IntoIterator<Item = S>,
    ) -> Result<WthorNames, WthorError> {
        WthorNames::of(names, TOURNAMENT_BYTES)
    }

    fn of<S: AsRef<str>>(
        names: impl IntoIterator<Item = S>,
        size: usize,
    ) -> Result<WthorNames, WthorError> {
        let records = names
            .into_iter()
            .map(|name| {
                let name = name.as_ref();
                let mut record: Vec<u8> = name
                    .chars()
                    .map(|c| u8::try_from(u32::from(c)).ok().filter(|&byte| byte != 0))
                    .collect::<Option<_>>()
                    .filter(|bytes: &Vec<u8>| bytes.len() < size)
                    .ok_or_else(|| WthorError::Name {
                        name: name.to_owned(),
                        size,
                    })?;
                record.resize(size, 0);
                Ok(record)
            })
            .collect::<Result<Vec<_>, _>>()?;
        if records.len() > usize::from(u16::MAX) {
            return Err(WthorError::TooMany {
                count: records.len(),
                max: u64::from(u16::MAX),
            });
        }
        Ok(WthorNames {
            header: WthorHeader {
                names: records.len() as u16,
                ..WthorHeader::new(0)
            },
            records,
        })
    }

    /// The file's bytes (the header's name count is the number of records).
    pub fn to_bytes(&self) -> Vec<u8> {
        let header = WthorHeader {
            names: u16::try_from(self.records.len()).unwrap_or(u16::MAX),
            ..self.header
        };
        let mut out = Vec::new();
        header.write(&mut out);
        for record in &self.records {
            out.extend_from_slice(record);
        }
        out
    }

    /// Name `index` (as a game numbers it), up to its ending zero, read as Latin-1.
    pub fn name(&self, index: u16) -> Option<String> {
        let record = self.records.get(usize::from(index))?;
        let end = record
            .iter()
            .position(|&byte| byte == 0)
            .unwrap_or(record.len());
        Some(record[..end].iter().map(|&byte| char::from(byte)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MoveList;

    fn record(moves: &str, shape: Shape) -> Record {
        let mut record = Record::new(Variant::Full, Setup::standard(shape));
        record.moves = moves.parse::<MoveList>().unwrap().0;
        record
    }

    #[test]
    fn games_round_trip_byte_for_byte_on_both_boards() {
        for (shape, moves, size) in [
            (Shape::STANDARD, "f5d6c3d3c4f4f6f3e6e7", 68),
            (Shape::new(10, 10).unwrap(), "g6e7d4", 104),
        ] {
            let mut games = WthorGames::new(shape, 1999).unwrap();
            games.push(&record(moves, shape), 3, 1, 2).unwrap();
            games.push(&record("", shape), 0, 2, 1).unwrap();
            let bytes = games.to_bytes();
            assert_eq!(bytes.len(), 16 + 2 * size);
            assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().unwrap()), 2);
            assert_eq!(u16::from_le_bytes(bytes[10..12].try_into().unwrap()), 1999);
            let read = WthorGames::from_bytes(&bytes).unwrap();
            assert_eq!(read, games);
            assert_eq!(read.to_bytes(), bytes);
            let game = &read.games[0];
            assert_eq!((game.tournament, game.black, game.white), (3, 1, 2));
            assert_eq!(game.record(shape).unwrap(), record(moves, shape));
            assert_eq!(read.games[1].record(shape).unwrap().moves, []);
        }
        // f5 is row 5, column 6: byte 56; on 10 x 10, g6 is 67 and j10 would be 110.
        let games = WthorGames::from_bytes(&{
            let mut games = WthorGames::new(Shape::STANDARD, 2000).unwrap();
            games.push(&record("f5", Shape::STANDARD), 0, 0, 0).unwrap();
            games.to_bytes()
        })
        .unwrap();
        assert_eq!(games.games[0].moves[..2], [56, 0]);
    }

    #[test]
    fn what_a_file_does_not_fit_is_said() {
        let mut bytes = WthorGames::new(Shape::STANDARD, 2000).unwrap().to_bytes();
        assert_eq!(
            WthorGames::from_bytes(&bytes[..15]),
            Err(WthorError::TooShort(15))
        );
        bytes.push(0);
        assert!(matches!(
            WthorGames::from_bytes(&bytes),
            Err(WthorError::Records {
                declared: 0,
                size: 68,
                bytes: 1
            })
        ));
        bytes.pop();
        bytes[12] = 6;
        assert_eq!(
            WthorGames::from_bytes(&bytes),
            Err(WthorError::BoardSize(6))
        );
        assert_eq!(
            WthorGames::new(Shape::new(6, 6).unwrap(), 2000),
            Err(WthorError::Shape(Shape::new(6, 6).unwrap()))
        );
        // Moves that name no square, or are not legal, read but do not replay.
        let mut game = WthorGame {
            tournament: 0,
            black: 0,
            white: 0,
            black_discs: 32,
            theoretical: 32,
            moves: vec![0; 60],
        };
        for (code, error) in [
            (
                9,
                WthorError::BadSquare {
                    ply: 1,
                    code: 9,
                    shape: Shape::STANDARD,
                },
            ),
            (
                90,
                WthorError::BadSquare {
                    ply: 1,
                    code: 90,
                    shape: Shape::STANDARD,
                },
            ),
            (
                19,
                WthorError::BadSquare {
                    ply: 1,
                    code: 19,
                    shape: Shape::STANDARD,
                },
            ),
            (
                255,
                WthorError::BadSquare {
                    ply: 1,
                    code: 255,
                    shape: Shape::STANDARD,
                },
            ),
            (
                11,
                WthorError::Illegal {
                    ply: 1,
                    square: "a1".parse().unwrap(),
                },
            ),
        ] {
            game.moves[0] = code;
            assert_eq!(game.record(Shape::STANDARD), Err(error), "{code}");
        }
        let mut simple = record("", Shape::STANDARD);
        simple.variant = Variant::Simple;
        let mut games = WthorGames::new(Shape::STANDARD, 2000).unwrap();
        assert_eq!(games.push(&simple, 0, 0, 0), Err(WthorError::NotStandard));
        let illegal = record("a1", Shape::STANDARD);
        assert!(matches!(
            games.push(&illegal, 0, 0, 0),
            Err(WthorError::Illegal { ply: 1, .. })
        ));
    }

    #[test]
    fn a_result_is_the_board_s_at_the_end_else_the_score_byte_s_within_the_board() {
        let mut games = WthorGames::new(Shape::STANDARD, 2000).unwrap();
        // A game played to its end: the first legal move each turn.
        let mut played = crate::AnyGame::new(Variant::Full, Setup::standard(Shape::STANDARD));
        while let Some(square) = played.legal_moves().iter().next() {
            played.play(square).unwrap();
        }
        let mut whole = Record::new(Variant::Full, Setup::standard(Shape::STANDARD));
        whole.moves = played.moves().collect();
        games.push(&whole, 0, 0, 0).unwrap();
        let mut game = games.games[0].clone();
        let board = 2 * i32::from(game.black_discs) - 64;
        assert_eq!(game.result(Shape::STANDARD).unwrap().1, board);
        for byte in [0, 20, 64] {
            game.black_discs = byte;
            assert_eq!(
                game.result(Shape::STANDARD).unwrap().1,
                board,
                "the board decides"
            );
        }
        game.black_discs = 65;
        assert!(matches!(
            game.result(Shape::STANDARD),
            Err(WthorError::Score { discs: 65, .. })
        ));
        // Stopped early (resigned): its byte, 2 x discs - 64.
        let mut stopped = games.games[0].clone();
        stopped.moves[2..].fill(0);
        stopped.black_discs = 20;
        assert_eq!(stopped.result(Shape::STANDARD).unwrap().1, -24);
    }

    #[test]
    fn names_round_trip_with_whatever_follows_their_zero() {
        let players =
            WthorNames::players(["Tamenori Hideshi", "Murakami Takeshi", "Lévy"]).unwrap();
        let bytes = players.to_bytes();
        assert_eq!(bytes.len(), 16 + 3 * PLAYER_BYTES);
        let mut read = WthorNames::from_bytes(&bytes, PLAYER_BYTES).unwrap();
        assert_eq!(read.name(2).as_deref(), Some("Lévy"));
        assert_eq!(read.name(3), None);
        // Bytes after the zero (old files have them) are kept.
        read.records[0][19] = b'x';
        let again = WthorNames::from_bytes(&read.to_bytes(), PLAYER_BYTES).unwrap();
        assert_eq!(again, read);
        assert_eq!(again.name(0).as_deref(), Some("Tamenori Hideshi"));
        assert!(WthorNames::players(["a name far too long for it"]).is_err());
        assert!(WthorNames::players(["日本"]).is_err());
        assert!(WthorNames::tournaments(["Championnat de France 25"]).is_ok());
    }

    #[test]
    fn the_creation_date_is_the_calendar_s() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(19_723), (2024, 1, 1));
        assert_eq!(civil_date(20_515), (2026, 3, 3));
        assert_eq!(civil_date(11_016), (2000, 2, 29));
    }
}
