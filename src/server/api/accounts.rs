//! The accounts' endpoints: `POST /api/accounts` (register), `POST /api/session` (log in),
//! `DELETE /api/session` (log out), `GET /api/me`.

use axum::{
    Json,
    extract::State as AxumState,
    http::StatusCode,
    response::{IntoResponse, Response},
};
use axum_extra::extract::cookie::{Cookie, CookieJar, SameSite};
use serde::{Deserialize, Serialize};

use super::{Address, App, Body, Caller};
use crate::server::{
    accounts::{Member, SESSION_COOKIE},
    error::ApiError,
};

/// A name and a password.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Credentials {
    name: String,
    password: String,
}

/// Who is logged in, and the token their page sends with changes.
#[derive(Serialize)]
pub(super) struct MemberView {
    name: String,
    csrf: String,
    /// A bot account.
    bot: bool,
}

/// `GET /api/me`: the member logged in, or `null`.
#[derive(Serialize)]
pub(super) struct MeView {
    user: Option<MemberView>,
}

fn view(member: Member) -> MemberView {
    MemberView {
        name: member.name,
        csrf: member.csrf,
        bot: member.bot,
    }
}

/// The session cookie for `token`, lasting `ttl`: script cannot read it, and other sites'
/// requests carry it only when a person follows a link here.
fn session_cookie(token: String, ttl: std::time::Duration) -> Cookie<'static> {
    Cookie::build((SESSION_COOKIE, token))
        .http_only(true)
        .same_site(SameSite::Lax)
        .path("/")
        .max_age(cookie::time::Duration::seconds(
            i64::try_from(ttl.as_secs()).unwrap_or(i64::MAX),
        ))
        .build()
}

/// Registration (`new`: the account is made, `201`) or a login (`200`): either way the
/// member is logged in, with the session's cookie.
async fn enter(
    app: &App,
    address: std::net::IpAddr,
    jar: CookieJar,
    credentials: Credentials,
    new: bool,
) -> Result<Response, ApiError> {
    let (name, password) = (&credentials.name, &credentials.password);
    let (session, status) = if new {
        let made = app.accounts.register(name, password, address).await?;
        (made, StatusCode::CREATED)
    } else {
        let found = app.accounts.login(name, password, address).await?;
        (found, StatusCode::OK)
    };
    Ok((status, logged_in(app, jar, session)).into_response())
}

/// `POST /api/accounts` (`new`) or `POST /api/session`.
pub(super) fn entry(new: bool) -> axum::routing::MethodRouter<App> {
    axum::routing::post(
        move |AxumState(app): AxumState<App>,
              Address(address): Address,
              jar: CookieJar,
              Body(credentials): Body<Credentials>| async move {
            enter(&app, address, jar, credentials, new).await
        },
    )
}

/// The answer to a login or a registration: the session's cookie, the member and their
/// CSRF token.
fn logged_in(app: &App, jar: CookieJar, (member, token): (Member, String)) -> impl IntoResponse {
    (
        jar.add(session_cookie(token, app.accounts.ttl())),
        Json(view(member)),
    )
}

pub(super) async fn logout(
    AxumState(app): AxumState<App>,
    caller: Caller,
    jar: CookieJar,
) -> Result<Response, ApiError> {
    // The caller was checked (CSRF) before: only then is the cookie's session ended.
    if caller.member.is_some()
        && let Some(cookie) = jar.get(SESSION_COOKIE)
    {
        app.accounts.logout(cookie.value()).await?;
    }
    let jar = jar.remove(Cookie::build(SESSION_COOKIE).path("/"));
    Ok((StatusCode::NO_CONTENT, jar).into_response())
}

/// `POST /api/tokens`'s answer: an API token for programs (`Authorization: Bearer`).
#[derive(Serialize)]
pub(super) struct TokenView {
    token: String,
    name: String,
    bot: bool,
    /// When it ends, in milliseconds since the Unix epoch.
    expires_at: i64,
}

/// `POST /api/tokens` (`{"name":..., "password":...}`): a new API token for the account,
/// lasting a year (the limits of a login apply).
pub(super) async fn new_token(
    AxumState(app): AxumState<App>,
    Address(address): Address,
    Body(credentials): Body<Credentials>,
) -> Result<(StatusCode, Json<TokenView>), ApiError> {
    let (member, token) = app
        .accounts
        .open_token(&credentials.name, &credentials.password, address)
        .await?;
    let ttl = i64::try_from(crate::server::accounts::TOKEN_TTL.as_millis()).unwrap_or(i64::MAX);
    Ok((
        StatusCode::CREATED,
        Json(TokenView {
            token,
            name: member.name,
            bot: member.bot,
            expires_at: crate::server::game::now_ms().saturating_add(ttl),
        }),
    ))
}

/// `DELETE /api/tokens`: ends the API token the request is made with.
pub(super) async fn revoke_token(
    AxumState(app): AxumState<App>,
    caller: Caller,
    headers: axum::http::HeaderMap,
) -> Result<StatusCode, ApiError> {
    let token = super::bearer(&headers)
        .filter(|token| token.starts_with(crate::server::accounts::TOKEN_PREFIX))
        .ok_or(ApiError::NoAccount)?;
    // The caller was read from it: it is valid.
    debug_assert!(caller.member.is_some());
    app.accounts.logout(token).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub(super) async fn me(caller: Caller) -> Json<MeView> {
    Json(MeView {
        user: caller.member.map(view),
    })
}
