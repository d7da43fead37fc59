//! Tournaments over HTTP: `GET /api/tournaments` (those being played or to come, and the
//! latest finished), `POST /api/tournaments` (a member makes one), `GET
//! /api/tournaments/{id}` (its standings and games), `POST /api/tournaments/{id}/join`,
//! `/withdraw` and `/start` (its maker starts it early), and the live channel
//! `/api/tournaments/{id}/events` (the same view whenever it changes).

use axum::{
    Json,
    extract::{
        Path, State as AxumState,
        ws::{WebSocketUpgrade, rejection::WebSocketUpgradeRejection},
    },
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response},
};
use othello::{Color, Setup, Shape, Variant, WinRule};
use serde::{Deserialize, Serialize};

use super::{
    App, Body, Caller, ClockRequest, Empty, SettingsRequest, guest_name, origin,
    settings::{ClockView, clock_view},
};
use crate::server::{
    director::Director,
    error::ApiError,
    game::{new_id, now_ms},
    limits::Making,
    tournaments::{Entrant, MAX_MINUTES, MAX_ROUNDS, Refusal, Stage, System, Tournament},
    websocket,
};

/// The latest a tournament may start, from now.
const MAX_START_S: u64 = 7 * 24 * 3600;

/// When a tournament starts if its maker does not say: in five minutes.
const DEFAULT_START_S: u64 = 300;

/// Tournaments a member may have made that are not over yet.
const OPEN_PER_MEMBER: usize = 3;

/// Tournaments not over yet, on the whole server (the director looks at each every
/// second).
const OPEN_AT_MOST: usize = 1000;

/// Tournaments not over yet that the lobby lists (the soonest to start first).
const LISTED_OPEN: usize = 20;

/// `POST /api/tournaments`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CreateRequest {
    /// Its name (default: the maker's, with the system).
    name: Option<String>,
    /// `swiss` or `arena`.
    system: String,
    /// A Swiss's rounds.
    rounds: Option<u32>,
    /// An arena's minutes.
    minutes: Option<u32>,
    rules: Option<String>,
    rows: Option<u64>,
    columns: Option<u64>,
    first: Option<String>,
    win: Option<String>,
    /// Its games' clock (not days a move).
    clock: ClockRequest,
    #[serde(default)]
    rated: bool,
    /// Seconds from now to its start (default 300).
    starts_in_s: Option<u64>,
    /// Whether the maker plays in it (default: yes).
    join: Option<bool>,
}

/// A tournament in a list.
#[derive(Serialize)]
pub(super) struct SummaryView {
    id: String,
    url: String,
    name: String,
    /// `swiss` or `arena`.
    system: &'static str,
    /// A Swiss's rounds.
    rounds: Option<u32>,
    /// An arena's minutes.
    minutes: Option<u32>,
    rules: &'static str,
    rows: u8,
    columns: u8,
    first: char,
    win: &'static str,
    clock: Option<ClockView>,
    rated: bool,
    /// The rating pool its games count in.
    category: String,
    created_by: String,
    /// `created`, `running` or `finished`.
    stage: &'static str,
    starts_at: i64,
    /// When an arena stops pairing.
    ends_at: Option<i64>,
    finished_at: Option<i64>,
    /// The last round paired (an arena: the last wave).
    round: u32,
    /// Players (those who withdrew after its start too).
    players: usize,
    /// Finished without a game: called off by its maker, or fewer than two players at
    /// its start.
    called_off: bool,
    /// Whether the viewer plays in it (and has not withdrawn).
    joined: bool,
}

/// A tournament with its standings and games.
#[derive(Serialize)]
pub(super) struct TournamentView {
    #[serde(flatten)]
    summary: SummaryView,
    /// Best first.
    standings: Vec<StandingView>,
    /// Every round's games, the first round first.
    rounds_played: Vec<RoundView>,
    /// Whether the viewer made it (and may start it early).
    mine: bool,
}

#[derive(Serialize)]
struct StandingView {
    rank: usize,
    name: String,
    bot: bool,
    /// The rating in the tournament's category, if any.
    rating: Option<i64>,
    provisional: bool,
    withdrawn: bool,
    /// Points (a win 1, a draw ½, a bye 1).
    points: f64,
    /// The opponents' points.
    buchholz: f64,
    discs: u32,
    games: u32,
    wins: u32,
    draws: u32,
    losses: u32,
    byes: u32,
    /// The game being played, if any.
    playing: Option<String>,
}

#[derive(Serialize)]
struct RoundView {
    round: u32,
    games: Vec<PairingView>,
    /// Who had the bye.
    bye: Option<String>,
}

#[derive(Serialize)]
struct PairingView {
    game: String,
    url: String,
    black: String,
    white: String,
    /// `1-0` (Black won), `0-1`, `½-½`, `aborted` (called off: it does not count);
    /// `null` while played.
    result: Option<&'static str>,
    /// Black's discs and White's at the end.
    discs: Option<[u32; 2]>,
}

fn system_name(system: System) -> &'static str {
    match system {
        System::Swiss { .. } => "swiss",
        System::Arena { .. } => "arena",
    }
}

fn summary(tournament: &Tournament, viewer: Option<i64>, origin: &str) -> SummaryView {
    let (rounds, minutes) = match tournament.system {
        System::Swiss { rounds } => (Some(rounds), None),
        System::Arena { minutes } => (None, Some(minutes)),
    };
    let first = tournament
        .first
        .unwrap_or(Setup::standard(tournament.shape).first_mover);
    SummaryView {
        id: tournament.id.clone(),
        url: format!("{origin}/t/{}", tournament.id),
        name: tournament.name.clone(),
        system: system_name(tournament.system),
        rounds,
        minutes,
        rules: tournament.variant.name(),
        rows: tournament.shape.rows(),
        columns: tournament.shape.columns(),
        first: first.letter(),
        win: tournament.win.name(),
        clock: clock_view(Some(tournament.clock())),
        rated: tournament.rated,
        category: tournament.category().to_string(),
        created_by: tournament.created_by.clone(),
        stage: tournament.stage.name(),
        starts_at: tournament.starts_at,
        ends_at: tournament.ends_at(),
        finished_at: tournament.finished_at,
        round: tournament.round,
        players: tournament.players.len(),
        called_off: tournament.called_off,
        joined: viewer.is_some_and(|id| {
            tournament
                .entrant(id)
                .is_some_and(|player| !player.withdrawn)
        }),
    }
}

/// `tournament` as `viewer` (a member's id) sees it.
async fn view(
    app: &App,
    tournament: &Tournament,
    viewer: Option<&crate::server::accounts::Member>,
    origin: &str,
) -> TournamentView {
    let name = |id: i64| {
        tournament
            .entrant(id)
            .map_or_else(|| format!("#{id}"), |player| player.name.clone())
    };
    let category = tournament.category();
    let mut standings = Vec::new();
    for (rank, row) in tournament.standings().into_iter().enumerate() {
        let player_name = name(row.id);
        let rating = app.hub.shown_rating(row.id, category).await;
        let bot = app.hub.is_bot(row.id, &player_name).await.unwrap_or(false);
        standings.push(StandingView {
            rank: rank + 1,
            bot,
            rating: rating.map(|(rating, _)| rating),
            provisional: rating.is_some_and(|(_, provisional)| provisional),
            withdrawn: tournament
                .entrant(row.id)
                .is_some_and(|player| player.withdrawn),
            points: f64::from(row.points_x2) / 2.0,
            buchholz: f64::from(row.buchholz_x2) / 2.0,
            discs: row.discs,
            games: row.games,
            wins: row.wins,
            draws: row.draws,
            losses: row.losses,
            byes: row.byes,
            playing: tournament
                .unfinished()
                .find(|pairing| pairing.black == row.id || pairing.white == row.id)
                .map(|pairing| pairing.game.clone()),
            name: player_name,
        });
    }
    let mut rounds_played: Vec<RoundView> = Vec::new();
    for pairing in &tournament.pairings {
        if rounds_played
            .last()
            .is_none_or(|last| last.round != pairing.round)
        {
            rounds_played.push(RoundView {
                round: pairing.round,
                games: Vec::new(),
                bye: None,
            });
        }
        let result = pairing.outcome.map(|outcome| {
            if outcome.called_off {
                "aborted"
            } else {
                match outcome.winner {
                    Some(Color::Black) => "1-0",
                    Some(Color::White) => "0-1",
                    None => "½-½",
                }
            }
        });
        if let Some(round) = rounds_played.last_mut() {
            round.games.push(PairingView {
                game: pairing.game.clone(),
                url: format!("{origin}/g/{}", pairing.game),
                black: name(pairing.black),
                white: name(pairing.white),
                result,
                discs: pairing.outcome.map(|outcome| outcome.discs),
            });
        }
    }
    for bye in &tournament.byes {
        if let Some(round) = rounds_played.iter_mut().find(|r| r.round == bye.round) {
            round.bye = Some(name(bye.user_id));
        } else {
            rounds_played.push(RoundView {
                round: bye.round,
                games: Vec::new(),
                bye: Some(name(bye.user_id)),
            });
        }
    }
    TournamentView {
        summary: summary(tournament, viewer.map(|member| member.id), origin),
        standings,
        rounds_played,
        mine: viewer.is_some_and(|member| member.name == tournament.created_by),
    }
}

/// The tournaments as the lobby lists them.
pub(super) async fn summaries(
    app: &App,
    viewer: Option<i64>,
    origin: &str,
) -> Result<Vec<SummaryView>, ApiError> {
    let tournaments = app.tournaments.list().await?;
    let (open, finished): (Vec<&Tournament>, Vec<&Tournament>) = tournaments
        .iter()
        .partition(|tournament| tournament.stage != Stage::Finished);
    Ok(open
        .into_iter()
        .take(LISTED_OPEN)
        .chain(finished)
        .map(|tournament| summary(tournament, viewer, origin))
        .collect())
}

#[derive(Serialize)]
pub(super) struct ListView {
    tournaments: Vec<SummaryView>,
}

pub(super) async fn list(
    AxumState(app): AxumState<App>,
    caller: Caller,
    headers: HeaderMap,
) -> Result<Json<ListView>, ApiError> {
    let origin = origin(&app, &headers);
    let viewer = caller.member.as_ref().map(|member| member.id);
    Ok(Json(ListView {
        tournaments: summaries(&app, viewer, &origin).await?,
    }))
}

pub(super) async fn create(
    AxumState(app): AxumState<App>,
    caller: Caller,
    headers: HeaderMap,
    Body(request): Body<CreateRequest>,
) -> Result<Response, ApiError> {
    let member = caller.member.as_ref().ok_or(ApiError::NoAccount)?;
    let system = match (request.system.as_str(), request.rounds, request.minutes) {
        ("swiss", Some(rounds), None) if (1..=MAX_ROUNDS).contains(&rounds) => {
            System::Swiss { rounds }
        }
        ("swiss", _, _) => {
            return Err(ApiError::BadRequest(format!(
                "a Swiss needs rounds, from 1 to {MAX_ROUNDS} (and no minutes)"
            )));
        }
        ("arena", None, Some(minutes)) if (1..=MAX_MINUTES).contains(&minutes) => {
            System::Arena { minutes }
        }
        ("arena", _, _) => {
            return Err(ApiError::BadRequest(format!(
                "an arena needs minutes, from 1 to {MAX_MINUTES} (and no rounds)"
            )));
        }
        (other, _, _) => {
            return Err(ApiError::BadRequest(format!(
                "system must be swiss or arena, not {other:?}"
            )));
        }
    };
    let settings = SettingsRequest {
        rules: request.rules,
        rows: request.rows,
        columns: request.columns,
        first: request.first,
        win: request.win,
    }
    .read()?;
    let clock = request.clock.control()?;
    if clock.per_move {
        return Err(ApiError::BadRequest(
            "a tournament's games are played at one sitting: a clock of base_ms, not days".into(),
        ));
    }
    let starts_in_s = request.starts_in_s.unwrap_or(DEFAULT_START_S);
    if starts_in_s > MAX_START_S {
        return Err(ApiError::BadRequest(format!(
            "starts_in_s must be at most {MAX_START_S} (a week)"
        )));
    }
    let name = guest_name(request.name, "name")?.unwrap_or_else(|| {
        format!(
            "{}'s {}",
            member.name,
            match system {
                System::Swiss { .. } => "Swiss",
                System::Arena { .. } => "arena",
            }
        )
    });
    let open: Vec<Tournament> = app
        .tournaments
        .list()
        .await?
        .into_iter()
        .filter(|tournament| tournament.stage != Stage::Finished)
        .collect();
    if open
        .iter()
        .filter(|tournament| tournament.created_by == member.name)
        .count()
        >= OPEN_PER_MEMBER
    {
        return Err(ApiError::TooManyTournaments(format!(
            "you have {OPEN_PER_MEMBER} tournaments to come or being played: wait for one to \
             end, or call one off"
        )));
    }
    if open.len() >= OPEN_AT_MOST {
        return Err(ApiError::TooManyTournaments(format!(
            "the server has {OPEN_AT_MOST} tournaments to come or being played: wait for one \
             to end"
        )));
    }
    app.admission
        .admit(Making::Challenge, &caller.client(), caller.address)?;
    let shape = settings.shape.unwrap_or(Shape::STANDARD);
    let now = now_ms();
    let mut tournament = Tournament::new(
        new_id(),
        name,
        system,
        settings.variant.unwrap_or(Variant::Full),
        shape,
        settings.first,
        settings.win.unwrap_or(WinRule::MostDiscs),
        clock,
        request.rated,
        member.name.clone(),
        now + (starts_in_s * 1000) as i64,
    );
    if request.join.unwrap_or(true) {
        tournament.join(entrant(member), now)?;
    }
    let tournament = app.tournaments.create(tournament).await?;
    let origin = origin(&app, &headers);
    Ok((
        StatusCode::CREATED,
        Json(view(&app, &tournament, Some(member), &origin).await),
    )
        .into_response())
}

fn entrant(member: &crate::server::accounts::Member) -> Entrant {
    Entrant {
        user_id: member.id,
        name: member.name.clone(),
        withdrawn: false,
    }
}

pub(super) async fn show(
    AxumState(app): AxumState<App>,
    caller: Caller,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Json<TournamentView>, ApiError> {
    let tournament = app.tournaments.get(&id).await?;
    let origin = origin(&app, &headers);
    Ok(Json(
        view(&app, &tournament, caller.member.as_ref(), &origin).await,
    ))
}

/// A member's change to a tournament: the tournament after it.
async fn change(
    app: &App,
    caller: &Caller,
    headers: &HeaderMap,
    id: &str,
    edit: impl Fn(&mut Tournament, &crate::server::accounts::Member, i64) -> Result<(), Refusal>,
) -> Result<Json<TournamentView>, ApiError> {
    let member = caller.member.as_ref().ok_or(ApiError::NoAccount)?;
    let tournament = app
        .tournaments
        .change(id, |tournament, now| edit(tournament, member, now))
        .await?;
    let origin = origin(app, headers);
    Ok(Json(view(app, &tournament, Some(member), &origin).await))
}

pub(super) async fn join(
    AxumState(app): AxumState<App>,
    caller: Caller,
    headers: HeaderMap,
    Path(id): Path<String>,
    Body(Empty {}): Body<Empty>,
) -> Result<Json<TournamentView>, ApiError> {
    change(&app, &caller, &headers, &id, |tournament, member, now| {
        tournament.join(entrant(member), now)
    })
    .await
}

pub(super) async fn withdraw(
    AxumState(app): AxumState<App>,
    caller: Caller,
    headers: HeaderMap,
    Path(id): Path<String>,
    Body(Empty {}): Body<Empty>,
) -> Result<Json<TournamentView>, ApiError> {
    change(&app, &caller, &headers, &id, |tournament, member, _| {
        tournament.withdraw(member.id, &member.name)
    })
    .await
}

pub(super) async fn start(
    AxumState(app): AxumState<App>,
    caller: Caller,
    headers: HeaderMap,
    Path(id): Path<String>,
    Body(Empty {}): Body<Empty>,
) -> Result<Json<TournamentView>, ApiError> {
    let member = caller.member.as_ref().ok_or(ApiError::NoAccount)?;
    let tournament = app.tournaments.get(&id).await?;
    if tournament.created_by != member.name {
        return Err(ApiError::Forbidden(format!(
            "only its maker, {}, starts it early",
            tournament.created_by
        )));
    }
    change(
        &app,
        &caller,
        &headers,
        &id,
        |tournament, _, now| match tournament.stage {
            Stage::Created => {
                tournament.starts_at = tournament.starts_at.min(now);
                Ok(())
            }
            Stage::Running => Err(Refusal::Running),
            Stage::Finished => Err(Refusal::Over),
        },
    )
    .await
}

/// `DELETE /api/tournaments/{id}`: its maker calls it off before its start.
pub(super) async fn call_off(
    AxumState(app): AxumState<App>,
    caller: Caller,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Json<TournamentView>, ApiError> {
    let member = caller.member.as_ref().ok_or(ApiError::NoAccount)?;
    let tournament = app.tournaments.get(&id).await?;
    if tournament.created_by != member.name {
        return Err(ApiError::Forbidden(format!(
            "only its maker, {}, calls it off",
            tournament.created_by
        )));
    }
    change(&app, &caller, &headers, &id, |tournament, _, now| {
        tournament.call_off(now)
    })
    .await
}

pub(super) async fn events(
    AxumState(app): AxumState<App>,
    caller: Caller,
    headers: HeaderMap,
    Path(id): Path<String>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let upgrade = websocket::upgrade(upgrade, "the tournament's live channel")?;
    // Said before the upgrade: a page with a wrong link is told plainly.
    app.tournaments.get(&id).await?;
    let member = caller.member.filter(|_| super::same_origin(&headers));
    let origin = origin(&app, &headers);
    let changes = vec![app.tournaments.watch(), app.hub.watch_starts_and_ends()];
    let (stopping, silence) = (app.stopping.clone(), app.client_timeout);
    let render = move |_secrets: Vec<String>| {
        let app = app.clone();
        let origin = origin.clone();
        let member = member.clone();
        let id = id.clone();
        async move {
            let tournament = app.tournaments.get(&id).await.ok()?;
            Some(view(&app, &tournament, member.as_ref(), &origin).await)
        }
    };
    Ok(upgrade.on_upgrade(move |socket| {
        let channel = websocket::Channel::Tournament;
        websocket::serve_lobby(socket, channel, render, changes, stopping, silence)
    }))
}

/// The director, as the app holds it.
pub type Tournaments = std::sync::Arc<Director>;
