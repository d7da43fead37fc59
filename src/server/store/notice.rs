//! What a commit on a shared database tells the other servers on it.

use super::{Change, GameStatus};

/// What a commit on a shared database announces to the other servers on it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Notice {
    /// The game `id` is at `version` now.
    Game {
        /// Its id.
        id: String,
        /// Its version.
        version: u64,
    },
    /// A game started or ended: the lobby's lists change.
    Lists,
    /// A challenge was posted, taken or withdrawn.
    Seeks,
    /// A session was closed (by its hash).
    Logout(String),
    /// An account changed (made a bot): sessions are read again.
    Account,
    /// Who is connected to the game `id` changed on some server.
    Presence(String),
    /// The tournament `id` changed.
    Tournament(String),
    /// The listening connection was made (again): anything may have changed unseen.
    Resync,
}

impl Notice {
    /// What `change` announces.
    pub(super) fn of(change: &Change) -> Vec<Notice> {
        match change {
            Change::Create(game) => vec![
                Notice::Game {
                    id: game.id.clone(),
                    version: game.version,
                },
                Notice::Lists,
            ],
            Change::Meta(meta) => {
                let game = Notice::Game {
                    id: meta.game.clone(),
                    version: meta.version,
                };
                if meta.status == GameStatus::Over {
                    vec![game, Notice::Lists]
                } else {
                    vec![game]
                }
            }
            Change::NewSeek(_) | Change::EndSeek { .. } | Change::Matched(_) => {
                vec![Notice::Seeks]
            }
            Change::EndSession { token_hash } => vec![Notice::Logout(token_hash.clone())],
            Change::MakeBot { .. } => vec![Notice::Account],
            Change::Move { .. }
            | Change::Truncate { .. }
            | Change::EngineTurn { .. }
            | Change::Attempt { .. }
            | Change::ForgetAttempts { .. }
            | Change::Eval { .. }
            | Change::NewUser(_)
            | Change::NewSession(_)
            | Change::Rating(_)
            | Change::AddPuzzles(_)
            | Change::AddLibraryGames(_)
            | Change::PuzzleAnswer(_) => Vec::new(),
            Change::Tournament { tournament, .. } => {
                vec![Notice::Tournament(tournament.id.clone())]
            }
        }
    }

    /// The notice of a payload (`None` for one not understood).
    pub(super) fn parse(payload: &str) -> Option<Notice> {
        let (kind, rest) = payload.split_once(':').unwrap_or((payload, ""));
        match kind {
            "g" => {
                let (id, version) = rest.rsplit_once(':')?;
                Some(Notice::Game {
                    id: id.to_owned(),
                    version: version.parse().ok()?,
                })
            }
            "l" => Some(Notice::Lists),
            "s" => Some(Notice::Seeks),
            "x" => Some(Notice::Logout(rest.to_owned())),
            "a" => Some(Notice::Account),
            "p" => Some(Notice::Presence(rest.to_owned())),
            "t" => Some(Notice::Tournament(rest.to_owned())),
            _ => None,
        }
    }
}

/// The payload: short, ids only (PostgreSQL's limit is 8000 bytes).
impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Notice::Game { id, version } => write!(f, "g:{id}:{version}"),
            Notice::Lists => f.write_str("l"),
            Notice::Seeks => f.write_str("s"),
            Notice::Logout(hash) => write!(f, "x:{hash}"),
            Notice::Account => f.write_str("a"),
            Notice::Presence(id) => write!(f, "p:{id}"),
            Notice::Tournament(id) => write!(f, "t:{id}"),
            Notice::Resync => f.write_str("r"),
        }
    }
}
