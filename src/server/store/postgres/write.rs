//! Commits: each batch of changes one transaction, its notices announced to the other
//! servers when it commits.

use super::*;
use crate::server::game::now_ms;

impl Postgres {
    /// Applies `changes` in one transaction: all of them or none.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails or refuses a change; then nothing was applied.
    pub async fn apply(&self, changes: &[Change]) -> Result<(), StoreError> {
        let mut client = self.pool.get().await?;
        let transaction = client.transaction().await?;
        let mut notices = BTreeSet::new();
        for change in changes {
            notices.extend(Notice::of(change));
            match change {
                Change::Create(game) => {
                    let [black, white] = &game.seats;
                    let clock = ClockColumns::of(game.clock.as_ref());
                    transaction
                        .execute(
                            "INSERT INTO games (id, rules, board, first, win, black,
                                black_time_ms, black_secret, white, white_time_ms,
                                white_secret, status, ending, undo_request, undone,
                                control_secret, paused, speed_ms, created_at, updated_at,
                                version, help, clock_base_ms, clock_increment_ms,
                                black_clock_ms, white_clock_ms, clock_since, black_name,
                                white_name, black_user, white_user, rated, rematch_offer,
                                rematch, clock_per_move, deadline)
                             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,
                                $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25,
                                $26, $27, $28, $29, $30, $31, $32, $33, $34, $35, $36)",
                            &[
                                &game.id,
                                &game.rules.name(),
                                &board_text(&game.board),
                                &color_text(game.first),
                                &game.win.name(),
                                &black.player.to_string(),
                                &big(black.time_ms),
                                &black.secret_hash,
                                &white.player.to_string(),
                                &big(white.time_ms),
                                &white.secret_hash,
                                &game.status.name(),
                                &game.ending.map(Ended::to_text),
                                &game.undo_request.map(color_text),
                                &squares_text(&game.undone),
                                &game.control_hash,
                                &game.paused,
                                &big(game.speed_ms),
                                &game.created_at,
                                &game.updated_at,
                                &big(game.version),
                                &game.help,
                                &clock.base_ms,
                                &clock.increment_ms,
                                &clock.black_ms,
                                &clock.white_ms,
                                &clock.since,
                                &black.name,
                                &white.name,
                                &black.user_id,
                                &white.user_id,
                                &game.rated,
                                &game.rematch_offer.map(color_text),
                                &game.rematch,
                                &clock.per_move,
                                &game.deadline,
                            ],
                        )
                        .await?;
                    for (ply, mv) in game.moves.iter().enumerate() {
                        insert_move(&transaction, &game.id, ply, mv).await?;
                    }
                }
                Change::Move { game, ply, mv } => {
                    insert_move(&transaction, game, *ply, mv).await?;
                }
                Change::Truncate { game, keep } => {
                    transaction
                        .execute(
                            "DELETE FROM moves WHERE game_id = $1 AND ply >= $2",
                            &[game, &(*keep as i64)],
                        )
                        .await?;
                }
                Change::Meta(meta) => {
                    let clock = ClockColumns::of(meta.clock.as_ref());
                    let updated = transaction
                        .execute(
                            "UPDATE games SET status = $2, ending = $3, undo_request = $4,
                                undone = $5, paused = $6, speed_ms = $7, updated_at = $8,
                                version = $9, black_clock_ms = $10, white_clock_ms = $11,
                                clock_since = $12, rematch_offer = $13, rematch = $14,
                                deadline = $16
                             WHERE id = $1 AND version = $15",
                            &[
                                &meta.game,
                                &meta.status.name(),
                                &meta.ending.map(Ended::to_text),
                                &meta.undo_request.map(color_text),
                                &squares_text(&meta.undone),
                                &meta.paused,
                                &big(meta.speed_ms),
                                &meta.updated_at,
                                &big(meta.version),
                                &clock.black_ms,
                                &clock.white_ms,
                                &clock.since,
                                &meta.rematch_offer.map(color_text),
                                &meta.rematch,
                                &big(meta.expected),
                                &meta.deadline,
                            ],
                        )
                        .await?;
                    if updated == 0 {
                        return Err(StoreError::Conflict(meta.game.clone()));
                    }
                }
                Change::Eval {
                    game,
                    ply,
                    score,
                    exact,
                } => {
                    transaction
                        .execute(
                            "UPDATE moves SET eval = $3, exact = $4
                             WHERE game_id = $1 AND ply = $2",
                            &[game, &(*ply as i64), score, exact],
                        )
                        .await?;
                }
                Change::NewUser(user) => {
                    let inserted = transaction
                        .execute(
                            "INSERT INTO users (name, password_hash, created_at)
                             VALUES ($1, $2, $3)
                             ON CONFLICT ((lower(name))) DO NOTHING",
                            &[&user.name, &user.password_hash, &user.created_at],
                        )
                        .await?;
                    if inserted == 0 {
                        return Err(StoreError::NameTaken(user.name.clone()));
                    }
                }
                Change::NewSeek(seek) => {
                    let (base, increment) = seek
                        .clock
                        .map(|clock| (clock.base_ms, clock.increment_ms))
                        .unzip();
                    let per_move = seek.clock.is_some_and(|clock| clock.per_move);
                    transaction
                        .execute(
                            "INSERT INTO seeks (id, poster_name, poster_user, poster_secret,
                                rules, \"rows\", \"columns\", first, win, color, clock_base_ms,
                                clock_increment_ms, rated, help, to_name, private, created_at,
                                clock_per_move)
                             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,
                                $14, $15, $16, $17, $18)",
                            &[
                                &seek.id,
                                &seek.poster_name,
                                &seek.poster_user,
                                &seek.poster_secret,
                                &seek.rules.name(),
                                &i64::from(seek.shape.rows()),
                                &i64::from(seek.shape.columns()),
                                &color_text(seek.first),
                                &seek.win.name(),
                                &seek.color.text(),
                                &base.map(big),
                                &increment.map(big),
                                &seek.rated,
                                &seek.help,
                                &seek.to_name,
                                &seek.private,
                                &seek.created_at,
                                &per_move,
                            ],
                        )
                        .await?;
                }
                Change::EndSeek { id } => {
                    let deleted = transaction
                        .execute("DELETE FROM seeks WHERE id = $1", &[id])
                        .await?;
                    if deleted == 0 {
                        return Err(StoreError::SeekGone(id.clone()));
                    }
                }
                Change::Rating(rating) => {
                    // Only over the rating it was computed from (one game fewer): two
                    // servers ending two of a player's games at once cannot both start
                    // from the same rating.
                    let updated = transaction
                        .execute(
                            "INSERT INTO ratings (user_id, category, rating, deviation,
                                volatility, games, updated_at)
                             VALUES ($1, $2, $3, $4, $5, $6, $7)
                             ON CONFLICT (user_id, category) DO UPDATE SET rating = $3,
                                deviation = $4, volatility = $5, games = $6, updated_at = $7
                             WHERE ratings.games = $6 - 1",
                            &[
                                &rating.user_id,
                                &rating.category.to_string(),
                                &rating.rating,
                                &rating.deviation,
                                &rating.volatility,
                                &i64::from(rating.games),
                                &rating.at,
                            ],
                        )
                        .await?;
                    if updated == 0 {
                        return Err(StoreError::Conflict(format!(
                            "rating of {}",
                            rating.user_id
                        )));
                    }
                    transaction
                        .execute(
                            "INSERT INTO rating_history (user_id, category, game_id, rating,
                                deviation, at)
                             VALUES ($1, $2, $3, $4, $5, $6)",
                            &[
                                &rating.user_id,
                                &rating.category.to_string(),
                                &rating.game_id,
                                &rating.rating,
                                &rating.deviation,
                                &rating.at,
                            ],
                        )
                        .await?;
                }
                Change::NewSession(session) => {
                    transaction
                        .execute(
                            "INSERT INTO sessions (token_hash, user_id, csrf, created_at,
                                expires_at)
                             VALUES ($1, $2, $3, $4, $5)",
                            &[
                                &session.token_hash,
                                &session.user_id,
                                &session.csrf,
                                &session.created_at,
                                &session.expires_at,
                            ],
                        )
                        .await?;
                }
                Change::EndSession { token_hash } => {
                    transaction
                        .execute("DELETE FROM sessions WHERE token_hash = $1", &[token_hash])
                        .await?;
                }
                Change::AddPuzzles(puzzles) => {
                    for stored in puzzles {
                        let depth = stored.puzzle.depth.map(i64::from);
                        transaction
                            .execute(
                                "INSERT INTO puzzles (id, position, answer, moves, depth,
                                    source, rating, deviation, volatility, attempts, solved)
                                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                                 ON CONFLICT (id) DO NOTHING",
                                &[
                                    &stored.puzzle.id(),
                                    &stored.puzzle.obf(),
                                    &stored.puzzle.answer.to_string(),
                                    &columns::scored_moves_text(&stored.puzzle.moves),
                                    &depth,
                                    &stored.source,
                                    &stored.rating.rating,
                                    &stored.rating.deviation,
                                    &stored.rating.volatility,
                                    &i64::from(stored.rating.games),
                                    &i64::from(stored.solved),
                                ],
                            )
                            .await?;
                    }
                }
                Change::AddLibraryGames(games) => {
                    for game in games {
                        transaction
                            .execute(
                                "INSERT INTO library_games (key, source, tournament, black,
                                    white, year, size, moves, result)
                                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                                 ON CONFLICT (key) DO NOTHING",
                                &[
                                    &game.key,
                                    &game.source,
                                    &game.tournament,
                                    &game.black,
                                    &game.white,
                                    &game.year,
                                    &i64::from(game.size),
                                    &game.moves,
                                    &i64::from(game.result),
                                ],
                            )
                            .await?;
                    }
                }
                Change::Tournament {
                    tournament,
                    expected,
                } => {
                    let body = columns::tournament_text(tournament);
                    let version = big(tournament.version);
                    let now = now_ms();
                    match expected {
                        None => {
                            transaction
                                .execute(
                                    "INSERT INTO tournaments (id, stage, starts_at, version,
                                        updated_at, body)
                                     VALUES ($1, $2, $3, $4, $5, $6)",
                                    &[
                                        &tournament.id,
                                        &tournament.stage.name(),
                                        &tournament.starts_at,
                                        &version,
                                        &now,
                                        &body,
                                    ],
                                )
                                .await?;
                        }
                        Some(expected) => {
                            let updated = transaction
                                .execute(
                                    "UPDATE tournaments SET stage = $2, starts_at = $3,
                                        version = $4, updated_at = $5, body = $6
                                     WHERE id = $1 AND version = $7",
                                    &[
                                        &tournament.id,
                                        &tournament.stage.name(),
                                        &tournament.starts_at,
                                        &version,
                                        &now,
                                        &body,
                                        &big(*expected),
                                    ],
                                )
                                .await?;
                            if updated == 0 {
                                return Err(StoreError::Conflict(format!(
                                    "tournament {}",
                                    tournament.id
                                )));
                            }
                        }
                    }
                }
                Change::PuzzleAnswer(answer) => {
                    // Only over the ratings it was computed from (one answer fewer each),
                    // and once per account and puzzle: two servers cannot both count one.
                    let player = &answer.player;
                    let solved = i64::from(answer.solved);
                    let updated = transaction
                        .execute(
                            "INSERT INTO puzzle_ratings (user_id, rating, deviation, volatility,
                                attempts, solved, updated_at)
                             VALUES ($1, $2, $3, $4, $5::bigint, $6::bigint, $7)
                             ON CONFLICT (user_id) DO UPDATE SET rating = $2, deviation = $3,
                                volatility = $4, attempts = $5::bigint,
                                solved = puzzle_ratings.solved + $6::bigint, updated_at = $7
                             WHERE puzzle_ratings.attempts = $5::bigint - 1",
                            &[
                                &answer.user_id,
                                &player.rating,
                                &player.deviation,
                                &player.volatility,
                                &i64::from(player.games),
                                &solved,
                                &answer.at,
                            ],
                        )
                        .await?
                        + transaction
                            .execute(
                                "UPDATE puzzles SET rating = $2, deviation = $3, volatility = $4,
                                    attempts = $5::bigint, solved = solved + $6::bigint
                                 WHERE id = $1 AND attempts = $5::bigint - 1",
                                &[
                                    &answer.puzzle_id,
                                    &answer.puzzle.rating,
                                    &answer.puzzle.deviation,
                                    &answer.puzzle.volatility,
                                    &i64::from(answer.puzzle.games),
                                    &solved,
                                ],
                            )
                            .await?
                        + transaction
                            .execute(
                                "INSERT INTO puzzle_attempts (user_id, puzzle_id, solved, at)
                                 VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                                &[
                                    &answer.user_id,
                                    &answer.puzzle_id,
                                    &answer.solved,
                                    &answer.at,
                                ],
                            )
                            .await?;
                    if updated != 3 {
                        return Err(StoreError::Conflict(format!(
                            "puzzle {} answered by {}",
                            answer.puzzle_id, answer.user_id
                        )));
                    }
                }
                Change::MakeBot { user_id } => {
                    let made = transaction
                        .execute(
                            "UPDATE users SET bot = true WHERE id = $1 AND NOT EXISTS (
                                SELECT 1 FROM games WHERE black_user = $1 OR white_user = $1)",
                            &[user_id],
                        )
                        .await?;
                    if made == 0 {
                        return Err(StoreError::HasPlayed(format!("account {user_id}")));
                    }
                }
                Change::Attempt { key, at, window_ms } => {
                    transaction
                        .execute("INSERT INTO attempts (key, at) VALUES ($1, $2)", &[key, at])
                        .await?;
                    transaction
                        .execute(
                            "DELETE FROM attempts WHERE key = $1 AND at <= $2::bigint - $3::bigint",
                            &[key, at, window_ms],
                        )
                        .await?;
                }
                Change::ForgetAttempts { key } => {
                    transaction
                        .execute("DELETE FROM attempts WHERE key = $1", &[key])
                        .await?;
                }
                Change::Matched(matched) => {
                    transaction
                        .execute(
                            "INSERT INTO seek_matches (seek_id, game_id, poster_user,
                                poster_secret, at)
                             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (seek_id) DO NOTHING",
                            &[
                                &matched.seek_id,
                                &matched.game_id,
                                &matched.poster_user,
                                &matched.poster_secret,
                                &matched.at,
                            ],
                        )
                        .await?;
                    transaction
                        .execute(
                            "DELETE FROM seek_matches WHERE at < $1::bigint - 3600000",
                            &[&matched.at],
                        )
                        .await?;
                }
                Change::EngineTurn {
                    game,
                    due: Some((version, lease_ms)),
                } => {
                    transaction
                        .execute(
                            "INSERT INTO engine_turns (game_id, version, holder, expires_at)
                             VALUES ($1, $2, $3, now() + $4 ::bigint * interval '1 millisecond')
                             ON CONFLICT (game_id) DO UPDATE SET version = $2, holder = $3,
                                expires_at = now() + $4 ::bigint * interval '1 millisecond'",
                            &[game, &big(*version), &self.instance, &big(*lease_ms)],
                        )
                        .await?;
                }
                Change::EngineTurn { game, due: None } => {
                    transaction
                        .execute("DELETE FROM engine_turns WHERE game_id = $1", &[game])
                        .await?;
                }
            }
        }
        // Told to every server listening when (and only if) the commit succeeds.
        for notice in notices {
            transaction
                .execute(
                    "SELECT pg_notify($1, $2)",
                    &[&CHANNEL, &self.payload(&notice)],
                )
                .await?;
        }
        transaction.commit().await?;
        Ok(())
    }
}

async fn insert_move(
    transaction: &deadpool_postgres::Transaction<'_>,
    game: &str,
    ply: usize,
    mv: &StoredMove,
) -> Result<(), StoreError> {
    let statement = transaction
        .prepare_cached(
            "INSERT INTO moves (game_id, ply, square, side, played_at, think_ms, eval, exact)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .await?;
    transaction
        .execute(
            &statement,
            &[
                &game,
                &(ply as i64),
                &mv.square.to_string(),
                &color_text(mv.side),
                &mv.played_at,
                &big(mv.think_ms),
                &mv.eval,
                &mv.exact,
            ],
        )
        .await?;
    Ok(())
}
