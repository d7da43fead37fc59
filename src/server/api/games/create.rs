//! `POST /api/games`: a new game as asked for, against people, the computer or between
//! engines; rated against the computer for a member.

use super::*;

/// `POST /api/games`: every field optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CreateRequest {
    rules: Option<String>,
    rows: Option<u64>,
    columns: Option<u64>,
    first: Option<String>,
    win: Option<String>,
    black: Option<String>,
    white: Option<String>,
    time_ms: Option<u64>,
    black_time_ms: Option<u64>,
    white_time_ms: Option<u64>,
    speed_ms: Option<u64>,
    position: Option<String>,
    help: Option<bool>,
    clock: Option<ClockRequest>,
    #[serde(default)]
    rated: bool,
    black_name: Option<String>,
    white_name: Option<String>,
}

/// A new game's answer.
#[derive(Serialize)]
struct CreatedView {
    id: String,
    seats: SeatsCreated,
    spectator_url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    control: Option<Link>,
    state: GameView,
}

#[derive(Serialize)]
struct SeatsCreated {
    black: SeatCreated,
    white: SeatCreated,
}

#[derive(Serialize)]
struct SeatCreated {
    player: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    secret: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<String>,
}

#[derive(Serialize)]
struct Link {
    secret: String,
    url: String,
}

impl CreateRequest {
    /// The game asked for, its engines' time per move within `max_time`.
    fn into_new_game(self, max_time: TimeCap) -> Result<NewGame, ApiError> {
        let Settings {
            variant,
            shape,
            first,
            win,
        } = SettingsRequest {
            rules: self.rules,
            rows: self.rows,
            columns: self.columns,
            first: self.first,
            win: self.win,
        }
        .read()?;
        let seat = |text: Option<String>, name: &str| -> Result<Occupant, ApiError> {
            match text {
                None => Ok(Occupant::Human),
                Some(text) => text
                    .parse()
                    .map_err(|error| ApiError::BadRequest(format!("{name}: {error}"))),
            }
        };
        let black = seat(self.black, "black")?;
        let white = seat(self.white, "white")?;
        let time_ms = time(self.time_ms, "time_ms", DEFAULT_TIME_MS, max_time)?;
        let black_time = time(self.black_time_ms, "black_time_ms", time_ms, max_time)?;
        let white_time = time(self.white_time_ms, "white_time_ms", time_ms, max_time)?;
        let speed_ms = match self.speed_ms {
            None => DEFAULT_SPEED_MS,
            Some(n) if n <= MAX_SPEED_MS => n,
            Some(n) => {
                return Err(ApiError::BadRequest(format!(
                    "speed_ms must be from 0 to {MAX_SPEED_MS}, not {n}"
                )));
            }
        };
        let mut setup = Setup::standard(shape.unwrap_or(Shape::STANDARD));
        let (variant, setup, moves) = match self.position.as_deref().map(str::trim) {
            None | Some("") => {
                if let Some(first) = first {
                    setup.first_mover = first;
                }
                if let Some(win) = win {
                    setup.win_rule = win;
                }
                (variant.unwrap_or(Variant::Full), setup, Vec::new())
            }
            Some(text) => {
                let settings = LoadSettings {
                    variant,
                    shape,
                    first,
                    win,
                    ..LoadSettings::defaults(Variant::Full, setup)
                };
                let record = Record::load(text, &settings)
                    .map_err(|error| ApiError::BadPosition(format!("position: {error}")))?;
                (record.variant, record.setup, record.moves)
            }
        };
        let clock = self.clock.map(ClockRequest::control).transpose()?;
        if clock.is_some() && black != Occupant::Human && white != Occupant::Human {
            return Err(ApiError::BadRequest(
                "a clock is for games with a person in them".into(),
            ));
        }
        let seat = |occupant: Occupant, time_ms: u64, name: Option<String>| NewSeat {
            name: name.filter(|_| occupant == Occupant::Human),
            ..NewSeat::new(occupant, time_ms)
        };
        Ok(NewGame {
            variant,
            setup,
            moves,
            seats: [
                seat(
                    black,
                    black_time,
                    guest_name(self.black_name, "black_name")?,
                ),
                seat(
                    white,
                    white_time,
                    guest_name(self.white_name, "white_name")?,
                ),
            ],
            speed_ms,
            help: self.help.unwrap_or(false),
            clock,
            rated: false,
            client: None,
        })
    }
}

pub(super) async fn create(
    AxumState(app): AxumState<App>,
    caller: Caller,
    headers: HeaderMap,
    Body(request): Body<CreateRequest>,
) -> Result<Response, ApiError> {
    let rated = request.rated;
    let client = caller.client();
    let mut new = request.into_new_game(max_time(&client))?;
    if new.clock.is_some_and(|clock| clock.per_move) {
        take_the_person_s_seat(&caller, &mut new, "a correspondence game")?;
    }
    if rated {
        rate_against_the_computer(&app, &caller, &mut new).await?;
    }
    app.admission.admit(Making::Game, &client, caller.address)?;
    new.client = Some(client);
    let created = app.hub.create(new).await?;
    let origin = origin(&app, &headers);
    let cell = &created.cell;
    let page = format!("{origin}/g/{}", cell.id);
    let players = cell.listing().await.players;
    let state = views::view(cell, Viewer::default(), None)
        .await
        .expect("the position now is always there");
    let ByColor {
        black: black_secret,
        white: white_secret,
    } = created.secrets;
    let ByColor {
        black: black_player,
        white: white_player,
    } = players;
    let seat = |player: String, secret: Option<String>| SeatCreated {
        player,
        url: secret
            .as_ref()
            .map(|secret| format!("{page}#secret={secret}")),
        secret,
    };
    let view = CreatedView {
        id: cell.id.clone(),
        seats: SeatsCreated {
            black: seat(black_player, black_secret),
            white: seat(white_player, white_secret),
        },
        spectator_url: page.clone(),
        control: created.control.map(|secret| Link {
            url: format!("{page}#control={secret}"),
            secret,
        }),
        state,
    };
    Ok((StatusCode::CREATED, Json(view)).into_response())
}

/// Makes `new`, `what` (a rated or correspondence game), a game between the member asking
/// and a computer player, the person's seat the member's (so that it is theirs from any
/// browser, and listed in their "Your turn"); two people play such games from the lobby.
fn take_the_person_s_seat(caller: &Caller, new: &mut NewGame, what: &str) -> Result<(), ApiError> {
    let member = caller.member.as_ref().ok_or(SeekError::MembersOnly)?;
    let people = new
        .seats
        .iter()
        .filter(|seat| seat.occupant == Occupant::Human)
        .count();
    if people != 1 {
        return Err(ApiError::BadRequest(format!(
            "{what} made here is between you and a computer player: one seat human, the \
             other an engine; play people from the lobby"
        )));
    }
    for seat in &mut new.seats {
        if seat.occupant == Occupant::Human {
            seat.name = Some(member.name.clone());
            seat.user_id = Some(member.id);
        }
    }
    Ok(())
}

/// Makes `new` a rated game between the member asking and a computer player, whose
/// account (named by its player spec, `engine:7`) holds its rating: a timed game, no help.
async fn rate_against_the_computer(
    app: &App,
    caller: &Caller,
    new: &mut NewGame,
) -> Result<(), ApiError> {
    caller.member.as_ref().ok_or(SeekError::MembersOnly)?;
    if new.clock.is_none() {
        return Err(ApiError::BadRequest(
            "a rated game needs a clock: give clock.base_ms".into(),
        ));
    }
    let standard = Setup::standard(new.setup.board.shape());
    if !new.moves.is_empty() || new.setup.board != standard.board {
        return Err(ApiError::BadRequest(
            "a rated game starts from the board's own start, with no position or moves pasted"
                .into(),
        ));
    }
    take_the_person_s_seat(caller, new, "a rated game")?;
    for seat in &mut new.seats {
        if let Occupant::Computer(spec) = seat.occupant {
            seat.user_id = Some(app.accounts.computer_account(&spec.to_string()).await?);
        }
    }
    new.rated = true;
    new.help = false;
    Ok(())
}
