//! A player's page: `GET /api/users/{name}`: ratings per category, their history (for the
//! graph), and the player's games with results and links.

use axum::{
    Json,
    extract::{Path, State as AxumState},
    http::HeaderMap,
};
use othello::engine::Occupant;
use serde::Serialize;

use super::{
    App, Caller, GameHead, origin,
    settings::{ClockView, clock_view},
};
use crate::server::{
    error::ApiError,
    ratings::{self, Rating},
    table::Ended,
};

/// `name` as a computer player's account name (`engine:7`, the name its rated games are
/// kept under), if it is one.
fn computer_name(name: &str) -> Option<String> {
    match name.to_ascii_lowercase().parse::<Occupant>() {
        Ok(Occupant::Computer(spec)) => Some(spec.to_string()),
        _ => None,
    }
}

/// The games a player page lists.
const GAMES: usize = 50;

/// The most games being played a list of games waiting for a player's move looks at.
const TURN_GAMES: usize = 200;

/// A game waiting for a player's move: against whom, what, and how long they have.
#[derive(Serialize)]
pub(super) struct TurnView {
    #[serde(flatten)]
    head: GameHead,
    /// The player's colour.
    color: char,
    opponent: String,
    /// Whether the opponent is a member (with a page of their own).
    opponent_member: bool,
    clock: Option<ClockView>,
    rated: bool,
    moves: usize,
    /// When the player's time for this move runs out (a timed game), in milliseconds
    /// since the Unix epoch; `null` in an untimed game.
    deadline: Option<i64>,
    /// When the game last changed (the opponent's move).
    at: i64,
}

/// `GET /api/me/turn`'s answer.
#[derive(Serialize)]
pub(super) struct TurnsView {
    games: Vec<TurnView>,
}

/// The games being played that wait for `user`'s move, the most pressing first (the
/// soonest deadline, then untimed ones by their last change).
async fn turns_of(app: &App, user: i64, origin: &str) -> Result<Vec<TurnView>, ApiError> {
    let mut turns = Vec::new();
    for game in app.hub.store().playing_of(user, TURN_GAMES).await? {
        let Ok(cell) = app.hub.get(&game).await else {
            continue;
        };
        let (seat, listing) = (
            cell.viewer(None, Some(user)).await.seat,
            cell.listing().await,
        );
        let Some(color) = seat.filter(|&seat| listing.to_move == Some(seat)) else {
            continue;
        };
        if listing.ended.is_some() {
            continue;
        }
        let other = color.opponent();
        turns.push(TurnView {
            color: color.letter(),
            opponent: listing.name(other),
            opponent_member: listing.members[other],
            clock: clock_view(listing.clock),
            rated: listing.rated,
            moves: listing.moves,
            deadline: listing.deadline,
            at: listing.updated_at,
            head: GameHead::of(origin, game, &listing),
        });
    }
    turns.sort_by_key(|turn| (turn.deadline.is_none(), turn.deadline, -turn.at));
    Ok(turns)
}

/// `GET /api/me/turn`: the caller's games waiting for their move (correspondence games
/// first among them, by the time left), for the home page's "Your turn".
///
/// # Errors
/// [`ApiError::NoAccount`] for a guest.
pub(super) async fn my_turn(
    AxumState(app): AxumState<App>,
    caller: Caller,
    headers: HeaderMap,
) -> Result<Json<TurnsView>, ApiError> {
    let member = caller.member.as_ref().ok_or(ApiError::NoAccount)?;
    let origin = origin(&app, &headers);
    Ok(Json(TurnsView {
        games: turns_of(&app, member.id, &origin).await?,
    }))
}

#[derive(Serialize)]
pub(super) struct PlayerView {
    name: String,
    /// A computer player (`engine:7`): it has a page before its first rated game.
    computer: bool,
    /// A bot account (played by a program through the bot API).
    bot: bool,
    /// When the account was made (`null` for a computer player with no games yet).
    member_since: Option<i64>,
    ratings: Vec<RatingView>,
    history: Vec<HistoryView>,
    games: Vec<PlayedView>,
    /// The games being played that wait for this player's move, the most pressing first.
    turn: Vec<TurnView>,
    /// The puzzle rating (`null` before a first rated answer).
    puzzles: Option<PuzzleRatingView>,
}

#[derive(Serialize)]
struct PuzzleRatingView {
    rating: i64,
    deviation: i64,
    provisional: bool,
    /// Rated answers, and how many were right.
    attempts: u32,
    solved: u32,
}

#[derive(Serialize)]
struct RatingView {
    category: String,
    rating: i64,
    deviation: i64,
    games: u32,
    /// Still uncertain (shown with a `?`).
    provisional: bool,
}

#[derive(Serialize)]
struct HistoryView {
    category: String,
    game: String,
    rating: i64,
    at: i64,
}

#[derive(Serialize)]
struct PlayedView {
    id: String,
    url: String,
    /// The player's colour.
    color: char,
    opponent: String,
    /// Whether the opponent is a member (with a page of their own).
    opponent_member: bool,
    /// `win`, `loss` or `draw` once over; `aborted`; `null` while playing.
    result: Option<&'static str>,
    ending: Option<&'static str>,
    rated: bool,
    category: Option<String>,
    moves: usize,
    /// When it last changed (when it ended, once over), in milliseconds since the Unix
    /// epoch.
    at: i64,
}

pub(super) async fn show_player(
    AxumState(app): AxumState<App>,
    headers: HeaderMap,
    Path(name): Path<String>,
) -> Result<Json<PlayerView>, ApiError> {
    let store = app.hub.store();
    let computer = computer_name(&name);
    let Some(user) = store.user(&name).await? else {
        // Every computer player has a page, rated games or not.
        return match computer {
            Some(name) => Ok(Json(PlayerView {
                name,
                computer: true,
                bot: false,
                member_since: None,
                ratings: Vec::new(),
                history: Vec::new(),
                games: Vec::new(),
                turn: Vec::new(),
                puzzles: None,
            })),
            None => Err(ApiError::NoSuchPlayer(name.chars().take(40).collect())),
        };
    };
    let id = user.id;
    let (stored_ratings, history, game_ids, puzzles) = (
        store.ratings(id).await?,
        store.rating_history(id).await?,
        store.games_of(id, GAMES).await?,
        store.puzzle_rating(id).await?,
    );
    let origin = origin(&app, &headers);
    let turn = turns_of(&app, id, &origin).await?;
    let mut games = Vec::new();
    for game in game_ids {
        let Ok(cell) = app.hub.get(&game).await else {
            continue;
        };
        let (color, listing) = {
            let viewer = cell.viewer(None, Some(id)).await;
            (viewer.seat, cell.listing().await)
        };
        let Some(color) = color else {
            continue;
        };
        let other = color.opponent();
        let result = match (listing.result, listing.ended) {
            (_, Some(ended)) if ended.is_aborted() => Some("aborted"),
            (Some(Some(winner)), _) if winner == color => Some("win"),
            (Some(Some(_)), _) => Some("loss"),
            (Some(None), _) => Some("draw"),
            (None, _) => None,
        };
        games.push(PlayedView {
            url: format!("{origin}/g/{game}"),
            id: game,
            color: color.letter(),
            opponent: listing.name(other),
            opponent_member: listing.members[other],
            result,
            ending: listing.ended.map(Ended::code),
            rated: listing.rated,
            category: listing.clock.map(|clock| {
                ratings::category(listing.variant, listing.shape, listing.win_rule, clock)
                    .to_string()
            }),
            moves: listing.moves,
            at: listing.updated_at,
        });
    }
    Ok(Json(PlayerView {
        // Computer players' accounts have no password.
        computer: user.password_hash.is_empty(),
        bot: user.bot,
        member_since: Some(user.created_at),
        name: user.name,
        ratings: stored_ratings
            .into_iter()
            .map(|stored| {
                let rating = Rating {
                    rating: stored.rating,
                    deviation: stored.deviation,
                    volatility: stored.volatility,
                    games: stored.games,
                };
                RatingView {
                    category: stored.category.to_string(),
                    rating: rating.rating.round() as i64,
                    deviation: rating.deviation.round() as i64,
                    games: rating.games,
                    provisional: rating.provisional(),
                }
            })
            .collect(),
        history: history
            .into_iter()
            .map(|stored| HistoryView {
                category: stored.category.to_string(),
                game: stored.game_id,
                rating: stored.rating.round() as i64,
                at: stored.at,
            })
            .collect(),
        games,
        turn,
        puzzles: puzzles.map(|stored| PuzzleRatingView {
            rating: stored.rating.rating.round() as i64,
            deviation: stored.rating.deviation.round() as i64,
            provisional: stored.rating.provisional(),
            attempts: stored.rating.games,
            solved: stored.solved,
        }),
    }))
}
