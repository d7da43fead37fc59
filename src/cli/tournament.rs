//! `othello tournament`: its command line. The tournament itself is in `tournament/`, its
//! text and JSON in `tournament/report.rs`; this reads the arguments, draws the progress bar
//! on a terminal, and prints the report.

use std::{
    io::{self, Write},
    path::PathBuf,
    time::Duration,
};

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use othello::engine::PlayerSpec;

use super::CliError;
use crate::tournament::{
    self, Entrant, EntrantKind, OpeningsSource, Progress, TournamentError, TournamentOptions,
    report::{self, Report, Standings},
};

/// The most games a tournament may have: its schedule and results are held in memory.
const MAX_GAMES: usize = 100_000;

/// The longest player name, in bytes.
const MAX_NAME: usize = 32;

/// Random opening moves when neither `--openings` nor `--random-openings` is given.
const DEFAULT_RANDOM_MOVES: u32 = 4;

/// `othello tournament --player NAME=SPEC ... --engine NAME=COMMAND ... [--games N]
/// [--gauntlet NAME] [--time-per-move MS] [--engine-depth D] [--move-timeout MS]
/// [--openings FILE | --random-openings K] [--seed S] [--save DIR | --no-save] [--json]`.
#[derive(Debug, Args)]
#[command(after_help = super::players_help(false))]
pub struct TournamentArgs {
    /// A built-in player, NAME=SPEC (repeat for more): SPEC one of the players listed
    /// below; NAME a word (letters, digits, _ . -).
    #[arg(long = "player", value_name = "NAME=SPEC", value_parser = parse_player)]
    players: Vec<NamedSpec>,
    /// An external engine speaking the NBoard protocol, NAME=COMMAND (repeat for more):
    /// COMMAND is split like a shell's words and run without a shell, e.g.
    /// edax="edax -nboard". Engines are numbered after the built-in players.
    #[arg(long = "engine", value_name = "NAME=COMMAND", value_parser = parse_engine)]
    engines: Vec<NamedCommand>,
    /// Games per pairing, even: each opening is played twice, colours swapped.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    games: u32,
    /// Only this player against each of the others (default: every pairing).
    #[arg(long, value_name = "NAME")]
    gauntlet: Option<String>,
    /// The built-in players' time per move, in milliseconds (also the basis of the
    /// engines' clock, sent in the GGF's TI tag).
    #[arg(long, value_name = "MS", default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    time_per_move: u64,
    /// Threads per built-in engine search (default one).
    #[command(flatten)]
    threads: super::ThreadsArg,
    /// Built-in engines play without the opening book.
    #[arg(long)]
    no_book: bool,
    /// The depth external engines search to (set depth).
    #[arg(long, value_name = "D", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=60))]
    engine_depth: u32,
    /// The longest an external engine may take for any answer (its move, a pong, the
    /// handshake), in milliseconds; beyond it, it loses the game.
    #[arg(long, value_name = "MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    move_timeout: u64,
    /// A file of openings, one transcript a line (f5d6c3); blank lines and lines starting
    /// with % or # are skipped; used in order, cycling.
    #[arg(long, value_name = "FILE", conflicts_with = "random_openings")]
    openings: Option<PathBuf>,
    /// Openings of K random legal moves (default 4), reproducible from the seed.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(0..=30))]
    random_openings: Option<u32>,
    /// Seed for the random openings and the built-in players' choices.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Where to save the games and resume from (default: tournament-DIGEST in the current
    /// directory, DIGEST from the arguments that decide the games).
    #[arg(long, value_name = "DIR", conflicts_with = "no_save")]
    save: Option<PathBuf>,
    /// Save nothing (the tournament cannot be resumed).
    #[arg(long)]
    no_save: bool,
    /// One JSON object: the players, the pairings, the ratings and every game.
    #[arg(long)]
    json: bool,
}

/// `NAME=SPEC`.
#[derive(Clone, Debug)]
pub struct NamedSpec {
    name: String,
    spec: PlayerSpec,
}

/// `NAME=COMMAND`.
#[derive(Clone, Debug)]
pub struct NamedCommand {
    name: String,
    command: String,
    argv: Vec<String>,
}

fn parse_player(text: &str) -> Result<NamedSpec, String> {
    let (name, spec) = named(text, "SPEC", "greedy=greedy")?;
    let spec = super::player_spec(&spec)?;
    Ok(NamedSpec { name, spec })
}

fn parse_engine(text: &str) -> Result<NamedCommand, String> {
    let (name, command) = named(text, "COMMAND", "edax=\"edax -nboard\"")?;
    let argv = shell_words::split(&command).map_err(|error| format!("{command}: {error}"))?;
    if argv.is_empty() {
        return Err(format!("{name}: no command given"));
    }
    Ok(NamedCommand {
        name,
        command,
        argv,
    })
}

/// The name and the rest of `NAME=REST`, the name checked.
fn named(text: &str, rest: &str, example: &str) -> Result<(String, String), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("expected NAME={rest}, such as {example}"))?;
    let word = name.len() <= MAX_NAME
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !word {
        return Err(format!(
            "the name {name:?} is not a word: up to {MAX_NAME} letters, digits, _, - and ., \
             starting with a letter or digit"
        ));
    }
    Ok((name.to_owned(), value.to_owned()))
}

impl TournamentArgs {
    /// Plays the tournament (or the rest of it) and prints the report.
    ///
    /// # Errors
    /// [`CliError`]: bad arguments, an openings file or a save directory that cannot be
    /// used, an engine that cannot be started at all, or failed output.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let json = self.json;
        // A directory nobody named: say where it is before the first game.
        let default_save = self.save.is_none() && !self.no_save;
        let options = self.options()?;
        let saved = options.save.clone();
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} games, {elapsed} {msg}")
                .expect("a valid template"),
        );
        {
            let bar = bar.clone();
            let dir = saved.clone();
            // Without the handlers the tournament still runs; only an interruption would
            // leave engines to end by themselves when their input closes.
            let _ = tournament::on_interrupt(move |status| {
                bar.abandon();
                let _ = writeln!(io::stderr(), "{}", report::interrupted_note(dir.as_deref()));
                std::process::exit(i32::from(status));
            });
        }
        let mut on_progress = |progress: Progress<'_>| match progress {
            Progress::Resumed { played, total } => {
                bar.set_length(total as u64);
                bar.set_position(played as u64);
                let note = match (&saved, played) {
                    (Some(dir), 1..) => Some(report::resumed_note(dir, played, total)),
                    (Some(dir), 0) if default_save => Some(report::saving_note(dir)),
                    _ => None,
                };
                if let Some(note) = note {
                    bar.suspend(|| {
                        let _ = writeln!(io::stderr(), "{note}");
                    });
                }
            }
            Progress::Started(game) => bar.set_message(format!(
                "game {}: {} - {}",
                game.number, options.entrants[game.black].name, options.entrants[game.white].name
            )),
            Progress::Finished { game, played } => {
                bar.set_position(played as u64);
                // As it happens, for the person watching (the report lists them all).
                if let Some(note) =
                    report::forfeit_note(&options, game).filter(|_| !bar.is_hidden())
                {
                    bar.suspend(|| {
                        let _ = writeln!(io::stderr(), "{note}");
                    });
                }
            }
        };
        let played = tournament::run(&options, &mut on_progress)?;
        bar.finish_and_clear();
        let standings = Standings::new(&options, &played);
        let report = Report {
            options: &options,
            played: &played,
            standings: &standings,
            saved: saved.as_deref(),
        };
        let text = if json {
            report::json(report)
        } else {
            report::text(report)
        };
        out.write_all(text.as_bytes())?;
        out.flush()?;
        Ok(())
    }

    /// The tournament the arguments describe.
    fn options(self) -> Result<TournamentOptions, CliError> {
        let usage = |message: String| CliError::Usage { message };
        for player in &self.players {
            super::check_fits(player.spec, othello::GameKind::STANDARD)?;
        }
        let mut entrants: Vec<Entrant> = self
            .players
            .into_iter()
            .map(|player| Entrant {
                name: player.name,
                kind: EntrantKind::BuiltIn(player.spec),
            })
            .collect();
        entrants.extend(self.engines.into_iter().map(|engine| Entrant {
            name: engine.name,
            kind: EntrantKind::External {
                command: engine.command,
                argv: engine.argv,
            },
        }));
        if entrants.len() < 2 {
            return Err(usage(format!(
                "a tournament needs at least two players (--player NAME=SPEC or --engine \
                 NAME=COMMAND), {} given",
                entrants.len()
            )));
        }
        for (index, entrant) in entrants.iter().enumerate() {
            if entrants[..index].iter().any(|e| e.name == entrant.name) {
                return Err(usage(format!(
                    "two players are named {}: names must differ",
                    entrant.name
                )));
            }
        }
        if !self.games.is_multiple_of(2) {
            return Err(usage(format!(
                "--games {}: must be even, as each opening is played twice with colours swapped",
                self.games
            )));
        }
        let gauntlet =
            match &self.gauntlet {
                None => None,
                Some(name) => Some(entrants.iter().position(|e| &e.name == name).ok_or_else(
                    || {
                        let names: Vec<&str> = entrants.iter().map(|e| e.name.as_str()).collect();
                        usage(format!(
                            "--gauntlet {name}: no player has that name (the players are {})",
                            names.join(", ")
                        ))
                    },
                )?),
            };
        let players = entrants.len();
        let pairings = match gauntlet {
            Some(_) => players - 1,
            None => players * (players - 1) / 2,
        };
        let games = pairings.saturating_mul(self.games as usize);
        if games > MAX_GAMES {
            return Err(usage(format!(
                "{pairings} pairings of {} games make {games} games: at most {MAX_GAMES}",
                self.games
            )));
        }
        let count = (self.games / 2) as usize;
        let (openings, openings_source) = match (&self.openings, self.random_openings) {
            (Some(path), _) => (
                tournament::openings_from_file(path, count).map_err(TournamentError::from)?,
                OpeningsSource::File(path.clone()),
            ),
            (None, moves) => {
                let moves = moves.unwrap_or(DEFAULT_RANDOM_MOVES);
                (
                    tournament::random_openings(count, moves, self.seed),
                    OpeningsSource::Random(moves),
                )
            }
        };
        let mut options = TournamentOptions {
            entrants,
            games_per_pairing: self.games,
            gauntlet,
            openings,
            openings_source,
            seed: self.seed,
            time_per_move: Duration::from_millis(self.time_per_move),
            threads: self.threads.or_one(),
            no_book: self.no_book,
            engine_depth: self.engine_depth,
            move_timeout: Duration::from_millis(self.move_timeout),
            save: None,
            date: Some(super::record_date()),
        };
        options.save = match (self.save, self.no_save) {
            (_, true) => None,
            (Some(dir), false) => Some(dir),
            (None, false) => Some(tournament::default_directory(&options)),
        };
        Ok(options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_specs() {
        let player = parse_player("best=engine:3").unwrap();
        assert_eq!(
            (player.name.as_str(), player.spec),
            ("best", PlayerSpec::Engine(3))
        );
        assert!(
            parse_player("greedy")
                .unwrap_err()
                .contains("expected NAME=SPEC")
        );
        assert!(
            parse_player("a b=greedy")
                .unwrap_err()
                .contains("is not a word")
        );
        assert!(
            parse_player("=greedy")
                .unwrap_err()
                .contains("is not a word")
        );
        assert!(
            parse_player("x=genius")
                .unwrap_err()
                .contains("unknown player")
        );
        let engine = parse_engine("edax=edax -nboard -l 'a b'").unwrap();
        assert_eq!(engine.argv, ["edax", "-nboard", "-l", "a b"]);
        assert_eq!(engine.command, "edax -nboard -l 'a b'");
        assert!(parse_engine("e=").unwrap_err().contains("no command"));
        assert!(parse_engine("e='open").is_err());
        assert!(parse_engine(&format!("{}=x", "n".repeat(33))).is_err());
    }
}
