//! Which net a `zero` player plays with: the one shipped with the program for its kind of
//! game, or one a front end loaded from a file (`zero:FILE`), kept for the process's life.
//! A player spec stays a small `Copy` value: it names a net, it does not hold one.

use std::{
    path::Path,
    sync::{Mutex, OnceLock, PoisonError},
};

use thiserror::Error;

use super::{DEFAULT_SIMULATIONS, Net};
use crate::{GameKind, Shape, Variant, WinRule};

/// A `zero` player: its net and the simulations of each search (fewer when its time or
/// node limit comes first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ZeroSpec {
    /// Which net.
    pub net: NetChoice,
    /// Simulations a move.
    pub simulations: u32,
}

/// The net of a [`ZeroSpec`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NetChoice {
    /// The net shipped for the game's kind ([`shipped`]).
    Shipped,
    /// A net loaded from a file ([`LoadedNet::register`]).
    Loaded(LoadedNet),
}

/// A net loaded for this process's players, by its place in a list the process keeps
/// (a command loads a handful of nets at most; they live as long as it does).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LoadedNet(usize);

/// A loaded net and the name it goes by in specs (the file as given).
struct Registered {
    label: String,
    net: &'static Net,
}

static LOADED: Mutex<Vec<Registered>> = Mutex::new(Vec::new());

impl LoadedNet {
    /// Keeps `net` for players under `label` (the file's path as given, shown in the spec:
    /// `zero:LABEL`). The same label twice gives the net registered first.
    pub fn register(label: &str, net: Net) -> LoadedNet {
        let mut loaded = LOADED.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(index) = loaded.iter().position(|entry| entry.label == label) {
            return LoadedNet(index);
        }
        loaded.push(Registered {
            label: label.to_owned(),
            net: Box::leak(Box::new(net)),
        });
        LoadedNet(loaded.len() - 1)
    }

    /// The net.
    pub fn net(self) -> &'static Net {
        LOADED.lock().unwrap_or_else(PoisonError::into_inner)[self.0].net
    }

    /// The name it goes by.
    pub fn label(self) -> String {
        LOADED.lock().unwrap_or_else(PoisonError::into_inner)[self.0]
            .label
            .clone()
    }
}

/// Why a `zero` player cannot play a kind of game.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum UnfitNet {
    /// No net is shipped for it.
    #[error(
        "zero: no net is shipped for {0} (the shipped ones: {shipped})",
        shipped = shipped_list()
    )]
    NoneShipped(GameKind),
    /// The loaded net is for another kind of game.
    #[error("zero:{label}: the net is for {net}, not {game}")]
    OtherKind {
        /// The net's name in its spec.
        label: String,
        /// What it plays.
        net: GameKind,
        /// The game it was asked to play.
        game: GameKind,
    },
}

impl ZeroSpec {
    /// The shipped net with the default simulations (`zero`).
    pub const SHIPPED: ZeroSpec = ZeroSpec {
        net: NetChoice::Shipped,
        simulations: DEFAULT_SIMULATIONS,
    };

    /// The net it plays `kind` with.
    ///
    /// # Errors
    /// If no net is shipped for `kind`, or the loaded net is for another kind.
    pub fn net_for(self, kind: GameKind) -> Result<&'static Net, UnfitNet> {
        match self.net {
            NetChoice::Shipped => shipped(kind).ok_or(UnfitNet::NoneShipped(kind)),
            NetChoice::Loaded(loaded) => {
                let net = loaded.net();
                let made_for = net.config().kind;
                if made_for == kind {
                    Ok(net)
                } else {
                    Err(UnfitNet::OtherKind {
                        label: loaded.label(),
                        net: made_for,
                        game: kind,
                    })
                }
            }
        }
    }
}

impl std::fmt::Display for ZeroSpec {
    /// `zero`, `zero:N`, `zero:FILE` or `zero:FILE:N` (N only where it is not the default).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("zero")?;
        if let NetChoice::Loaded(loaded) = self.net {
            write!(f, ":{}", loaded.label())?;
        }
        if self.simulations != DEFAULT_SIMULATIONS {
            write!(f, ":{}", self.simulations)?;
        }
        Ok(())
    }
}

/// One shipped net: compiled in, decoded at its first use, with the record of the run that
/// trained it.
struct Shipped {
    kind: GameKind,
    bytes: &'static [u8],
    record: ShippedRecord,
    net: OnceLock<Net>,
}

/// The record of the run that trained a shipped net, as its files were (`zero.json`,
/// `iterations.csv`, `exact.csv` and `levels.csv` of `othello zero train` and `othello
/// zero measure`), so that the program can show how the net it plays learned.
#[derive(Clone, Copy, Debug)]
pub struct ShippedRecord {
    /// The run's state: its settings, iterations done and best net.
    pub state: &'static str,
    /// Every iteration's figures.
    pub iterations: &'static str,
    /// The best net's share of exact moves per iteration.
    pub exact: &'static str,
    /// The best net's scores against the `classic` levels per iteration.
    pub levels: &'static str,
}

impl Shipped {
    const fn new(
        variant: Variant,
        rows: u8,
        columns: u8,
        rule: WinRule,
        bytes: &'static [u8],
        record: ShippedRecord,
    ) -> Shipped {
        let shape = match Shape::new(rows, columns) {
            Ok(shape) => shape,
            Err(_) => panic!("a shipped shape is a shape"),
        };
        Shipped {
            kind: GameKind::new(variant, shape, rule),
            bytes,
            record,
            net: OnceLock::new(),
        }
    }
}

/// Every shipped net, by kind (docs/zero.md says how each was trained).
static SHIPPED: [Shipped; 2] = [
    Shipped::new(
        Variant::Full,
        6,
        6,
        WinRule::MostDiscs,
        include_bytes!("../../../data/zero-6x6.safetensors"),
        ShippedRecord {
            state: include_str!("../../../data/zero-6x6.run.json"),
            iterations: include_str!("../../../data/zero-6x6.iterations.csv"),
            exact: include_str!("../../../data/zero-6x6.exact.csv"),
            levels: include_str!("../../../data/zero-6x6.levels.csv"),
        },
    ),
    Shipped::new(
        Variant::Full,
        8,
        8,
        WinRule::MostDiscs,
        include_bytes!("../../../data/zero-8x8.safetensors"),
        ShippedRecord {
            state: include_str!("../../../data/zero-8x8.run.json"),
            iterations: include_str!("../../../data/zero-8x8.iterations.csv"),
            exact: include_str!("../../../data/zero-8x8.exact.csv"),
            levels: include_str!("../../../data/zero-8x8.levels.csv"),
        },
    ),
];

/// The net shipped for `kind`, if there is one.
pub fn shipped(kind: GameKind) -> Option<&'static Net> {
    let entry = SHIPPED.iter().find(|entry| entry.kind == kind)?;
    Some(entry.net.get_or_init(|| {
        let net = Net::from_bytes(entry.bytes, Path::new("(shipped)"))
            .expect("the nets shipped with the program are intact (a test reads them)");
        assert_eq!(
            net.config().kind,
            entry.kind,
            "a shipped net is for its kind"
        );
        net
    }))
}

/// The record of the run that trained the net shipped for `kind`, if there is one.
pub fn shipped_record(kind: GameKind) -> Option<ShippedRecord> {
    SHIPPED
        .iter()
        .find(|entry| entry.kind == kind)
        .map(|entry| entry.record)
}

/// The kinds of game a net is shipped for.
pub fn shipped_kinds() -> impl Iterator<Item = GameKind> {
    SHIPPED.iter().map(|entry| entry.kind)
}

/// `6x6 FULL most, ...`, for messages.
fn shipped_list() -> String {
    shipped_kinds()
        .map(|kind| kind.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
