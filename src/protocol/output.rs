//! The grader's output text. Every byte the protocol prints is written here and nowhere else.

use std::io::{BufWriter, Write};

use crate::{Board, Color, Outcome, Variant};

use super::ProtocolError;

/// Output buffer size: large enough that a scripted file is answered in few writes.
const BUFFER_LEN: usize = 64 * 1024;

/// Writes protocol lines into a buffer that is flushed only on request.
pub(super) struct Printer<W: Write> {
    out: BufWriter<W>,
}

impl<W: Write> Printer<W> {
    pub(super) fn new(out: W) -> Printer<W> {
        Printer {
            out: BufWriter::with_capacity(BUFFER_LEN, out),
        }
    }

    /// `FULL` or `SIMPLE`, the first line of every run.
    pub(super) fn rules(&mut self, variant: Variant) -> Result<(), ProtocolError> {
        let line: &[u8] = match variant {
            Variant::Full => b"FULL\n",
            Variant::Simple => b"SIMPLE\n",
        };
        self.bytes(line)
    }

    /// The state block: `B: <n>  W: <n>`, then the board rows.
    pub(super) fn state(&mut self, board: &Board) -> Result<(), ProtocolError> {
        writeln!(
            self.out,
            "{}: {}  {}: {}",
            Color::Black.letter(),
            board.count(Color::Black),
            Color::White.letter(),
            board.count(Color::White)
        )
        .and_then(|()| board.write_text(&mut self.out))
        .map_err(ProtocolError::Write)
    }

    /// `TURN: B` or `TURN: W`.
    pub(super) fn turn(&mut self, side: Color) -> Result<(), ProtocolError> {
        self.bytes(match side {
            Color::Black => b"TURN: B\n",
            Color::White => b"TURN: W\n",
        })
    }

    /// `VALID`: the move was played.
    pub(super) fn valid(&mut self) -> Result<(), ProtocolError> {
        self.bytes(b"VALID\n")
    }

    /// `INVALID`: the move line was refused.
    pub(super) fn invalid(&mut self) -> Result<(), ProtocolError> {
        self.bytes(b"INVALID\n")
    }

    /// `WINNER: B`, `WINNER: W` or `WINNER: NONE`.
    pub(super) fn winner(&mut self, outcome: Outcome) -> Result<(), ProtocolError> {
        self.bytes(match outcome {
            Outcome::Win(Color::Black) => b"WINNER: B\n",
            Outcome::Win(Color::White) => b"WINNER: W\n",
            Outcome::Draw => b"WINNER: NONE\n",
        })
    }

    /// Sends everything written so far.
    pub(super) fn flush(&mut self) -> Result<(), ProtocolError> {
        self.out.flush().map_err(ProtocolError::Write)
    }

    fn bytes(&mut self, bytes: &[u8]) -> Result<(), ProtocolError> {
        self.out.write_all(bytes).map_err(ProtocolError::Write)
    }
}
