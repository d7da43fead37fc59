//! What `othello tournament` prints: the standings computed from the games (points against
//! each opponent, wins, draws, losses, forfeits, Elo with its interval), then the crosstable
//! as text, or one JSON object (through serde) with the players, the pairings, the ratings
//! and every game; and the notes it writes on stderr.

use std::{fmt::Write as _, path::Path};

use othello::{
    Color,
    arena::elo::{EloOptions, EloRating, EloScore, PRIOR_DRAWS, Results, rate},
};
use serde::Serialize;

use crate::words;

use super::{
    EntrantKind, Forfeit, GameResult, OpeningsSource, Played, TournamentOptions, pairings,
    save::GameLine,
};

/// Each player's results, and the order they finish in.
#[derive(Clone, Debug)]
pub struct Standings {
    /// One row per player, in the order of [`TournamentOptions::entrants`].
    pub rows: Vec<Row>,
    /// The players (indices) best first: by points, then rating, then the order given.
    pub ranking: Vec<usize>,
    /// Games and points between every two players.
    pub results: Results,
    /// The player rated 0.
    pub anchor: usize,
}

/// One player's results.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Row {
    /// Games played.
    pub games: u32,
    /// Games won (by forfeit included).
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost (by forfeit included).
    pub losses: u32,
    /// Games lost by forfeit.
    pub forfeits: u32,
    /// Points: a win 1, a draw 1/2.
    pub points: f64,
    /// The rating, `None` if it could not be computed (which the prior rules out).
    pub rating: Option<EloRating>,
}

impl Standings {
    /// The standings of `played`.
    pub fn new(options: &TournamentOptions, played: &Played) -> Standings {
        let players = options.entrants.len();
        let mut results = Results::new(players);
        let mut rows = vec![Row::default(); players];
        for game in &played.games {
            let score = game.black_score();
            results.add(game.black, game.white, score);
            for (player, score) in [(game.black, score), (game.white, score.reversed())] {
                let row = &mut rows[player];
                row.games += 1;
                match score {
                    EloScore::Win => row.wins += 1,
                    EloScore::Draw => row.draws += 1,
                    EloScore::Loss => row.losses += 1,
                }
            }
            if let Some(forfeiter) = game.forfeiter() {
                rows[forfeiter].forfeits += 1;
            }
        }
        let anchor = options.anchor();
        let ratings = rate(&results, &EloOptions::anchored(anchor)).ok();
        for (player, row) in rows.iter_mut().enumerate() {
            row.points = results.total_points(player);
            row.rating = ratings.as_ref().map(|ratings| ratings[player]);
        }
        let mut ranking: Vec<usize> = (0..players).collect();
        let elo = |player: usize| rows[player].rating.map_or(f64::NEG_INFINITY, |r| r.elo);
        ranking.sort_by(|&a, &b| {
            rows[b]
                .points
                .total_cmp(&rows[a].points)
                .then(elo(b).total_cmp(&elo(a)))
                .then(a.cmp(&b))
        });
        Standings {
            rows,
            ranking,
            results,
            anchor,
        }
    }
}

/// What a report is made of: the tournament as asked for, the games played, the
/// standings they give, and where the games are saved.
#[derive(Clone, Copy, Debug)]
pub struct Report<'a> {
    /// The tournament as asked for.
    pub options: &'a TournamentOptions,
    /// Its games.
    pub played: &'a Played,
    /// The standings they give.
    pub standings: &'a Standings,
    /// Where the games are saved, if they are.
    pub saved: Option<&'a Path>,
}

impl Report<'_> {
    /// The players' names, in the order given.
    fn names(&self) -> Vec<&str> {
        let entrants = &self.options.entrants;
        entrants.iter().map(|e| e.name.as_str()).collect()
    }
}

/// The report as text: what was played, the crosstable (each row a player, best first; each
/// column the points against the player of that rank), the players' specs, how Elo was
/// computed, every forfeit, and where the games are saved.
pub fn text(report: Report<'_>) -> String {
    let names = report.names();
    let players = names.len();
    let mut text = String::new();
    let kind = match report.options.gauntlet {
        Some(gauntlet) => format!("Gauntlet of {}", names[gauntlet]),
        None => "Round robin".to_owned(),
    };
    let _ = writeln!(
        text,
        "{kind}: {}, {} of {}, {}",
        words::count(players as u64, "player"),
        words::count(pairings(report.options).len() as u64, "pairing"),
        words::count(report.options.games_per_pairing, "game"),
        words::count(report.played.games.len() as u64, "game"),
    );
    let count = report.options.openings.len();
    let openings = match &report.options.openings_source {
        OpeningsSource::File(path) => format!("{count} from {}", path.display()),
        OpeningsSource::Random(moves) => format!("{count} of {moves} random moves"),
    };
    let _ = writeln!(
        text,
        "Openings: {openings}, each played twice with colours swapped; seed {}",
        report.options.seed
    );
    let _ = writeln!(
        text,
        "Built-in players: {} ms a move; engines: depth {}, {} ms to answer",
        report.options.time_per_move.as_millis(),
        report.options.engine_depth,
        report.options.move_timeout.as_millis(),
    );

    let width = names.iter().map(|n| n.len()).max().unwrap_or(0).max(6);
    let rank_width = players.to_string().len().max(1);
    let mut header = format!("{:>rank_width$}  {:<width$}", "#", "player");
    for rank in 1..=players {
        let _ = write!(header, " {rank:>4}");
    }
    let _ = write!(
        header,
        "  {:>5}  {:>6}  {:>6}  {:>6}  {:^17}  {:>8}",
        "games", "points", "score", "Elo", "95 % interval", "forfeits"
    );
    text.push_str(header.trim_end());
    text.push('\n');
    for (rank, &player) in report.standings.ranking.iter().enumerate() {
        let row = &report.standings.rows[player];
        let mut line = format!("{:>rank_width$}  {:<width$}", rank + 1, names[player]);
        for &opponent in &report.standings.ranking {
            let cell = if opponent == player {
                "·".to_owned()
            } else if report.standings.results.games(player, opponent) == 0 {
                "-".to_owned()
            } else {
                points_text(report.standings.results.points(player, opponent))
            };
            let _ = write!(line, " {cell:>4}");
        }
        let score = if row.games == 0 {
            "-".to_owned()
        } else {
            format!("{:.1}%", row.points / f64::from(row.games) * 100.0)
        };
        let (elo, interval) = match row.rating {
            _ if player == report.standings.anchor => ("0".to_owned(), "anchor".to_owned()),
            Some(rating) => (
                signed(rating.elo),
                format!("{} to {}", signed(rating.low), signed(rating.high)),
            ),
            None => ("?".to_owned(), "?".to_owned()),
        };
        let _ = writeln!(
            line,
            "  {:>5}  {:>6}  {score:>6}  {elo:>6}  {interval:^17}  {:>8}",
            row.games,
            points_text(row.points),
            row.forfeits,
        );
        text.push_str(line.trim_end());
        text.push('\n');
    }

    text.push_str("Players:\n");
    for (rank, &player) in report.standings.ranking.iter().enumerate() {
        let what = match &report.options.entrants[player].kind {
            EntrantKind::BuiltIn(spec) => spec.to_string(),
            EntrantKind::External { command, .. } => format!("NBoard engine: {command}"),
        };
        let _ = writeln!(
            text,
            "  {:>rank_width$}  {:<width$}  {what}",
            rank + 1,
            names[player]
        );
    }
    let anchor = names[report.standings.anchor];
    let _ = writeln!(
        text,
        "Elo: Bradley-Terry maximum likelihood from all {} (a draw is half a win),\n\
         anchored at 0 on {anchor}, with {} virtual draw against {anchor} for each other \
         player;\n95 % intervals from the observed information.",
        words::count(report.played.games.len() as u64, "game"),
        points_text(PRIOR_DRAWS),
    );
    let forfeits: Vec<_> = report
        .played
        .games
        .iter()
        .filter_map(|game| Some((game, game.forfeit.as_ref()?)))
        .collect();
    if !forfeits.is_empty() {
        text.push_str("Forfeits:\n");
        for (game, forfeit) in forfeits {
            let _ = writeln!(text, "  {}", forfeit_text(report.options, game, forfeit));
        }
    }
    if let Some(dir) = report.saved {
        let _ = writeln!(text, "Games saved in {}", dir.display());
    }
    text
}

/// `game 5 (bad as White against random, move 7): no move within 300 ms`.
fn forfeit_text(options: &TournamentOptions, game: &GameResult, forfeit: &Forfeit) -> String {
    let (loser, colour, opponent) = match forfeit.side {
        Color::Black => (game.black, "Black", game.white),
        Color::White => (game.white, "White", game.black),
    };
    format!(
        "game {} ({} as {colour} against {}, move {}): {}",
        game.number,
        options.entrants[loser].name,
        options.entrants[opponent].name,
        game.moves.len() + 1,
        forfeit.reason,
    )
}

/// The note on stderr when a game is lost by forfeit, as it happens; `None` for other
/// games.
pub fn forfeit_note(options: &TournamentOptions, game: &GameResult) -> Option<String> {
    let forfeit = game.forfeit.as_ref()?;
    Some(format!(
        "othello tournament: forfeit: {}",
        forfeit_text(options, game, forfeit)
    ))
}

/// `1`, `0.5`, `12.5`.
fn points_text(points: f64) -> String {
    if points.fract() == 0.0 {
        format!("{points:.0}")
    } else {
        format!("{points:.1}")
    }
}

/// `+191`, `-35`, `0` (never `-0`), `+inf`, `-inf`; Elo figures here and in `othello match`.
pub(crate) fn signed(value: f64) -> String {
    match value.round() {
        0.0 => "0".to_owned(),
        value => format!("{value:+}"),
    }
}

/// A number for JSON rounded to `decimals` (never `-0`); `None` (null) if not finite. Shared
/// with `othello match`.
pub(crate) fn json_number(value: f64, decimals: i32) -> Option<f64> {
    let scale = 10f64.powi(decimals);
    value
        .is_finite()
        .then(|| (value * scale).round() / scale + 0.0)
}

/// The report in JSON.
#[derive(Serialize)]
struct TournamentJson<'a> {
    /// `round-robin` or `gauntlet`.
    format: &'static str,
    gauntlet: Option<&'a str>,
    games_per_pairing: u32,
    openings: Vec<String>,
    /// `random` or the file's path.
    openings_from: String,
    /// The moves of a random opening; `null` for a file's.
    random_opening_moves: Option<u32>,
    seed: u64,
    time_per_move_ms: u64,
    engine_depth: u32,
    move_timeout_ms: u64,
    games_played: usize,
    games_resumed: usize,
    saved: Option<String>,
    ratings: RatingsJson<'a>,
    players: Vec<PlayerJson<'a>>,
    pairings: Vec<PairingJson<'a>>,
    games: Vec<GameLine>,
}

#[derive(Serialize)]
struct RatingsJson<'a> {
    method: &'static str,
    anchor: &'a str,
    prior_draws: f64,
    interval: f64,
}

#[derive(Serialize)]
struct PlayerJson<'a> {
    name: &'a str,
    rank: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    spec: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    command: Option<&'a str>,
    games: u32,
    wins: u32,
    draws: u32,
    losses: u32,
    points: f64,
    score: Option<f64>,
    forfeits: u32,
    elo: Option<EloJson>,
}

#[derive(Serialize)]
struct EloJson {
    rating: Option<f64>,
    low: Option<f64>,
    high: Option<f64>,
}

#[derive(Serialize)]
struct PairingJson<'a> {
    players: [&'a str; 2],
    games: u32,
    points: [f64; 2],
}

/// The report as one JSON object (and a newline):
///
/// `{"format":"round-robin","gauntlet":null,"games_per_pairing":2,"openings":["f5d6c3d3"],
/// "openings_from":"random",...,"ratings":{"method":..,"anchor":"a","prior_draws":1.0,
/// "interval":0.95},"players":[{"name":"a","rank":2,"spec":"random","games":6,"wins":..,
/// "draws":..,"losses":..,"points":2.5,"score":0.4167,"forfeits":0,"elo":{"rating":0.0,
/// "low":0.0,"high":0.0}},..],"pairings":[{"players":["a","b"],"games":2,"points":[1.5,0.5]},
/// ..],"games":[{"game":1,"black":"a","white":"b","opening":..,"moves":..,"result":"1-0",
/// "winner":"a","discs":[40,24],"forfeit":null},..]}`
///
/// Players in the order given (`rank` is where each finished); an engine has `command` in
/// place of `spec`; a forfeit is `{"player":..,"kind":"timeout","reason":..}`.
pub fn json(report: Report<'_>) -> String {
    let names = report.names();
    let mut ranks = vec![0; names.len()];
    for (rank, &player) in report.standings.ranking.iter().enumerate() {
        ranks[player] = rank + 1;
    }
    let players = report
        .options
        .entrants
        .iter()
        .enumerate()
        .map(|(index, entrant)| {
            let row = &report.standings.rows[index];
            let (spec, command) = match &entrant.kind {
                EntrantKind::BuiltIn(spec) => (Some(spec.to_string()), None),
                EntrantKind::External { command, .. } => (None, Some(command.as_str())),
            };
            PlayerJson {
                name: &entrant.name,
                rank: ranks[index],
                spec,
                command,
                games: row.games,
                wins: row.wins,
                draws: row.draws,
                losses: row.losses,
                points: row.points,
                score: (row.games > 0)
                    .then(|| json_number(row.points / f64::from(row.games), 4))
                    .flatten(),
                forfeits: row.forfeits,
                elo: row.rating.map(|rating| EloJson {
                    rating: json_number(rating.elo, 1),
                    low: json_number(rating.low, 1),
                    high: json_number(rating.high, 1),
                }),
            }
        })
        .collect();
    let pairings = pairings(report.options)
        .into_iter()
        .map(|(a, b)| PairingJson {
            players: [names[a], names[b]],
            games: report.standings.results.games(a, b),
            points: [
                report.standings.results.points(a, b),
                report.standings.results.points(b, a),
            ],
        })
        .collect();
    let report = TournamentJson {
        format: if report.options.gauntlet.is_some() {
            "gauntlet"
        } else {
            "round-robin"
        },
        gauntlet: report.options.gauntlet.map(|g| names[g]),
        games_per_pairing: report.options.games_per_pairing,
        openings: report
            .options
            .openings
            .iter()
            .map(|o| o.transcript())
            .collect(),
        openings_from: match &report.options.openings_source {
            OpeningsSource::File(path) => path.display().to_string(),
            OpeningsSource::Random(_) => "random".to_owned(),
        },
        random_opening_moves: match report.options.openings_source {
            OpeningsSource::File(_) => None,
            OpeningsSource::Random(moves) => Some(moves),
        },
        seed: report.options.seed,
        time_per_move_ms: report.options.time_per_move.as_millis() as u64,
        engine_depth: report.options.engine_depth,
        move_timeout_ms: report.options.move_timeout.as_millis() as u64,
        games_played: report.played.games.len(),
        games_resumed: report.played.resumed,
        saved: report.saved.map(|dir| dir.display().to_string()),
        ratings: RatingsJson {
            method: "Bradley-Terry maximum likelihood",
            anchor: names[report.standings.anchor],
            prior_draws: PRIOR_DRAWS,
            interval: 0.95,
        },
        players,
        pairings,
        games: report
            .played
            .games
            .iter()
            .map(|game| GameLine::new(game, report.options))
            .collect(),
    };
    let mut text = serde_json::to_string(&report).unwrap_or_default();
    text.push('\n');
    text
}

/// Where the games go when no directory was named, said before the first game.
pub fn saving_note(dir: &Path) -> String {
    format!(
        "othello tournament: saving the games in {} (the same command resumes from there; \
         --save DIR to choose another, --no-save for none)",
        dir.display()
    )
}

/// The note on stderr when a tournament goes on from its saved games.
pub fn resumed_note(dir: &Path, played: usize, total: usize) -> String {
    let then = if played < total {
        "playing the rest"
    } else {
        "nothing left to play"
    };
    format!(
        "othello tournament: {played} of {} already played in {}; {then}",
        words::count(total as u64, "game"),
        dir.display()
    )
}

/// The note on stderr when a tournament is interrupted.
pub fn interrupted_note(dir: Option<&Path>) -> String {
    match dir {
        Some(dir) => format!(
            "othello tournament: interrupted; the games finished are saved in {}: run the same \
             command again to go on",
            dir.display()
        ),
        None => "othello tournament: interrupted".to_owned(),
    }
}
