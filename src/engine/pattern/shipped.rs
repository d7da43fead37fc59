//! The learned weights shipped with the program for kinds of game other than standard
//! Othello (whose weights are [`super::builtin`]): compiled in, each decoded at its first use.
//! `docs/training.md` says how each was made; `othello train run` makes them again.

use std::sync::OnceLock;

use super::ShapedWeights;
use crate::{GameKind, Shape, Variant, WinRule};

/// One shipped file.
struct Shipped {
    kind: GameKind,
    bytes: &'static [u8],
    weights: OnceLock<ShapedWeights>,
}

impl Shipped {
    const fn new(
        variant: Variant,
        rows: u8,
        columns: u8,
        rule: WinRule,
        bytes: &'static [u8],
    ) -> Shipped {
        let shape = match Shape::new(rows, columns) {
            Ok(shape) => shape,
            Err(_) => panic!("a shipped shape is a shape"),
        };
        Shipped {
            kind: GameKind::new(variant, shape, rule),
            bytes,
            weights: OnceLock::new(),
        }
    }
}

/// Every shipped file, by kind.
static SHIPPED: [Shipped; 5] = [
    Shipped::new(
        Variant::Full,
        6,
        6,
        WinRule::MostDiscs,
        include_bytes!("../../../data/eval-full-6x6-most.bin"),
    ),
    Shipped::new(
        Variant::Full,
        6,
        6,
        WinRule::FewestDiscs,
        include_bytes!("../../../data/eval-full-6x6-fewest.bin"),
    ),
    Shipped::new(
        Variant::Full,
        8,
        8,
        WinRule::FewestDiscs,
        include_bytes!("../../../data/eval-full-8x8-fewest.bin"),
    ),
    Shipped::new(
        Variant::Full,
        10,
        10,
        WinRule::MostDiscs,
        include_bytes!("../../../data/eval-full-10x10-most.bin"),
    ),
    Shipped::new(
        Variant::Full,
        12,
        12,
        WinRule::MostDiscs,
        include_bytes!("../../../data/eval-full-12x12-most.bin"),
    ),
];

/// The weights shipped for `kind`, if any.
pub fn shipped(kind: GameKind) -> Option<&'static ShapedWeights> {
    let entry = entry(kind)?;
    Some(entry.weights.get_or_init(|| {
        let weights = ShapedWeights::from_bytes(entry.bytes)
            .expect("the weights shipped with the program are intact (a test reads them)");
        assert_eq!(weights.kind(), entry.kind, "a shipped file is for its kind");
        weights
    }))
}

/// The file of the learned weights compiled in for `kind` (standard Othello's included), if
/// any: what the built-in evaluation of `kind` is, byte for byte, so that a training run
/// begun with it can tell whether it still is (the program's version does not change with
/// its weights).
pub fn builtin_file(kind: GameKind) -> Option<&'static [u8]> {
    if kind == GameKind::STANDARD {
        return Some(super::weights::BUILTIN_FILE);
    }
    entry(kind).map(|entry| entry.bytes)
}

/// The shipped file for `kind`, if any.
fn entry(kind: GameKind) -> Option<&'static Shipped> {
    SHIPPED.iter().find(|entry| entry.kind == kind)
}

/// The kinds of game with shipped weights (standard Othello aside).
pub fn shipped_kinds() -> impl Iterator<Item = GameKind> {
    SHIPPED.iter().map(|entry| entry.kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_file_is_intact_and_for_its_kind() {
        for kind in shipped_kinds() {
            let weights = shipped(kind).expect("shipped");
            assert_eq!(weights.kind(), kind);
            assert_eq!(
                weights.to_bytes(),
                ShapedWeights::from_bytes(&weights.to_bytes())
                    .unwrap()
                    .to_bytes()
            );
        }
        assert!(
            shipped(GameKind::STANDARD).is_none(),
            "standard Othello has its own"
        );
    }

    #[test]
    fn the_built_in_file_of_a_kind_is_what_it_plays_with() {
        let standard = super::super::PatternWeights::from_bytes(
            builtin_file(GameKind::STANDARD).expect("standard Othello has weights"),
        )
        .unwrap();
        assert!(standard == *super::super::builtin());
        for kind in shipped_kinds() {
            let file = ShapedWeights::from_bytes(builtin_file(kind).unwrap()).unwrap();
            assert!(file == *shipped(kind).unwrap(), "{kind}");
        }
        let simple = GameKind::new(Variant::Simple, Shape::STANDARD, WinRule::MostDiscs);
        assert_eq!(builtin_file(simple), None, "SIMPLE plays classic");
    }
}
