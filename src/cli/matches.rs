//! `othello match`: two players play a series of games; a table of the results (or one
//! JSON object), and a progress bar on a terminal.

use std::{fmt::Write as _, io::Write, path::PathBuf, time::Duration};

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use othello::{
    Shape, Variant, WinRule,
    arena::{EloEstimate, MatchGame, MatchOptions, MatchSummary, Tally, play_match},
    engine::{EngineSettings, Limits, PlayerSpec, Selectivity},
    on_rules,
};
use serde::Serialize;

use super::{CliError, Rules, hash_megabytes, win_rule};
use crate::tournament::report::{json_number, signed as elo_text};

/// `othello match --black SPEC --white SPEC --games N [--rules ..] [--size RxC | --position
/// FILE] [--win ..] [--openings K] [--time-per-move MS] [--seed S] [--hash MIB] [--json]`.
#[derive(Debug, Args)]
#[command(after_help = super::players_help(false))]
pub struct MatchArgs {
    /// The player with Black in the first game (a SPEC: the players are listed below).
    #[arg(long, value_name = "SPEC", value_parser = super::player_spec)]
    black: PlayerSpec,
    /// The player with White in the first game.
    #[arg(long, value_name = "SPEC", value_parser = super::player_spec)]
    white: PlayerSpec,
    /// Games to play.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    games: u32,
    /// Rule set.
    #[arg(long, value_enum, default_value_t = Rules::Full)]
    rules: Rules,
    /// Start from a grader-format input's header and board (its first mover and win rule
    /// too) instead of the standard start.
    #[arg(long, value_name = "FILE", conflicts_with = "size")]
    position: Option<PathBuf>,
    /// Board size for the standard start, rows x columns.
    #[arg(long, value_name = "RxC", default_value = "8x8")]
    size: Shape,
    /// Who wins: most or fewest discs (default: most, or the position file's rule).
    #[arg(long, value_name = "most|fewest", value_parser = win_rule)]
    win: Option<WinRule>,
    /// Random legal moves played before the players take over (at most half the empty
    /// squares of the start, so the players decide most of each game).
    #[arg(long, value_name = "K", default_value_t = 4)]
    openings: u32,
    /// Time each player may take per move, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    time_per_move: u64,
    /// Positions each engine may search per move, in place of a time: the games then do
    /// not depend on the machine, and several can be played at once (--jobs).
    #[arg(long, value_name = "N", conflicts_with = "time_per_move", value_parser = clap::value_parser!(u64).range(1..))]
    nodes_per_move: Option<u64>,
    /// Games played at once, each on a thread (default 1: engines timed per move each get
    /// a core of their own).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    jobs: u32,
    /// Seed for the openings and the players' random choices.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Each engine's transposition table size in MiB (default: sized to the time per
    /// move, at most 32).
    #[arg(long, value_name = "MIB", value_parser = hash_megabytes)]
    hash: Option<u64>,
    /// A weights file (from othello train fit) for Black's player of the first game, in
    /// place of the built-in learned weights: to compare generations of training (an
    /// engine player only).
    #[arg(long, value_name = "FILE")]
    black_weights: Option<PathBuf>,
    /// The same for White's player of the first game.
    #[arg(long, value_name = "FILE")]
    white_weights: Option<PathBuf>,
    /// How selective Black's engine of the first game searches: 73, 87, 95, 98, 99 or 100
    /// (percent; 100 is full width), in place of its level's.
    #[arg(long, value_name = "PERCENT")]
    black_selectivity: Option<Selectivity>,
    /// The same for White's engine of the first game.
    #[arg(long, value_name = "PERCENT")]
    white_selectivity: Option<Selectivity>,
    /// Black's player of the first game (an engine or classic player) may use K times
    /// --time-per-move (or --nodes-per-move) a move, 1 to 1000: a handicap, or a measure of
    /// what more search is worth. Levels 1 to 9 stop at their depth, where it may come
    /// first.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=1000))]
    black_odds: Option<u32>,
    /// The same for White's player of the first game (with both, each gets its own
    /// multiple of the same time or nodes).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=1000))]
    white_odds: Option<u32>,
    /// Threads per engine search (default one: games may run side by side).
    #[command(flatten)]
    threads: super::ThreadsArg,
    /// Engines play without the opening book (to measure their searches alone).
    #[arg(long)]
    no_book: bool,
    /// One JSON object: {"games":N,"players":[{"spec":..,"wins":..},..],"draws":d,..}.
    #[arg(long)]
    json: bool,
}

impl MatchArgs {
    /// Plays the match and prints its results.
    ///
    /// # Errors
    /// [`CliError`] for bad arguments, a bad position file or failed output.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let setup = super::starting_setup(self.position.as_deref(), self.size, None, self.win)?;
        let empties = setup.board.empty_squares().count();
        if self.openings > empties / 2 {
            return Err(CliError::Usage {
                message: format!(
                    "--openings {}: at most {} random moves on this start (half its {empties} \
                     empty squares), so that the players decide the games",
                    self.openings,
                    empties / 2
                ),
            });
        }
        let kind = othello::GameKind::new(self.rules.into(), setup.board.shape(), setup.win_rule);
        for spec in [self.black, self.white] {
            super::check_fits(spec, kind)?;
        }
        let mut weights = [None, None];
        for (slot, (path, spec)) in weights.iter_mut().zip([
            (&self.black_weights, self.black),
            (&self.white_weights, self.white),
        ]) {
            if let Some(path) = path {
                let evaluator = super::train::load_weights(path)?;
                if super::weights_file_kind(evaluator) != kind {
                    return Err(CliError::Usage {
                        message: format!(
                            "weights file {}: {}, not {kind}",
                            path.display(),
                            super::weights_kind(evaluator)
                        ),
                    });
                }
                if !matches!(spec, PlayerSpec::Engine(_)) {
                    return Err(CliError::Usage {
                        message: format!(
                            "weights file {} given for {spec}: only an engine player takes one",
                            path.display()
                        ),
                    });
                }
                *slot = Some(evaluator);
            }
        }
        for (odds, spec) in [(self.black_odds, self.black), (self.white_odds, self.white)] {
            if odds.is_some() && !matches!(spec, PlayerSpec::Engine(_) | PlayerSpec::Classic(_)) {
                return Err(CliError::Usage {
                    message: format!(
                        "odds given for {spec}: only an engine or classic player searches \
                         for a time or a number of nodes"
                    ),
                });
            }
        }
        let options = MatchOptions {
            setup,
            players: [self.black, self.white],
            games: self.games,
            openings: self.openings,
            limits: match self.nodes_per_move {
                Some(nodes) => Limits::nodes(nodes),
                None => Limits::time(Duration::from_millis(self.time_per_move)),
            },
            seed: self.seed,
            hash: self.hash.map(|mib| mib as usize),
            engines: [0, 1].map(|index| EngineSettings {
                weights: weights[index],
                selectivity: [self.black_selectivity, self.white_selectivity][index],
                threads: Some(self.threads.or_one()),
                no_book: self.no_book,
                odds: [self.black_odds, self.white_odds][index],
            }),
            jobs: self.jobs as usize,
        };
        // Files are named by their file name, or by the whole path when both players'
        // files share a name (gen1/weights.bin against gen2/weights.bin).
        let paths = [&self.black_weights, &self.white_weights];
        let same_names = matches!(paths, [Some(a), Some(b)] if a.file_name() == b.file_name());
        let weight_names = paths.map(|path| {
            path.as_ref().map(|path| match path.file_name() {
                Some(name) if !same_names => name.to_string_lossy().into_owned(),
                _ => path.display().to_string(),
            })
        });
        run(self.rules.into(), &options, &weight_names, self.json, out).map(drop)
    }
}

/// Plays the match and prints its results: a table, or with `json` one object
///
/// `{"games":N,"players":[{"spec":"engine","wins":a,"draws":d,"losses":l,"score":s,
/// "disc_difference":x},{...}],"draws":d,"wins_by_color":{"black":b,"white":w},
/// "elo":{"difference":e,"low":lo,"high":hi}}`
///
/// (players in the order of `options.players`; Elo figures are the first player's
/// advantage, `null` where infinite). While it runs, a progress bar is drawn on stderr if
/// stderr is a terminal.
///
/// # Errors
/// [`CliError::Write`] if the output fails.
fn run(
    variant: Variant,
    options: &MatchOptions,
    weight_names: &[Option<String>; 2],
    json: bool,
    out: &mut impl Write,
) -> Result<MatchSummary, CliError> {
    let bar =
        ProgressBar::with_draw_target(Some(u64::from(options.games)), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games, {elapsed} {msg}")
            .expect("a valid template"),
    );
    let mut on_game = |_: &MatchGame, summary: &MatchSummary| {
        let [first, second] = summary.players;
        bar.set_message(format!(
            "{} {}-{}-{} {}",
            options.players[0], first.wins, first.draws, first.losses, options.players[1]
        ));
        debug_assert_eq!(first.wins, second.losses);
        bar.inc(1);
    };
    let summary = on_rules!(variant, |R| play_match::<R>(options, &mut on_game));
    bar.finish_and_clear();
    let text = if json {
        json_summary(options, &summary)
    } else {
        table(variant, options, weight_names, &summary)
    };
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(summary)
}

/// The human-readable report: what was played, a row per player, the Elo difference.
fn table(
    variant: Variant,
    options: &MatchOptions,
    weight_names: &[Option<String>; 2],
    summary: &MatchSummary,
) -> String {
    let setup = &options.setup;
    let rule = setup.win_rule.description();
    let time = match (options.limits.time, options.limits.nodes) {
        (Some(time), _) => format!("{} ms a move", time.as_millis()),
        (None, Some(nodes)) => format!("{} nodes a move", super::progress::thousands(nodes)),
        (None, None) => "no time limit".to_owned(),
    };
    let mut text = format!(
        "{} {}, {rule}, {}, {} random opening {}, {time}, seed {}\n",
        setup.board.shape(),
        variant.name().to_uppercase(),
        crate::words::count(summary.games() as u64, "game"),
        options.openings,
        crate::words::noun(options.openings, "move"),
        options.seed,
    );
    // An engine with weights of its own is named after their file.
    let names: Vec<String> = options
        .players
        .iter()
        .zip(&options.engines)
        .zip(weight_names)
        .map(|((spec, settings), name)| {
            let mut label = match (settings.weights, name) {
                (Some(_), Some(name)) => format!("{spec} ({name})"),
                _ => spec.to_string(),
            };
            if let Some(selectivity) = settings.selectivity {
                label.push_str(&format!(" @{selectivity}"));
            }
            if let Some(odds) = settings.odds {
                label.push_str(&format!(" x{odds}"));
            }
            label
        })
        .collect();
    let width = names.iter().map(String::len).max().unwrap_or(0).max(6);
    let _ = writeln!(
        text,
        "{:<width$}  {:>5}  {:>5}  {:>6}  {:>6}  {:>7}",
        "player", "wins", "draws", "losses", "score", "discs"
    );
    for (name, tally) in names.iter().zip(&summary.players) {
        let _ = writeln!(
            text,
            "{name:<width$}  {:>5}  {:>5}  {:>6}  {:>5.1}%  {:>+7.2}",
            tally.wins,
            tally.draws,
            tally.losses,
            tally.score() * 100.0,
            tally.average_disc_difference(),
        );
    }
    let _ = writeln!(
        text,
        "by colour: Black won {}, White won {}",
        summary.wins_by_color.black, summary.wins_by_color.white
    );
    let elo = summary.players[0].elo();
    let _ = writeln!(
        text,
        "Elo {} - {}: {} (95 % interval {} to {})",
        names[0],
        names[1],
        elo_text(elo.difference),
        elo_text(elo.low),
        elo_text(elo.high),
    );
    text.push_str("(discs: average final disc difference, own minus opponent's)\n");
    text
}

/// The match in JSON.
#[derive(Serialize)]
struct MatchJson {
    games: u32,
    players: [PlayerJson; 2],
    draws: u32,
    /// Games won by Black, by White.
    wins_by_color: ColorsJson,
    elo: EloJson,
}

#[derive(Serialize)]
struct PlayerJson {
    spec: String,
    /// `--black-odds` or `--white-odds`, where given.
    #[serde(skip_serializing_if = "Option::is_none")]
    odds: Option<u32>,
    wins: u32,
    draws: u32,
    losses: u32,
    score: Option<f64>,
    disc_difference: Option<f64>,
}

#[derive(Serialize)]
struct ColorsJson {
    black: u32,
    white: u32,
}

#[derive(Serialize)]
struct EloJson {
    difference: Option<f64>,
    low: Option<f64>,
    high: Option<f64>,
}

fn json_summary(options: &MatchOptions, summary: &MatchSummary) -> String {
    let player = |index: usize| {
        let tally: &Tally = &summary.players[index];
        PlayerJson {
            spec: options.players[index].to_string(),
            odds: options.engines[index].odds,
            wins: tally.wins,
            draws: tally.draws,
            losses: tally.losses,
            score: json_number(tally.score(), 4),
            disc_difference: json_number(tally.average_disc_difference(), 2),
        }
    };
    let EloEstimate {
        difference,
        low,
        high,
    } = summary.players[0].elo();
    let report = MatchJson {
        games: summary.games(),
        players: [player(0), player(1)],
        draws: summary.draws(),
        wins_by_color: ColorsJson {
            black: summary.wins_by_color.black,
            white: summary.wins_by_color.white,
        },
        elo: EloJson {
            difference: json_number(difference, 1),
            low: json_number(low, 1),
            high: json_number(high, 1),
        },
    };
    let mut text = serde_json::to_string(&report).expect("numbers and strings serialize");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello::Setup;

    fn options() -> MatchOptions {
        MatchOptions {
            setup: Setup::standard(Shape::new(6, 6).unwrap()),
            players: [PlayerSpec::Greedy, PlayerSpec::Random],
            games: 4,
            openings: 2,
            limits: Limits::NONE,
            seed: 3,
            hash: None,
            engines: Default::default(),
            jobs: 1,
        }
    }

    #[test]
    fn table_and_json_agree_with_the_summary() {
        let mut text = Vec::new();
        let summary = run(Variant::Simple, &options(), &[None, None], false, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 7, "{text}");
        assert!(
            lines[0].starts_with("6x6 SIMPLE, most discs wins, 4 games, 2 random opening moves"),
            "{text}"
        );
        let greedy = summary.players[0];
        let row: Vec<&str> = lines[2].split_whitespace().collect();
        assert_eq!(row[0], "greedy");
        assert_eq!(
            row[1..4],
            [
                greedy.wins.to_string(),
                greedy.draws.to_string(),
                greedy.losses.to_string()
            ]
        );
        let by_colour = summary.wins_by_color;
        assert_eq!(
            lines[4],
            format!(
                "by colour: Black won {}, White won {}",
                by_colour.black, by_colour.white
            )
        );
        assert_eq!(
            by_colour.black + by_colour.white + summary.draws(),
            4,
            "every game won by one colour or drawn"
        );
        assert!(lines[5].starts_with("Elo greedy - random: "), "{text}");

        let mut json = Vec::new();
        let again = run(Variant::Simple, &options(), &[None, None], true, &mut json).unwrap();
        assert_eq!(again, summary, "the same seed plays the same match");
        let json = String::from_utf8(json).unwrap();
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["games"], 4, "{json}");
        assert_eq!(value["players"][0]["spec"], "greedy", "{json}");
        assert_eq!(value["players"][0]["wins"], greedy.wins, "{json}");
        assert_eq!(value["draws"], summary.draws(), "{json}");
        assert_eq!(value["wins_by_color"]["black"], by_colour.black, "{json}");
        assert_eq!(value["wins_by_color"]["white"], by_colour.white, "{json}");
        assert!(value["elo"].is_object(), "{json}");
        assert_eq!(json.matches('\n').count(), 1);
    }

    #[test]
    fn infinite_elo_is_null_in_json_and_inf_in_text() {
        assert_eq!(json_number(f64::INFINITY, 1), None);
        assert_eq!(json_number(12.345, 1), Some(12.3));
        assert!(json_number(-0.01, 1).unwrap().is_sign_positive(), "no -0.0");
        assert_eq!(elo_text(f64::NEG_INFINITY), "-inf");
        assert_eq!(elo_text(190.85), "+191");
        assert_eq!(elo_text(-0.0), "0");
        assert_eq!(elo_text(-0.4), "0");
        assert_eq!(elo_text(-35.2), "-35");
    }
}
