//! Every line the engine writes to the GUI: the protocol's words and number formats are here
//! and nowhere else. Each line is written whole and flushed at once, since a GUI waits for
//! each answer before it sends more (an unflushed answer is the protocol's classic bug).

use std::{
    fmt,
    io::{self, Write},
    time::Duration,
};

use othello::{
    Square,
    engine::{Selectivity, eval::Score},
};

/// The name the engine gives itself (`set myname`): one word, as the GUI reads it.
pub const NAME: &str = "othello";

/// A line for the GUI.
#[derive(Clone, Copy, Debug)]
pub enum Reply<'a> {
    /// `set myname othello`.
    MyName,
    /// `pong <n>`: everything before it answered an older position.
    Pong(i64),
    /// `status <text>`, or a bare `status` to clear the GUI's status line.
    Status(Status<'a>),
    /// `search <pv> <eval> 0 <depth>`: one ranked move of a hint.
    Search {
        /// The line expected, starting with the move; `None` is a pass.
        pv: &'a [Option<Square>],
        /// For the side to move.
        eval: Score,
        /// How deep it was searched.
        depth: Depth,
    },
    /// `book <move> <eval> 0 <depth>`: a move of the opening book, its value by the book
    /// and the depth of the searches the book was made of.
    Book {
        /// The move.
        square: Square,
        /// For the side to move.
        eval: Score,
        /// How deep the book position was searched.
        depth: Depth,
    },
    /// `=== <move>/<eval>/<time>`: the move `go` chose.
    Move {
        /// The move; `None` is a pass.
        square: Option<Square>,
        /// For the side to move.
        eval: Score,
        /// How long the choice took.
        elapsed: Duration,
    },
    /// `nodestats <nodes> <seconds>`: the work of the search just finished.
    NodeStats {
        /// Positions visited.
        nodes: u64,
        /// Time taken.
        elapsed: Duration,
    },
    /// `analysis <movesMade> <eval>`: one position of the game analysed.
    Analysis {
        /// Moves played before the position, passes included (0 is the game's start).
        moves_made: usize,
        /// For the side to move there.
        eval: Score,
    },
    /// `learned`.
    Learned,
}

/// What a `status` line says.
#[derive(Clone, Copy, Debug)]
pub enum Status<'a> {
    /// Nothing: clears the GUI's status line.
    Clear,
    /// `go` is searching.
    Thinking,
    /// `hint` is searching.
    Analyzing,
    /// `analyze` is searching.
    AnalyzingGame,
    /// `hint` or `go` when neither side can move.
    GameOver,
    /// `nboard` with a version other than 2.
    Version(u32),
    /// `set contempt` with a value other than 0.
    ContemptIgnored,
    /// A line that was refused, and why.
    Refused(&'a dyn std::error::Error),
}

/// How deep a ranked move was searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// A midgame search this many plies deep, full width.
    Plies(u32),
    /// A selective search this many plies deep, its cuts sure to this confidence
    /// (`18@95%`, as the strong engines write it).
    Selective(u32, Selectivity),
    /// Solved exactly to the end of the game (`100%`).
    Exact,
}

impl fmt::Display for Depth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Depth::Plies(plies) => write!(f, "{plies}"),
            Depth::Selective(plies, selectivity) => write!(f, "{plies}@{selectivity}"),
            Depth::Exact => f.write_str("100%"),
        }
    }
}

impl fmt::Display for Reply<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Reply::MyName => write!(f, "set myname {NAME}"),
            Reply::Pong(n) => write!(f, "pong {n}"),
            Reply::Status(Status::Clear) => f.write_str("status"),
            Reply::Status(status) => write!(f, "status {status}"),
            Reply::Search { pv, eval, depth } => {
                write!(f, "search {} {} 0 {depth}", Line(pv), Discs(eval))
            }
            Reply::Book {
                square,
                eval,
                depth,
            } => write!(
                f,
                "book {} {} 0 {depth}",
                Line(&[Some(square)]),
                Discs(eval)
            ),
            Reply::Move {
                square,
                eval,
                elapsed,
            } => write!(
                f,
                "=== {}/{}/{}",
                MoveText(square),
                Discs(eval),
                Seconds(elapsed)
            ),
            Reply::NodeStats { nodes, elapsed } => {
                write!(f, "nodestats {nodes} {}", Seconds(elapsed))
            }
            Reply::Analysis { moves_made, eval } => {
                write!(f, "analysis {moves_made} {}", Discs(eval))
            }
            Reply::Learned => f.write_str("learned"),
        }
    }
}

impl fmt::Display for Status<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Clear => Ok(()),
            Status::Thinking => f.write_str("thinking"),
            Status::Analyzing => f.write_str("analyzing"),
            Status::AnalyzingGame => f.write_str("analyzing the game"),
            Status::GameOver => f.write_str("the game is over: no move to search"),
            Status::Version(version) => write!(
                f,
                "this engine speaks NBoard protocol version 2, not {version}; continuing with 2"
            ),
            Status::ContemptIgnored => {
                f.write_str("contempt ignored: this engine values every draw at 0")
            }
            Status::Refused(why) => {
                // One line whatever the message holds: control characters written as escapes.
                for c in why.to_string().chars() {
                    if c.is_control() {
                        write!(f, "{}", c.escape_default())?;
                    } else {
                        write!(f, "{c}")?;
                    }
                }
                Ok(())
            }
        }
    }
}

/// A move as the GUI writes it: `F5`, or `PA` for a pass.
struct MoveText(Option<Square>);

impl fmt::Display for MoveText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(square) => f.write_str(&square.to_string().to_ascii_uppercase()),
            None => f.write_str("PA"),
        }
    }
}

/// A line of moves without spaces, which the GUI reads as one word: `F5-D6-C3`.
struct Line<'a>(&'a [Option<Square>]);

impl fmt::Display for Line<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, &square) in self.0.iter().enumerate() {
            if index > 0 {
                f.write_str("-")?;
            }
            write!(f, "{}", MoveText(square))?;
        }
        Ok(())
    }
}

/// An evaluation in discs to the hundredth, as the protocol's evaluations are (`-1.25`;
/// never `-0.00`).
struct Discs(Score);

impl fmt::Display for Discs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.2}", self.0.discs())
    }
}

/// Seconds to the millisecond.
struct Seconds(Duration);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3}", self.0.as_secs_f64())
    }
}

/// Writes `reply` as one line and flushes it.
///
/// # Errors
/// Whatever writing or flushing `out` returns (a closed pipe included).
pub fn send(out: &mut impl Write, reply: Reply<'_>) -> io::Result<()> {
    writeln!(out, "{reply}")?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(reply: Reply<'_>) -> String {
        let mut out = Vec::new();
        send(&mut out, reply).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn every_line_as_the_protocol_writes_it() {
        let pv = [
            Some("f5".parse().unwrap()),
            None,
            Some("c3".parse().unwrap()),
        ];
        let elapsed = Duration::from_millis(1234);
        assert_eq!(text(Reply::MyName), "set myname othello\n");
        assert_eq!(text(Reply::Pong(7)), "pong 7\n");
        assert_eq!(text(Reply::Status(Status::Clear)), "status\n");
        assert_eq!(text(Reply::Status(Status::Thinking)), "status thinking\n");
        let search = Reply::Search {
            pv: &pv,
            eval: Score(-125),
            depth: Depth::Plies(12),
        };
        assert_eq!(text(search), "search F5-PA-C3 -1.25 0 12\n");
        let exact = Reply::Search {
            pv: &pv[..1],
            eval: Score(3800),
            depth: Depth::Exact,
        };
        assert_eq!(text(exact), "search F5 38.00 0 100%\n");
        let selective = Reply::Search {
            pv: &pv[..1],
            eval: Score(-125),
            depth: Depth::Selective(18, Selectivity::ALL[2]),
        };
        assert_eq!(text(selective), "search F5 -1.25 0 18@95%\n");
        let book = Reply::Book {
            square: "d3".parse().unwrap(),
            eval: Score(-55),
            depth: Depth::Selective(16, Selectivity::ALL[2]),
        };
        assert_eq!(text(book), "book D3 -0.55 0 16@95%\n");
        let chosen = Reply::Move {
            square: None,
            eval: Score(-1),
            elapsed,
        };
        assert_eq!(text(chosen), "=== PA/-0.01/1.234\n");
        let nodes = Reply::NodeStats {
            nodes: 35805,
            elapsed,
        };
        assert_eq!(text(nodes), "nodestats 35805 1.234\n");
        let analysis = Reply::Analysis {
            moves_made: 3,
            eval: Score(0),
        };
        assert_eq!(text(analysis), "analysis 3 0.00\n");
        assert_eq!(text(Reply::Learned), "learned\n");
    }

    #[test]
    fn no_negative_zero_and_no_line_breaks_in_a_status() {
        assert_eq!(Discs(Score(0)).to_string(), "0.00");
        assert_eq!(Discs(Score(-50)).to_string(), "-0.50");
        let why = io::Error::other("bad\nline\u{1b}");
        assert_eq!(
            text(Reply::Status(Status::Refused(&why))),
            "status bad\\nline\\u{1b}\n"
        );
    }
}
