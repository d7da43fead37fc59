//! The JSON the API and the live channel send: a game's state as one viewer sees it. The
//! page renders only this; no rule is decided in the browser. Secrets never appear here.

use othello::{AnyGame, Color, Outcome, Record, RecordFormat, Square, engine::Occupant};
use serde::Serialize;

use super::{
    game::{GameCell, LiveGame, Viewer, legal_list, now_ms},
    table::{Ended, Help},
};

/// `cell`'s game as `viewer` sees it; `review` for the position after that many moves.
///
/// # Errors
/// The number of moves played, when `review` asks for more.
pub async fn view(
    cell: &GameCell,
    viewer: Viewer,
    review: Option<usize>,
) -> Result<GameView, usize> {
    let live = cell.lock().await;
    let game = &live.table.game;
    match review {
        None => Ok(state(cell, &live, game, viewer, None)),
        Some(ply) if ply > game.history().len() => Err(game.history().len()),
        Some(ply) => {
            let replay = AnyGame::replay(game.variant(), *game.setup(), game.moves().take(ply))
                .expect("the game's own moves replay");
            Ok(state(cell, &live, &replay, viewer, Some(ply)))
        }
    }
}

/// A game's state as one viewer sees it (what the API and the live channel send).
#[derive(Debug, Serialize)]
pub struct GameView {
    /// The game's id.
    pub id: String,
    /// `full` or `simple`.
    pub rules: &'static str,
    /// Board rows.
    pub rows: u8,
    /// Board columns.
    pub columns: u8,
    /// Who was named to move first.
    pub first: char,
    /// `most` or `fewest`.
    pub win: &'static str,
    /// One string per row from the top, cells `.`, `B`, `W`.
    pub board: Vec<String>,
    /// The side to move; `null` when the game is over (or, in a review, at the end).
    pub to_move: Option<char>,
    /// The legal moves of the side to move.
    pub legal: Vec<String>,
    /// Discs of each colour.
    pub counts: Counts,
    /// `playing` or `over`.
    pub status: &'static str,
    /// `B`, `W` or `none` (a draw) once over; `null` while playing.
    pub winner: Option<&'static str>,
    /// The moves so far, with `pass` where a side passed.
    pub moves: Vec<String>,
    /// Moves played (passes not counted).
    pub ply: usize,
    /// The last move, to mark it.
    pub last_move: Option<String>,
    /// The discs it turned over, to animate them.
    pub flipped: Vec<String>,
    /// The side that passed just now (it had no move), for a notice.
    pub passed: Option<char>,
    /// Who resigned, if the game ended so.
    pub resigned: Option<char>,
    /// How the game ended other than by play: `resign`, `time` (the loser's flag fell),
    /// `abandon` (the loser left an untimed game), `abort` (no result), `no_first_move`
    /// (aborted, no result: [`GameView::no_first_move`]'s first move did not come in time).
    pub ending: Option<&'static str>,
    /// The side whose first move did not come in time, when the game was aborted so.
    pub no_first_move: Option<char>,
    /// The clocks of a timed game, as they stand when this state is sent.
    pub clock: Option<ClockView>,
    /// Whether the result counts for ratings.
    pub rated: bool,
    /// Over: the seat offering a rematch.
    pub rematch_offer: Option<char>,
    /// Over: the rematch's game id (both pages go there).
    pub rematch: Option<String>,
    /// The seats.
    pub seats: Seats,
    /// Connections without a seat.
    pub spectators: usize,
    /// Which seat asked to take a move back, waiting for the other.
    pub undo_request: Option<char>,
    /// Moves taken back that redo can play again.
    pub can_redo: bool,
    /// The game can still be called off: being played, fewer than two moves played at
    /// the table (moves pasted with its start do not count).
    pub can_abort: bool,
    /// An engine move is on its way.
    pub thinking: bool,
    /// Games between engines: paused.
    pub paused: bool,
    /// Games between engines: the pause between moves, in milliseconds.
    pub speed_ms: u64,
    /// Which seat this viewer holds (`null`: a spectator).
    pub you: Option<char>,
    /// Whether this viewer controls a game between engines.
    pub control: bool,
    /// The engine's help this viewer gets now.
    pub help: HelpView,
    /// Whether the game was created with help for seated people (it matters only while
    /// two people play).
    pub help_on: bool,
    /// Set when this is the position after that many moves, for review.
    pub review: Option<usize>,
    /// The formats `/export` writes for this game (`ggf` only for FULL on 8 × 8, `grader`
    /// only for even sides).
    pub exports: Vec<&'static str>,
    /// Grows at every change of the game (not of who is connected), also across
    /// restarts: a client keeps the state with the highest version it has seen.
    pub version: u64,
}

/// A timed game's clocks.
#[derive(Debug, Serialize)]
pub struct ClockView {
    /// Each side's time at the start, in milliseconds.
    pub base_ms: u64,
    /// Added after each move, in milliseconds.
    pub increment_ms: u64,
    /// Correspondence: the days each move is given (`base_ms`, given back whole after
    /// every move); `null` for a clock of the game's time.
    pub days: Option<u64>,
    /// Black's time left now, in milliseconds.
    #[serde(rename = "B")]
    pub black_ms: u64,
    /// White's.
    #[serde(rename = "W")]
    pub white_ms: u64,
    /// The side whose clock is running (`null` once the game is over, and before the side
    /// to move has made its first move: its clock starts after it).
    pub running: Option<char>,
    /// Before the side to move's first move: the time left to make it, in milliseconds,
    /// after which the game is aborted, unrated.
    pub first_move_ms: Option<u64>,
}

/// The engine's help for one viewer.
#[derive(Debug, Serialize)]
pub struct HelpView {
    /// Hints for the position now.
    pub hints: bool,
    /// The evaluation graph.
    pub evaluation: bool,
}

/// Discs of each colour.
#[derive(Debug, Serialize)]
pub struct Counts {
    /// Black's.
    #[serde(rename = "B")]
    pub black: u32,
    /// White's.
    #[serde(rename = "W")]
    pub white: u32,
}

/// Both seats.
#[derive(Debug, Serialize)]
pub struct Seats {
    /// Black's.
    pub black: SeatView,
    /// White's.
    pub white: SeatView,
}

/// A seat as everyone may see it.
#[derive(Debug, Serialize)]
pub struct SeatView {
    /// `human`, or the engine's player spec.
    pub player: String,
    /// `human` or `engine`.
    pub kind: &'static str,
    /// A person's name (an account's, or a guest's), if given.
    pub name: Option<String>,
    /// Whether that name is an account's (its player page is `/u/NAME`).
    pub account: bool,
    /// Whether that account is a bot's (played by a program through the bot API).
    pub bot: bool,
    /// The engine's time per move, in milliseconds.
    pub time_ms: u64,
    /// Whether this seat has a live connection.
    pub connected: bool,
    /// How long a person's seat has had no connection, in milliseconds (`null` while
    /// connected): in an untimed game between people, the other may claim the win after
    /// the server's limit (five minutes unless set otherwise).
    pub away_ms: Option<u64>,
    /// In a rated game, the player's rating when it began (`null` otherwise).
    pub rating: Option<i64>,
    /// Whether that rating was still uncertain (shown `1338?`).
    pub provisional: bool,
    /// Once a rated game is over, what it changed the rating by.
    pub rating_change: Option<i64>,
}

fn letter(color: Color) -> char {
    color.letter()
}

/// The moves of `game` with `pass` where a side passed (also a pass before the first move
/// and a last one that ends the turn of a side with no move).
pub fn moves_with_passes(game: &AnyGame) -> Vec<String> {
    let mut moves = Vec::new();
    let mut expected = game.setup().first_mover;
    for ply in game.history() {
        if ply.side() != expected {
            moves.push("pass".to_owned());
        }
        moves.push(ply.square().to_string());
        expected = ply.side().opponent();
    }
    if let Some(side) = game.side_to_move()
        && side != expected
    {
        moves.push("pass".to_owned());
    }
    moves
}

/// The state of `game` (the live one, or a replay of its first moves for a review).
pub fn state(
    cell: &GameCell,
    live: &LiveGame,
    game: &AnyGame,
    viewer: Viewer,
    review: Option<usize>,
) -> GameView {
    let Viewer { seat: you, control } = viewer;
    let model = &live.table;
    let board = game.board();
    let shape = board.shape();
    let rows = board_rows(board);
    let at_end = review.is_none();
    let ended = model.ended.filter(|_| at_end);
    let over = ended.is_some() || game.is_over();
    let to_move = if over { None } else { game.side_to_move() };
    let winner = match (ended, game.outcome()) {
        (Some(ended), _) if ended.is_aborted() => None,
        (Some(ended), _) => ended
            .loser()
            .map(|color| if color == Color::Black { "W" } else { "B" }),
        (None, Some(Outcome::Win(Color::Black))) => Some("B"),
        (None, Some(Outcome::Win(Color::White))) => Some("W"),
        (None, Some(Outcome::Draw)) => Some("none"),
        (None, None) => None,
    };
    let last = game.history().last();
    let passed = match (last, to_move) {
        (Some(ply), Some(side)) if ply.side() == side => Some(letter(side.opponent())),
        (None, Some(side)) if side != game.setup().first_mover => {
            Some(letter(game.setup().first_mover))
        }
        _ => None,
    };
    let ratings = cell.seat_ratings();
    let seat = |color: Color| {
        let info = &model.seats[color];
        let rating = ratings.map(|ratings| ratings[color]);
        SeatView {
            rating: rating.map(|rating| rating.rating),
            provisional: rating.is_some_and(|rating| rating.provisional),
            // Under review, the game is not over yet.
            rating_change: rating.and_then(|rating| rating.change).filter(|_| at_end),
            player: info.occupant.to_string(),
            kind: match info.occupant {
                Occupant::Human => "human",
                Occupant::Computer(_) => "engine",
            },
            time_ms: info.time_ms,
            name: info.name.clone(),
            account: info.user_id.is_some(),
            bot: cell.is_bot(color),
            connected: cell.presence.seat(color) > 0,
            away_ms: match info.occupant {
                Occupant::Human => cell
                    .presence
                    .away(color)
                    .map(|away| away.as_millis() as u64),
                Occupant::Computer(_) => None,
            },
        }
    };
    let running = model.running();
    let clock = model.clock.map(|clock| {
        let now = now_ms();
        let first_move_ms = match (model.to_move(), running, model.flag_at()) {
            (Some(_), None, Some(due)) => Some(u64::try_from(due - now).unwrap_or(0)),
            _ => None,
        };
        ClockView {
            base_ms: clock.control.base_ms,
            increment_ms: clock.control.increment_ms,
            days: clock.control.days_per_move(),
            black_ms: clock.left_at(Color::Black, running, now),
            white_ms: clock.left_at(Color::White, running, now),
            running: running.map(letter),
            first_move_ms,
        }
    });
    let setup = game.setup();
    GameView {
        id: cell.id.clone(),
        rules: game.variant().name(),
        rows: shape.rows(),
        columns: shape.columns(),
        first: letter(setup.first_mover),
        win: setup.win_rule.name(),
        board: rows,
        to_move: to_move.map(letter),
        legal: if to_move.is_some() {
            legal_list(game)
        } else {
            Vec::new()
        },
        counts: Counts {
            black: board.count(Color::Black),
            white: board.count(Color::White),
        },
        status: if at_end {
            model.status().name()
        } else if over {
            "over"
        } else {
            "playing"
        },
        winner: if over { winner } else { None },
        moves: moves_with_passes(game),
        ply: game.history().len(),
        last_move: last.map(|ply| ply.square().to_string()),
        flipped: last.map_or_else(Vec::new, |ply| {
            ply.flips()
                .iter()
                .map(|square| square.to_string())
                .collect()
        }),
        passed,
        resigned: match ended {
            Some(Ended::Resigned(color)) => Some(letter(color)),
            _ => None,
        },
        ending: ended.map(Ended::code),
        no_first_move: match ended {
            Some(Ended::NoFirstMove(color)) => Some(letter(color)),
            _ => None,
        },
        clock,
        rated: model.rated,
        rematch_offer: model.rematch_offer.map(letter),
        rematch: model.rematch.clone(),
        seats: Seats {
            black: seat(Color::Black),
            white: seat(Color::White),
        },
        spectators: cell.presence.spectators(),
        undo_request: model.undo_request.map(letter),
        can_redo: at_end && model.game.undone().len() > 0,
        can_abort: at_end && model.to_move().is_some() && model.moves_here() < 2,
        thinking: at_end && (live.thinking || live.engine_elsewhere),
        paused: model.paused,
        speed_ms: model.speed_ms,
        you: you.map(letter),
        control,
        help: HelpView {
            hints: model.may_help(you, Help::Hints),
            evaluation: model.may_help(you, Help::Evaluation),
        },
        help_on: model.help,
        review,
        exports: Record::exports_for(model.game.variant(), model.game.setup())
            .into_iter()
            .map(RecordFormat::name)
            .collect(),
        version: live.version,
    }
}

/// A board as the page draws it: rows of `B`, `W` and `.`, top first.
pub fn board_rows(board: &othello::Board) -> Vec<String> {
    let shape = board.shape();
    (0..shape.rows())
        .map(|row| {
            (0..shape.columns())
                .map(|column| match board.at(Square::new(row, column)) {
                    Some(color) => color.letter(),
                    None => '.',
                })
                .collect()
        })
        .collect()
}
