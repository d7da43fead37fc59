//! Puzzles on the server: the shipped set put into the database at the start, the next
//! puzzle for a solver (near their puzzle rating, one they have not answered), and an answer
//! judged and rated: an account's first answer to a puzzle is a rated game between the
//! account and the puzzle (Glicko-2, the same arithmetic as games), both ratings moving in
//! one commit.

use othello::{
    Square,
    analysis::puzzle::{BadPuzzle, Puzzle, PuzzleRecord},
};
use rand::seq::IndexedRandom;

use super::{
    error::ApiError,
    game::now_ms,
    ratings::{self, Rating},
    store::{Change, Store, StoreError, StoredAnswer, StoredPuzzle, StoredPuzzleRating},
    table::TableError,
};

/// The puzzles every server has: made by `othello puzzles make` (see docs/server.md).
const SHIPPED: &str = include_str!("../../data/puzzles.jsonl");

/// Puzzles the next one is drawn from (the nearest in rating not yet answered), so that
/// two solvers of one rating do not always get the same.
const NEAREST: usize = 12;

/// Puzzles a guest's next one is drawn from.
const GUEST_NEAREST: usize = 200;

/// How unsure a new puzzle's starting rating is: the engine's guess is a guess.
const STARTING_DEVIATION: f64 = 250.0;

/// Commits that meet another answer's (another solver's, or another server's) before
/// giving up: each try reads the ratings again, after a pause of up to
/// [`RETRY_PAUSE_MS`] (a crowd answering one puzzle at once gets through one by one).
const TRIES: usize = 20;

/// The longest pause before trying again, in milliseconds.
const RETRY_PAUSE_MS: u64 = 25;

/// The lowest rating a solver or a puzzle is given: a run of wrong answers does not go on
/// down for ever.
const FLOOR: f64 = 400.0;

/// The shipped puzzles as stored before anyone answered them.
///
/// # Errors
/// A record that does not read or does not hold (a broken build).
pub fn shipped() -> Result<Vec<StoredPuzzle>, BadPuzzle> {
    SHIPPED
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let record: PuzzleRecord = serde_json::from_str(line).map_err(|error| BadPuzzle {
                id: line.chars().take(30).collect(),
                reason: error.to_string(),
            })?;
            Ok(new_puzzle(record.puzzle()?, record.source))
        })
        .collect()
}

/// A puzzle as stored before anyone answered it: its rating the engine's guess.
pub fn new_puzzle(puzzle: Puzzle, source: String) -> StoredPuzzle {
    StoredPuzzle {
        rating: Rating {
            rating: puzzle.starting_rating(),
            deviation: STARTING_DEVIATION,
            ..Rating::default()
        },
        puzzle,
        source,
        solved: 0,
    }
}

/// Puts `puzzles` into the store (those it has, by id, stay as they are), in commits of a
/// few hundred; returns how many the store has now.
///
/// # Errors
/// [`StoreError`] if the database fails.
pub async fn stock(store: &Store, puzzles: Vec<StoredPuzzle>) -> Result<u64, StoreError> {
    let mut puzzles = puzzles;
    while !puzzles.is_empty() {
        let rest = puzzles.split_off(puzzles.len().min(250));
        store
            .commit(vec![Change::AddPuzzles(puzzles)])
            .await
            .map_err(|error| StoreError::Failing(error.to_string()))?;
        puzzles = rest;
    }
    store.puzzle_count().await
}

/// Puts the shipped puzzles into the store when it has fewer than them (a new database, or
/// a program that ships more).
///
/// # Errors
/// [`StoreError`] if the database fails.
pub async fn stock_shipped(store: &Store) -> Result<(), StoreError> {
    let shipped = shipped().map_err(|error| StoreError::Damaged(error.to_string()))?;
    if store.puzzle_count().await? < shipped.len() as u64 {
        stock(store, shipped).await?;
    }
    Ok(())
}

/// The puzzle rating `user_id` has (the starting one before a first answer).
///
/// # Errors
/// [`StoreError`] if the database fails.
pub async fn rating_of(store: &Store, user_id: i64) -> Result<StoredPuzzleRating, StoreError> {
    Ok(store
        .puzzle_rating(user_id)
        .await?
        .unwrap_or(StoredPuzzleRating {
            rating: Rating::default(),
            solved: 0,
        }))
}

/// A puzzle for `user_id` (a guest: `None`, drawn near the starting rating), not `after`
/// (the one just answered) unless it is the only one left.
///
/// # Errors
/// [`ApiError::NoSuchPuzzle`] when every puzzle has been answered; the store's.
pub async fn next(
    store: &Store,
    user_id: Option<i64>,
    after: Option<&str>,
) -> Result<StoredPuzzle, ApiError> {
    let rating = match user_id {
        Some(user_id) => rating_of(store, user_id).await?.rating.rating,
        None => Rating::default().rating,
    };
    // Guests share one rating: they draw from many more, so that they do not all see the
    // same dozen.
    let count = if user_id.is_some() {
        NEAREST
    } else {
        GUEST_NEAREST
    };
    let near = store.puzzles_near(rating, user_id, count).await?;
    let others: Vec<&StoredPuzzle> = near
        .iter()
        .filter(|stored| Some(stored.puzzle.id().as_str()) != after)
        .collect();
    others
        .choose(&mut rand::rng())
        .map(|stored| (*stored).clone())
        .or_else(|| near.first().cloned())
        .ok_or_else(|| ApiError::NoSuchPuzzle("none left to answer".into()))
}

/// An answer judged: right or not, and for an account's first answer both ratings before
/// and after.
#[derive(Clone, Debug)]
pub struct Judged {
    /// The puzzle, with its rating after the answer.
    pub puzzle: StoredPuzzle,
    /// Whether the square was the answer.
    pub solved: bool,
    /// The account's puzzle rating before and after, when the answer was rated.
    pub rated: Option<(Rating, Rating)>,
}

/// Judges `square` as the answer to puzzle `id`; an account's first answer to it is rated
/// (another answer, or a guest's, only judged).
///
/// # Errors
/// [`ApiError::NoSuchPuzzle`], an illegal square (`illegal_move`, the legal ones in square
/// order), [`ApiError::StoreBusy`] when other answers kept moving the ratings, the store's.
pub async fn answer(
    store: &Store,
    id: &str,
    user_id: Option<i64>,
    square: Square,
) -> Result<Judged, ApiError> {
    for _ in 0..TRIES {
        let Some(mut stored) = store.puzzle(id).await? else {
            return Err(ApiError::NoSuchPuzzle(id.chars().take(40).collect()));
        };
        let mut legal: Vec<Square> = stored
            .puzzle
            .moves
            .iter()
            .map(|&(legal, _)| legal)
            .collect();
        if !legal.contains(&square) {
            // In square order: the puzzle's own order (best first) would give the answer.
            legal.sort();
            return Err(ApiError::Rule(TableError::IllegalMove { square, legal }));
        }
        let solved = square == stored.puzzle.answer;
        let Some(user_id) = user_id else {
            return Ok(Judged {
                puzzle: stored,
                solved,
                rated: None,
            });
        };
        if store.puzzle_answered(user_id, id).await?.is_some() {
            return Ok(Judged {
                puzzle: stored,
                solved,
                rated: None,
            });
        }
        let before = rating_of(store, user_id).await?.rating;
        // The solver plays Black against the puzzle: a right answer is a win.
        let winner = if solved {
            othello::Color::Black
        } else {
            othello::Color::White
        };
        let (player, puzzle_rating) = ratings::update(before, stored.rating, Some(winner));
        let floored = |rating: Rating| Rating {
            rating: rating.rating.max(FLOOR),
            ..rating
        };
        let (player, puzzle_rating) = (floored(player), floored(puzzle_rating));
        let change = Change::PuzzleAnswer(StoredAnswer {
            user_id,
            puzzle_id: id.to_owned(),
            solved,
            at: now_ms(),
            player,
            puzzle: puzzle_rating,
        });
        match store.commit(vec![change]).await {
            Ok(()) => {
                stored.rating = puzzle_rating;
                stored.solved += u32::from(solved);
                return Ok(Judged {
                    puzzle: stored,
                    solved,
                    rated: Some((before, player)),
                });
            }
            // Another answer moved a rating first: judge again from the new ones.
            Err(error) if matches!(*error, StoreError::Conflict(_)) => {
                let pause = rand::random_range(1..=RETRY_PAUSE_MS);
                tokio::time::sleep(std::time::Duration::from_millis(pause)).await;
            }
            Err(error) => return Err(error.into()),
        }
    }
    Err(ApiError::StoreBusy)
}
