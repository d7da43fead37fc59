//! `othello serve`: the web server's arguments; the server itself is [`crate::server`].

use std::{io::Write, net::SocketAddr, time::Duration};

use clap::Args;

use super::CliError;
use crate::server::{self, ServeOptions, store};

/// `othello serve [--addr 127.0.0.1:8080] [--db PATH|URL] [--db-connections N] [--engines N] [--client-timeout SECS]
/// [--max-connections N] [--session-ttl DURATION]
/// [--abandon-after DURATION] [--trusted-proxy IP]...`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Where to listen. The default serves this machine only; --addr 0.0.0.0:8080 serves
    /// the local network too (port 0: any free port).
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Where games are kept: a SQLite file (created if missing), or a PostgreSQL database
    /// (`postgres://user:password@host:port/name`) that several servers may share.
    #[arg(
        long,
        value_name = "PATH|URL",
        env = "DATABASE_URL",
        default_value = "othello.db"
    )]
    db: store::Target,
    /// PostgreSQL: connections to the database at most (per server).
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..=1000))]
    db_connections: u16,
    /// Engine searches at once (default: one per core).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    engines: Option<u16>,
    /// How long a client may take to send a request (its headers, then its body) or stay
    /// idle on a kept-alive connection, and how long a live channel may go without
    /// answering the server's pings, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    client_timeout: u64,
    /// Connections open at once, beyond which new ones get a 503 (default: as many as the
    /// process may open files, less a reserve, at most 50000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    max_connections: Option<u32>,
    /// How long a login lasts: `30days`, `12h`.
    #[arg(long, value_name = "DURATION", default_value = "30days", value_parser = humantime::parse_duration)]
    session_ttl: Duration,
    /// How long a person must be away from an untimed game between people (no page open
    /// on it) before the other may claim the win: `5min`.
    #[arg(long, value_name = "DURATION", default_value = "5min", value_parser = humantime::parse_duration)]
    abandon_after: Duration,
    /// A proxy in front of this server (nginx's address, say): the client's address, which
    /// the limits per client count by, is then taken from its X-Forwarded-For header
    /// (repeat for several).
    #[arg(long, value_name = "IP")]
    trusted_proxy: Vec<std::net::IpAddr>,
    /// Games, and challenges, each client (a member, or a guest's address) may make a
    /// minute; an address, whoever asks, four times as many. 0: no limit (a load test).
    #[arg(long, value_name = "N", default_value_t = 30)]
    games_per_minute: u64,
}

impl ServeArgs {
    /// Serves until Ctrl-C or SIGTERM.
    ///
    /// # Errors
    /// [`CliError::Serve`] if the database cannot be opened or the address bound.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let options = ServeOptions {
            addr: self.addr,
            db: self.db,
            db_connections: usize::from(self.db_connections),
            engines: self.engines.map(usize::from),
            client_timeout: Duration::from_secs(self.client_timeout),
            max_connections: self.max_connections.map(|n| n as usize),
            session_ttl: self.session_ttl,
            abandon_after: self.abandon_after,
            trusted_proxies: self.trusted_proxy,
            games_per_minute: self.games_per_minute,
        };
        server::run(&options, out)?;
        Ok(())
    }
}
