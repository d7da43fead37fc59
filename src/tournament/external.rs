//! External engines: programs that speak the NBoard protocol (the GUI's side of it is
//! written here; the engine's side is `othello nboard`, `src/nboard/`).
//!
//! An engine is started once and kept running from game to game. When it is started it gets
//! `nboard 2` and `set depth D`, then `ping 0`, and must answer `pong 0`. For each of its
//! moves it gets `set game <GGF>` (the game so far, a `PA` for every pass), `ping N`, and
//! once `pong N` has come (lines before it are dropped: they answer older commands), `go`;
//! it must answer `=== MOVE[/eval[/time]]`, and may write informational lines first
//! (`status`, `nodestats`, `set myname`, `search`, `book`, `pong`, `learned`, `analysis`,
//! blank lines), which are ignored.
//!
//! **The clock.** The GGF's `TI` tag holds the time the engine has left: a notional clock
//! of the tournament's time per move for each of its own moves still to come (half the
//! empty squares, rounded up), written `m:ss` in whole seconds (at least 1). The moves carry
//! no times, so an engine that reads `TI` as the game's clock finds it whole. Engines that
//! search to `set depth` (such as `othello nboard`) ignore it. Whatever the engine makes of
//! it, `--move-timeout` is the hard limit of each wait.
//!
//! **Engines are untrusted.** Every wait (the handshake's pong, each pong, each move) ends at
//! the move timeout. A line that is neither an answer nor informational, a move that is not
//! legal, a pass when a move exists, a closed output, an exit or crash, an input it stops
//! reading (writes never block: its input pipe is non-blocking, and a full pipe means it is
//! not reading), or nothing in time is an [`EngineFailure`]: the caller forfeits the game,
//! and the process is killed with everything it started and started again for its next
//! game. It runs as an [`othello::process::Program`]: in a process group of its own, its
//! output read a line at a time with a bounded line length through a bounded queue, its
//! stderr drained keeping only its end (the last line goes into the forfeit's reason):
//! however much it writes, memory stays bounded.
//!
//! **Nothing outlives the tournament.** An engine is killed when its [`ExternalEngine`] is
//! dropped, and dies with the tournament's thread that started it even when the tournament
//! is killed outright; [`on_interrupt`] kills every running engine when the tournament is
//! stopped with Ctrl-C, SIGTERM or SIGHUP (an engine in a process group of its own does not
//! get the terminal's Ctrl-C).

use std::{
    io,
    process::ExitStatus,
    thread,
    time::{Duration, Instant},
};

use othello::{
    Full, Game, MAX_LINE_LEN, MoveError, Record, Shape, Square,
    process::{self, Lines, OutputLine, Program, Silence, StartOptions},
};
use thiserror::Error;

/// Lines of an engine's output read ahead of the tournament: beyond them the reading thread
/// waits (and so, on its full pipe, does the engine).
const LINES_AHEAD: usize = 64;

/// How long an engine whose output has ended is given to exit (and then its stderr to be
/// read), so that its exit status and last words can go into the forfeit's reason.
const EXIT_GRACE: Duration = Duration::from_millis(200);

/// The most characters of an engine's line quoted in a forfeit's reason.
const QUOTED_CHARS: usize = 80;

/// The words that start the NBoard lines an engine may write besides its answer.
const INFORMATIONAL: [&str; 8] = [
    "status",
    "nodestats",
    "set",
    "search",
    "book",
    "pong",
    "learned",
    "analysis",
];

/// What went wrong with an engine: it loses the game.
#[derive(Debug, Error)]
pub enum EngineFailure {
    /// The program could not be started.
    #[error("cannot start it: {0}")]
    Start(#[source] io::Error),
    /// Nothing came in time.
    #[error("no {waiting} within {} ms", .limit.as_millis())]
    Timeout {
        /// What it was asked for.
        waiting: Waiting,
        /// How long it was given.
        limit: Duration,
    },
    /// A line that is no NBoard answer.
    #[error("not an NBoard answer: {line:?}")]
    Garbage {
        /// The line (its start, if long).
        line: String,
    },
    /// A line longer than any NBoard line.
    #[error("a line longer than {MAX_LINE_LEN} bytes")]
    TooLong,
    /// `=== ` followed by no move.
    #[error("answered {answer:?}, which names no move")]
    Unreadable {
        /// The answer after `=== `.
        answer: String,
    },
    /// A move that cannot be played.
    #[error("answered {answer}: {error}")]
    Illegal {
        /// The answer after `=== `.
        answer: String,
        /// Why it cannot be played.
        error: MoveError,
    },
    /// `PA` when it had a move.
    #[error("answered {answer}, a pass, but it has a legal move")]
    Pass {
        /// The answer after `=== `.
        answer: String,
    },
    /// Its output ended (it exited, crashed or closed it).
    #[error("{}{}", exit_text(.status.as_ref()), stderr_text(.stderr.as_deref()))]
    Exited {
        /// How it ended, if it did within a moment.
        status: Option<ExitStatus>,
        /// The last line it wrote on stderr.
        stderr: Option<String>,
    },
    /// Its input is full: it stopped reading it.
    #[error("stopped reading its input")]
    NotReading,
    /// Writing to it failed otherwise (its input closed).
    #[error("cannot write to it: {0}")]
    Write(#[source] io::Error),
    /// The game could not be written as GGF (a bug of this program, not the engine's).
    #[error("cannot send the game: {0}")]
    Internal(#[source] othello::GgfExportError),
}

/// What an engine was waited for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Waiting {
    /// `pong 0` after `nboard 2` and `set depth`.
    Handshake,
    /// `pong N` after `set game`.
    Pong(u64),
    /// `=== MOVE` after `go`.
    Move,
}

impl std::fmt::Display for Waiting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Waiting::Handshake => f.write_str("answer to the handshake (pong 0)"),
            Waiting::Pong(n) => write!(f, "pong {n}"),
            Waiting::Move => f.write_str("move"),
        }
    }
}

fn exit_text(status: Option<&ExitStatus>) -> String {
    match status {
        Some(status) => format!("exited ({status})"),
        None => "closed its output".to_owned(),
    }
}

fn stderr_text(stderr: Option<&str>) -> String {
    stderr.map_or(String::new(), |line| format!("; its stderr ended {line:?}"))
}

/// An external engine, running or not.
#[derive(Debug)]
pub struct ExternalEngine {
    argv: Vec<String>,
    depth: u32,
    timeout: Duration,
    process: Option<Process>,
}

impl ExternalEngine {
    /// The engine run as `argv` (a program and its arguments), searching to `depth`, each
    /// answer awaited at most `timeout`. Nothing is started yet.
    pub fn new(argv: Vec<String>, depth: u32, timeout: Duration) -> ExternalEngine {
        ExternalEngine {
            argv,
            depth,
            timeout,
            process: None,
        }
    }

    /// Starts the program if it is not running (the handshake comes with its first move).
    ///
    /// # Errors
    /// The [`io::Error`] of starting it: the program is missing or cannot be run.
    pub fn start(&mut self) -> io::Result<()> {
        if self.process.is_none() {
            self.process = Some(Process::start(&self.argv)?);
        }
        Ok(())
    }

    /// The engine's move in `game` (which must have a side to move with a legal move),
    /// with `players` (Black's and White's names) and `clock` (its time left, see the
    /// module's notes) written into the GGF it is sent.
    ///
    /// # Errors
    /// [`EngineFailure`]: the engine loses the game. It has been stopped, and is started
    /// again when next asked.
    pub fn choose(
        &mut self,
        game: &Game<Full>,
        players: [&str; 2],
        clock: Duration,
    ) -> Result<Square, EngineFailure> {
        let chosen = self.try_choose(game, players, clock);
        if chosen.is_err() {
            self.stop();
        }
        chosen
    }

    fn try_choose(
        &mut self,
        game: &Game<Full>,
        players: [&str; 2],
        clock: Duration,
    ) -> Result<Square, EngineFailure> {
        self.start().map_err(EngineFailure::Start)?;
        let (depth, timeout) = (self.depth, self.timeout);
        let Some(process) = self.process.as_mut() else {
            return Err(EngineFailure::Start(io::ErrorKind::NotFound.into()));
        };
        if !process.ready {
            process.send(&format!("nboard 2\nset depth {depth}\nping 0\n"))?;
            process.await_pong(0, Waiting::Handshake, timeout)?;
            process.ready = true;
        }
        let ggf = game_text(game, players, clock)?;
        process.next_ping += 1;
        let ping = process.next_ping;
        process.send(&format!("set game {ggf}\nping {ping}\n"))?;
        process.await_pong(ping, Waiting::Pong(ping), timeout)?;
        process.send("go\n")?;
        let deadline = Instant::now() + timeout;
        loop {
            match process.next_line(deadline, Waiting::Move, timeout)? {
                OutputLine::TooLong => return Err(EngineFailure::TooLong),
                OutputLine::Text(line) => match classify(&line) {
                    Kind::Informational => {}
                    Kind::Garbage => {
                        return Err(EngineFailure::Garbage {
                            line: quoted(&line),
                        });
                    }
                    Kind::Answer(answer) => return parse_answer(answer, game),
                },
            }
        }
    }

    /// Kills the engine (and everything it started), if it runs.
    pub fn stop(&mut self) {
        self.process = None;
    }
}

/// `game` in GGF for `set game`: the library's GGF (with `PA` for passes), the players'
/// names, and a `TI` tag with `clock`.
fn game_text(
    game: &Game<Full>,
    players: [&str; 2],
    clock: Duration,
) -> Result<String, EngineFailure> {
    let mut record = Record::from_game(game);
    record.players = players.map(str::to_owned);
    let ggf = record.to_ggf().map_err(EngineFailure::Internal)?;
    Ok(with_clock(&ggf, clock))
}

/// `ggf` with a `TI[m:ss]` tag after its `GM` tag: `clock` in whole seconds, rounded up, at
/// least 1.
fn with_clock(ggf: &str, clock: Duration) -> String {
    const START: &str = "(;GM[Othello]";
    let seconds = clock.as_millis().div_ceil(1000).max(1);
    match ggf.strip_prefix(START) {
        Some(rest) => format!("{START}TI[{}:{:02}]{rest}", seconds / 60, seconds % 60),
        None => ggf.to_owned(),
    }
}

/// The time an engine has left in `game` on the notional clock of the module's notes
/// (the inverse of the engine's [`TimeBudget::move_time`](othello::engine::TimeBudget)):
/// `per_move` for each of its moves still to come.
pub fn clock(game: &Game<Full>, per_move: Duration) -> Duration {
    othello::engine::TimeBudget::clock_for(per_move, game.board().empty_squares().count())
}

/// What an engine's line is, while it is asked for a move.
#[derive(Debug, PartialEq, Eq)]
enum Kind<'a> {
    /// `=== ` and what follows.
    Answer(&'a str),
    /// A line the protocol allows at any time.
    Informational,
    /// Anything else.
    Garbage,
}

fn classify(line: &str) -> Kind<'_> {
    let line = line.trim();
    if let Some(answer) = line.strip_prefix("===") {
        return Kind::Answer(answer.trim());
    }
    match line.split_whitespace().next() {
        None => Kind::Informational,
        Some(word) if INFORMATIONAL.contains(&word) => Kind::Informational,
        Some(_) => Kind::Garbage,
    }
}

/// The move of an answer `MOVE[/eval[/time]]` in `game`.
fn parse_answer(answer: &str, game: &Game<Full>) -> Result<Square, EngineFailure> {
    let text = answer.split('/').next().unwrap_or_default().trim();
    if text.eq_ignore_ascii_case("PA") {
        return Err(EngineFailure::Pass {
            answer: quoted(answer),
        });
    }
    let square = Square::from_ascii(text.as_bytes())
        .ok()
        .filter(|&square| Shape::STANDARD.contains(square))
        .ok_or_else(|| EngineFailure::Unreadable {
            answer: quoted(answer),
        })?;
    if game.is_legal(square) {
        return Ok(square);
    }
    let error = if game.is_over() {
        MoveError::GameOver
    } else if game.board().at(square).is_some() {
        MoveError::Occupied { square }
    } else {
        MoveError::Illegal { square }
    };
    Err(EngineFailure::Illegal {
        answer: quoted(answer),
        error,
    })
}

/// The start of `line`, for a reason: at most [`QUOTED_CHARS`] characters.
fn quoted(line: &str) -> String {
    match line.char_indices().nth(QUOTED_CHARS) {
        Some((end, _)) => format!("{}...", &line[..end]),
        None => line.to_owned(),
    }
}

/// A running engine.
#[derive(Debug)]
struct Process {
    program: Program<Lines>,
    /// It answered the handshake.
    ready: bool,
    /// The number of the last `ping` sent.
    next_ping: u64,
}

impl Process {
    fn start(argv: &[String]) -> io::Result<Process> {
        let options = StartOptions {
            read_ahead: LINES_AHEAD,
            nonblocking_stdin: true,
            // An engine's script may start more than the engine: all go with the tournament.
            guarded: true,
            ..StartOptions::default()
        };
        Ok(Process {
            program: Program::start(argv, Lines, &options)?,
            ready: false,
            next_ping: 0,
        })
    }

    /// Writes `text` (whole lines) to the engine, without ever blocking.
    fn send(&mut self, text: &str) -> Result<(), EngineFailure> {
        match self.program.write(text.as_bytes()) {
            Ok(()) => Ok(()),
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                Err(EngineFailure::NotReading)
            }
            Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Err(self.ended()),
            Err(error) => Err(EngineFailure::Write(error)),
        }
    }

    /// Drops lines until `pong n`.
    fn await_pong(
        &mut self,
        n: u64,
        waiting: Waiting,
        timeout: Duration,
    ) -> Result<(), EngineFailure> {
        let deadline = Instant::now() + timeout;
        loop {
            if let OutputLine::Text(line) = self.next_line(deadline, waiting, timeout)? {
                let mut words = line.split_whitespace();
                if words.next() == Some("pong")
                    && words.next().and_then(|w| w.parse::<u64>().ok()) == Some(n)
                    && words.next().is_none()
                {
                    return Ok(());
                }
            }
        }
    }

    /// The next line of output, waiting until `deadline` at most.
    fn next_line(
        &mut self,
        deadline: Instant,
        waiting: Waiting,
        limit: Duration,
    ) -> Result<OutputLine, EngineFailure> {
        match self.program.receive(deadline) {
            Ok(line) => Ok(line),
            Err(Silence::Timeout) => Err(EngineFailure::Timeout { waiting, limit }),
            Err(Silence::Ended) => Err(self.ended()),
        }
    }

    /// Why the engine's output ended: its exit status if it exits within a moment, and the
    /// last line of its stderr (which closes with it: it is given a moment to be read).
    fn ended(&mut self) -> EngineFailure {
        let status = self.program.wait_exit(EXIT_GRACE);
        if status.is_some() {
            self.program.wait_stderr(EXIT_GRACE);
        }
        let stderr = self.program.stderr_last_line().map(|line| quoted(&line));
        EngineFailure::Exited { status, stderr }
    }
}

/// Watches for Ctrl-C, SIGTERM and SIGHUP on a thread of its own: when one comes, kills
/// every running engine (see [`ExternalEngine`]) and calls `then` with the exit status the
/// signal calls for (130, 143, 129), which should end the program.
///
/// # Errors
/// The [`io::Error`] of setting up the signal handlers or the thread.
pub fn on_interrupt(then: impl FnOnce(u8) + Send + 'static) -> io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    #[cfg(unix)]
    let wait = {
        use tokio::signal::unix::{SignalKind, signal};
        let _context = runtime.enter();
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut terminate = signal(SignalKind::terminate())?;
        let mut hangup = signal(SignalKind::hangup())?;
        async move {
            tokio::select! {
                _ = interrupt.recv() => 130,
                _ = terminate.recv() => 143,
                _ = hangup.recv() => 129,
            }
        }
    };
    #[cfg(not(unix))]
    let wait = async {
        let _ = tokio::signal::ctrl_c().await;
        130
    };
    thread::Builder::new()
        .name("tournament-signals".into())
        .spawn(move || {
            let status = runtime.block_on(wait);
            let _running = process::kill_all();
            then(status);
        })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello::{Setup, Shape};

    fn start() -> Game<Full> {
        Game::new(Setup::standard(Shape::STANDARD))
    }

    #[test]
    fn lines_are_answers_informational_or_garbage() {
        assert_eq!(classify("=== F5/0.50/1.2"), Kind::Answer("F5/0.50/1.2"));
        assert_eq!(classify("  ===d3  "), Kind::Answer("d3"));
        for line in [
            "status thinking",
            "status",
            "nodestats 12 0.1",
            "set myname edax",
            "search F5-D6 0.5 0 6",
            "book F5 0 1",
            "pong 3",
            "",
            "   ",
        ] {
            assert_eq!(classify(line), Kind::Informational, "{line:?}");
        }
        assert_eq!(classify("hello"), Kind::Garbage);
        assert_eq!(classify("F5"), Kind::Garbage);
        assert_eq!(classify("statusbar"), Kind::Garbage);
    }

    #[test]
    fn answers_are_checked_against_the_game() {
        let game = start();
        assert_eq!(
            parse_answer("F5/0.50/1.2", &game).unwrap(),
            "f5".parse().unwrap()
        );
        assert_eq!(parse_answer("d3", &game).unwrap(), "d3".parse().unwrap());
        let reason = |answer: &str| parse_answer(answer, &game).unwrap_err().to_string();
        assert_eq!(
            reason("A1/0"),
            "answered A1/0: illegal move a1: it flips no disc"
        );
        assert_eq!(reason("D4"), "answered D4: d4 is already occupied");
        assert_eq!(reason("PA"), "answered PA, a pass, but it has a legal move");
        assert_eq!(reason(""), "answered \"\", which names no move");
        assert_eq!(reason("z9"), "answered \"z9\", which names no move");
        assert_eq!(reason("j10"), "answered \"j10\", which names no move");
    }

    #[test]
    fn the_clock_goes_into_the_ggf() {
        let game = start();
        let per_move = Duration::from_millis(100);
        // 60 empty squares: 30 moves of 100 ms.
        assert_eq!(clock(&game, per_move), Duration::from_secs(3));
        let text = game_text(&game, ["a", "b"], Duration::from_millis(95_500)).unwrap();
        assert!(
            text.starts_with("(;GM[Othello]TI[1:36]PB[a]PW[b]"),
            "{text}"
        );
        assert_eq!(
            with_clock("(;GM[Othello];)", Duration::ZERO),
            "(;GM[Othello]TI[0:01];)"
        );
        assert_eq!(with_clock("junk", Duration::ZERO), "junk");
    }

    #[test]
    fn reasons_read_well() {
        let timeout = EngineFailure::Timeout {
            waiting: Waiting::Pong(3),
            limit: Duration::from_millis(250),
        };
        assert_eq!(timeout.to_string(), "no pong 3 within 250 ms");
        let closed = EngineFailure::Exited {
            status: None,
            stderr: Some("Traceback".into()),
        };
        assert_eq!(
            closed.to_string(),
            "closed its output; its stderr ended \"Traceback\""
        );
        let long = "x".repeat(200);
        assert_eq!(quoted(&long).chars().count(), QUOTED_CHARS + 3);
    }

    #[cfg(unix)]
    #[test]
    fn a_script_engine_plays_then_fails_and_is_restarted() {
        // Answers the handshake and every ping, then plays d3 (legal only at the start).
        let script = "while read -r command n rest; do \
                        case \"$command\" in \
                          ping) echo \"pong $n\";; \
                          go) echo '=== D3/0.0/0.1';; \
                        esac; \
                      done";
        let argv = vec!["sh".to_owned(), "-c".to_owned(), script.to_owned()];
        let mut engine = ExternalEngine::new(argv, 3, Duration::from_secs(20));
        let mut game = start();
        let clock = Duration::from_secs(1);
        assert_eq!(
            engine.choose(&game, ["x", "y"], clock).unwrap(),
            "d3".parse().unwrap()
        );
        game.play("d3".parse().unwrap()).unwrap();
        game.play("c5".parse().unwrap()).unwrap();
        let failure = engine.choose(&game, ["x", "y"], clock).unwrap_err();
        assert!(
            matches!(failure, EngineFailure::Illegal { .. }),
            "{failure}"
        );
        assert!(engine.process.is_none(), "stopped after failing");
        // Started again for the next question.
        assert_eq!(
            engine.choose(&start(), ["x", "y"], clock).unwrap(),
            "d3".parse().unwrap()
        );
        engine.stop();
        assert!(engine.process.is_none());
    }

    #[test]
    fn a_missing_program_cannot_start() {
        let mut engine = ExternalEngine::new(
            vec!["/no/such/engine".to_owned()],
            1,
            Duration::from_secs(1),
        );
        assert!(engine.start().is_err());
        let failure = engine
            .choose(&start(), ["x", "y"], Duration::ZERO)
            .unwrap_err();
        assert!(matches!(failure, EngineFailure::Start(_)), "{failure}");
    }
}
