//! The `othello` command line: the parser, and one module per command with its arguments
//! (a clap `Args` struct that turns itself into the command's options), the code that runs
//! it and how its results are printed (text, or JSON through serde). `main.rs` only
//! dispatches; the work is in the library (`othello`), which never prints.

use std::{
    io,
    path::{Path, PathBuf},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use clap::{Args, Parser, Subcommand, ValueEnum};
use othello::{
    Color, LoadError, Obf, Setup, SetupError, Shape, Variant, WinRule,
    engine::{
        Occupant, PLAYER_KINDS, PlayerKind, PlayerSpec,
        eval::Evaluator,
        zero::{DEFAULT_SIMULATIONS, LoadedNet, Net, NetChoice, UnfitNet, ZeroSpec},
    },
};
use thiserror::Error;

pub mod analyze;
pub mod book;
pub mod bot;
pub mod check;
pub mod db;
pub mod explore;
pub mod generate;
pub mod grade;
pub mod grader;
pub mod hint;
pub mod matches;
pub mod nboard;
pub mod output;
pub mod perft;
pub mod play;
pub mod progress;
pub mod puzzles;
pub mod serve;
pub mod solve;
pub mod tournament;
pub mod train;
pub mod transcript;
pub mod zero;

/// Othello (Reversi) speaking the course's grader protocol on stdin and stdout.
///
/// Without a command: prints FULL (or SIMPLE), reads rows, columns, first mover (B or W), win
/// rule (> or <) and the board, then plays the game one move line ("row column") at a time.
///
/// Exit status: 0 the game was played to its end; 1 bad arguments or an I/O error;
/// 2 malformed header or board; 3 input ended before the game was over.
#[derive(Debug, Parser)]
#[command(version, about, long_about, args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// Rule set: full (standard Othello) or simple (flip adjacent opponent discs only).
    #[arg(long, value_enum, default_value_t = Rules::Full)]
    pub rules: Rules,

    /// The command; none is the grader protocol.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count the leaves of the game tree at each depth from 1 to DEPTH.
    ///
    /// A pass counts as one ply; a finished game counts as one leaf at every deeper depth.
    /// Each line: depth, leaves, seconds, rate.
    Perft(perft::PerftArgs),
    /// Solve a position exactly: the best move and the final disc difference under perfect
    /// play (empty squares go to the winner), with nodes and time.
    ///
    /// With --suite, solves every position of an OBF file, prints a row per position with the
    /// expected and found scores and a total. Exit status 1 if a position was not solved in
    /// time or (in a suite) a score differs from the suite's.
    Solve(solve::SolveArgs),
    /// The best moves of a position, with scores (final disc differences; exact where the
    /// solver reaches) and expected lines.
    Hint(hint::HintArgs),
    /// Play at the console: people against each other or the computer, with hints, undo,
    /// and saved games.
    ///
    /// Moves are typed as d3 (column letter, row number; a1 is the top-left corner) or as
    /// "3 4" (row, column). Type help during a game for the commands. The end of the input
    /// ends the program (status 0), so sessions can be scripted.
    Play(play::PlayArgs),
    /// Check a program against the grader protocol like the course's harness: each case's
    /// input is sent line by line, each line only after the output before it has arrived.
    ///
    /// Reports each failing case with a class (missing-flush, wrong-rules-line,
    /// extra-output, trailing-whitespace, crash, no-exit, wrong-pass, wrong-winner, ...),
    /// the line, expected and actual text, the moves so far and the position; then a
    /// summary. Exit status 0 only if every case passed.
    Check(check::CheckArgs),
    /// Grade a class: every submission (a subdirectory or archive each) on the same cases,
    /// each in a sandbox (bubblewrap and resource limits), in parallel and resumable.
    ///
    /// Writes Gradescope's results.json and JUnit XML per submission, a gradebook CSV, a
    /// JUnit file and HTML pages for the class into --out, and prints a line per
    /// submission. Exit status 0 when the grading ran, whatever the students scored.
    Grade(Box<grade::GradeArgs>),
    /// Write grader test inputs (NNNN.in), and with --expect the reference output beside
    /// each (NNNN.out), reproducibly from the seed.
    ///
    /// Kinds (in rotation): standard, random, stuck-first, over-at-start, passes,
    /// nearly-full, tie. Every scenario plays to the end unless --truncate.
    Gen(generate::GenArgs),
    /// Print a grader session as a person reads it: the output, with each input line shown
    /// (prefixed with "> ") where the grader reads it.
    Transcript(transcript::TranscriptArgs),
    /// Two players play a series of games: a table of wins, draws, losses, average disc
    /// difference and the Elo difference with its 95 % interval.
    ///
    /// Colours alternate every game; games are played in pairs on the same random opening,
    /// colours swapped. A progress bar is drawn on stderr when it is a terminal.
    #[command(name = "match")]
    Match(matches::MatchArgs),
    /// Serve the game in a browser: people against each other across the network,
    /// against the engine, or engines against each other; a JSON API; games kept in SQLite.
    ///
    /// Prints the address to open. Ctrl-C or SIGTERM stops it gracefully.
    Serve(serve::ServeArgs),
    /// The web server's database: bring its schema up to date, or copy a SQLite file into
    /// PostgreSQL (to run several servers on it).
    Db(db::DbArgs),
    /// Train the learned evaluation: play games, score their positions, fit weights,
    /// measure them.
    ///
    /// The steps are subcommands (selfplay, label, fit, then measure; probcut for the
    /// selective search's model), each reproducible
    /// from its seed and options, each resuming where it stopped. See "Training it again"
    /// in docs/training.md.
    Train(train::TrainArgs),
    /// Opening books: grow one by the engine's own searches, show a position's book
    /// moves, merge books. The built-in book (data/book.bin) is used by play, the server,
    /// nboard and the engine levels unless --no-book.
    Book(book::BookArgs),
    /// Every move of a saved game against the engine's best, with the discs it lost:
    /// mistakes and blunders flagged, then each side's total loss and worst move.
    ///
    /// Each position is searched for --time (exactly where the solver finishes in it:
    /// marked exact).
    Analyze(analyze::AnalyzeArgs),
    /// Be the engine for a GUI such as NBoard: the NBoard protocol (version 2) on stdin and
    /// stdout.
    ///
    /// Understands nboard, set depth, set game (GGF), set contempt, move, hint, go, ping,
    /// learn and analyze; ignores other commands; answers a bad line with a status line.
    /// 8x8 standard Othello only. Ends at the end of the input.
    Nboard(nboard::NboardArgs),
    /// Players and NBoard engines play a round robin (or a gauntlet): a crosstable with
    /// each player's points, score and Elo (Bradley-Terry, 95 % intervals).
    ///
    /// Each pairing plays every opening twice, colours swapped. External engines that send
    /// garbage, an illegal move or nothing in time lose the game and are restarted. Every
    /// game is saved (GGF and JSON Lines); the same command again resumes the tournament.
    /// 8x8 standard Othello only.
    Tournament(tournament::TournamentArgs),
    /// Play on a server as a bot: the engine (any player) takes challenges, or challenges
    /// a member for a series of games, through the server's bot API.
    ///
    /// Needs an API token of a bot account (see docs/api.md, "Bots"). Prints a line per
    /// game as it ends, then the totals; streams broken by a server restart are opened
    /// again.
    Bot(bot::BotArgs),
    /// Puzzles: positions where one move alone keeps the result (proved by the solver), made
    /// from self-play or a server's finished games; a puzzles file checked by solving a
    /// sample again. The server's puzzle page uses them.
    Puzzles(puzzles::PuzzlesArgs),
    /// An opening explorer over WTHOR game files (the French federation's database): after
    /// the moves given, each move played next, with its games, Black's wins, draws and
    /// losses, Black's score and the average disc result.
    Explore(explore::ExploreArgs),
    /// The AlphaZero-style player: a policy/value network trained by self-play on the CPU,
    /// guiding a PUCT search (see docs/zero.md).
    Zero(zero::ZeroArgs),
}

/// A rule set on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Rules {
    /// Standard Othello.
    Full,
    /// Flip adjacent opponent discs only.
    Simple,
}

impl From<Rules> for Variant {
    fn from(rules: Rules) -> Variant {
        match rules {
            Rules::Full => Variant::Full,
            Rules::Simple => Variant::Simple,
        }
    }
}

/// A first mover on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum First {
    /// Black moves first.
    #[value(name = "B", alias = "b")]
    Black,
    /// White moves first.
    #[value(name = "W", alias = "w")]
    White,
}

impl From<First> for Color {
    fn from(first: First) -> Color {
        match first {
            First::Black => Color::Black,
            First::White => Color::White,
        }
    }
}

/// The kind of game a weights file's evaluator scores: its own, or standard Othello's for
/// a file of the 8 × 8 layout.
pub fn weights_file_kind(evaluator: Evaluator) -> othello::GameKind {
    match evaluator {
        Evaluator::Shaped(weights) => weights.kind(),
        _ => othello::GameKind::STANDARD,
    }
}

/// What a weights file scores, for an error that says it does not fit: `the weights are for
/// 8x8 FULL most`.
pub fn weights_kind(evaluator: Evaluator) -> String {
    format!("the weights are for {}", weights_file_kind(evaluator))
}

/// A player spec on the command line: one of [`PLAYER_KINDS`] (`greedy`, `engine:5`,
/// `zero:800`, ...), or `zero:FILE` / `zero:FILE:N`, the net in FILE (from `othello zero
/// train`) read here, a regular file of bounded size, and kept for the run. A file named by
/// digits alone is written `zero:./400`.
pub fn player_spec(text: &str) -> Result<PlayerSpec, String> {
    let error = match text.parse::<PlayerSpec>() {
        Ok(spec) => return Ok(spec),
        Err(error) => error,
    };
    let Some(rest) = text
        .strip_prefix("zero:")
        .filter(|rest| !rest.is_empty() && !rest.bytes().all(|b| b.is_ascii_digit()))
    else {
        return Err(format!("{error}; or zero:FILE[:N], a net file"));
    };
    let (path, simulations) = match rest.rsplit_once(':') {
        Some((path, count))
            if !path.is_empty()
                && !count.is_empty()
                && count.bytes().all(|b| b.is_ascii_digit()) =>
        {
            let simulations = count
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=PlayerSpec::MAX_SIMULATIONS).contains(n))
                .ok_or_else(|| {
                    format!(
                        "{text}: simulations must be 1 to {}",
                        PlayerSpec::MAX_SIMULATIONS
                    )
                })?;
            (path, simulations)
        }
        _ => (rest, DEFAULT_SIMULATIONS),
    };
    let bytes = crate::files::read_limited(Path::new(path), crate::files::WEIGHTS_FILE)
        .map_err(|error| format!("zero:{path}: {error}"))?;
    let net = Net::from_bytes(&bytes, Path::new(path)).map_err(|error| error.to_string())?;
    Ok(PlayerSpec::Zero(ZeroSpec {
        net: NetChoice::Loaded(LoadedNet::register(path, net)),
        simulations,
    }))
}

/// `human` or a player spec ([`player_spec`]).
pub fn occupant(text: &str) -> Result<Occupant, String> {
    if text.eq_ignore_ascii_case("human") {
        Ok(Occupant::Human)
    } else {
        player_spec(text).map(Occupant::Computer)
    }
}

/// Refuses a player that cannot play `kind` (a `zero` player without a net for it).
///
/// # Errors
/// A usage error naming the player and why.
pub fn check_fits(spec: PlayerSpec, kind: othello::GameKind) -> Result<(), CliError> {
    spec.fits(kind).map_err(|error| CliError::Usage {
        message: match error {
            UnfitNet::NoneShipped(_) => {
                format!("{error}; train one with `othello zero train` and play it as zero:FILE")
            }
            UnfitNet::OtherKind { .. } => error.to_string(),
        },
    })
}

/// A win rule on the command line, by its name (`most` or `fewest`).
pub fn win_rule(text: &str) -> Result<WinRule, String> {
    WinRule::from_name(text).map_err(|error| error.to_string())
}

/// Where a position comes from.
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub struct PositionSource {
    /// An 8x8 position in OBF: "<64 cells a1..h8 of X, O, -> <X|O>" (X is Black).
    #[arg(long, value_name = "OBF", allow_hyphen_values = true)]
    pub obf: Option<String>,
    /// A grader-format input: its header and board, its first mover to move, its win rule.
    #[arg(long, value_name = "FILE")]
    pub position: Option<PathBuf>,
}

impl PositionSource {
    /// The position named.
    ///
    /// # Errors
    /// [`CliError::ObfArgument`], or those of [`read_position`].
    pub fn setup(&self) -> Result<Setup, CliError> {
        match (&self.obf, &self.position) {
            (Some(text), _) => Ok(text.parse::<Obf>().map_err(CliError::ObfArgument)?.setup),
            (None, Some(path)) => read_position(path),
            (None, None) => unreachable!("clap requires one of them"),
        }
    }
}

/// `--weights classic|FILE`: the evaluation a search scores positions with, as `play`,
/// `match` and `tournament` choose it by player spec, so one position can be compared
/// across generations of training.
#[derive(Debug, Args)]
pub struct WeightsArg {
    /// The evaluation: classic (the hand-written one) or a weights file from `othello
    /// train fit` for this kind of game (default: the learned weights built in for it where
    /// there are some, as docs/training.md lists them, and the hand-written evaluation
    /// elsewhere; `--json` names the one used).
    #[arg(long, value_name = "classic|FILE")]
    pub weights: Option<String>,
}

impl WeightsArg {
    /// The evaluation asked for, for positions of `variant`, `shape` and `win_rule`.
    ///
    /// # Errors
    /// A weights file that cannot be read or is damaged, or one given for positions it
    /// cannot score ([`CliError::Usage`]).
    pub fn evaluator(
        &self,
        variant: Variant,
        shape: Shape,
        win_rule: WinRule,
    ) -> Result<Evaluator, CliError> {
        let evaluator = train::evaluator(self.weights.as_deref())?;
        let kind = othello::GameKind::new(variant, shape, win_rule);
        if let Some(path) = self.weights.as_deref()
            && path != "classic"
            && path != "built-in"
            && weights_file_kind(evaluator) != kind
        {
            return Err(CliError::Usage {
                message: format!(
                    "--weights {path}: {}, not {kind}; use classic or leave --weights out",
                    weights_kind(evaluator)
                ),
            });
        }
        Ok(evaluator)
    }
}

/// `--threads N`: how many threads one search uses.
#[derive(Clone, Copy, Debug, Default, clap::Args)]
pub struct ThreadsArg {
    /// Threads per search, 1 to 256 (default: every core for one search, one per game
    /// where games run side by side).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: Option<u16>,
}

impl ThreadsArg {
    /// The threads asked for, or every core.
    pub fn or_all_cores(self) -> usize {
        self.threads
            .map_or_else(othello::engine::all_cores, usize::from)
    }

    /// The threads asked for, or one.
    pub fn or_one(self) -> usize {
        self.threads.map_or(1, usize::from)
    }
}

/// A transposition table size in MiB: from 1 to 65536, and no more than this machine's
/// memory (a table is a fixed size: one the system cannot give would only shrink).
pub fn hash_megabytes(text: &str) -> Result<u64, String> {
    let megabytes: u64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of MiB"))?;
    if !(1..=65536).contains(&megabytes) {
        return Err(format!("{megabytes} is not from 1 to 65536 (MiB)"));
    }
    if let Some(memory) = physical_memory_megabytes()
        && megabytes > memory
    {
        return Err(format!(
            "{megabytes} MiB is more than this machine's memory ({memory} MiB)"
        ));
    }
    Ok(megabytes)
}

/// This machine's memory in MiB, where the system says.
fn physical_memory_megabytes() -> Option<u64> {
    #[cfg(unix)]
    {
        // SAFETY: plain queries of system constants.
        let (pages, page_size) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        let bytes = u64::try_from(pages).ok()? * u64::try_from(page_size).ok()?;
        (bytes > 0).then_some(bytes >> 20)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The players a SPEC may name ([`PLAYER_KINDS`]), one a line with what each is, for the
/// help of the commands that take specs; `human` first where a person may take a seat.
pub fn players_help(human: bool) -> String {
    let usage = |kind: &PlayerKind| match kind.argument {
        None => kind.name.to_owned(),
        Some(argument) if argument.omitted.is_some() => {
            format!("{}[:{}]", kind.name, argument.letter)
        }
        Some(argument) => format!("{}:{}", kind.name, argument.letter),
    };
    let about = |kind: &PlayerKind| match kind.argument {
        None => kind.about.to_owned(),
        Some(argument) => format!(
            "{} ({}: {}-{})",
            kind.about, argument.letter, argument.min, argument.max
        ),
    };
    let mut rows: Vec<(String, String)> = Vec::new();
    if human {
        rows.push(("human".to_owned(), "a person at the keyboard".to_owned()));
    }
    rows.extend(PLAYER_KINDS.iter().map(|kind| (usage(kind), about(kind))));
    let width = rows.iter().map(|(usage, _)| usage.len()).max().unwrap_or(0);
    let mut text = String::from("Players (SPEC):");
    for (usage, about) in rows {
        text.push_str(&format!("\n  {usage:width$}  {about}"));
    }
    text
}

/// A seed from the clock, for games that should differ from run to run.
pub fn clock_seed() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos() as u64)
}

/// Now, for a saved record (or `SOURCE_DATE_EPOCH`, for reproducible output), in RFC 3339.
pub fn record_date() -> String {
    let now = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|seconds| seconds.parse().ok())
        .map_or_else(SystemTime::now, |seconds| {
            UNIX_EPOCH + Duration::from_secs(seconds)
        });
    humantime::format_rfc3339_seconds(now).to_string()
}

/// Why a command failed.
#[derive(Debug, Error)]
pub enum CliError {
    /// A file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A position file is malformed.
    #[error("{}: {source}", path.display())]
    Position {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: SetupError,
    },
    /// A line of an OBF file is malformed.
    #[error("{}: line {line}: {source}", path.display())]
    Obf {
        /// The file.
        path: PathBuf,
        /// The 1-based line number.
        line: usize,
        /// What is wrong with it.
        source: othello::ParseObfError,
    },
    /// A saved game cannot be loaded as asked: it is malformed, a flag contradicts it, or a
    /// move cannot be played.
    #[error("{}: {}", path.display(), crate::play::with_flags(source))]
    Load {
        /// The file.
        path: PathBuf,
        /// Why.
        source: LoadError,
    },
    /// The grader protocol stopped: malformed input (2), input that ended early (3), or
    /// input or output that failed (1).
    #[error(transparent)]
    Protocol(#[from] othello::protocol::ProtocolError),
    /// The console game stopped: reading or writing failed.
    #[error(transparent)]
    Play(#[from] crate::play::PlayError),
    /// The web server could not start.
    #[error(transparent)]
    Serve(#[from] crate::server::ServeError),
    /// The NBoard engine could not read its input or write its output.
    #[error(transparent)]
    Nboard(#[from] crate::nboard::NboardError),
    /// A tournament could not be played (or resumed).
    #[error(transparent)]
    Tournament(#[from] crate::tournament::TournamentError),
    /// An OBF position given on the command line is malformed.
    #[error("--obf: {0}")]
    ObfArgument(#[source] othello::ParseObfError),
    /// Ctrl-C stopped the work (after what it had found was printed).
    #[error("interrupted")]
    Interrupted,
    /// Positions were not solved within the time limit.
    #[error("{positions} position(s) not solved within the time limit")]
    NotSolved {
        /// Positions not solved.
        positions: usize,
    },
    /// Some scores of a test suite came out different from the suite's (or were not found
    /// within the time limit).
    #[error("{wrong} of {positions} scores differ from the suite's or were not found in time")]
    WrongScores {
        /// Positions with a different score.
        wrong: usize,
        /// Positions in the suite.
        positions: usize,
    },
    /// A command-line value is unusable.
    #[error("{message}")]
    Usage {
        /// What is wrong.
        message: String,
    },
    /// A file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    WriteFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The program under check could not be run.
    #[error(transparent)]
    Check(#[from] othello::grading::check::CheckError),
    /// Some cases of a check failed.
    #[error("{failed} of {} failed", crate::words::count(*cases as u64, "case"))]
    CasesFailed {
        /// Cases that failed.
        failed: usize,
        /// Cases run.
        cases: usize,
    },
    /// Writing the output failed.
    #[error("cannot write output: {0}")]
    Write(#[from] io::Error),
}

impl CliError {
    /// The exit status for this error: 2 for malformed input, 130 after Ctrl-C, 1 otherwise
    /// (including a suite with wrong scores).
    pub fn exit_status(&self) -> u8 {
        match self {
            CliError::Position { .. }
            | CliError::Obf { .. }
            | CliError::Load { .. }
            | CliError::ObfArgument(_) => 2,
            CliError::Protocol(error) => error.exit_status(),
            CliError::Play(_)
            | CliError::Serve(_)
            | CliError::Nboard(_)
            | CliError::Tournament(_) => 1,
            CliError::Read { .. }
            | CliError::Usage { .. }
            | CliError::WrongScores { .. }
            | CliError::NotSolved { .. }
            | CliError::WriteFile { .. }
            | CliError::Check(_)
            | CliError::CasesFailed { .. }
            | CliError::Write(_) => 1,
            // As a shell reports a program that Ctrl-C ended.
            CliError::Interrupted => 130,
        }
    }

    /// Whether the output was closed by its reader: the program should end quietly.
    pub fn is_broken_pipe(&self) -> bool {
        match self {
            CliError::Write(error) => error.kind() == io::ErrorKind::BrokenPipe,
            CliError::Protocol(error) => error.is_broken_pipe(),
            CliError::Play(error) => error.is_broken_pipe(),
            CliError::Nboard(error) => error.is_broken_pipe(),
            _ => false,
        }
    }
}

/// `text` with control characters written as escapes (`\t`, `\u{1}`), so that text from
/// a file cannot move the cursor, ring the bell or break a table's columns.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return text.into();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect::<String>()
        .into()
}

/// Reads the header and board at the start of a grader-format file (move lines after the
/// board are ignored).
///
/// # Errors
/// [`CliError::Read`] or [`CliError::Position`].
pub fn read_position(path: &Path) -> Result<Setup, CliError> {
    let text = crate::files::read_limited(path, crate::files::GAME_FILE).map_err(|source| {
        CliError::Read {
            path: path.to_owned(),
            source,
        }
    })?;
    Setup::from_grader_input(&text).map_err(|source| CliError::Position {
        path: path.to_owned(),
        source,
    })
}

/// The position a command starts from: the header and board of a grader-format file, or
/// the standard start on `size`; then `first` and `win` where given.
///
/// # Errors
/// See [`read_position`].
pub fn starting_setup(
    position: Option<&Path>,
    size: Shape,
    first: Option<Color>,
    win: Option<WinRule>,
) -> Result<Setup, CliError> {
    let mut setup = match position {
        Some(path) => read_position(path)?,
        None => Setup::standard(size),
    };
    if let Some(first) = first {
        setup.first_mover = first;
    }
    if let Some(win) = win {
        setup.win_rule = win;
    }
    Ok(setup)
}

impl From<crate::play::LoadFileError> for CliError {
    fn from(error: crate::play::LoadFileError) -> CliError {
        match error {
            crate::play::LoadFileError::Read { path, source } => CliError::Read { path, source },
            crate::play::LoadFileError::Load { path, source } => CliError::Load { path, source },
        }
    }
}
