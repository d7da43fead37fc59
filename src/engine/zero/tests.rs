use std::path::Path;

use super::*;
use crate::engine::{Node8, SmallNode, SquareSet};
use crate::{Board, Color, Full, GameKind, Shape, Variant};

fn config(rows: u8, columns: u8) -> NetConfig {
    NetConfig {
        kind: GameKind::new(
            Variant::Full,
            Shape::new(rows, columns).expect("a shape"),
            WinRule::MostDiscs,
        ),
        channels: 8,
        blocks: 2,
    }
}

#[test]
fn the_start_is_encoded_with_its_four_legal_moves() {
    let board = Board::standard(Shape::STANDARD);
    let node = Node8::from_board(&board, Color::Black);
    let encoded = encode(&node);
    assert_eq!(encoded.planes.len(), PLANES * 64);
    let count = |plane: usize| {
        encoded.planes[plane * 64..(plane + 1) * 64]
            .iter()
            .sum::<f32>()
    };
    assert_eq!(
        [count(0), count(1), count(2), count(3)],
        [2.0, 2.0, 4.0, 64.0]
    );
    // d3, c4, f5, e6: row-major indices.
    assert_eq!(encoded.legal, [19, 26, 37, 44]);
}

#[test]
fn a_net_reads_back_from_its_bytes_the_same_and_refuses_others() {
    let net = Net::seeded(config(4, 6), 7).expect("a net");
    let board = Board::standard(Shape::new(4, 6).expect("a shape"));
    let node = SmallNode::<Full>::from_board(&board, Color::Black).expect("a small board");
    let encoded = encode(&node);
    let verdict = net.evaluate(&[&encoded]).expect("a verdict").remove(0);
    assert_eq!(verdict.priors.len(), encoded.legal.len());
    assert!((verdict.priors.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    assert!((-1.0..=1.0).contains(&verdict.value));

    assert_eq!(net.parameters(), net.config().parameters());
    let bytes = net.to_bytes().expect("bytes");
    let again = Net::from_bytes(&bytes, Path::new("net")).expect("read back");
    assert_eq!(again.config(), net.config());
    assert_eq!(again.evaluate(&[&encoded]).expect("a verdict")[0], verdict);
    // The same seed makes the same net; another seed another one.
    let verdict_of = |seed| {
        Net::seeded(config(4, 6), seed)
            .expect("a net")
            .evaluate(&[&encoded])
            .expect("a verdict")
            .remove(0)
    };
    assert_eq!(verdict_of(7), verdict);
    assert_ne!(verdict_of(8), verdict);

    for (what, bad) in [
        ("cut short", bytes[..bytes.len() / 2].to_vec()),
        ("empty", Vec::new()),
        ("text", b"not a net at all".to_vec()),
    ] {
        let error = Net::from_bytes(&bad, Path::new("bad.safetensors")).expect_err(what);
        assert!(
            error.to_string().starts_with("bad.safetensors: "),
            "{what}: {error}"
        );
    }
    // A safetensors file of some other program.
    let other = safetensors::serialize(
        [(
            "weight".to_owned(),
            candle_core::Tensor::zeros(4, candle_core::DType::F32, &candle_core::Device::Cpu)
                .expect("a tensor"),
        )],
        None,
    )
    .expect("bytes");
    let error = Net::from_bytes(&other, Path::new("other")).expect_err("another program's");
    assert!(
        error.to_string().contains("not a net of this program"),
        "{error}"
    );

    // A small file that claims a huge net (256 blocks) is refused before anything of that
    // size is made.
    let cpu = &candle_core::Device::Cpu;
    let mut tensors = vec![(
        "input.weight".to_owned(),
        candle_core::Tensor::zeros((8, PLANES, 3, 3), candle_core::DType::F32, cpu)
            .expect("a tensor"),
    )];
    for i in 0..(12 + 4 * 256 - 1) {
        tensors.push((
            format!("t{i}"),
            candle_core::Tensor::zeros(1, candle_core::DType::F32, cpu).expect("a tensor"),
        ));
    }
    let metadata = std::collections::HashMap::from(
        [
            ("format", "othello zero net"),
            ("rules", "full"),
            ("size", "4x6"),
            ("win", "most"),
            ("channels", "8"),
            ("blocks", "256"),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned())),
    );
    let claim = safetensors::serialize(tensors, Some(metadata)).expect("bytes");
    let error = Net::from_bytes(&claim, Path::new("claim")).expect_err("a false claim");
    assert!(
        error.to_string().contains("do not match its metadata"),
        "{error}"
    );
}

#[test]
fn the_search_plays_the_only_winning_move_whatever_the_net_says() {
    // 4 x 4, White to move with two empty squares left: one move wins, one loses.
    let net = Net::seeded(config(4, 4), 1).expect("a net");
    let shape = Shape::new(4, 4).expect("a shape");
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(3);
    // Find, by playing random games, a position whose moves have different results,
    // and check the search against the exact minimax of the tiny tree.
    let mut found = 0;
    for seed in 0..200u64 {
        let board = Board::standard(shape);
        let mut node = SmallNode::<Full>::from_board(&board, Color::Black).expect("small");
        let mut state = seed;
        while node.empties().len() > 5 {
            let moves = node.moves();
            if moves.is_empty() {
                match node.after_pass() {
                    Some(passed) => node = passed,
                    None => break,
                }
                continue;
            }
            state = crate::engine::mix(state, 1, 2);
            let mut list = Vec::new();
            let mut set = moves;
            while let Some(mv) = set.pop() {
                list.push(mv);
            }
            node = node.play(list[(state % list.len() as u64) as usize]);
        }
        if node.moves().len() < 2 {
            continue;
        }
        let best = exact(&node);
        let mut set = node.moves();
        let mut values = Vec::new();
        while let Some(mv) = set.pop() {
            values.push((-exact(&node.play(mv)), node.square(mv)));
        }
        if values.iter().all(|&(v, _)| v.signum() == best.signum()) {
            continue;
        }
        let chosen = think(
            &net,
            &node,
            WinRule::MostDiscs,
            400,
            &Limits::NONE,
            None,
            &mut rng,
        )
        .expect("a search")
        .square
        .expect("a move");
        let value = values
            .iter()
            .find(|&&(_, s)| s == chosen)
            .expect("a legal move")
            .0;
        assert_eq!(
            value.signum(),
            best.signum(),
            "{node:?}: {chosen:?} in {values:?}"
        );
        found += 1;
    }
    assert!(found >= 5, "positions tried: {found}");
}

/// The exact result for the side to move (sign is what matters).
fn exact<N: Node>(node: &N) -> i32 {
    let mut set = node.moves();
    if set.is_empty() {
        return match node.after_pass() {
            Some(passed) => -exact(&passed),
            None => node.final_score(WinRule::MostDiscs),
        };
    }
    let mut best = i32::MIN;
    while let Some(mv) = set.pop() {
        best = best.max(-exact(&node.play(mv)));
    }
    best
}

/// The limits a player is given hold: a node limit caps the simulations, a stopped signal
/// or a spent clock leaves only the first, and a position with one move needs none.
#[test]
fn a_search_keeps_to_its_simulations_nodes_time_and_signal() {
    use rand::{SeedableRng, rngs::StdRng};
    let net = Net::seeded(config(6, 6), 3).expect("a net");
    let board = Board::standard(Shape::new(6, 6).expect("a shape"));
    let node = SmallNode::<Full>::from_board(&board, Color::Black).expect("small");
    let mut rng = StdRng::seed_from_u64(1);
    let mut legal = Vec::new();
    let mut moves = node.moves();
    while let Some(mv) = moves.pop() {
        legal.push(node.square(mv));
    }
    let mut think_with = |simulations, limits: &Limits, signal: Option<&Signal>| {
        let thought = think(
            &net,
            &node,
            WinRule::MostDiscs,
            simulations,
            limits,
            signal,
            &mut rng,
        )
        .expect("a search");
        assert!(
            legal.contains(&thought.square.expect("a move")),
            "{thought:?}"
        );
        assert!((-1.0..=1.0).contains(&thought.value), "{thought:?}");
        thought.simulations
    };
    assert_eq!(think_with(30, &Limits::NONE, None), 30);
    assert_eq!(think_with(30, &Limits::nodes(7), None), 7);
    let stopped = Signal::new();
    stopped.stop();
    assert_eq!(think_with(u32::MAX, &Limits::NONE, Some(&stopped)), 1);
    let spent = Limits::time(std::time::Duration::ZERO);
    assert_eq!(think_with(u32::MAX, &spent, None), 1);
}

/// `zero` and `zero:N` name the shipped net (and read back as written); the shipped nets
/// are intact and for their kinds; a kind without one is refused by name, not played.
#[test]
fn zero_specs_name_the_shipped_nets_and_refuse_other_games() {
    use crate::engine::PlayerSpec;
    let spec: PlayerSpec = "zero".parse().expect("zero");
    assert_eq!(spec, PlayerSpec::Zero(ZeroSpec::SHIPPED));
    assert_eq!(spec.to_string(), "zero");
    let eight: PlayerSpec = "zero:800".parse().expect("zero:800");
    assert_eq!(eight.to_string(), "zero:800");
    assert_eq!(eight.to_string().parse::<PlayerSpec>(), Ok(eight));
    for bad in ["zero:0", "zero:100001", "zero:x", "zero:", "zero:-1"] {
        assert!(bad.parse::<PlayerSpec>().is_err(), "{bad}");
    }
    let mut kinds = 0;
    for kind in shipped_kinds() {
        let net = shipped(kind).expect("shipped");
        assert_eq!(net.config().kind, kind);
        assert_eq!(spec.fits(kind), Ok(()));
        kinds += 1;
    }
    assert!(kinds >= 1, "a net is shipped");
    let four = GameKind::new(
        Variant::Full,
        Shape::new(4, 4).expect("a shape"),
        WinRule::MostDiscs,
    );
    let refused = spec.fits(four).expect_err("no 4x4 net");
    assert!(
        refused
            .to_string()
            .contains("no net is shipped for 4x4 FULL most"),
        "{refused}"
    );

    // A loaded net goes by its label, and plays only its own kind.
    let loaded = LoadedNet::register(
        "nets/four.safetensors",
        Net::seeded(config(4, 4), 1).expect("a net"),
    );
    let file = PlayerSpec::Zero(ZeroSpec {
        net: NetChoice::Loaded(loaded),
        simulations: 50,
    });
    assert_eq!(file.to_string(), "zero:nets/four.safetensors:50");
    assert_eq!(file.fits(four), Ok(()));
    let other = file.fits(GameKind::STANDARD).expect_err("not 8x8");
    assert_eq!(
        other.to_string(),
        "zero:nets/four.safetensors: the net is for 4x4 FULL most, not 8x8 FULL most"
    );
    assert_eq!(
        LoadedNet::register(
            "nets/four.safetensors",
            Net::seeded(config(6, 6), 1).expect("a net")
        ),
        loaded,
        "one label, one net"
    );
}

/// Where its net cannot play the game (a console session that loaded another board), the
/// `zero` player still moves, legally, instead of passing or stopping.
#[test]
fn a_zero_player_without_a_net_for_the_game_still_moves() {
    use crate::Game;
    use crate::engine::{PlayerSpec, new_player};
    let game = Game::<Full>::new(crate::Setup::standard(Shape::new(4, 6).expect("a shape")));
    let mut player = new_player::<Full>(PlayerSpec::Zero(ZeroSpec::SHIPPED), 1, None);
    let square = player
        .choose(&game, &Limits::depth(2), &mut |_| {})
        .expect("a move");
    assert!(game.legal_moves().contains(square));
}

/// A net file whose weights are not all numbers (NaN, infinity) is refused: every output
/// of such a net is NaN, and its player would move at random under a trained net's name.
#[test]
fn a_net_with_weights_that_are_not_numbers_is_refused() {
    let net = Net::seeded(config(4, 4), 2).expect("a net");
    let bytes = net.to_bytes().expect("bytes");
    let (_, header) = safetensors::SafeTensors::read_metadata(&bytes).expect("a header");
    let metadata = header.metadata().clone();
    let cpu = &candle_core::Device::Cpu;
    for bad in [f32::NAN, f32::INFINITY] {
        let mut tensors: Vec<(String, candle_core::Tensor)> =
            candle_core::safetensors::load_buffer(&bytes, cpu)
                .expect("tensors")
                .into_iter()
                .collect();
        tensors.sort_by(|a, b| a.0.cmp(&b.0));
        let (_, first) = &mut tensors[0];
        *first = candle_core::Tensor::full(bad, first.dims(), cpu).expect("a tensor");
        let damaged = safetensors::serialize(tensors, metadata.clone()).expect("bytes");
        let error = Net::from_bytes(&damaged, Path::new("bad")).expect_err("refused");
        assert!(error.to_string().contains("not numbers"), "{error}");
    }
}
