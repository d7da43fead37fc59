//! `othello nboard`: the engine as a GUI such as NBoard drives it, over the NBoard protocol
//! (version 2) on stdin and stdout; the summary is `spec/nboard.md` in the course's shared
//! folder, the reference NTest's `instructions/Protocol.htm`.
//!
//! One thread reads the input and parses each line ([`Command`]); the session runs on the
//! caller's thread, obeys the commands in order, searches, and writes every answer through
//! [`output`] (flushed line by line). Searches run on the session's thread too, so while one
//! runs the input thread keeps reading: a `ping` it reads stops the search through its
//! [`Signal`], and the `pong` is written when the session reaches the `ping`, after the
//! search's answer. A `ping` already read when a search starts stops it at once (its first
//! iteration still finishes, so `go` always names a legal move).
//!
//! Decisions where the protocol leaves the engine free:
//! - **Depth and the endgame.** `set depth D` (default [`DEFAULT_DEPTH`]) is the midgame
//!   depth; the endgame follows the library's rule for a hint at a depth
//!   ([`othello::analysis::rank`]): solve exactly when D reaches the end of the game,
//!   or when the engine's time model says a solve is no slower than a D-ply search
//!   (`solve_time_estimate` ≤ `search_time_estimate`: from about D + 6 empty squares, so 16
//!   at depth 10 and 26 at depth 20), giving the solve four times the search's estimated time
//!   before falling back to the search. Exact lines say `100%`. One rule for `hint`, `go` and
//!   `analyze`, so the GUI's hints and the engine's moves agree.
//! - **The clock.** The GGF's clocks (`TI`, move times) are not used: the library's GGF
//!   reader keeps moves, not times, and a depth is what the GUI asks for. `go` searches to the
//!   depth; a `ping` cuts it short.
//! - **Contempt.** `set contempt` is accepted; the library's search values every draw at 0
//!   and has no setting for it, so a contempt other than 0 gets a `status` saying it is
//!   ignored.
//! - **Passes.** The library's games pass on their own (a side without a move passes at once),
//!   while the GUI writes each pass: after a `move` that leaves the opponent without a move,
//!   the GUI's side to move is the one that must pass until it sends `move PA`, so until then
//!   `go` answers `=== PA/...` and `hint` a `search PA-...` line. A GGF writes every pass, so
//!   after `set game` the sides are as the game stands: a final `B[PA]`/`W[PA]` is applied
//!   (one left out is taken as written: the library's GGF reader keeps moves, not where the
//!   passes were). A `move PA` from a side that has a move is refused.
//! - **`learn`** keeps no book: it answers `learned`. **`analyze`** evaluates every position
//!   of the game, passes included, from the last back to the first, at the set depth.
//! - **Bad lines never stop the session.** A command this engine does not know is ignored,
//!   as the protocol asks; a known command with bad arguments (`set depth x`), a GGF that
//!   does not parse or replay, an illegal move, a line that is not UTF-8 or is longer than
//!   4,096 bytes gets a `status` line saying what is wrong, and the position stays as it
//!   was. The session ends quietly at the end of the input (after answering everything
//!   before it) or when its output is closed.
//!
//! Only 8 × 8 FULL games, the protocol's only kind: GGF holds nothing else.

mod command;
mod output;
#[cfg(test)]
mod tests;

use std::{
    cell::RefCell,
    io::{self, Read, Write},
    sync::{Arc, Mutex, MutexGuard, PoisonError, mpsc},
    thread,
    time::Instant,
};

use command::{Command, CommandError};
use othello::{
    Color, Full, Game, Line, LineReader, MoveError, ReadError, ReplayError, Setup, Shape, Variant,
    WinRule,
    analysis::{Hint, RankOptions, rank_in, table_megabytes},
    engine::{
        Limits, Node8, PlayerSpec, Signal, TranspositionTable,
        book::{Book, BookMove},
        eval::Score,
        new_player,
    },
};
use output::{Depth, Reply, Status, send};
use thiserror::Error;

/// The midgame depth until the GUI sets one (GUIs must send `set depth` before searching,
/// but a person typing at the engine may not).
pub const DEFAULT_DEPTH: u32 = 10;

/// Lines read ahead of the session at most (a `ping` among them still stops a search: the
/// input thread sees it before it queues it).
const QUEUED_LINES: usize = 1024;

/// How the engine is set up from the command line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NboardOptions {
    /// The transposition table's size in MiB for each search; `None` sizes it to the work
    /// (as `othello hint --depth` does).
    pub hash: Option<usize>,
    /// Threads per search (0 or 1: one).
    pub threads: usize,
    /// Answer from the built-in opening book where it has the position (`book` lines for
    /// `hint`, its best move for `go`).
    pub book: bool,
    /// A player that answers `go` in place of the engine's search (`zero:FILE`, say):
    /// its move, with an eval of 0 (it estimates no discs), a `ping` cutting it short.
    /// `hint` and `analyze` stay the engine's.
    pub player: Option<PlayerSpec>,
}

/// Why a session stopped before the end of its input.
#[derive(Debug, Error)]
pub enum NboardError {
    /// Reading the input failed.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The thread that reads the input could not be started.
    #[error("cannot start the input thread: {0}")]
    Thread(#[source] io::Error),
    /// Writing the output failed (a closed pipe included: see
    /// [`is_broken_pipe`](NboardError::is_broken_pipe)).
    #[error("cannot write output: {0}")]
    Write(#[source] io::Error),
}

impl NboardError {
    /// Whether the output was closed by its reader (the GUI went away): the program should
    /// end quietly.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, NboardError::Write(error) if error.kind() == io::ErrorKind::BrokenPipe)
    }
}

/// Runs the engine: reads commands from `input` (on a thread of its own, so that a `ping`
/// stops a running search) until it ends, and answers on `out`.
///
/// # Errors
/// [`NboardError`] when reading or writing fails, or the input thread cannot start. Bad
/// lines are not errors: each gets a `status` line.
pub fn run<R: Read + Send + 'static>(
    input: R,
    out: &mut impl Write,
    options: &NboardOptions,
) -> Result<(), NboardError> {
    let interrupt = Arc::new(Interrupt::default());
    // Bounded: a GUI that floods commands waits for the engine instead of filling memory.
    let (sender, receiver) = mpsc::sync_channel(QUEUED_LINES);
    let reader_interrupt = Arc::clone(&interrupt);
    // Detached: at the end of the input it ends on its own; if the output closes first, the
    // program ends while it waits for input.
    thread::Builder::new()
        .name("nboard-input".into())
        .spawn(move || read_commands(input, &sender, &reader_interrupt))
        .map_err(NboardError::Thread)?;
    let mut session = Session::new(options, interrupt);
    for event in receiver {
        match event {
            Event::Command(command) => session.obey(command, out).map_err(NboardError::Write)?,
            Event::Failed(error) => return Err(error.into()),
        }
    }
    Ok(())
}

/// What the input thread passes on.
enum Event {
    /// A line, read as a command.
    Command(Result<Command, CommandError>),
    /// Reading failed; nothing more comes.
    Failed(ReadError),
}

/// The input thread: reads and parses lines until the input ends or the session stops
/// listening; tells `interrupt` of every `ping` before passing it on.
fn read_commands(input: impl Read, sender: &mpsc::SyncSender<Event>, interrupt: &Interrupt) {
    let mut lines = LineReader::new(input);
    loop {
        let command = match lines.next_line(|| Ok::<(), ReadError>(())) {
            Ok(None) => return,
            Ok(Some(Line::Text(bytes))) => std::str::from_utf8(bytes)
                .map_err(|_| CommandError::NotText)
                .and_then(Command::parse),
            Ok(Some(Line::TooLong)) => Err(CommandError::TooLong),
            Err(error) => {
                let _ = sender.send(Event::Failed(error));
                return;
            }
        };
        if matches!(command, Ok(Command::Ping(_))) {
            interrupt.ping_read();
        }
        if sender.send(Event::Command(command)).is_err() {
            return;
        }
    }
}

/// Shared by the input thread and the session: the `ping`s read but not yet answered, and
/// the running search's signal.
#[derive(Debug, Default)]
struct Interrupt(Mutex<Pending>);

#[derive(Debug, Default)]
struct Pending {
    /// `ping`s the input thread has read and the session has not answered yet: each asks
    /// that whatever runs before it stop.
    pings: u64,
    /// The running search's signal, if one runs.
    search: Option<Arc<Signal>>,
}

impl Interrupt {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        // Nothing can be left half-done under this lock: a poisoned one is still sound.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The input thread read a `ping`: stops the running search.
    fn ping_read(&self) {
        let mut pending = self.lock();
        pending.pings += 1;
        if let Some(signal) = &pending.search {
            signal.stop();
        }
    }

    /// The session answered a `ping`.
    fn ping_answered(&self) {
        let mut pending = self.lock();
        pending.pings = pending.pings.saturating_sub(1);
    }

    /// A search starts: its signal, already stopped if a `ping` after its command has been
    /// read. The search counts as running until the returned guard is dropped.
    fn start(self: &Arc<Self>) -> RunningSearch {
        let signal = Arc::new(Signal::new());
        let mut pending = self.lock();
        if pending.pings > 0 {
            signal.stop();
        }
        pending.search = Some(Arc::clone(&signal));
        RunningSearch {
            interrupt: Arc::clone(self),
            signal,
        }
    }
}

/// A search that a `ping` can stop, until this is dropped.
struct RunningSearch {
    interrupt: Arc<Interrupt>,
    signal: Arc<Signal>,
}

impl RunningSearch {
    fn signal(&self) -> &Signal {
        &self.signal
    }
}

impl Drop for RunningSearch {
    fn drop(&mut self) {
        self.interrupt.lock().search = None;
    }
}

/// A line the session refuses, answered with a `status` line; the position is unchanged.
#[derive(Debug, Error)]
enum Refusal {
    /// The line itself is wrong.
    #[error(transparent)]
    Command(#[from] CommandError),
    /// `set game` with a game whose moves do not replay.
    #[error("set game refused: {0}")]
    Replay(ReplayError),
    /// `move` with a move that cannot be played.
    #[error("move refused: {0}")]
    Move(MoveError),
    /// `move PA` from a side that has a move.
    #[error("move PA refused: {} has a legal move", side_name(*.side))]
    Pass {
        /// The side to move.
        side: Color,
    },
    /// `move PA` once neither side can move.
    #[error("move PA refused: the game is over")]
    PassAtEnd,
}

fn side_name(side: Color) -> &'static str {
    match side {
        Color::Black => "Black",
        Color::White => "White",
    }
}

/// The engine's state between commands.
struct Session {
    /// The game the GUI set, with the moves since.
    game: Game<Full>,
    /// The midgame depth.
    depth: u32,
    /// The GUI has written the pass the game made on its own after its last move (with
    /// `move PA`, or in `set game`'s GGF); until then its side to move is the side that
    /// must pass.
    pass_written: bool,
    hash: Option<usize>,
    threads: usize,
    book: bool,
    player: Option<PlayerSpec>,
    interrupt: Arc<Interrupt>,
    /// The transposition table, kept from search to search of one game (what a search
    /// stored orders the next, as GUIs expect of an engine); emptied for another game.
    /// With the size in MiB it was asked for.
    table: RefCell<Option<(usize, TranspositionTable)>>,
}

impl Session {
    fn new(options: &NboardOptions, interrupt: Arc<Interrupt>) -> Session {
        Session {
            game: Game::new(Setup::standard(Shape::STANDARD)),
            depth: DEFAULT_DEPTH,
            pass_written: true,
            hash: options.hash,
            threads: options.threads.max(1),
            book: options.book,
            player: options.player,
            interrupt,
            table: RefCell::new(None),
        }
    }

    /// Obeys one line.
    fn obey(
        &mut self,
        command: Result<Command, CommandError>,
        out: &mut impl Write,
    ) -> io::Result<()> {
        let command = match command {
            Ok(command) => command,
            Err(error) => return refuse(out, &error.into()),
        };
        match command {
            Command::Nboard(version) => {
                if version != 2 {
                    send(out, Reply::Status(Status::Version(version)))?;
                }
                send(out, Reply::MyName)
            }
            Command::SetDepth(depth) => {
                self.depth = depth;
                Ok(())
            }
            Command::SetGame(record) => match record.replay_as::<Full>() {
                Ok(game) => {
                    if !same_game(&self.game, &game)
                        && let Some((_, table)) = self.table.get_mut()
                    {
                        table.clear();
                    }
                    self.game = game;
                    self.pass_written = true;
                    Ok(())
                }
                Err(error) => refuse(out, &Refusal::Replay(error)),
            },
            Command::SetContempt(contempt) => {
                if contempt == 0.0 {
                    Ok(())
                } else {
                    send(out, Reply::Status(Status::ContemptIgnored))
                }
            }
            Command::Move(Some(square)) => match self.game.play(square) {
                Ok(_) => {
                    self.pass_written = false;
                    Ok(())
                }
                Err(error) => refuse(out, &Refusal::Move(error)),
            },
            Command::Move(None) => match self.game.side_to_move() {
                None => refuse(out, &Refusal::PassAtEnd),
                Some(_) if self.pass_due() => {
                    self.pass_written = true;
                    Ok(())
                }
                Some(side) => refuse(out, &Refusal::Pass { side }),
            },
            Command::Hint(count) => self.hint(count, out),
            Command::Go => self.go(out),
            Command::Ping(n) => {
                self.interrupt.ping_answered();
                send(out, Reply::Pong(n))
            }
            Command::Learn => send(out, Reply::Learned),
            Command::Analyze => self.analyze(out),
            Command::Unknown => Ok(()),
        }
    }

    /// `hint`: the best `count` moves, a `search` line each, between `status` lines.
    fn hint(&self, count: usize, out: &mut impl Write) -> io::Result<()> {
        let Some(setup) = self.position() else {
            return send(out, Reply::Status(Status::GameOver));
        };
        send(out, Reply::Status(Status::Analyzing))?;
        if let Some((moves, depth)) = self.book_moves(&setup) {
            for mv in moves.iter().take(count) {
                let (square, eval) = (mv.square, Score(mv.score));
                send(
                    out,
                    Reply::Book {
                        square,
                        eval,
                        depth,
                    },
                )?;
            }
            return send(out, Reply::Status(Status::Clear));
        }
        let hint = {
            let search = self.interrupt.start();
            self.rank(&setup, count, search.signal())
        };
        for line in &hint.lines {
            let first = [line.square];
            let pv = if line.pv.is_empty() {
                &first
            } else {
                &line.pv[..]
            };
            let depth = match (line.exact, hint.selectivity) {
                (true, _) => Depth::Exact,
                (false, selectivity) if selectivity.is_none() => Depth::Plies(hint.depth),
                (false, selectivity) => Depth::Selective(hint.depth, selectivity),
            };
            send(
                out,
                Reply::Search {
                    pv,
                    eval: line.score,
                    depth,
                },
            )?;
        }
        send(out, node_stats(&hint))?;
        send(out, Reply::Status(Status::Clear))
    }

    /// `go`: the move the engine would play, which it does not play (the GUI sends `move`).
    fn go(&self, out: &mut impl Write) -> io::Result<()> {
        let Some(setup) = self.position() else {
            return send(out, Reply::Status(Status::GameOver));
        };
        send(out, Reply::Status(Status::Thinking))?;
        if let Some(spec) = self.player {
            let start = Instant::now();
            let square = if self.pass_due() {
                None
            } else {
                let search = self.interrupt.start();
                let mut player = new_player::<Full>(spec, 0, self.hash);
                player.watch(Arc::clone(&search.signal));
                player.choose(&Game::new(setup), &Limits::NONE, &mut |_| {})
            };
            send(
                out,
                Reply::Move {
                    square,
                    eval: Score(0),
                    elapsed: start.elapsed(),
                },
            )?;
            return send(out, Reply::Status(Status::Clear));
        }
        if let Some(best) = self
            .book_moves(&setup)
            .and_then(|(moves, _)| moves.first().copied())
        {
            send(
                out,
                Reply::Move {
                    square: Some(best.square),
                    eval: Score(best.score),
                    elapsed: std::time::Duration::ZERO,
                },
            )?;
            return send(out, Reply::Status(Status::Clear));
        }
        let hint = {
            let search = self.interrupt.start();
            self.rank(&setup, 1, search.signal())
        };
        send(out, node_stats(&hint))?;
        if let Some(best) = hint.lines.first() {
            send(
                out,
                Reply::Move {
                    square: best.square,
                    eval: best.score,
                    elapsed: hint.elapsed,
                },
            )?;
        }
        send(out, Reply::Status(Status::Clear))
    }

    /// `analyze`: every position of the game evaluated, from the last back to the first. A
    /// `ping` stops it between positions (or within one, whose value is then left out).
    fn analyze(&self, out: &mut impl Write) -> io::Result<()> {
        send(out, Reply::Status(Status::AnalyzingGame))?;
        let start = Instant::now();
        let mut nodes = 0;
        {
            let search = self.interrupt.start();
            for (moves_made, setup) in positions(&self.game).into_iter().rev() {
                let hint = self.rank(&setup, 1, search.signal());
                if search.signal().is_stopped() {
                    break;
                }
                nodes += hint.nodes;
                let eval = match (hint.final_score, hint.lines.first()) {
                    (Some(discs), _) => Score::from_discs(discs),
                    (None, Some(best)) => best.score,
                    (None, None) => continue,
                };
                send(out, Reply::Analysis { moves_made, eval })?;
            }
        }
        send(
            out,
            Reply::NodeStats {
                nodes,
                elapsed: start.elapsed(),
            },
        )?;
        send(out, Reply::Status(Status::Clear))
    }

    /// The book's moves for `setup`, best first, and how deep the book searched it; if the
    /// book is on and has the position.
    fn book_moves(&self, setup: &Setup) -> Option<(Vec<BookMove>, Depth)> {
        if !self.book || setup.win_rule != WinRule::MostDiscs {
            return None;
        }
        let node = Node8::from_board(&setup.board, setup.first_mover);
        let book = Book::builtin();
        let entry = book.entry(&node)?;
        let depth = if entry.selectivity.is_none() {
            Depth::Plies(u32::from(entry.depth))
        } else {
            Depth::Selective(u32::from(entry.depth), entry.selectivity)
        };
        Some((book.moves(&node)?, depth))
    }

    /// Whether the GUI's side to move must pass: the game passed on its own and the GUI has
    /// not written the pass yet.
    fn pass_due(&self) -> bool {
        pass_owed(&self.game) && !self.pass_written
    }

    /// The position to search as the GUI sees it, with its side to move first (a side that
    /// must pass included: its only move is the pass); `None` once the game is over.
    fn position(&self) -> Option<Setup> {
        let side = self.game.side_to_move()?;
        Some(Setup {
            board: *self.game.board(),
            first_mover: if self.pass_due() {
                side.opponent()
            } else {
                side
            },
            win_rule: self.game.setup().win_rule,
        })
    }

    /// The best `count` moves of `setup` at the session's depth (see the module's notes on
    /// the endgame).
    fn rank(&self, setup: &Setup, count: usize, signal: &Signal) -> Hint {
        let options = RankOptions {
            limits: Limits::depth(self.depth),
            hash: self.hash,
            threads: self.threads,
            ..RankOptions::new(Variant::Full, count)
        };
        let mut table = self.table.borrow_mut();
        let wanted = table_megabytes(setup, &options);
        // Grown when a search wants more than the last one (a solve): never shrunk.
        let (_, table) = match table.take() {
            Some((size, kept)) if size >= wanted => table.insert((size, kept)),
            _ => table.insert((wanted, TranspositionTable::new(wanted))),
        };
        rank_in(setup, &options, table, Some(signal), &mut |_| {})
    }
}

/// Whether `new` is `old` further on or taken back (the same start, one's moves the
/// start of the other's): a GUI sends the game it is playing again with `set game`.
fn same_game(old: &Game<Full>, new: &Game<Full>) -> bool {
    let (old_moves, new_moves) = (old.moves(), new.moves());
    let common = old_moves.len().min(new_moves.len());
    old.setup() == new.setup() && old_moves.take(common).eq(new_moves.take(common))
}

/// Answers a refused line with a `status` line.
fn refuse(out: &mut impl Write, refusal: &Refusal) -> io::Result<()> {
    send(out, Reply::Status(Status::Refused(refusal)))
}

fn node_stats(hint: &Hint) -> Reply<'static> {
    Reply::NodeStats {
        nodes: hint.nodes,
        elapsed: hint.elapsed,
    }
}

/// Whether the game passed on its own after its last move (or before its first): the side
/// due in strict alternation has no move, so the other side moves again. The GUI writes that
/// pass as `PA`.
fn pass_owed(game: &Game<Full>) -> bool {
    let due = game
        .history()
        .last()
        .map_or(game.setup().first_mover, |ply| ply.side().opponent());
    game.side_to_move().is_some_and(|side| side != due)
}

/// Every position of `game` from its start to now as the GUI numbers them (the index is the
/// number of moves made before it, passes included), each with its side to move: a side
/// that had to pass has a position of its own, and the end of the game is scored for the
/// side due next.
fn positions(game: &Game<Full>) -> Vec<(usize, Setup)> {
    let setup = *game.setup();
    let at = |game: &Game<Full>, side| Setup {
        board: *game.board(),
        first_mover: side,
        win_rule: setup.win_rule,
    };
    let mut replay = Game::<Full>::new(setup);
    let mut due = setup.first_mover;
    let mut positions = Vec::new();
    for ply in game.history() {
        if ply.side() != due {
            positions.push(at(&replay, due));
            due = ply.side();
        }
        positions.push(at(&replay, due));
        if replay.play(ply.square()).is_err() {
            break; // cannot happen: these moves were played in this order
        }
        due = due.opponent();
    }
    match replay.side_to_move() {
        Some(side) if side != due => {
            positions.push(at(&replay, due));
            positions.push(at(&replay, side));
        }
        _ => positions.push(at(&replay, due)),
    }
    positions.into_iter().enumerate().collect()
}
