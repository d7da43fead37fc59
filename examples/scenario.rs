//! Writes a grader-protocol input to stdout: a header, a board and the move lines of a random
//! game played to its end, optionally with invalid move lines mixed in.
//!
//! ```text
//! cargo run --example scenario -- --size 6x10 --seed 3 --invalid 0.2 > fixtures/...in
//! ```
//! The fixtures under `fixtures/transcripts/` that hold random games were made this way; the
//! command for each is in `fixtures/README.md`.

use std::io::{self, Write};

use clap::Parser;
use othello::{Board, Color, Game, RuleSet, Setup, Shape, Square, Variant, WinRule, on_rules};
use rand::{RngExt, SeedableRng, rngs::StdRng, seq::IteratorRandom};

#[derive(Debug, Parser)]
struct Args {
    /// full or simple.
    #[arg(long, default_value = "full")]
    rules: Variant,
    /// Rows x columns.
    #[arg(long, default_value = "8x8")]
    size: String,
    /// B or W.
    #[arg(long, default_value = "B")]
    first: char,
    /// > or <.
    #[arg(long, default_value = ">")]
    win: char,
    /// Random start: each cell holds a disc with this probability (default: standard start).
    #[arg(long)]
    density: Option<f64>,
    /// Start from this grader-format header and board instead (overrides the options above).
    #[arg(long)]
    setup: Option<std::path::PathBuf>,
    /// Probability of an invalid move line before each move.
    #[arg(long, default_value_t = 0.0)]
    invalid: f64,
    /// Stop after this many moves (the input then ends mid-game).
    #[arg(long)]
    moves: Option<usize>,
    /// End lines with CR LF.
    #[arg(long)]
    crlf: bool,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn main() -> io::Result<()> {
    let args = Args::parse();
    on_rules!(args.rules, |R| write_scenario::<R>(&args))
}

fn write_scenario<R: RuleSet>(args: &Args) -> io::Result<()> {
    let mut rng = StdRng::seed_from_u64(args.seed);
    let (rows, columns) = args.size.split_once('x').expect("--size RxC");
    let shape = Shape::new(rows.parse().unwrap(), columns.parse().unwrap()).unwrap();
    let mut board = Board::standard(shape);
    if let Some(density) = args.density {
        board = Board::empty(shape);
        for square in shape.squares() {
            if rng.random_bool(density) {
                let color = if rng.random_bool(0.5) {
                    Color::Black
                } else {
                    Color::White
                };
                board.set(square, Some(color));
            }
        }
    }
    let mut setup = Setup {
        board,
        first_mover: Color::from_letter(args.first as u8).expect("--first B|W"),
        win_rule: WinRule::from_symbol(args.win as u8).expect("--win >|<"),
    };
    if let Some(path) = &args.setup {
        setup = std::fs::read_to_string(path)?
            .parse()
            .expect("a grader setup");
    }
    let mut lines: Vec<Vec<u8>> = setup.to_string().lines().map(|l| l.into()).collect();
    let mut game = Game::<R>::new(setup);
    let limit = args.moves.unwrap_or(usize::MAX);
    while let Some(square) = game.legal_moves().iter().choose(&mut rng) {
        if game.history().len() == limit {
            break;
        }
        while rng.random_bool(args.invalid) {
            lines.push(invalid_line(&game, &mut rng));
        }
        lines.push(format!("{} {}", square.row() + 1, square.column() + 1).into());
        game.play(square).unwrap();
    }
    let ending: &[u8] = if args.crlf { b"\r\n" } else { b"\n" };
    let mut out = io::stdout().lock();
    for line in lines {
        out.write_all(&line)?;
        out.write_all(ending)?;
    }
    Ok(())
}

/// A move line the grader must answer with INVALID.
fn invalid_line<R: RuleSet>(game: &Game<R>, rng: &mut StdRng) -> Vec<u8> {
    let shape = game.board().shape();
    let grader = |s: Square| format!("{} {}", s.row() + 1, s.column() + 1);
    let occupied = game.board().occupied().iter().choose(rng);
    let refused = (game.board().empty_squares() & !game.legal_moves())
        .iter()
        .choose(rng);
    let line = match rng.random_range(0..14) {
        0 => String::new(),
        1 => " \t ".into(),
        2 => "3".into(),
        3 => "3 4 5".into(),
        4 => "3,4".into(),
        5 => "a b".into(),
        6 => format!("0 {}", rng.random_range(1..=shape.columns())),
        7 => format!("{} {}", shape.rows() + 1, 1),
        8 => format!("1 {}", shape.columns() + rng.random_range(1..100)),
        9 => "99999999999999999999999 2".into(),
        10 => return b"\xff\xfe 1".to_vec(),
        11 => format!("-{} 1", rng.random_range(1..=shape.rows())),
        12 => occupied.map(grader).unwrap_or_default(),
        _ => refused.map(grader).unwrap_or_else(|| "1 1 1".into()),
    };
    line.into_bytes()
}
