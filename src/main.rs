//! The `othello` program: argument parsing and exit statuses; the work is in the library.

use std::{
    io::{self, IsTerminal, Write},
    path::PathBuf,
    process::ExitCode,
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use clap::{Args, Parser, Subcommand, ValueEnum};
use othello::{
    Color, Obf, Setup, Shape, Variant, WinRule,
    check::{CheckOptions, Mode, RulesChoice},
    commands::{self, CommandError, LoadSettings, hint::HintOptions, solve::SolveOptions},
    engine::{Limits, MatchOptions, PlayerSpec},
    play::{self, PlayOptions, Seat},
    protocol,
    scenario::GenOptions,
};

/// Othello (Reversi) speaking the course's grader protocol on stdin and stdout.
///
/// Without a command: prints FULL (or SIMPLE), reads rows, columns, first mover (B or W), win
/// rule (> or <) and the board, then plays the game one move line ("row column") at a time.
///
/// Exit status: 0 the game was played to its end; 1 bad arguments or an I/O error;
/// 2 malformed header or board; 3 input ended before the game was over.
#[derive(Debug, Parser)]
#[command(version, about, long_about, args_conflicts_with_subcommands = true)]
struct Cli {
    /// Rule set: full (standard Othello) or simple (flip adjacent opponent discs only).
    #[arg(long, value_enum, default_value_t = Rules::Full)]
    rules: Rules,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Count the leaves of the game tree at each depth from 1 to DEPTH.
    ///
    /// A pass counts as one ply; a finished game counts as one leaf at every deeper depth.
    /// Each line: depth, leaves, seconds, rate.
    Perft {
        /// The deepest depth, in plies.
        #[arg(value_parser = clap::value_parser!(u32).range(1..=64))]
        depth: u32,
        /// Rule set.
        #[arg(long, value_enum, default_value_t = Rules::Full)]
        rules: Rules,
        /// A grader-format input: its header and board, with its first mover to move
        /// (default: the standard 8x8 start, Black to move).
        #[arg(long, value_name = "FILE")]
        position: Option<PathBuf>,
        /// One JSON object per line: {"depth":d,"leaves":n,"seconds":s}.
        #[arg(long)]
        json: bool,
    },
    /// Solve a position exactly: the best move and the final disc difference under perfect
    /// play (empty squares go to the winner), with nodes and time.
    ///
    /// With --suite, solves every position of an OBF file, prints a row per position with the
    /// expected and found scores and a total, and exits 1 if any score is wrong.
    Solve {
        #[command(flatten)]
        source: SolveSource,
        /// Rule set.
        #[arg(long, value_enum, default_value_t = Rules::Full)]
        rules: Rules,
        /// Give up on a position after this many milliseconds (it then counts as not solved).
        #[arg(long, value_name = "MS")]
        time: Option<u64>,
        /// Transposition table size in MiB (default: sized to the position, 1 to 256).
        #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u32).range(1..=65536))]
        hash: Option<u32>,
        /// JSON: one object {"solved":true,"game_over":false,"move":"a2","score":38,
        /// "nodes":n,"seconds":s} ("move" is "pass" or null when there is none); with
        /// --suite, JSON Lines: one per position (with "name", "expected", "ok"), then a
        /// total.
        #[arg(long)]
        json: bool,
    },
    /// The best moves of a position, with scores (in discs) and expected lines.
    Hint {
        #[command(flatten)]
        source: PositionSource,
        /// Rule set.
        #[arg(long, value_enum, default_value_t = Rules::Full)]
        rules: Rules,
        /// Search this many plies deep (no time limit; from the number of empty squares up,
        /// an exact solve).
        #[arg(long, conflicts_with = "time", value_parser = clap::value_parser!(u32).range(1..=256))]
        depth: Option<u32>,
        /// Search for this many milliseconds (default 1000).
        #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
        time: Option<u64>,
        /// How many moves to list.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=64))]
        count: u32,
        /// Transposition table size in MiB (default: sized to the time or depth).
        #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u32).range(1..=65536))]
        hash: Option<u32>,
        /// One JSON object: {"to_move":"B","exact":false,"depth":9,"moves":[{"rank":1,
        /// "move":"d3","score":1.25,"exact":false,"pv":[...]}],...}.
        #[arg(long)]
        json: bool,
    },
    /// Play at the console: people against each other or the computer, with hints, undo,
    /// and saved games.
    ///
    /// Moves are typed as d3 (column letter, row number; a1 is the top-left corner) or as
    /// "3 4" (row, column). Type help during a game for the commands. The end of the input
    /// ends the program (status 0), so sessions can be scripted.
    Play {
        /// Who plays Black: human, or a player spec (random, greedy, minimax:D, mcts:N,
        /// engine, engine:L).
        #[arg(long, value_name = "human|SPEC", default_value = "human")]
        black: Seat,
        /// Who plays White.
        #[arg(long, value_name = "human|SPEC", default_value = "engine")]
        white: Seat,
        /// Rule set (default full; a loaded game that states its rules keeps them).
        #[arg(long, value_enum)]
        rules: Option<Rules>,
        /// Board size for the standard start, rows x columns (4 to 16 each; default 8x8).
        #[arg(long, value_name = "RxC", conflicts_with = "position")]
        size: Option<Shape>,
        /// Who moves first from the standard start.
        #[arg(long, value_enum, conflicts_with = "position")]
        first: Option<First>,
        /// Who wins: most or fewest discs.
        #[arg(long, value_enum)]
        win: Option<Win>,
        /// Start from a grader-format input's header and board.
        #[arg(long, value_name = "FILE", conflicts_with = "load")]
        position: Option<PathBuf>,
        /// Continue a saved game (a game record, transcript, OBF board or GGF game).
        #[arg(long, value_name = "FILE")]
        load: Option<PathBuf>,
        /// Time the computer may take per move (and a hint), in milliseconds.
        #[arg(long, value_name = "MS", default_value_t = 1000)]
        time_per_move: u64,
        /// Seed for the computer's random choices (default: from the clock).
        #[arg(long, value_name = "S")]
        seed: Option<u64>,
        /// Pause after each computer move, in milliseconds (to watch computer games).
        #[arg(long, value_name = "MS", default_value_t = 0)]
        delay: u64,
        /// The engine's transposition table size in MiB (default: sized to the time per
        /// move, at most 32).
        #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u32).range(1..=65536))]
        hash: Option<u32>,
        /// Draw discs as X and O instead of ● and ○.
        #[arg(long)]
        ascii: bool,
        /// No colours, even on a terminal (colours are also off when NO_COLOR is set or
        /// stdout is not a terminal).
        #[arg(long)]
        no_color: bool,
    },
    /// Check a program against the grader protocol like the course's harness: each case's
    /// input is sent line by line, each line only after the output before it has arrived.
    ///
    /// Reports each failing case with a class (missing-flush, wrong-rules-line,
    /// extra-output, trailing-whitespace, crash, no-exit, wrong-pass, wrong-winner, ...),
    /// the line, expected and actual text, the moves so far and the position; then a
    /// summary. Exit status 0 only if every case passed.
    Check {
        /// The program to check, with its arguments (split like a shell would, without
        /// running one): "python3 student.py".
        #[arg(long, value_name = "CMD")]
        program: String,
        /// Grader inputs to run (.in files).
        #[arg(value_name = "CASES", required_unless_present = "generate")]
        cases: Vec<PathBuf>,
        /// Instead of files, generate this many cases (as `othello gen` does, all kinds,
        /// sizes 4x4 to 16x16, some invalid lines) for the program's rules.
        #[arg(long, value_name = "N", conflicts_with = "cases")]
        generate: Option<u32>,
        /// Seed for --generate (default 1).
        #[arg(long, value_name = "S", requires = "generate")]
        seed: Option<u64>,
        /// Rules to check against: full, simple, or auto (those the program's first line
        /// names).
        #[arg(long, value_enum, default_value_t = CheckRules::Auto)]
        rules: CheckRules,
        /// Longest wait for each expected piece of output, in seconds (more than 0, at most
        /// 3600).
        #[arg(
            long,
            value_name = "SECS",
            default_value = "5",
            value_parser = seconds,
            allow_hyphen_values = true
        )]
        timeout: Duration,
        /// Cases run at the same time (1 to 256).
        #[arg(long, value_name = "J", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
        jobs: u16,
        /// Send each case's whole input at once instead of line by line.
        #[arg(long)]
        piped: bool,
        /// Write each failing case's input, cut at the failure, into this directory.
        #[arg(long, value_name = "DIR")]
        save_failures: Option<PathBuf>,
        /// One JSON object: {"cases":n,"passed":p,"failed":f,"by_class":{..},"results":[..]}.
        #[arg(long)]
        json: bool,
    },
    /// Write grader test inputs (NNNN.in), and with --expect the reference output beside
    /// each (NNNN.out), reproducibly from the seed.
    ///
    /// Kinds (in rotation): standard, random, stuck-first, over-at-start, passes,
    /// nearly-full, tie. Every scenario plays to the end unless --truncate.
    Gen {
        /// Scenarios to write.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        count: u32,
        /// Seed: the same seed writes the same files.
        #[arg(long, value_name = "S", default_value_t = 1)]
        seed: u64,
        /// Rule set the scenarios are for.
        #[arg(long, value_enum, default_value_t = Rules::Full)]
        rules: Rules,
        /// Board sizes, rows x columns, even: 4x4,8x8,16x12 or all.
        #[arg(long, value_name = "LIST|all", default_value = "8x8")]
        sizes: String,
        /// Scenario kinds: standard,random,stuck-first,over-at-start,passes,nearly-full,tie
        /// or all.
        #[arg(long, value_name = "LIST|all", default_value = "all")]
        kind: String,
        /// Probability of invalid move lines before each move (occupied, out of range,
        /// flipping nothing, malformed), from 0 to 1.
        #[arg(
            long,
            value_name = "P",
            default_value = "0.1",
            value_parser = probability,
            allow_hyphen_values = true
        )]
        invalid_rate: f64,
        /// Let some scenarios stop before the game is over (the grader then exits 3).
        #[arg(long)]
        truncate: bool,
        /// Also write lines whose verdict is this program's own choice where the course's
        /// spec is silent (over-long lines, unusual whitespace, non-ASCII digits, padded
        /// moves). They test this program's documented choices, not the course's: a
        /// correct student program may answer them differently. Without it, every invalid
        /// line is refused by every reasonable reading of the spec and every move is
        /// written "row column".
        #[arg(long)]
        edge_cases: bool,
        /// Directory to write into (created if missing).
        #[arg(long, value_name = "DIR", default_value = ".")]
        out: PathBuf,
        /// Also write the reference output of each scenario (NNNN.out).
        #[arg(long)]
        expect: bool,
    },
    /// Print a grader session as a person reads it: the output, with each input line shown
    /// (prefixed with "> ") where the grader reads it.
    Transcript {
        /// Rule set.
        #[arg(long, value_enum, default_value_t = Rules::Full)]
        rules: Rules,
        /// The grader input (default: stdin).
        #[arg(value_name = "FILE.in")]
        input: Option<PathBuf>,
    },
    /// Two players play a series of games: a table of wins, draws, losses, average disc
    /// difference and the Elo difference with its 95 % interval.
    ///
    /// Colours alternate every game; games are played in pairs on the same random opening,
    /// colours swapped. A progress bar is drawn on stderr when it is a terminal.
    #[command(name = "match")]
    Match {
        /// The player with Black in the first game: random, greedy, minimax:D, mcts:N,
        /// engine or engine:L (1-10).
        #[arg(long, value_name = "SPEC")]
        black: PlayerSpec,
        /// The player with White in the first game.
        #[arg(long, value_name = "SPEC")]
        white: PlayerSpec,
        /// Games to play.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        games: u32,
        /// Rule set.
        #[arg(long, value_enum, default_value_t = Rules::Full)]
        rules: Rules,
        /// Start from a grader-format input's header and board (its first mover and win
        /// rule too) instead of the standard start.
        #[arg(long, value_name = "FILE", conflicts_with = "size")]
        position: Option<PathBuf>,
        /// Board size for the standard start, rows x columns.
        #[arg(long, value_name = "RxC", default_value = "8x8")]
        size: Shape,
        /// Who wins: most or fewest discs (default: most, or the position file's rule).
        #[arg(long, value_enum)]
        win: Option<Win>,
        /// Random legal moves played before the players take over (at most half the empty
        /// squares of the start, so the players decide most of each game).
        #[arg(long, value_name = "K", default_value_t = 4)]
        openings: u32,
        /// Time each player may take per move, in milliseconds.
        #[arg(long, value_name = "MS", default_value_t = 100)]
        time_per_move: u64,
        /// Seed for the openings and the players' random choices.
        #[arg(long, value_name = "S", default_value_t = 1)]
        seed: u64,
        /// Each engine's transposition table size in MiB (default: sized to the time per
        /// move, at most 32).
        #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u32).range(1..=65536))]
        hash: Option<u32>,
        /// One JSON object: {"games":N,"players":[{"spec":..,"wins":..},..],"draws":d,..}.
        #[arg(long)]
        json: bool,
    },
}

/// A number of seconds: finite, more than 0, at most an hour.
fn seconds(text: &str) -> Result<Duration, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if !value.is_finite() || value <= 0.0 || value > 3600.0 {
        return Err(format!(
            "{text:?} is out of range: give more than 0 and at most 3600 seconds"
        ));
    }
    Ok(Duration::from_secs_f64(value))
}

/// A probability: a number from 0 to 1.
fn probability(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number"))?;
    if !(0.0..=1.0).contains(&value) {
        return Err(format!(
            "{text:?} is out of range: give a number from 0 to 1"
        ));
    }
    Ok(value)
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum CheckRules {
    Full,
    Simple,
    Auto,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum First {
    /// Black moves first.
    #[value(name = "B", alias = "b")]
    Black,
    /// White moves first.
    #[value(name = "W", alias = "w")]
    White,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Win {
    /// Most discs wins (the grader's `>`).
    Most,
    /// Fewest discs wins (the grader's `<`).
    Fewest,
}

impl From<Win> for WinRule {
    fn from(win: Win) -> WinRule {
        match win {
            Win::Most => WinRule::MostDiscs,
            Win::Fewest => WinRule::FewestDiscs,
        }
    }
}

/// Where a position comes from.
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
struct PositionSource {
    /// An 8x8 position in OBF: "<64 cells a1..h8 of X, O, -> <X|O>" (X is Black).
    #[arg(long, value_name = "OBF", allow_hyphen_values = true)]
    obf: Option<String>,
    /// A grader-format input: its header and board, its first mover to move, its win rule.
    #[arg(long, value_name = "FILE")]
    position: Option<PathBuf>,
}

/// Where the positions to solve come from.
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
struct SolveSource {
    /// An 8x8 position in OBF: "<64 cells a1..h8 of X, O, -> <X|O>" (X is Black).
    #[arg(long, value_name = "OBF", allow_hyphen_values = true)]
    obf: Option<String>,
    /// A grader-format input: its header and board, its first mover to move, its win rule.
    #[arg(long, value_name = "FILE")]
    position: Option<PathBuf>,
    /// An OBF file with one position per line and its scored moves (e.g. the FFO suite).
    #[arg(long, value_name = "FILE.obf")]
    suite: Option<PathBuf>,
}

/// The position named by `--obf` or `--position`.
fn setup_of(obf: Option<&str>, position: Option<&PathBuf>) -> Result<Setup, CommandError> {
    match (obf, position) {
        (Some(text), _) => Ok(text
            .parse::<Obf>()
            .map_err(CommandError::ObfArgument)?
            .setup),
        (None, Some(path)) => commands::read_position(path),
        (None, None) => unreachable!("clap requires one of them"),
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Rules {
    Full,
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

fn main() -> ExitCode {
    if let Some(variant) = plain_grader_arguments() {
        return grader(variant);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            // --help and --version print to stdout and succeed; usage errors exit with 1.
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { 1 } else { 0 });
        }
    };
    match cli.command {
        None => grader(cli.rules.into()),
        Some(Command::Perft {
            depth,
            rules,
            position,
            json,
        }) => command(|out| {
            let setup = match position {
                Some(path) => commands::read_position(&path)?,
                None => Setup::standard(Shape::STANDARD),
            };
            commands::perft::run(rules.into(), &setup, depth, json, out).map(drop)
        }),
        Some(Command::Solve {
            source,
            rules,
            time,
            hash,
            json,
        }) => command(|out| {
            let options = SolveOptions {
                limits: time.map_or(Limits::NONE, |ms| Limits::time(Duration::from_millis(ms))),
                hash: hash.map(|mib| mib as usize),
                json,
                progress: io::stderr().is_terminal(),
                ..SolveOptions::new(rules.into())
            };
            match source.suite {
                Some(path) => {
                    let suite = commands::solve::read_suite(&path)?;
                    commands::solve::run_suite(&suite, &options, out).map(drop)
                }
                None => {
                    let setup = setup_of(source.obf.as_deref(), source.position.as_ref())?;
                    commands::solve::run(&setup, &options, out).map(drop)
                }
            }
        }),
        Some(Command::Hint {
            source,
            rules,
            depth,
            time,
            count,
            hash,
            json,
        }) => command(|out| {
            let setup = setup_of(source.obf.as_deref(), source.position.as_ref())?;
            let limits = match (depth, time) {
                (Some(depth), _) => Limits::depth(depth),
                (None, Some(ms)) => Limits::time(Duration::from_millis(ms)),
                (None, None) => Limits::time(commands::hint::DEFAULT_TIME),
            };
            let options = HintOptions {
                limits,
                hash: hash.map(|mib| mib as usize),
                json,
                progress: io::stderr().is_terminal(),
                ..HintOptions::new(rules.into(), count as usize)
            };
            commands::hint::run(&setup, &options, out).map(drop)
        }),
        Some(Command::Play {
            black,
            white,
            rules,
            size,
            first,
            win,
            position,
            load,
            time_per_move,
            seed,
            delay,
            hash,
            ascii,
            no_color,
        }) => {
            let prepared = (|| -> Result<PlayOptions, CommandError> {
                let first = first.map(|first| match first {
                    First::Black => Color::Black,
                    First::White => Color::White,
                });
                let setup = commands::starting_setup(
                    position.as_deref(),
                    size.unwrap_or(Shape::STANDARD),
                    first,
                    win.map(Into::into),
                )?;
                let variant = rules.map_or(Variant::Full, Variant::from);
                // A loaded game keeps what its file states; flags fill in the rest, and
                // contradicting it is an error.
                let settings = LoadSettings {
                    variant: rules.map(Variant::from),
                    shape: size,
                    first,
                    win: win.map(Into::into),
                    ..LoadSettings::defaults(variant, setup)
                };
                let load = load
                    .map(|path| commands::read_record(&path, &settings))
                    .transpose()?;
                let no_color_env = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
                Ok(PlayOptions {
                    variant,
                    setup,
                    seats: [black, white],
                    load,
                    time_per_move: Duration::from_millis(time_per_move),
                    seed: seed.unwrap_or_else(clock_seed),
                    delay: Duration::from_millis(delay),
                    style: play::Style {
                        color: !no_color && !no_color_env && io::stdout().is_terminal(),
                        ascii,
                    },
                    echo: !io::stdin().is_terminal(),
                    thinking: io::stderr().is_terminal(),
                    terminal: io::stdin().is_terminal() && io::stdout().is_terminal(),
                    date: Some(record_date()),
                    hash: hash.map(|mib| mib as usize),
                })
            })();
            match prepared {
                Ok(options) => {
                    match play::run(io::stdin().lock(), &mut io::stdout().lock(), options) {
                        Ok(()) => ExitCode::SUCCESS,
                        Err(error) if error.is_broken_pipe() => ExitCode::SUCCESS,
                        Err(error) => fail(&error, 1),
                    }
                }
                Err(error) => fail(&error, error.exit_status()),
            }
        }
        Some(Command::Gen {
            count,
            seed,
            rules,
            sizes,
            kind,
            invalid_rate,
            truncate,
            edge_cases,
            out: dir,
            expect,
        }) => command(|out| {
            let usage = |message: String| CommandError::Usage { message };
            let options = GenOptions {
                variant: rules.into(),
                sizes: commands::generate::parse_sizes(&sizes).map_err(usage)?,
                kinds: commands::generate::parse_kinds(&kind).map_err(usage)?,
                invalid_rate,
                truncate,
                seed,
                edge_cases,
            };
            commands::generate::run(&options, count, &dir, expect, out)
        }),
        Some(Command::Check {
            program,
            cases,
            generate,
            seed,
            rules,
            timeout,
            jobs,
            piped,
            save_failures,
            json,
        }) => command(|out| {
            let program = shell_words::split(&program).map_err(|error| CommandError::Usage {
                message: format!("--program: {error}"),
            })?;
            let rules = match rules {
                CheckRules::Full => RulesChoice::Fixed(Variant::Full),
                CheckRules::Simple => RulesChoice::Fixed(Variant::Simple),
                CheckRules::Auto => RulesChoice::Auto,
            };
            // clap's `requires` is not enforced beside `required_unless_present`.
            if seed.is_some() && generate.is_none() {
                return Err(CommandError::Usage {
                    message: "--seed applies only to --generate N: the cases given are run as \
                              they are"
                        .to_owned(),
                });
            }
            let cases = match generate {
                Some(count) => {
                    commands::check::generated_cases(&program, rules, count, seed.unwrap_or(1))?
                }
                None => commands::check::read_cases(&cases)?,
            };
            let run = commands::check::CheckRun {
                options: CheckOptions {
                    program,
                    rules,
                    mode: if piped {
                        Mode::Piped
                    } else {
                        Mode::Interactive
                    },
                    line_timeout: timeout,
                },
                cases,
                jobs: usize::from(jobs),
                save_failures,
                json,
            };
            commands::check::run(&run, out).map(drop)
        }),
        Some(Command::Transcript { rules, input }) => command(|out| match &input {
            Some(path) => {
                let file = std::fs::File::open(path).map_err(|source| CommandError::Read {
                    path: path.clone(),
                    source,
                })?;
                let input = io::BufReader::with_capacity(64 * 1024, file);
                commands::transcript::run(rules.into(), input, out).map(drop)
            }
            None => commands::transcript::run(rules.into(), io::stdin().lock(), out).map(drop),
        }),
        Some(Command::Match {
            black,
            white,
            games,
            rules,
            position,
            size,
            win,
            openings,
            time_per_move,
            seed,
            hash,
            json,
        }) => command(|out| {
            let setup =
                commands::starting_setup(position.as_deref(), size, None, win.map(Into::into))?;
            let empties = setup.board.empty_squares().count();
            if openings > empties / 2 {
                return Err(CommandError::Usage {
                    message: format!(
                        "--openings {openings}: at most {} random moves on this start (half its \
                         {empties} empty squares), so that the players decide the games",
                        empties / 2
                    ),
                });
            }
            let options = MatchOptions {
                setup,
                players: [black, white],
                games,
                openings,
                time_per_move: Some(Duration::from_millis(time_per_move)),
                seed,
                hash: hash.map(|mib| mib as usize),
            };
            commands::tournament::run(rules.into(), &options, json, out).map(drop)
        }),
    }
}

/// The rule set, when the arguments are only what the grader mode takes (nothing, or
/// `--rules full|simple`): then the full parser is not built. Harnesses start the grader
/// once per test case, and building every subcommand's options cost more than a short
/// session itself (about 200,000 instructions of the 700,000 an empty input took; see
/// BENCHMARKS.md). Anything else goes through clap, which accepts the same spellings.
fn plain_grader_arguments() -> Option<Variant> {
    let mut arguments = std::env::args_os().skip(1);
    let first = arguments.next();
    let second = arguments.next();
    if arguments.next().is_some() {
        return None;
    }
    let rules = match (first.as_ref().and_then(|a| a.to_str()), second.as_ref()) {
        (None, _) => return Some(Variant::Full),
        (Some("--rules"), Some(value)) => value.to_str()?,
        (Some(flag), None) => flag.strip_prefix("--rules=")?,
        _ => return None,
    };
    Variant::ALL
        .into_iter()
        .find(|variant| variant.name() == rules)
}

/// A seed from the clock, for games that should differ from run to run.
fn clock_seed() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos() as u64)
}

/// Now, for a saved record (or `SOURCE_DATE_EPOCH`, for reproducible output), in RFC 3339.
fn record_date() -> String {
    let now = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|seconds| seconds.parse().ok())
        .map_or_else(SystemTime::now, |seconds| {
            UNIX_EPOCH + Duration::from_secs(seconds)
        });
    humantime::format_rfc3339_seconds(now).to_string()
}

fn grader(variant: Variant) -> ExitCode {
    match protocol::run(io::stdin().lock(), io::stdout().lock(), variant) {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) if error.is_broken_pipe() => ExitCode::SUCCESS,
        Err(error) => fail(&error, error.exit_status()),
    }
}

fn command(run: impl FnOnce(&mut io::StdoutLock<'static>) -> Result<(), CommandError>) -> ExitCode {
    match run(&mut io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.is_broken_pipe() => ExitCode::SUCCESS,
        Err(error) => fail(&error, error.exit_status()),
    }
}

fn fail(error: &dyn std::error::Error, status: u8) -> ExitCode {
    let _ = writeln!(io::stderr(), "othello: {error}");
    ExitCode::from(status)
}
