//! Tournaments on the server: a Swiss (rounds; nobody meets anybody twice; byes) or an
//! arena (for a fixed time, whoever is free plays whoever is free), between members (people
//! and bots), rated or casual, in one category of game. The pairings and the standings
//! are the library's ([`othello::arena::pairing`]); this module keeps a tournament's
//! record ([`Tournament`]) and says what comes next ([`Tournament::plan`]), as plain
//! data below the store; the [`director`](super::director) does it: starts tournaments,
//! reads each game's result off the game, pairs the next games and makes them.
//!
//! A tournament is stored as one record under a version (the players and every game with
//! its result), changed whole: on a shared database two servers that both try to pair the
//! next round conflict, and one of them does it.

use othello::{
    ByColor, Color, Shape, TimeControl, Variant, WinRule,
    arena::pairing::{self, Played, Round, Scoring, Standing},
};
use serde::{Deserialize, Serialize};

use super::{ratings::Category, table::Ended};

/// The most players a tournament takes (a Swiss's pairing and its page stay quick).
pub const MAX_PLAYERS: usize = 64;

/// The most rounds of a Swiss.
pub const MAX_ROUNDS: u32 = 15;

/// The longest arena, in minutes.
pub const MAX_MINUTES: u32 = 24 * 60;

/// The kind of tournament.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "system", rename_all = "lowercase")]
pub enum System {
    /// A Swiss of so many rounds.
    Swiss {
        /// Rounds to play (fewer when no round can be paired without a repeat).
        rounds: u32,
    },
    /// An arena that pairs for so many minutes from its start.
    Arena {
        /// Its length.
        minutes: u32,
    },
}

/// Where a tournament is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Taking players until it starts.
    Created,
    /// Being played.
    Running,
    /// Over (or called off: fewer than two players at its start).
    Finished,
}

impl Stage {
    /// The word stored and shown.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Created => "created",
            Stage::Running => "running",
            Stage::Finished => "finished",
        }
    }
}

/// A player of a tournament: a member.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entrant {
    /// The account.
    pub user_id: i64,
    /// Its name.
    pub name: String,
    /// Whether it left: it is paired no more, its games so far still count.
    #[serde(default)]
    pub withdrawn: bool,
}

/// A game's result as a tournament counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The winner: `B`, `W`, or `null` for a draw (or a game called off).
    #[serde(with = "color_or_none")]
    pub winner: Option<Color>,
    /// Black's discs and White's at the end, as the tournament counts them (see
    /// [`Tournament::record`]).
    pub discs: [u32; 2],
    /// Called off before it began (aborted): it does not count, for either player (not
    /// as a game, not for Buchholz, not as a meeting).
    #[serde(default)]
    pub called_off: bool,
}

/// A game of a tournament: its pairing and, once over, its result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    /// The round (an arena: the wave of pairings it was made in), from 1.
    pub round: u32,
    /// The game.
    pub game: String,
    /// Black's account.
    pub black: i64,
    /// White's account.
    pub white: i64,
    /// The result, once the game is over.
    pub outcome: Option<Outcome>,
}

/// A bye: a point for a player left over in a Swiss round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bye {
    /// The round.
    pub round: u32,
    /// The player.
    pub user_id: i64,
}

/// A tournament's whole record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tournament {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Swiss or arena.
    pub system: System,
    /// The rule set.
    #[serde(with = "as_text")]
    pub variant: Variant,
    /// The board.
    #[serde(with = "as_text")]
    pub shape: Shape,
    /// Who moves first.
    #[serde(with = "color_or_none")]
    pub first: Option<Color>,
    /// Who wins: `most` or `fewest` discs.
    #[serde(with = "win_rule")]
    pub win: WinRule,
    /// The clock of its games: the time, in milliseconds.
    pub base_ms: u64,
    /// The clock's increment, in milliseconds.
    pub increment_ms: u64,
    /// Whether its games count for ratings.
    pub rated: bool,
    /// Who made it.
    pub created_by: String,
    /// When it starts, in milliseconds since the Unix epoch.
    pub starts_at: i64,
    /// Where it is.
    pub stage: Stage,
    /// Its version: one more at each change.
    pub version: u64,
    /// Its players, in the order they are seeded (by rating at the start; before it, in
    /// the order they joined).
    pub players: Vec<Entrant>,
    /// Its games, in the order they were paired.
    pub pairings: Vec<Pairing>,
    /// Byes given.
    pub byes: Vec<Bye>,
    /// The last round paired (a Swiss), or the last wave (an arena).
    pub round: u32,
    /// When it finished.
    pub finished_at: Option<i64>,
    /// Finished without a game: withdrawn by its maker, or fewer than two players at its
    /// start.
    #[serde(default)]
    pub called_off: bool,
}

/// Why a tournament refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// It is over.
    #[error("the tournament is over")]
    Over,
    /// A Swiss takes players only before its start.
    #[error("the tournament has started: a Swiss takes players only before its first round")]
    Started,
    /// Started already: it cannot be started or called off.
    #[error("the tournament has started already")]
    Running,
    /// It is full.
    #[error("the tournament is full ({MAX_PLAYERS} players)")]
    Full,
    /// The player is in it already.
    #[error("{0} is in the tournament already")]
    In(String),
    /// The player is not in it.
    #[error("{0} is not in the tournament")]
    NotIn(String),
}

impl Refusal {
    /// The error code the API answers it with.
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::Over => "tournament_over",
            Refusal::Started | Refusal::Running => "tournament_started",
            Refusal::Full => "tournament_full",
            Refusal::In(_) => "already_in",
            Refusal::NotIn(_) => "not_in",
        }
    }
}

/// What the director is to do with a tournament now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    /// Nothing until something changes (or, for a tournament that has not started, until
    /// its start).
    Wait,
    /// Make these games (Black's account first), with a bye, as round `round`.
    Pair {
        /// The round (or wave).
        round: u32,
        /// The games.
        games: Vec<ByColor<i64>>,
        /// A bye.
        bye: Option<i64>,
    },
    /// It is over: finish it.
    Finish,
}

impl Tournament {
    /// A new tournament, with nobody in it yet.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: String,
        name: String,
        system: System,
        variant: Variant,
        shape: Shape,
        first: Option<Color>,
        win: WinRule,
        clock: TimeControl,
        rated: bool,
        created_by: String,
        starts_at: i64,
    ) -> Tournament {
        Tournament {
            id,
            name,
            system,
            variant,
            shape,
            first,
            win,
            base_ms: clock.base_ms,
            increment_ms: clock.increment_ms,
            rated,
            created_by,
            starts_at,
            stage: Stage::Created,
            version: 0,
            players: Vec::new(),
            pairings: Vec::new(),
            byes: Vec::new(),
            round: 0,
            finished_at: None,
            called_off: false,
        }
    }

    /// Its games' clock.
    pub fn clock(&self) -> TimeControl {
        TimeControl::new(self.base_ms, self.increment_ms)
    }

    /// The rating pool its games count in.
    pub fn category(&self) -> Category {
        super::ratings::category(self.variant, self.shape, self.win, self.clock())
    }

    /// When an arena stops pairing (`None` for a Swiss).
    pub fn ends_at(&self) -> Option<i64> {
        match self.system {
            System::Arena { minutes } => Some(self.starts_at + i64::from(minutes) * 60_000),
            System::Swiss { .. } => None,
        }
    }

    /// What a bye counts in discs (half the board), and which way discs count.
    pub fn scoring(&self) -> Scoring {
        Scoring {
            bye_discs: self.shape.cells() as u32 / 2,
            win: self.win,
        }
    }

    /// `entrant` joins.
    ///
    /// # Errors
    /// [`Refusal`] when it is over, a started Swiss, full, or they are in it already (one
    /// who withdrew from an arena comes back).
    pub fn join(&mut self, entrant: Entrant, now: i64) -> Result<(), Refusal> {
        if self.stage == Stage::Finished || self.ends_at().is_some_and(|end| now >= end) {
            return Err(Refusal::Over);
        }
        if let Some(player) = self
            .players
            .iter_mut()
            .find(|player| player.user_id == entrant.user_id)
        {
            if player.withdrawn && matches!(self.system, System::Arena { .. }) {
                player.withdrawn = false;
                return Ok(());
            }
            return Err(Refusal::In(entrant.name));
        }
        if self.stage != Stage::Created && matches!(self.system, System::Swiss { .. }) {
            return Err(Refusal::Started);
        }
        if self.players.len() >= MAX_PLAYERS {
            return Err(Refusal::Full);
        }
        self.players.push(entrant);
        Ok(())
    }

    /// `user_id` leaves: before the start, as if never in it; after, not paired again (a
    /// game being played is played out, the games played still count).
    ///
    /// # Errors
    /// [`Refusal`] when it is over or they are not in it.
    pub fn withdraw(&mut self, user_id: i64, name: &str) -> Result<(), Refusal> {
        if self.stage == Stage::Finished {
            return Err(Refusal::Over);
        }
        if self.stage == Stage::Created {
            let before = self.players.len();
            self.players.retain(|player| player.user_id != user_id);
            return if self.players.len() < before {
                Ok(())
            } else {
                Err(Refusal::NotIn(name.to_owned()))
            };
        }
        match self
            .players
            .iter_mut()
            .find(|player| player.user_id == user_id && !player.withdrawn)
        {
            Some(player) => {
                player.withdrawn = true;
                Ok(())
            }
            None => Err(Refusal::NotIn(name.to_owned())),
        }
    }

    /// The players' ids in seed order.
    fn seeds(&self) -> Vec<i64> {
        self.players.iter().map(|player| player.user_id).collect()
    }

    /// The players still in, in seed order.
    fn active(&self) -> Vec<i64> {
        self.players
            .iter()
            .filter(|player| !player.withdrawn)
            .map(|player| player.user_id)
            .collect()
    }

    /// The games with a result, as the standings count them (not those called off).
    fn played(&self) -> Vec<Played<i64>> {
        self.pairings
            .iter()
            .filter_map(|pairing| {
                let outcome = pairing.outcome.filter(|outcome| !outcome.called_off)?;
                Some(Played {
                    players: ByColor::new(pairing.black, pairing.white),
                    winner: outcome.winner,
                    discs: ByColor::new(outcome.discs[0], outcome.discs[1]),
                })
            })
            .collect()
    }

    fn bye_ids(&self) -> Vec<i64> {
        self.byes.iter().map(|bye| bye.user_id).collect()
    }

    /// The standings, best first.
    pub fn standings(&self) -> Vec<Standing<i64>> {
        pairing::standings(
            &self.seeds(),
            &self.played(),
            &self.bye_ids(),
            self.scoring(),
        )
    }

    /// The games not over yet.
    pub fn unfinished(&self) -> impl Iterator<Item = &Pairing> {
        self.pairings
            .iter()
            .filter(|pairing| pairing.outcome.is_none())
    }

    /// The player named by `user_id`.
    pub fn entrant(&self, user_id: i64) -> Option<&Entrant> {
        self.players.iter().find(|player| player.user_id == user_id)
    }

    /// What is to be done at `now`.
    pub fn plan(&self, now: i64) -> Plan {
        match self.stage {
            Stage::Finished => Plan::Wait,
            Stage::Created if now < self.starts_at => Plan::Wait,
            Stage::Created | Stage::Running => match self.system {
                System::Swiss { rounds } => self.swiss_plan(rounds),
                System::Arena { .. } => self.arena_plan(now),
            },
        }
    }

    fn swiss_plan(&self, rounds: u32) -> Plan {
        if self.unfinished().next().is_some() {
            return Plan::Wait;
        }
        if self.stage == Stage::Created && self.active().len() < 2 {
            return Plan::Finish;
        }
        if self.round >= rounds {
            return Plan::Finish;
        }
        match pairing::swiss_round(
            &self.active(),
            &self.played(),
            &self.bye_ids(),
            self.scoring(),
        ) {
            Some(Round { pairs, bye }) => Plan::Pair {
                round: self.round + 1,
                games: pairs,
                bye,
            },
            None => Plan::Finish,
        }
    }

    fn arena_plan(&self, now: i64) -> Plan {
        if self.stage == Stage::Created && self.active().len() < 2 {
            return Plan::Finish;
        }
        let over = self.ends_at().is_some_and(|end| now >= end);
        if over {
            return if self.unfinished().next().is_some() {
                Plan::Wait
            } else {
                Plan::Finish
            };
        }
        let busy: Vec<i64> = self
            .unfinished()
            .flat_map(|pairing| [pairing.black, pairing.white])
            .collect();
        let waiting: Vec<i64> = self
            .active()
            .into_iter()
            .filter(|id| !busy.contains(id))
            .collect();
        let games = pairing::arena_pairs(&self.seeds(), &waiting, &self.played(), self.scoring());
        if games.is_empty() {
            return Plan::Wait;
        }
        Plan::Pair {
            round: self.round + 1,
            games,
            bye: None,
        }
    }

    /// The round's games made (their ids in `games`' order) and its bye given: the
    /// tournament running.
    pub fn paired(&mut self, round: u32, games: &[(ByColor<i64>, String)], bye: Option<i64>) {
        if self.stage == Stage::Created {
            self.stage = Stage::Running;
            // Seeded by the order the players are in now (the director sorts them).
        }
        self.round = round;
        for (players, id) in games {
            self.pairings.push(Pairing {
                round,
                game: id.clone(),
                black: players.black,
                white: players.white,
                outcome: None,
            });
        }
        if let Some(user_id) = bye {
            self.byes.push(Bye { round, user_id });
        }
    }

    /// `game`'s result recorded: `result` the winner (`None` a draw; no result at all for a
    /// game called off), `discs` Black's and White's, `ended` how it ended if not by play.
    /// A game won before its end (resigned, lost on time, left) gives the empty squares to
    /// the winner, as game databases score it (WTHOR), or to the loser where the fewest
    /// discs win. A first move that never came loses by forfeit: half the board to the
    /// loser where the fewest discs win, else to the winner, and none to the other; the
    /// absent player is withdrawn (they would lose every game the tournament gave them).
    /// Returns whether anything changed.
    pub fn record(
        &mut self,
        game: &str,
        result: Option<Option<Color>>,
        discs: [u32; 2],
        ended: Option<Ended>,
    ) -> bool {
        let half = self.scoring().bye_discs;
        let fewest = self.win == WinRule::FewestDiscs;
        let Some(pairing) = self
            .pairings
            .iter_mut()
            .find(|pairing| pairing.game == game && pairing.outcome.is_none())
        else {
            return false;
        };
        let absent = match ended {
            Some(Ended::NoFirstMove(color)) => Some(color),
            _ => None,
        };
        let cells = self.shape.cells() as u32;
        let outcome = match (result, absent) {
            (Some(winner), _) => {
                let mut discs = discs;
                if let (Some(color), Some(_)) = (winner, ended) {
                    let empties = cells.saturating_sub(discs[0] + discs[1]);
                    let taker = if fewest { !color } else { color };
                    discs[usize::from(taker == Color::White)] += empties;
                }
                Outcome {
                    winner,
                    discs,
                    called_off: false,
                }
            }
            // The side that never moved loses by forfeit.
            (None, Some(color)) => {
                let mut discs = [0, 0];
                let taker = if fewest { color } else { !color };
                discs[usize::from(taker == Color::White)] = half;
                Outcome {
                    winner: Some(!color),
                    discs,
                    called_off: false,
                }
            }
            (None, None) => Outcome {
                winner: None,
                discs: [0, 0],
                called_off: true,
            },
        };
        pairing.outcome = Some(outcome);
        if let Some(color) = absent {
            let user = if color == Color::Black {
                pairing.black
            } else {
                pairing.white
            };
            if let Some(player) = self.players.iter_mut().find(|p| p.user_id == user) {
                player.withdrawn = true;
            }
        }
        true
    }

    /// Over at `now` (called off when no game was played).
    pub fn finish(&mut self, now: i64) {
        self.stage = Stage::Finished;
        self.finished_at = Some(now);
        self.called_off = self.pairings.is_empty() && self.byes.is_empty();
    }

    /// Called off by its maker, before its start.
    ///
    /// # Errors
    /// [`Refusal::Running`] once it has started, [`Refusal::Over`] once over.
    pub fn call_off(&mut self, now: i64) -> Result<(), Refusal> {
        match self.stage {
            Stage::Created => {
                self.finish(now);
                Ok(())
            }
            Stage::Running => Err(Refusal::Running),
            Stage::Finished => Err(Refusal::Over),
        }
    }
}

/// A value by its text (`Display` and `FromStr`).
mod as_text {
    use std::{fmt::Display, str::FromStr};

    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<T: Display, S: Serializer>(
        value: &T,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_str(value)
    }

    pub fn deserialize<'de, T, D>(deserializer: D) -> Result<T, D::Error>
    where
        T: FromStr,
        T::Err: Display,
        D: Deserializer<'de>,
    {
        String::deserialize(deserializer)?
            .parse()
            .map_err(D::Error::custom)
    }
}

/// A colour as `B` or `W`, or `null`.
mod color_or_none {
    use othello::Color;
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<S: Serializer>(
        color: &Option<Color>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match color {
            Some(Color::Black) => serializer.serialize_some("B"),
            Some(Color::White) => serializer.serialize_some("W"),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Color>, D::Error> {
        match Option::<String>::deserialize(deserializer)?.as_deref() {
            None => Ok(None),
            Some("B") => Ok(Some(Color::Black)),
            Some("W") => Ok(Some(Color::White)),
            Some(other) => Err(D::Error::custom(format!("not a colour: {other:?}"))),
        }
    }
}

/// A win rule as `most` or `fewest`.
mod win_rule {
    use othello::WinRule;
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<S: Serializer>(win: &WinRule, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(win.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<WinRule, D::Error> {
        WinRule::from_name(&String::deserialize(deserializer)?).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests;
