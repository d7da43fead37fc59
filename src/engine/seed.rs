//! Seeds derived from a run's seed, so that every game, player and scenario of a run has a
//! random stream of its own and any one of them can be replayed alone.

use crate::Color;

/// A seed for one use (`purpose`) of one item (`index`) derived from a run's seed, so that
/// different games, players or scenarios do not share random streams (SplitMix64's
/// finaliser). Used by matches ([`crate::arena`]), training, the grading tools and
/// tournaments.
pub fn mix(seed: u64, index: u64, purpose: u64) -> u64 {
    let mut z = seed
        ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ purpose.wrapping_mul(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of the player of `color` in the `game`-th game (from 1) of a series started
/// with `seed`: each game and side has its own, so a scripted session repeats.
pub fn seat_seed(seed: u64, game: u64, color: Color) -> u64 {
    seed.wrapping_add(game * 2 + color as u64)
}
