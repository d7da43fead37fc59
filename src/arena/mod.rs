//! Matches between players, and their ratings: [`play_match`] plays two players against
//! each other (games with alternating colours from shared random openings) and tallies wins,
//! draws, losses, the disc difference and an Elo estimate; [`elo`] rates any number of
//! players from the games they played against each other (`othello tournament`). Nothing
//! here prints: each finished game goes out through a callback.

pub mod elo;
pub mod pairing;

use rand::{RngExt, SeedableRng, rngs::StdRng};

use crate::engine::{EngineSettings, Limits, Player, PlayerSpec, mix, new_player_with};
use crate::{ByColor, Color, Game, GameKind, Outcome, RuleSet, Setup, Square, Status};

/// What a match is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchOptions {
    /// The starting position, its first mover and win rule.
    pub setup: Setup,
    /// The two players; the first has Black in the first game, and colours alternate.
    pub players: [PlayerSpec; 2],
    /// Games to play.
    pub games: u32,
    /// Random legal moves played from `setup` before the players take over. Games are
    /// played in pairs on the same opening with colours swapped, so neither player gets
    /// the better side of a lopsided opening more often than the other.
    pub openings: u32,
    /// What each move may take: a time per move in a real match; a depth or node limit
    /// where the games must repeat exactly (tests). Players that do not search ignore it.
    pub limits: Limits,
    /// Makes the openings and every player's random choices reproducible.
    pub seed: u64,
    /// Each engine's transposition table size in MiB; `None` sizes it to the time per
    /// move.
    pub hash: Option<usize>,
    /// Each engine player's settings (weights of another training generation, another
    /// selectivity), in the order of `players`.
    pub engines: [EngineSettings; 2],
    /// Games played at once, each on a thread of its own (1 for matches timed per move on
    /// a machine with little else to do; more for matches limited by nodes or depth, whose
    /// games do not depend on the machine).
    pub jobs: usize,
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchGame {
    /// 0-based number of the game in the match.
    pub(crate) number: u32,
    /// Which player (0 or 1, as in [`MatchOptions::players`]) had Black.
    pub(crate) black: usize,
    /// Every move of the game, the random opening included (passes are implicit).
    pub(crate) moves: Vec<Square>,
    /// How many of `moves` were the random opening.
    pub(crate) opening_moves: usize,
    /// The result.
    pub(crate) outcome: Outcome,
    /// Discs of each player at the end, in the order of [`MatchOptions::players`].
    pub(crate) discs: [u32; 2],
}

impl MatchGame {
    /// The winning player (0 or 1), or `None` for a draw.
    pub(crate) fn winner(&self) -> Option<usize> {
        self.outcome.winner().map(|color| self.player_of(color))
    }

    /// The player (0 or 1) who had `color`.
    pub(crate) fn player_of(&self, color: Color) -> usize {
        if color == Color::Black {
            self.black
        } else {
            1 - self.black
        }
    }
}

/// One player's results in a match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// Sum over the games of its final discs minus its opponent's.
    pub disc_difference: i64,
}

impl Tally {
    /// Games played.
    pub(crate) fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points per game: a win is 1, a draw 1/2 (0 before any game).
    pub fn score(&self) -> f64 {
        match self.games() {
            0 => 0.0,
            games => (f64::from(self.wins) + f64::from(self.draws) / 2.0) / f64::from(games),
        }
    }

    /// Average final disc difference (its discs minus its opponent's) per game.
    pub fn average_disc_difference(&self) -> f64 {
        match self.games() {
            0 => 0.0,
            games => self.disc_difference as f64 / f64::from(games),
        }
    }

    /// The Elo difference between this player and its opponent implied by the results,
    /// with a 95 % confidence interval.
    pub fn elo(&self) -> EloEstimate {
        EloEstimate::from_results(self.wins, self.draws, self.losses)
    }
}

/// The tally of a match so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchSummary {
    /// Each player's results, in the order of [`MatchOptions::players`].
    pub players: [Tally; 2],
    /// Games won by the player who had each colour, whoever it was: where one colour wins
    /// nearly every game (the second player under SIMPLE rules on 8 × 8), the players'
    /// scores cannot tell them apart, and this says so.
    pub wins_by_color: ByColor<u32>,
}

impl MatchSummary {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.players[0].games()
    }

    /// Games drawn.
    pub fn draws(&self) -> u32 {
        self.players[0].draws
    }

    /// Counts a finished game.
    pub(crate) fn add(&mut self, game: &MatchGame) {
        if let Some(color) = game.outcome.winner() {
            self.wins_by_color[color] += 1;
        }
        let winner = game.winner();
        for (player, tally) in self.players.iter_mut().enumerate() {
            match winner {
                None => tally.draws += 1,
                Some(w) if w == player => tally.wins += 1,
                Some(_) => tally.losses += 1,
            }
            tally.disc_difference +=
                i64::from(game.discs[player]) - i64::from(game.discs[1 - player]);
        }
    }
}

/// An Elo difference estimated from a score, with a 95 % confidence interval. Infinite
/// values mean a clean sweep (or a bound the results cannot limit).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// The most likely difference.
    pub difference: f64,
    /// Lower end of the 95 % interval.
    pub low: f64,
    /// Upper end of the 95 % interval.
    pub high: f64,
}

impl EloEstimate {
    /// From one player's wins, draws and losses: the difference whose expected score is the
    /// observed one (`400 log10(s / (1 - s))`), and the same for both ends of the Wilson
    /// score interval of the score (a draw counts as half a win; with many draws the
    /// interval is a little wider than it need be). The Wilson interval stays finite on a
    /// clean sweep: 100 wins of 100 give at least +566. With no games all three are 0.
    pub(crate) fn from_results(wins: u32, draws: u32, losses: u32) -> EloEstimate {
        const Z: f64 = 1.96;
        let games = f64::from(wins + draws + losses);
        if games == 0.0 {
            return EloEstimate {
                difference: 0.0,
                low: 0.0,
                high: 0.0,
            };
        }
        let score = (f64::from(wins) + f64::from(draws) / 2.0) / games;
        let z2n = Z * Z / games;
        let centre = (score + z2n / 2.0) / (1.0 + z2n);
        let margin = Z / (1.0 + z2n) * (score * (1.0 - score) / games + z2n / (4.0 * games)).sqrt();
        EloEstimate {
            difference: elo_of_score(score),
            low: elo_of_score(centre - margin),
            high: elo_of_score(centre + margin),
        }
    }
}

/// The Elo difference whose expected score is `score` (clamped to 0..=1; the ends are
/// infinite).
fn elo_of_score(score: f64) -> f64 {
    // Rounding must not turn a certain result into a merely very likely one.
    const EPSILON: f64 = 1e-9;
    let score = match score {
        _ if score <= EPSILON => 0.0,
        _ if score >= 1.0 - EPSILON => 1.0,
        _ => score,
    };
    -400.0 * (1.0 / score - 1.0).log10()
}

/// Plays the match `options` describes under rule set `R`, telling `on_game` about each
/// game as it ends (with the tally so far), and returns the final tally.
pub fn play_match<R: RuleSet>(
    options: &MatchOptions,
    on_game: &mut dyn FnMut(&MatchGame, &MatchSummary),
) -> MatchSummary {
    let mut summary = MatchSummary::default();
    let jobs = options.jobs.clamp(1, options.games.max(1) as usize);
    if jobs == 1 {
        for number in 0..options.games {
            let record = play_match_game::<R>(options, number);
            summary.add(&record);
            on_game(&record, &summary);
        }
        return summary;
    }
    // Games finish out of order; they are reported in order.
    let next = std::sync::atomic::AtomicU32::new(0);
    let (sender, finished) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let sender = sender.clone();
            let next = &next;
            scope.spawn(move || {
                loop {
                    let number = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if number >= options.games {
                        break;
                    }
                    if sender.send(play_match_game::<R>(options, number)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut waiting = std::collections::BTreeMap::new();
        for record in finished {
            waiting.insert(record.number, record);
            while let Some(record) = waiting.remove(&(summary.games())) {
                summary.add(&record);
                on_game(&record, &summary);
            }
        }
    });
    summary
}

/// Game `number` of the match: its opening is shared with the other game of its pair, and
/// its players get seeds of their own, so any game can be replayed alone.
pub(crate) fn play_match_game<R: RuleSet>(options: &MatchOptions, number: u32) -> MatchGame {
    let pair = u64::from(number / 2);
    let black = (number % 2) as usize;
    let mut game = Game::<R>::new(options.setup);
    let mut opening_rng = StdRng::seed_from_u64(mix(options.seed, pair, 0));
    for _ in 0..options.openings {
        let moves = game.legal_moves();
        let count = moves.count() as usize;
        if count == 0 {
            break; // the game is over
        }
        let square = moves
            .iter()
            .nth(opening_rng.random_range(0..count))
            .expect("in range");
        game.play(square).expect("a legal move");
    }
    let opening_moves = game.history().len();

    let game_seed = mix(options.seed, u64::from(number), 1);
    // Indexed by colour: Black's player first.
    let player = |index: usize, seed: u64| -> Box<dyn Player<R>> {
        new_player_with::<R>(
            options.players[index],
            seed,
            options.hash,
            &options.engines[index],
        )
    };
    let mut players = ByColor::new(
        player(black, mix(game_seed, 0, 2)),
        player(1 - black, mix(game_seed, 1, 2)),
    );
    while let Status::ToMove(side) = game.status() {
        let player = &mut players[side];
        let square = player
            .choose(&game, &options.limits, &mut |_| {})
            .expect("players choose a move whenever one exists");
        game.play(square).expect("players choose legal moves");
    }
    let outcome = game.outcome().expect("the game is over");
    let discs_of = |player: usize| {
        let color = if player == black {
            Color::Black
        } else {
            Color::White
        };
        game.count(color)
    };
    MatchGame {
        number,
        black,
        moves: game.moves().collect(),
        opening_moves,
        outcome,
        discs: [discs_of(0), discs_of(1)],
    }
}

/// What a level match is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelMatch {
    /// The `classic` level, 1 to 9.
    pub level: u8,
    /// Games (colours alternate on each opening).
    pub games: u32,
    /// Random moves before the players take over.
    pub openings: u32,
    /// The seed of the openings and of the level's slips.
    pub seed: u64,
    /// Games played at once.
    pub jobs: usize,
}

/// `player`'s results against `classic:level` in games of `kind` with no clock (each move
/// as deep as the level goes), as its wins, draws and losses: how `othello zero measure`
/// places a net among the engine's levels.
///
/// # Panics
/// If `player` cannot play `kind` (a `zero` player without a net for it), or the level is
/// not one of 1 to 9 (level 10 has no depth limit: only a clock would end its moves).
pub fn level_match(kind: GameKind, player: PlayerSpec, games: &LevelMatch) -> Tally {
    assert!(
        (1..PlayerSpec::MAX_LEVEL).contains(&games.level),
        "a level with a depth limit"
    );
    let setup = Setup {
        win_rule: kind.rule,
        ..Setup::standard(kind.shape)
    };
    let options = MatchOptions {
        setup,
        players: [player, PlayerSpec::Classic(games.level)],
        games: games.games,
        openings: games.openings,
        limits: Limits::NONE,
        seed: games.seed,
        hash: Some(16),
        engines: Default::default(),
        jobs: games.jobs,
    };
    let summary = crate::on_rules!(kind.variant, |R| play_match::<R>(&options, &mut |_, _| {}));
    summary.players[0]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Full, Shape, Simple, Variant, WinRule};

    fn options(players: [PlayerSpec; 2], games: u32) -> MatchOptions {
        MatchOptions {
            setup: Setup::standard(Shape::STANDARD),
            players,
            games,
            openings: 4,
            limits: Limits::NONE,
            seed: 7,
            hash: None,
            engines: Default::default(),
            jobs: 1,
        }
    }

    #[test]
    fn colours_alternate_and_pairs_share_their_opening() {
        let options = options([PlayerSpec::Random, PlayerSpec::Greedy], 4);
        let mut records = Vec::new();
        let summary = play_match::<Full>(&options, &mut |record, _| records.push(record.clone()));
        assert_eq!(
            records.iter().map(|r| r.black).collect::<Vec<_>>(),
            [0, 1, 0, 1]
        );
        assert!(records.iter().all(|r| r.opening_moves == 4));
        assert_eq!(records[0].moves[..4], records[1].moves[..4]);
        assert_eq!(records[2].moves[..4], records[3].moves[..4]);
        assert_ne!(records[0].moves[..4], records[2].moves[..4]);
        // Every game replays legally and its record agrees with the replay.
        for record in &records {
            let game = Game::<Full>::replay(options.setup, record.moves.iter().copied()).unwrap();
            assert_eq!(game.outcome(), Some(record.outcome));
            assert_eq!(game.count(Color::Black), record.discs[record.black]);
        }
        assert_eq!(summary.games(), 4);
        assert_eq!(
            summary.players[0].wins + summary.players[0].draws + summary.players[1].wins,
            4
        );
        assert_eq!(
            summary.players[0].disc_difference,
            -summary.players[1].disc_difference
        );
    }

    #[test]
    fn a_match_repeats_with_its_seed_and_changes_with_another() {
        let a = options([PlayerSpec::Random, PlayerSpec::Mcts(20)], 2);
        let moves = |options: &MatchOptions| {
            let mut all = Vec::new();
            play_match::<Simple>(options, &mut |r, _| all.push(r.moves.clone()));
            all
        };
        assert_eq!(moves(&a), moves(&a));
        let b = MatchOptions { seed: 8, ..a };
        assert_ne!(moves(&a), moves(&b));
    }

    #[test]
    fn the_engine_beats_random_under_both_win_rules() {
        for rule in [WinRule::MostDiscs, WinRule::FewestDiscs] {
            let mut options = options([PlayerSpec::Engine(3), PlayerSpec::Random], 10);
            options.setup = Setup {
                win_rule: rule,
                ..Setup::standard(Shape::new(6, 6).unwrap())
            };
            let summary = play_match::<Full>(&options, &mut |_, _| {});
            assert!(
                summary.players[0].score() >= 0.8,
                "{rule:?}: {:?}",
                summary.players
            );
        }
    }

    #[test]
    fn elo_estimates() {
        let even = EloEstimate::from_results(10, 0, 10);
        assert_eq!(even.difference, 0.0);
        assert!(even.low < -100.0 && even.high > 100.0);
        assert!((even.low + even.high).abs() < 1e-9);
        // 75 % is about +191; the interval is lopsided towards the middle.
        let three_to_one = EloEstimate::from_results(75, 0, 25);
        assert!((three_to_one.difference - 190.85).abs() < 0.01);
        assert!(three_to_one.low > 100.0 && three_to_one.low < three_to_one.difference);
        assert!(three_to_one.high > three_to_one.difference && three_to_one.high < 300.0);
        let sweep = EloEstimate::from_results(100, 0, 0);
        assert_eq!(sweep.difference, f64::INFINITY);
        assert_eq!(sweep.high, f64::INFINITY);
        assert!((sweep.low - 566.2).abs() < 0.1, "{}", sweep.low);
        let lost = EloEstimate::from_results(0, 0, 100);
        assert_eq!(lost.difference, f64::NEG_INFINITY);
        assert!((lost.high + 566.2).abs() < 0.1, "{}", lost.high);
        let draws = EloEstimate::from_results(0, 4, 0);
        assert_eq!(draws.difference, 0.0);
        assert_eq!(EloEstimate::from_results(0, 0, 0).difference, 0.0);
    }

    /// The level match is the arena's: on 4 × 4 the engine at its deepest level beats
    /// random there, a random player scores what the games say, and the same seed gives the
    /// same games.
    #[test]
    fn a_level_match_tallies_its_games_and_repeats() {
        let kind = GameKind::new(
            Variant::Full,
            Shape::new(4, 4).expect("a shape"),
            WinRule::MostDiscs,
        );
        let games = LevelMatch {
            level: 9,
            games: 8,
            openings: 2,
            seed: 5,
            jobs: 2,
        };
        let random = level_match(kind, PlayerSpec::Random, &games);
        assert_eq!(random.wins + random.draws + random.losses, 8);
        assert!(random.losses > random.wins, "{random:?}");
        assert_eq!(level_match(kind, PlayerSpec::Random, &games), random);
        let even = level_match(kind, PlayerSpec::Classic(9), &games);
        assert_eq!(
            even.wins, even.losses,
            "{even:?}: the same player on both sides"
        );
    }
}
