//! `othello play`: the console game's arguments; the game itself is [`crate::play`].

use std::{
    io::{self, IsTerminal, Write},
    path::PathBuf,
    time::Duration,
};

use clap::Args;
use othello::{ByColor, GameKind, LoadSettings, Shape, Variant, WinRule, engine::Occupant};

use super::{CliError, First, Rules, clock_seed, hash_megabytes, record_date, win_rule};
use crate::play::{self, PlayOptions};

/// `othello play [--black human|SPEC] [--white human|SPEC] [--rules ..] [--size RxC]
/// [--first B|W] [--win ..] [--position FILE | --load FILE] ...`.
#[derive(Debug, Args)]
#[command(after_help = super::players_help(true))]
pub struct PlayArgs {
    /// Who plays Black: human, or a player SPEC (the players are listed below).
    #[arg(long, value_name = "human|SPEC", default_value = "human", value_parser = super::occupant)]
    black: Occupant,
    /// Who plays White.
    #[arg(long, value_name = "human|SPEC", default_value = "engine", value_parser = super::occupant)]
    white: Occupant,
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
    #[arg(long, value_name = "most|fewest", value_parser = win_rule)]
    win: Option<WinRule>,
    /// Start from a grader-format input's header and board.
    #[arg(long, value_name = "FILE", conflicts_with = "load")]
    position: Option<PathBuf>,
    /// Continue a saved game (a game record, transcript, OBF board, GGF game or grader
    /// input).
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
    #[arg(long, value_name = "MIB", value_parser = hash_megabytes)]
    hash: Option<u64>,
    #[command(flatten)]
    threads: super::ThreadsArg,
    /// The computer never plays from the opening book.
    #[arg(long)]
    no_book: bool,
    /// A clock for each side for the whole game, people included: 5m, 4:30, 90s (the
    /// time left shows in the panel and the prompt; the computer plans within it).
    #[arg(long, value_name = "TIME", value_parser = clock_time)]
    game_time: Option<Duration>,
    /// The most any move may take, people included: 30s, 0:45.
    #[arg(long, value_name = "TIME", value_parser = clock_time)]
    move_limit: Option<Duration>,
    /// What running out of time does: lose (the game) or warn (and play on).
    #[arg(long, value_enum, default_value_t = OnTime::Lose)]
    on_time: OnTime,
    /// Draw discs as X and O instead of ● and ○.
    #[arg(long)]
    ascii: bool,
    /// No colours, even on a terminal (colours are also off when NO_COLOR is set or
    /// stdout is not a terminal).
    #[arg(long)]
    no_color: bool,
}

/// What running out of time does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum OnTime {
    /// The side loses the game.
    Lose,
    /// The side is told, and the game goes on.
    Warn,
}

/// A clock's time: humantime (5m, 90s, 1h30m), MM:SS or seconds, at most a day.
fn clock_time(text: &str) -> Result<Duration, String> {
    play::parse_duration(text, Duration::from_secs(24 * 3600)).ok_or_else(|| {
        format!("expected a time such as 5m, 4:30 or 90s (more than nothing, at most a day), not {text:?}")
    })
}

impl PlayArgs {
    /// Plays games on stdin and stdout until the person quits or the input ends.
    ///
    /// # Errors
    /// [`CliError`] for a bad position or saved game, or failed input or output.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let first = self.first.map(Into::into);
        let setup = super::starting_setup(
            self.position.as_deref(),
            self.size.unwrap_or(Shape::STANDARD),
            first,
            self.win,
        )?;
        let variant = self.rules.map_or(Variant::Full, Variant::from);
        // A loaded game keeps what its file states; flags fill in the rest, and
        // contradicting it is an error.
        let settings = LoadSettings {
            variant: self.rules.map(Variant::from),
            shape: self.size,
            first,
            win: self.win,
            ..LoadSettings::defaults(variant, setup)
        };
        let load = self
            .load
            .map(|path| play::read_record(&path, &settings))
            .transpose()?;
        let kind = match &load {
            Some(record) => GameKind::new(
                record.variant,
                record.setup.board.shape(),
                record.setup.win_rule,
            ),
            None => GameKind::new(variant, setup.board.shape(), setup.win_rule),
        };
        for seat in [self.black, self.white] {
            if let Occupant::Computer(spec) = seat {
                super::check_fits(spec, kind)?;
            }
        }
        let no_color_env = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let options = PlayOptions {
            variant,
            setup,
            seats: ByColor::new(self.black, self.white),
            load,
            time_per_move: Duration::from_millis(self.time_per_move),
            seed: self.seed.unwrap_or_else(clock_seed),
            delay: Duration::from_millis(self.delay),
            style: play::Style {
                color: !self.no_color && !no_color_env && io::stdout().is_terminal(),
                ascii: self.ascii,
            },
            echo: !io::stdin().is_terminal(),
            thinking: io::stderr().is_terminal(),
            terminal: io::stdin().is_terminal() && io::stdout().is_terminal(),
            date: Some(record_date()),
            hash: self.hash.map(|mib| mib as usize),
            threads: self.threads.or_all_cores(),
            no_book: self.no_book,
            limits: play::TimeLimits {
                game: self.game_time,
                per_move: self.move_limit,
                warn_only: self.on_time == OnTime::Warn,
            },
        };
        play::run(io::stdin().lock(), out, options)?;
        Ok(())
    }
}
