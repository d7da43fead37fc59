//! The store's words as text, at the SQL column and nowhere else: how each is written, and
//! one decoder per table that reads a row back by column name, for SQLite and PostgreSQL
//! alike. A word that does not read back is a damaged database, said with its column.

use othello::{Board, Clock, Color, Shape, Square, TimeControl, Variant, WinRule};

use super::{
    Category, ColorChoice, Ended, GameStatus, StoreError, StoredGame, StoredMove, StoredPuzzle,
    StoredPuzzleRating, StoredRating, StoredSeat, StoredSeek, StoredSession, StoredUser,
};
use crate::server::{ratings::Rating, tournaments::Tournament};
use othello::analysis::puzzle::Puzzle;
use othello::engine::Occupant;

/// A row of either database, read by column name.
pub(super) trait Row {
    /// A text column.
    fn text(&self, column: &str) -> Result<Option<String>, StoreError>;
    /// An integer column.
    fn int(&self, column: &str) -> Result<Option<i64>, StoreError>;
    /// A flag column.
    fn flag(&self, column: &str) -> Result<bool, StoreError>;
    /// A real column.
    fn real(&self, column: &str) -> Result<Option<f64>, StoreError>;
}

/// A column whose value is not of its kind (text in a number's column): a damaged row.
fn unreadable(column: &str, error: &dyn std::fmt::Display) -> StoreError {
    StoreError::Damaged(format!("{column} does not read: {error}"))
}

/// [`Row`] for a database's row type, through its own typed getter.
macro_rules! row {
    ($row:ty, $get:ident) => {
        impl Row for $row {
            fn text(&self, column: &str) -> Result<Option<String>, StoreError> {
                self.$get(column)
                    .map_err(|error| unreadable(column, &error))
            }

            fn int(&self, column: &str) -> Result<Option<i64>, StoreError> {
                self.$get(column)
                    .map_err(|error| unreadable(column, &error))
            }

            fn flag(&self, column: &str) -> Result<bool, StoreError> {
                self.$get(column)
                    .map_err(|error| unreadable(column, &error))
            }

            fn real(&self, column: &str) -> Result<Option<f64>, StoreError> {
                self.$get(column)
                    .map_err(|error| unreadable(column, &error))
            }
        }
    };
}

row!(rusqlite::Row<'_>, get);
row!(tokio_postgres::Row, try_get);

/// A column that may not be null.
fn needed<T>(value: Option<T>, column: &str) -> Result<T, StoreError> {
    value.ok_or_else(|| StoreError::Damaged(format!("{column} is empty")))
}

/// A text column's word, read back by `read`.
fn word<T>(
    row: &impl Row,
    column: &str,
    read: impl FnOnce(&str) -> Option<T>,
) -> Result<T, StoreError> {
    let text = needed(row.text(column)?, column)?;
    read(&text).ok_or_else(|| StoreError::Damaged(format!("{column} holds {text:?}")))
}

/// A nullable text column's word.
fn word_or_none<T>(
    row: &impl Row,
    column: &str,
    read: impl FnOnce(&str) -> Option<T>,
) -> Result<Option<T>, StoreError> {
    match row.text(column)? {
        None => Ok(None),
        Some(text) => read(&text)
            .map(Some)
            .ok_or_else(|| StoreError::Damaged(format!("{column} holds {text:?}"))),
    }
}

fn text(row: &impl Row, column: &str) -> Result<String, StoreError> {
    needed(row.text(column)?, column)
}

fn int(row: &impl Row, column: &str) -> Result<i64, StoreError> {
    needed(row.int(column)?, column)
}

/// A count (of milliseconds, moves): never negative.
fn count(row: &impl Row, column: &str) -> Result<u64, StoreError> {
    let value = int(row, column)?;
    u64::try_from(value).map_err(|_| StoreError::Damaged(format!("{column} holds {value}")))
}

fn real(row: &impl Row, column: &str) -> Result<f64, StoreError> {
    needed(row.real(column)?, column)
}

// ------------------------------------------------------------------------ the words

/// `B` or `W`.
pub(super) fn color_text(color: Color) -> &'static str {
    match color {
        Color::Black => "B",
        Color::White => "W",
    }
}

fn color_of(text: &str) -> Option<Color> {
    match text {
        "B" => Some(Color::Black),
        "W" => Some(Color::White),
        _ => None,
    }
}

/// A board: rows from the top, `/` between them, cells `.`, `B`, `W`.
pub(super) fn board_text(board: &Board) -> String {
    let shape = board.shape();
    (0..shape.rows())
        .map(|row| {
            (0..shape.columns())
                .map(|column| match board.at(Square::new(row, column)) {
                    Some(color) => color.letter(),
                    None => '.',
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn board_of(text: &str) -> Option<Board> {
    let rows: Vec<&str> = text.split('/').collect();
    let shape = Shape::new(
        u8::try_from(rows.len()).ok()?,
        u8::try_from(rows.first()?.len()).ok()?,
    )
    .ok()?;
    let mut board = Board::empty(shape);
    for (row, cells) in rows.iter().enumerate() {
        if cells.len() != usize::from(shape.columns()) {
            return None;
        }
        for (column, cell) in cells.bytes().enumerate() {
            let disc = match cell {
                b'.' => None,
                letter => Some(Color::from_letter(letter)?),
            };
            board.set(shape.square(row, column)?, disc);
        }
    }
    Some(board)
}

/// A redo list: squares, the next one first, between spaces.
pub(super) fn squares_text(squares: &[Square]) -> String {
    squares
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn squares_of(text: &str) -> Option<Vec<Square>> {
    text.split_whitespace()
        .map(|square| square.parse().ok())
        .collect()
}

/// A clock as its columns: all null in an untimed game.
#[derive(Default)]
pub(super) struct ClockColumns {
    pub base_ms: Option<i64>,
    pub increment_ms: Option<i64>,
    pub black_ms: Option<i64>,
    pub white_ms: Option<i64>,
    pub since: Option<i64>,
    /// Days a move (correspondence).
    pub per_move: bool,
}

impl ClockColumns {
    pub fn of(clock: Option<&Clock>) -> ClockColumns {
        let Some(clock) = clock else {
            return ClockColumns::default();
        };
        let ms = |value: u64| Some(i64::try_from(value).unwrap_or(i64::MAX));
        ClockColumns {
            base_ms: ms(clock.control.base_ms),
            increment_ms: ms(clock.control.increment_ms),
            black_ms: ms(clock.left_ms.black),
            white_ms: ms(clock.left_ms.white),
            since: Some(clock.since),
            per_move: clock.control.per_move,
        }
    }

    fn read(row: &impl Row) -> Result<Option<Clock>, StoreError> {
        let ms = |column: &str| -> Result<Option<u64>, StoreError> {
            Ok(row
                .int(column)?
                .map(|value| u64::try_from(value).unwrap_or(0)))
        };
        let (Some(base_ms), Some(increment_ms), Some(black), Some(white), Some(since)) = (
            ms("clock_base_ms")?,
            ms("clock_increment_ms")?,
            ms("black_clock_ms")?,
            ms("white_clock_ms")?,
            row.int("clock_since")?,
        ) else {
            return Ok(None);
        };
        Ok(Some(Clock {
            control: TimeControl {
                per_move: row.flag("clock_per_move")?,
                ..TimeControl::new(base_ms, increment_ms)
            },
            left_ms: othello::ByColor::new(black, white),
            since,
        }))
    }
}

// ------------------------------------------------------------------ one per table

/// The columns [`game`] reads, in a `SELECT`.
pub(super) const GAME_COLUMNS: &str = "id, rules, board, first, win, black, black_time_ms,
    black_secret, white, white_time_ms, white_secret, status, ending, undo_request, undone,
    control_secret, paused, speed_ms, created_at, updated_at, version, help, clock_base_ms,
    clock_increment_ms, black_clock_ms, white_clock_ms, clock_since, black_name, white_name,
    black_user, white_user, rated, rematch_offer, rematch, clock_per_move, deadline";

/// A `games` row (its moves are read apart: [`game_move`]).
pub(super) fn game(row: &impl Row) -> Result<StoredGame, StoreError> {
    let seat = |color: &str| -> Result<StoredSeat, StoreError> {
        Ok(StoredSeat {
            player: word(row, color, |text| text.parse::<Occupant>().ok())?,
            time_ms: count(row, &format!("{color}_time_ms"))?,
            secret_hash: row.text(&format!("{color}_secret"))?,
            name: row.text(&format!("{color}_name"))?,
            user_id: row.int(&format!("{color}_user"))?,
        })
    };
    Ok(StoredGame {
        id: text(row, "id")?,
        rules: word(row, "rules", |text| text.parse::<Variant>().ok())?,
        board: word(row, "board", board_of)?,
        first: word(row, "first", color_of)?,
        win: word(row, "win", |text| WinRule::from_name(text).ok())?,
        seats: [seat("black")?, seat("white")?],
        moves: Vec::new(),
        undone: word(row, "undone", squares_of)?,
        status: word(row, "status", GameStatus::from_name)?,
        ending: word_or_none(row, "ending", Ended::from_text)?,
        clock: ClockColumns::read(row)?,
        deadline: row.int("deadline")?,
        rated: row.flag("rated")?,
        rematch_offer: word_or_none(row, "rematch_offer", color_of)?,
        rematch: row.text("rematch")?,
        undo_request: word_or_none(row, "undo_request", color_of)?,
        control_hash: row.text("control_secret")?,
        paused: row.flag("paused")?,
        speed_ms: count(row, "speed_ms")?,
        created_at: int(row, "created_at")?,
        updated_at: int(row, "updated_at")?,
        version: count(row, "version")?,
        help: row.flag("help")?,
    })
}

/// The columns [`game_move`] reads.
pub(super) const MOVE_COLUMNS: &str = "square, side, played_at, think_ms, eval, exact";

/// A `moves` row.
pub(super) fn game_move(row: &impl Row) -> Result<StoredMove, StoreError> {
    Ok(StoredMove {
        square: word(row, "square", |text| text.parse::<Square>().ok())?,
        side: word(row, "side", color_of)?,
        played_at: int(row, "played_at")?,
        think_ms: count(row, "think_ms")?,
        eval: row.real("eval")?,
        exact: row.flag("exact")?,
    })
}

/// The columns [`seek`] reads.
pub(super) const SEEK_COLUMNS: &str = "id, poster_name, poster_user, poster_secret, rules,
    \"rows\", \"columns\", first, win, color, clock_base_ms, clock_increment_ms, rated, help,
    to_name, private, created_at, clock_per_move";

/// A `seeks` row.
pub(super) fn seek(row: &impl Row) -> Result<StoredSeek, StoreError> {
    let side = |column: &str| -> Result<u8, StoreError> {
        let value = int(row, column)?;
        u8::try_from(value).map_err(|_| StoreError::Damaged(format!("{column} holds {value}")))
    };
    let (rows, columns) = (side("rows")?, side("columns")?);
    let shape = Shape::new(rows, columns)
        .map_err(|_| StoreError::Damaged(format!("a seek's board is {rows}x{columns}")))?;
    let clock = match (row.int("clock_base_ms")?, row.int("clock_increment_ms")?) {
        (Some(base), Some(increment)) => Some(TimeControl {
            per_move: row.flag("clock_per_move")?,
            ..TimeControl::new(
                u64::try_from(base).unwrap_or(0),
                u64::try_from(increment).unwrap_or(0),
            )
        }),
        _ => None,
    };
    Ok(StoredSeek {
        id: text(row, "id")?,
        poster_name: text(row, "poster_name")?,
        poster_user: row.int("poster_user")?,
        poster_secret: row.text("poster_secret")?,
        rules: word(row, "rules", |text| text.parse::<Variant>().ok())?,
        shape,
        first: word(row, "first", color_of)?,
        win: word(row, "win", |text| WinRule::from_name(text).ok())?,
        color: word(row, "color", ColorChoice::from_text)?,
        clock,
        rated: row.flag("rated")?,
        help: row.flag("help")?,
        to_name: row.text("to_name")?,
        private: row.flag("private")?,
        created_at: int(row, "created_at")?,
    })
}

/// The challenges that read back, each damaged one left out with a line on stderr: one
/// bad row must not keep the lobby (and the server) from starting.
pub(super) fn readable_seeks(rows: Vec<Result<StoredSeek, StoreError>>) -> Vec<StoredSeek> {
    rows.into_iter()
        .filter_map(|seek| {
            seek.map_err(|error| eprintln!("othello serve: a challenge is left out: {error}"))
                .ok()
        })
        .collect()
}

/// The columns [`rating`] reads from `ratings` (a player's latest rating in each category).
pub(super) const RATING_COLUMNS: &str =
    "category, rating, deviation, volatility, games, updated_at, '' AS game_id";

/// The columns [`rating`] reads from `rating_history` (a rating after each rated game).
pub(super) const RATING_HISTORY_COLUMNS: &str =
    "category, rating, deviation, CAST(0 AS DOUBLE PRECISION) AS volatility,
    CAST(0 AS BIGINT) AS games, at AS updated_at, game_id";

/// A rating of `user_id`'s: a `ratings` row, or a `rating_history` one (its game named,
/// no volatility or count kept).
pub(super) fn rating(row: &impl Row, user_id: i64) -> Result<StoredRating, StoreError> {
    Ok(StoredRating {
        user_id,
        category: word(row, "category", |text| text.parse::<Category>().ok())?,
        rating: real(row, "rating")?,
        deviation: real(row, "deviation")?,
        volatility: real(row, "volatility")?,
        games: u32::try_from(count(row, "games")?).unwrap_or(u32::MAX),
        game_id: text(row, "game_id")?,
        at: int(row, "updated_at")?,
    })
}

/// The columns [`user`] reads.
pub(super) const USER_COLUMNS: &str = "id, name, password_hash, created_at, bot";

/// A `users` row.
pub(super) fn user(row: &impl Row) -> Result<StoredUser, StoreError> {
    Ok(StoredUser {
        id: int(row, "id")?,
        name: text(row, "name")?,
        password_hash: text(row, "password_hash")?,
        created_at: int(row, "created_at")?,
        bot: row.flag("bot")?,
    })
}

/// The session whose token hashes to `param` (the database's placeholder) and its
/// account: a row for [`session`] and [`user`].
pub(super) fn session_query(param: &str) -> String {
    format!(
        "SELECT sessions.token_hash, sessions.user_id, sessions.csrf,
            sessions.created_at AS session_created_at, sessions.expires_at,
            users.id, users.name, users.password_hash, users.created_at, users.bot
         FROM sessions JOIN users ON users.id = sessions.user_id
         WHERE sessions.token_hash = {param}"
    )
}

/// A session, from [`session_query`]'s row.
pub(super) fn session(row: &impl Row) -> Result<StoredSession, StoreError> {
    Ok(StoredSession {
        token_hash: text(row, "token_hash")?,
        user_id: int(row, "user_id")?,
        csrf: text(row, "csrf")?,
        created_at: int(row, "session_created_at")?,
        expires_at: int(row, "expires_at")?,
    })
}

/// A puzzle's moves and their scores: `d3:+4 c4:-2`, best first.
pub(super) fn scored_moves_text(moves: &[(Square, i32)]) -> String {
    let words: Vec<String> = moves
        .iter()
        .map(|(square, score)| format!("{square}:{score:+}"))
        .collect();
    words.join(" ")
}

fn scored_moves(text: &str) -> Option<Vec<(Square, i32)>> {
    text.split_whitespace()
        .map(|word| {
            let (square, score) = word.split_once(':')?;
            Some((square.parse().ok()?, score.parse().ok()?))
        })
        .collect()
}

/// The columns [`puzzle`] reads.
pub(super) const PUZZLE_COLUMNS: &str = "id, position, answer, moves, depth, source, rating, \
     deviation, volatility, attempts, solved";

/// A `puzzles` row.
pub(super) fn puzzle(row: &impl Row) -> Result<StoredPuzzle, StoreError> {
    let setup = word(row, "position", |text| {
        text.parse::<othello::Obf>().ok().map(|obf| obf.setup)
    })?;
    Ok(StoredPuzzle {
        puzzle: Puzzle {
            setup,
            answer: word(row, "answer", |text| text.parse().ok())?,
            moves: word(row, "moves", scored_moves)?,
            depth: row
                .int("depth")?
                .and_then(|depth| u32::try_from(depth).ok()),
        },
        source: text(row, "source")?,
        rating: rating_of(row, "attempts")?,
        solved: u32::try_from(count(row, "solved")?).unwrap_or(u32::MAX),
    })
}

/// The columns [`puzzle_rating`] reads.
pub(super) const PUZZLE_RATING_COLUMNS: &str = "rating, deviation, volatility, attempts, solved";

/// A `puzzle_ratings` row.
pub(super) fn puzzle_rating(row: &impl Row) -> Result<StoredPuzzleRating, StoreError> {
    Ok(StoredPuzzleRating {
        rating: rating_of(row, "attempts")?,
        solved: u32::try_from(count(row, "solved")?).unwrap_or(u32::MAX),
    })
}

/// A rating's three columns, and its games in `games`.
fn rating_of(row: &impl Row, games: &str) -> Result<Rating, StoreError> {
    Ok(Rating {
        rating: real(row, "rating")?,
        deviation: real(row, "deviation")?,
        volatility: real(row, "volatility")?,
        games: u32::try_from(count(row, games)?).unwrap_or(u32::MAX),
    })
}

/// A tournament's record as its `body` column holds it (JSON).
pub(super) fn tournament_text(tournament: &Tournament) -> String {
    serde_json::to_string(tournament).expect("a tournament always serializes")
}

/// A tournament read back from its `body` column.
pub(super) fn tournament(row: &impl Row) -> Result<Tournament, StoreError> {
    let body = text(row, "body")?;
    serde_json::from_str(&body).map_err(|error| unreadable("body", &error))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_round_trip_as_text() {
        let board = Board::standard(Shape::new(4, 6).unwrap());
        let text = board_text(&board);
        assert_eq!(text, "....../..WB../..BW../......");
        assert_eq!(board_of(&text), Some(board));
        assert_eq!(board_of("..X./..../..../...."), None);
        assert_eq!(board_of("..."), None);
    }

    #[test]
    fn words_read_back_as_they_are_written() {
        let squares: Vec<Square> = ["c5", "p16", "a1"].map(|s| s.parse().unwrap()).to_vec();
        assert_eq!(squares_of(&squares_text(&squares)), Some(squares));
        assert_eq!(squares_of(""), Some(Vec::new()));
        assert_eq!(squares_of("c5 zz"), None);
        for color in Color::ALL {
            assert_eq!(color_of(color_text(color)), Some(color));
        }
        assert_eq!(color_of("b"), None);
    }
}
