//! `othello hint`: the best few moves of a position, with scores and expected lines (the
//! ranking is the engine's: [`othello::analysis::rank`]).

use std::{
    io::Write,
    sync::atomic::{AtomicU32, Ordering},
    time::Duration,
};

use clap::Args;
use othello::{
    Color, Setup,
    analysis::{DEFAULT_TIME, Hint, RankOptions, rank, solve_time},
    engine::{Limits, Selectivity, Signal},
};
use serde::Serialize;

use crate::play::{hint_lines, move_text};

use super::{
    CliError, PositionSource, Rules, ThreadsArg, WeightsArg, hash_megabytes,
    progress::{WARN_AFTER, roughly, thousands, ticking},
};

/// A depth from which a search without a time limit may take very long.
const LONG_DEPTH: u32 = 14;

/// `othello hint (--obf .. | --position FILE) [--depth D | --time MS] [--count K]
/// [--hash MIB] [--json]`.
#[derive(Debug, Args)]
pub struct HintArgs {
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
    #[arg(long, value_name = "MIB", value_parser = hash_megabytes)]
    hash: Option<u64>,
    #[command(flatten)]
    weights: WeightsArg,
    /// How sure the search's selective cuts must be: 73, 87, 95, 98, 99 or 100 (percent;
    /// 100 searches full width, for scores that are exact wherever the search reaches the
    /// end).
    #[arg(long, value_name = "PERCENT", default_value_t = Selectivity::DEFAULT)]
    selectivity: Selectivity,
    #[command(flatten)]
    threads: ThreadsArg,
    /// One JSON object: {"to_move":"B","exact":false,"depth":9,"selectivity":100,
    /// "moves":[{"rank":1,"move":"d3","score":1.25,"exact":false,"pv":[...]}],...}.
    #[arg(long)]
    json: bool,
}

/// What to search and how to show it.
#[derive(Clone, Copy, Debug)]
struct HintOptions {
    rank: RankOptions,
    json: bool,
    /// Warn before a search that may take very long, and show progress, on stderr.
    progress: bool,
}

impl HintArgs {
    /// Ranks and prints.
    ///
    /// # Errors
    /// [`CliError`] for a bad position or failed output.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        use std::io::IsTerminal;
        let setup = self.source.setup()?;
        let variant = self.rules.into();
        let eval = self
            .weights
            .evaluator(variant, setup.board.shape(), setup.win_rule)?;
        let limits = match (self.depth, self.time) {
            (Some(depth), _) => Limits::depth(depth),
            (None, Some(ms)) => Limits::time(Duration::from_millis(ms)),
            (None, None) => Limits::time(DEFAULT_TIME),
        };
        let options = HintOptions {
            rank: RankOptions {
                limits,
                hash: self.hash.map(|mib| mib as usize),
                eval,
                selectivity: self.selectivity,
                threads: self.threads.or_all_cores(),
                ..RankOptions::new(variant, self.count as usize)
            },
            json: self.json,
            progress: std::io::stderr().is_terminal(),
        };
        run(&setup, &options, out).map(drop)
    }
}

/// A hint in JSON.
#[derive(Serialize)]
struct HintJson {
    to_move: Option<char>,
    game_over: bool,
    /// The final score when the game is over.
    score: Option<f64>,
    exact: bool,
    depth: u32,
    /// The confidence of its selective cuts, in percent (100: full width, or exact).
    selectivity: u8,
    nodes: u64,
    seconds: f64,
    /// What scored the positions: `learned patterns (built in)`, `classic (no learned
    /// weights for ...)`.
    evaluation: String,
    moves: Vec<HintLineJson>,
}

#[derive(Serialize)]
struct HintLineJson {
    rank: usize,
    #[serde(rename = "move")]
    mv: String,
    score: f64,
    exact: bool,
    pv: Vec<String>,
}

fn json(hint: &Hint) -> HintJson {
    HintJson {
        to_move: hint.to_move.map(Color::letter),
        game_over: hint.final_score.is_some(),
        score: hint.final_score.map(f64::from),
        exact: hint.exact(),
        depth: hint.depth,
        selectivity: hint.selectivity.percent(),
        nodes: hint.nodes,
        seconds: (hint.elapsed.as_secs_f64() * 1e6).round() / 1e6,
        evaluation: hint.evaluation.clone(),
        moves: hint
            .lines
            .iter()
            .enumerate()
            .map(|(index, line)| HintLineJson {
                rank: index + 1,
                mv: move_text(line.square),
                score: line.score.discs(),
                exact: line.exact,
                pv: line.pv.iter().map(|&square| move_text(square)).collect(),
            })
            .collect(),
    }
}

/// With progress on and no time limit: a warning on stderr when the search may take very
/// long.
fn warn_if_long(setup: &Setup, options: &HintOptions) {
    let Some(wanted) = options.rank.limits.depth else {
        return;
    };
    if !options.progress || options.rank.limits.time.is_some() {
        return;
    }
    let empties = setup.board.empty_squares().count();
    let message = if wanted >= empties {
        let estimate = solve_time(options.rank.variant, setup);
        (estimate >= WARN_AFTER).then(|| {
            format!(
                "depth {wanted} reaches the end of the game: an exact solve of {empties} empty \
                 squares may take very long ({} by a rough model); --time MS bounds it",
                roughly(estimate)
            )
        })
    } else {
        (wanted > LONG_DEPTH).then(|| {
            format!(
                "a search to depth {wanted} without a time limit may take very long; --time MS \
                 bounds it"
            )
        })
    };
    if let Some(message) = message {
        eprintln!("othello: {message}");
    }
}

/// Prints the best `options.count` moves of `setup`: a line each, best first, or one JSON
/// object `{"to_move":"B","game_over":false,"score":null,"exact":false,"depth":9,
/// "nodes":n,"seconds":s,"moves":[{"rank":1,"move":"d3","score":1.25,"exact":false,
/// "pv":["d3","c5"]}]}` (`move` is `"pass"` when the side to move must pass; `moves` is
/// empty and `score` the final score when the game is over).
///
/// # Errors
/// [`CliError::Write`] if the output fails.
fn run(setup: &Setup, options: &HintOptions, out: &mut impl Write) -> Result<Hint, CliError> {
    warn_if_long(setup, options);
    let signal = Signal::new();
    let depth = AtomicU32::new(0);
    let describe = |nodes, _| {
        format!(
            "depth {}, {} nodes",
            depth.load(Ordering::Relaxed),
            thousands(nodes)
        )
    };
    let hint = ticking(options.progress, &signal, &describe, || {
        rank(setup, &options.rank, Some(&signal), &mut |reached| {
            depth.store(reached, Ordering::Relaxed)
        })
    });
    if options.json {
        serde_json::to_writer(&mut *out, &json(&hint)).map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else {
        for line in hint_lines(&hint) {
            writeln!(out, "{line}")?;
        }
    }
    out.flush()?;
    Ok(hint)
}

#[cfg(test)]
mod tests {
    use othello::{Obf, Shape, Variant};

    use super::*;

    fn options(limits: Limits, count: usize, json: bool) -> HintOptions {
        HintOptions {
            rank: RankOptions {
                limits,
                ..RankOptions::new(Variant::Full, count)
            },
            json,
            progress: false,
        }
    }

    #[test]
    fn text_and_json_of_the_start_position() {
        let mut out = Vec::new();
        let setup = Setup::standard(Shape::STANDARD);
        run(&setup, &options(Limits::depth(4), 4, false), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(
            lines[0].starts_with("1. ") && lines[3].starts_with("4. "),
            "{text}"
        );
        assert!(
            lines.iter().all(|line| line.contains("(depth 4@73%)")),
            "{text}"
        );
        let mut out = Vec::new();
        run(&setup, &options(Limits::depth(4), 2, true), &mut out).unwrap();
        let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(value["moves"].as_array().unwrap().len(), 2);
        assert_eq!(value["to_move"], "B");
        assert_eq!(value["moves"][0]["pv"][0], value["moves"][0]["move"]);
    }

    #[test]
    fn exact_lines_say_so() {
        let obf: Obf = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X"
            .parse()
            .unwrap();
        let mut out = Vec::new();
        run(&obf.setup, &options(Limits::depth(20), 1, false), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with("1. a2 +38 (exact, depth 20) a2 "),
            "{text}"
        );
    }
}
