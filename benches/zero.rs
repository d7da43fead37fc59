//! What `othello zero`'s nets cost to run: net evaluations a second, one position at a time
//! (as a player searches) and 64 at once (as self-play batches them), on positions from
//! random games, for the shipped 6 × 6 and 8 × 8 nets and an 8 × 8 net of the default size
//! (64 channels × 5 blocks, seeded weights: the cost does not depend on them); then the
//! player's simulations a second on 6 × 6 (a search of 400 from random positions).
//! Medians of five rounds.
//!
//! ```text
//! RAYON_NUM_THREADS=1 cargo bench --bench zero   # one core
//! RAYON_NUM_THREADS=2 cargo bench --bench zero   # two
//! ```

use std::time::{Duration, Instant};

use othello::{
    Board, Color, Full, Game, GameKind, Setup, Shape, Status, Variant, WinRule,
    engine::{
        Limits, Node8, SmallNode,
        zero::{Encoded, Net, NetConfig, encode, shipped, think},
    },
};
use rand::{RngExt, SeedableRng, rngs::StdRng};

/// Boards of random games of `shape`, side to move with a move to make.
fn positions(shape: Shape, count: usize, seed: u64) -> Vec<(Board, Color)> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut game = Game::<Full>::new(Setup::standard(shape));
        while let Status::ToMove(side) = game.status() {
            out.push((*game.board(), side));
            let moves: Vec<_> = game.legal_moves().iter().collect();
            let square = moves[rng.random_range(0..moves.len())];
            game.play(square).expect("a legal move");
        }
    }
    out.truncate(count);
    out
}

fn encoded(shape: Shape, count: usize) -> Vec<Encoded> {
    positions(shape, count, 7)
        .iter()
        .map(|(board, side)| {
            if shape == Shape::STANDARD {
                encode(&Node8::from_board(board, *side))
            } else {
                encode(&SmallNode::<Full>::from_board(board, *side).expect("a small board"))
            }
        })
        .collect()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Evaluations a second of `net` on `inputs`, `batch` at a time.
fn evaluations_a_second(net: &Net, inputs: &[Encoded], batch: usize) -> f64 {
    let rounds: Vec<Duration> = (0..5)
        .map(|_| {
            let start = Instant::now();
            for chunk in inputs.chunks(batch) {
                let refs: Vec<&Encoded> = chunk.iter().collect();
                std::hint::black_box(net.evaluate(&refs).expect("an evaluation"));
            }
            start.elapsed()
        })
        .collect();
    inputs.len() as f64 / median(rounds).as_secs_f64()
}

fn main() {
    let threads = std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "all".into());
    println!("threads (RAYON_NUM_THREADS): {threads}");
    let six = Shape::new(6, 6).expect("a shape");
    let six_kind = GameKind::new(Variant::Full, six, WinRule::MostDiscs);
    let six_net = shipped(six_kind).expect("the shipped 6x6 net");
    let eight_net = Net::seeded(
        NetConfig {
            kind: GameKind::STANDARD,
            channels: 64,
            blocks: 5,
        },
        1,
    )
    .expect("a net");
    let eight_shipped = shipped(GameKind::STANDARD).expect("the shipped 8x8 net");
    for (name, net, shape) in [
        ("6x6 shipped (32 x 3)", six_net, six),
        ("8x8 shipped (32 x 3)", eight_shipped, Shape::STANDARD),
        ("8x8 default size (64 x 5)", &eight_net, Shape::STANDARD),
    ] {
        let inputs = encoded(shape, 1024);
        let one = evaluations_a_second(net, &inputs[..256], 1);
        let batched = evaluations_a_second(net, &inputs, 64);
        println!(
            "{name}: {} parameters; {one:.0} evaluations a second one at a time, \
             {batched:.0} in batches of 64",
            net.parameters()
        );
    }

    let starts = positions(six, 40, 11);
    let rounds: Vec<(Duration, u64)> = (0..5)
        .map(|round| {
            let mut rng = StdRng::seed_from_u64(round);
            let mut simulations = 0;
            let start = Instant::now();
            for (board, side) in &starts {
                let node = SmallNode::<Full>::from_board(board, *side).expect("small");
                simulations += think(
                    six_net,
                    &node,
                    WinRule::MostDiscs,
                    400,
                    &Limits::NONE,
                    None,
                    &mut rng,
                )
                .expect("a search")
                .simulations;
            }
            (start.elapsed(), simulations)
        })
        .collect();
    let simulations = rounds[0].1;
    let time = median(rounds.iter().map(|&(time, _)| time).collect());
    println!(
        "6x6 player, 400 simulations a move: {simulations} simulations in {:.2} s, {:.0} a second",
        time.as_secs_f64(),
        simulations as f64 / time.as_secs_f64()
    );
}
