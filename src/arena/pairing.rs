//! Tournament pairings and standings: the Swiss system (rounds, no pairing twice, byes) and
//! the arena (whoever is free plays whoever is free, for a fixed time), with standings
//! ordered by points, then Buchholz, then discs. Pure functions of who played whom: the
//! server (and anyone else) stores the games and asks again after each result.
//!
//! - **Points**: a win 1, a draw ½, a loss 0, a bye 1; kept in half points
//!   ([`Standing::points_x2`]) so that ties are exact.
//! - **Buchholz**: the sum of the opponents' points (each opponent once per game played
//!   against them; a bye adds nothing), the usual first tie-break of a Swiss.
//! - **Discs**: the sum of the player's discs at the end of its games, the tie-break Othello
//!   tournaments use after Buchholz: more is better, fewer where the fewest discs win
//!   (anti-Othello).
//! - Then the order the players were given in (their seeds).
//!
//! The Swiss pairs in the Monrad manner: the best-placed unpaired player meets the next
//! best-placed one it has not met, backtracking when the rest cannot be paired; an odd
//! number of players gives the bye to the lowest-placed player who has not had one.

use std::collections::{BTreeMap, BTreeSet};

use crate::{ByColor, Color, WinRule};

/// A game's result for the standings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played<Id> {
    /// Black's player, then White's.
    pub players: ByColor<Id>,
    /// The winner (`None`: a draw).
    pub winner: Option<Color>,
    /// Each side's discs at the end.
    pub discs: ByColor<u32>,
}

impl<Id: Copy> Played<Id> {
    /// Half points `color` earned.
    fn points_x2(&self, color: Color) -> u32 {
        match self.winner {
            Some(winner) if winner == color => 2,
            Some(_) => 0,
            None => 1,
        }
    }
}

/// One player's place in the standings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Standing<Id> {
    /// The player.
    pub id: Id,
    /// Points, in halves (a win 2, a draw 1, a bye 2).
    pub points_x2: u32,
    /// The sum of its opponents' points, in halves.
    pub buchholz_x2: u32,
    /// The sum of its discs.
    pub discs: u32,
    /// Games played (byes not counted).
    pub games: u32,
    /// Games won, drawn and lost.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
    /// Byes had.
    pub byes: u32,
    /// Games with Black, less games with White.
    pub black_balance: i32,
}

/// What a tournament's standings depend on besides its games: what a bye counts in discs
/// (half the board), and which way discs count (more is better, or fewer where the fewest
/// discs win).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scoring {
    /// A bye's discs.
    pub bye_discs: u32,
    /// The tournament's win rule.
    pub win: WinRule,
}

/// The standings of `players` (in seed order) after `games` and `byes`, best first: by
/// points, then Buchholz, then discs (more, or fewer under `scoring`'s win rule), then
/// seed. Games and byes of players not in `players` are ignored.
pub fn standings<Id: Copy + Ord>(
    players: &[Id],
    games: &[Played<Id>],
    byes: &[Id],
    scoring: Scoring,
) -> Vec<Standing<Id>> {
    let bye_discs = scoring.bye_discs;
    let mut table: BTreeMap<Id, Standing<Id>> = players
        .iter()
        .map(|&id| {
            (
                id,
                Standing {
                    id,
                    points_x2: 0,
                    buchholz_x2: 0,
                    discs: 0,
                    games: 0,
                    wins: 0,
                    draws: 0,
                    losses: 0,
                    byes: 0,
                    black_balance: 0,
                },
            )
        })
        .collect();
    for game in games {
        for color in [Color::Black, Color::White] {
            let Some(row) = table.get_mut(&game.players[color]) else {
                continue;
            };
            let points = game.points_x2(color);
            row.points_x2 += points;
            row.discs += game.discs[color];
            row.games += 1;
            match points {
                2 => row.wins += 1,
                1 => row.draws += 1,
                _ => row.losses += 1,
            }
            row.black_balance += if color == Color::Black { 1 } else { -1 };
        }
    }
    for bye in byes {
        if let Some(row) = table.get_mut(bye) {
            row.points_x2 += 2;
            row.discs += bye_discs;
            row.byes += 1;
        }
    }
    let points: BTreeMap<Id, u32> = table.iter().map(|(&id, row)| (id, row.points_x2)).collect();
    for game in games {
        for color in [Color::Black, Color::White] {
            let opponent = points.get(&game.players[!color]).copied().unwrap_or(0);
            if let Some(row) = table.get_mut(&game.players[color]) {
                row.buchholz_x2 += opponent;
            }
        }
    }
    let seed: BTreeMap<Id, usize> = players.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    let mut rows: Vec<Standing<Id>> = table.into_values().collect();
    let discs = |row: &Standing<Id>| match scoring.win {
        WinRule::MostDiscs => i64::from(row.discs),
        WinRule::FewestDiscs => -i64::from(row.discs),
    };
    rows.sort_by_key(|row| {
        (
            std::cmp::Reverse((row.points_x2, row.buchholz_x2, discs(row))),
            seed[&row.id],
        )
    });
    rows
}

/// A round's games: Black's player first in each pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Round<Id> {
    /// The games, best-placed board first.
    pub pairs: Vec<ByColor<Id>>,
    /// Who sits out with a bye (an odd number of players).
    pub bye: Option<Id>,
}

/// How many pairings the Swiss tries before it gives up (a tournament with more rounds
/// than its players can fill without meeting twice).
const PAIRING_BUDGET: u64 = 1_000_000;

/// The next Swiss round for `active` (the players still in, in seed order) after `games`
/// and `byes`: nobody meets anybody twice, the bye (if any) goes to the lowest-placed
/// player without one. `None` when no such round exists (every remaining pairing was
/// played; fewer than two players).
pub fn swiss_round<Id: Copy + Ord>(
    active: &[Id],
    games: &[Played<Id>],
    byes: &[Id],
    scoring: Scoring,
) -> Option<Round<Id>> {
    if active.len() < 2 {
        return None;
    }
    let order = standings(active, games, byes, scoring);
    let met: BTreeSet<(Id, Id)> = games
        .iter()
        .flat_map(|game| {
            let (black, white) = (game.players.black, game.players.white);
            [(black, white), (white, black)]
        })
        .collect();
    let had_bye: BTreeSet<Id> = byes.iter().copied().collect();
    let ranked: Vec<Id> = order.iter().map(|row| row.id).collect();
    let mut budget = PAIRING_BUDGET;
    let byes_to_try: Vec<Option<Id>> = if ranked.len().is_multiple_of(2) {
        vec![None]
    } else {
        // The lowest-placed first; those who had one only when nobody else can.
        let mut candidates: Vec<Id> = ranked.iter().rev().copied().collect();
        candidates.sort_by_key(|id| had_bye.contains(id));
        candidates.into_iter().map(Some).collect()
    };
    for bye in byes_to_try {
        let rest: Vec<Id> = ranked
            .iter()
            .copied()
            .filter(|&id| Some(id) != bye)
            .collect();
        let mut pairs = Vec::new();
        if pair_up(&rest, &met, &mut pairs, &mut budget) {
            let pairs = pairs
                .into_iter()
                .map(|(high, low)| colours(high, low, &order, games))
                .collect();
            return Some(Round { pairs, bye });
        }
        if budget == 0 {
            return None;
        }
    }
    None
}

/// Pairs `rest` (best-placed first) so that nobody meets a player of `met` again: the
/// first with the next it may meet, backtracking.
fn pair_up<Id: Copy + Ord>(
    rest: &[Id],
    met: &BTreeSet<(Id, Id)>,
    pairs: &mut Vec<(Id, Id)>,
    budget: &mut u64,
) -> bool {
    let Some((&first, others)) = rest.split_first() else {
        return true;
    };
    for (i, &partner) in others.iter().enumerate() {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        if met.contains(&(first, partner)) {
            continue;
        }
        let remaining: Vec<Id> = others
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, &id)| id)
            .collect();
        pairs.push((first, partner));
        if pair_up(&remaining, met, pairs, budget) {
            return true;
        }
        pairs.pop();
    }
    false
}

/// Who has Black between `high` (placed better) and `low`: whoever has had White more
/// often; then whoever had White last; then the better-placed player.
fn colours<Id: Copy + Ord>(
    high: Id,
    low: Id,
    order: &[Standing<Id>],
    games: &[Played<Id>],
) -> ByColor<Id> {
    let balance = |id: Id| {
        order
            .iter()
            .find(|row| row.id == id)
            .map_or(0, |row| row.black_balance)
    };
    let last = |id: Id| {
        games.iter().rev().find_map(|game| {
            [Color::Black, Color::White]
                .into_iter()
                .find(|&color| game.players[color] == id)
        })
    };
    let high_black = match balance(high).cmp(&balance(low)) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        std::cmp::Ordering::Equal => match (last(high), last(low)) {
            (Some(Color::White), Some(Color::Black)) => true,
            (Some(Color::Black), Some(Color::White)) => false,
            _ => true,
        },
    };
    if high_black {
        ByColor::new(high, low)
    } else {
        ByColor::new(low, high)
    }
}

/// An arena's games for the players `waiting` (free, in seed order) given the games so
/// far: neighbours in the standings meet, a player not meeting the one it met last when
/// another is there; colours as in the Swiss. A player left over waits for the next.
pub fn arena_pairs<Id: Copy + Ord>(
    players: &[Id],
    waiting: &[Id],
    games: &[Played<Id>],
    scoring: Scoring,
) -> Vec<ByColor<Id>> {
    let order = standings(players, games, &[], scoring);
    let free: BTreeSet<Id> = waiting.iter().copied().collect();
    let mut queue: Vec<Id> = order
        .iter()
        .map(|row| row.id)
        .filter(|id| free.contains(id))
        .collect();
    let last_opponent = |id: Id| {
        games.iter().rev().find_map(|game| {
            [Color::Black, Color::White]
                .into_iter()
                .find(|&color| game.players[color] == id)
                .map(|color| game.players[!color])
        })
    };
    let mut pairs = Vec::new();
    while queue.len() >= 2 {
        let first = queue.remove(0);
        let choice = queue
            .iter()
            .position(|&other| last_opponent(first) != Some(other))
            .unwrap_or(0);
        let partner = queue.remove(choice);
        pairs.push(colours(first, partner, &order, games));
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOST: Scoring = Scoring {
        bye_discs: 32,
        win: WinRule::MostDiscs,
    };

    fn game(black: u32, white: u32, discs: (u32, u32)) -> Played<u32> {
        let winner = match discs.0.cmp(&discs.1) {
            std::cmp::Ordering::Greater => Some(Color::Black),
            std::cmp::Ordering::Less => Some(Color::White),
            std::cmp::Ordering::Equal => None,
        };
        Played {
            players: ByColor::new(black, white),
            winner,
            discs: ByColor::new(discs.0, discs.1),
        }
    }

    #[test]
    fn standings_order_by_points_then_buchholz_then_discs_then_seed() {
        // 1 beats 2 and 3; 4 beats 3; 2 beats 4 (by a little); 3 beats nobody.
        let games = [
            game(1, 2, (40, 24)),
            game(3, 1, (20, 44)),
            game(4, 3, (33, 31)),
            game(2, 4, (35, 29)),
        ];
        let rows = standings(&[1, 2, 3, 4], &games, &[], MOST);
        let order: Vec<u32> = rows.iter().map(|row| row.id).collect();
        // 1: 2 points. 2 and 4: 1 point each; 2's opponents 1 (2) + 4 (1) = 3, 4's
        // opponents 3 (0) + 2 (1) = 1: 2 ahead of 4 on Buchholz.
        assert_eq!(order, [1, 2, 4, 3]);
        assert_eq!(rows[0].points_x2, 4);
        assert_eq!(rows[1].buchholz_x2, 6);
        assert_eq!(rows[2].buchholz_x2, 2);
        assert_eq!(rows[0].discs, 84);
        assert_eq!((rows[3].wins, rows[3].losses), (0, 2));
        // Equal points and Buchholz: discs decide, then the seed.
        let games = [game(1, 2, (32, 32)), game(3, 4, (30, 30))];
        let order: Vec<u32> = standings(&[1, 2, 3, 4], &games, &[], MOST)
            .iter()
            .map(|row| row.id)
            .collect();
        assert_eq!(order, [1, 2, 3, 4]);
        let games = [game(1, 2, (20, 20)), game(3, 4, (30, 30))];
        let order: Vec<u32> = standings(&[1, 2, 3, 4], &games, &[], MOST)
            .iter()
            .map(|row| row.id)
            .collect();
        assert_eq!(order, [3, 4, 1, 2]);
    }

    #[test]
    fn a_bye_is_a_point_and_half_the_board_and_adds_no_buchholz() {
        let games = [game(1, 2, (10, 54))];
        let rows = standings(&[1, 2, 3], &games, &[3], MOST);
        let three = rows.iter().find(|row| row.id == 3).unwrap();
        assert_eq!(
            (three.points_x2, three.discs, three.buchholz_x2),
            (2, 32, 0)
        );
        assert_eq!((three.games, three.byes), (0, 1));
        // 2 (54 discs) ahead of 3 (32) on equal points and Buchholz 0 / 0.
        assert_eq!(rows[0].id, 2);
    }

    #[test]
    fn where_the_fewest_discs_win_fewer_discs_break_ties() {
        let fewest = Scoring {
            bye_discs: 32,
            win: WinRule::FewestDiscs,
        };
        // 1 and 3 win by the same margin, 3 with fewer discs.
        let games = [game(1, 2, (24, 40)), game(3, 4, (20, 44))];
        let mut games = games.to_vec();
        for g in &mut games {
            g.winner = Some(Color::Black);
        }
        let order: Vec<u32> = standings(&[1, 2, 3, 4], &games, &[], fewest)
            .iter()
            .map(|row| row.id)
            .collect();
        assert_eq!(order, [3, 1, 2, 4]);
        let order: Vec<u32> = standings(&[1, 2, 3, 4], &games, &[], MOST)
            .iter()
            .map(|row| row.id)
            .collect();
        assert_eq!(order, [1, 3, 4, 2]);
    }

    #[test]
    fn the_first_swiss_round_pairs_neighbours_in_seed_order() {
        let round = swiss_round(&[1, 2, 3, 4, 5, 6], &[], &[], MOST).unwrap();
        assert_eq!(round.bye, None);
        let pairs: Vec<(u32, u32)> = round.pairs.iter().map(|p| (p.black, p.white)).collect();
        assert_eq!(pairs, [(1, 2), (3, 4), (5, 6)]);
    }

    #[test]
    fn swiss_rounds_never_repeat_and_give_the_bye_to_the_lowest_placed_without_one() {
        let players: Vec<u32> = (1..=7).collect();
        let mut games = Vec::new();
        let mut byes = Vec::new();
        for round in 0..6 {
            let next = swiss_round(&players, &games, &byes, MOST).unwrap();
            let bye = next.bye.expect("seven players: a bye");
            assert!(!byes.contains(&bye), "round {round}: {bye} had a bye");
            let rows = standings(&players, &games, &byes, MOST);
            let lowest_without = rows
                .iter()
                .rev()
                .find(|row| row.byes == 0)
                .map(|row| row.id)
                .unwrap();
            assert_eq!(bye, lowest_without, "round {round}");
            for pair in &next.pairs {
                assert!(
                    !games.iter().any(|g: &Played<u32>| {
                        (g.players.black == pair.black && g.players.white == pair.white)
                            || (g.players.black == pair.white && g.players.white == pair.black)
                    }),
                    "round {round}: {pair:?} met before"
                );
                // The better seed wins, by a margin that depends on the round.
                let discs = if pair.black < pair.white {
                    (40 + round, 24 - round)
                } else {
                    (24 - round, 40 + round)
                };
                games.push(game(pair.black, pair.white, discs));
            }
            byes.push(bye);
        }
        // Seven rounds of seven: the last round is the only one left.
        let last = swiss_round(&players, &games, &byes, MOST).unwrap();
        assert_eq!(last.pairs.len(), 3);
        // Everybody has now met everybody: no eighth round.
        for pair in &last.pairs {
            games.push(game(pair.black, pair.white, (33, 31)));
        }
        byes.push(last.bye.unwrap());
        assert_eq!(swiss_round(&players, &games, &byes, MOST), None);
    }

    #[test]
    fn colours_balance_black_and_white() {
        let players: Vec<u32> = (1..=8).collect();
        let mut games = Vec::new();
        for _ in 0..6 {
            let next = swiss_round(&players, &games, &[], MOST).unwrap();
            for pair in &next.pairs {
                games.push(game(pair.black, pair.white, (40, 24)));
            }
        }
        for row in standings(&players, &games, &[], MOST) {
            assert!(row.black_balance.abs() <= 2, "{row:?}");
        }
    }

    #[test]
    fn arena_pairs_neighbours_and_avoids_the_last_opponent() {
        let players = [1, 2, 3, 4];
        let games = [game(1, 2, (40, 24)), game(3, 4, (40, 24))];
        // 1 and 3 lead; 1 met 2 last: 1 meets 3, 2 meets 4.
        let pairs = arena_pairs(&players, &[1, 2, 3, 4], &games, MOST);
        assert_eq!(pairs.len(), 2);
        let met: Vec<BTreeSet<u32>> = pairs
            .iter()
            .map(|p| [p.black, p.white].into_iter().collect())
            .collect();
        assert!(met.contains(&[1, 3].into_iter().collect()));
        assert!(met.contains(&[2, 4].into_iter().collect()));
        // Only two free, and they met last: they meet again rather than wait.
        let pairs = arena_pairs(&players, &[1, 2], &games, MOST);
        assert_eq!(pairs.len(), 1);
        // One free waits.
        assert!(arena_pairs(&players, &[4], &games, MOST).is_empty());
    }
}
