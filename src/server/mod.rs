//! `othello serve`: the web front end. People play each other across the network, against
//! the engine, or watch engines play, in a page the binary serves itself; a JSON API and a
//! live channel (WebSocket) carry everything; games live in SQLite.
//!
//! - [`store`]: where games are kept (a small `Backend` interface; SQLite, group commit);
//! - [`game`]: a live game as the server holds it (seats, secrets, who is connected);
//! - [`hub`]: the live games, each behind its own lock, and engine moves on the pool;
//! - [`engine_pool`]: as many searches as cores, below people's requests in priority, fair
//!   between [`client`]s;
//! - [`accounts`]: registration, login, sessions;
//! - [`api`], [`live`], [`views`], [`error`]: HTTP, WebSocket, the JSON they send;
//! - [`assets`]: the page (HTML, CSS and JavaScript modules, compiled in).

pub mod accounts;
pub mod api;
pub mod assets;
pub mod client;
pub mod database;
pub mod director;
pub mod engine_pool;
pub mod error;
pub mod game;
pub mod http;

pub mod limits;
pub mod live;
pub mod lobby;
pub mod puzzles;
pub mod ratings;
pub mod store;
pub mod table;
pub mod tournaments;
pub mod views;
pub mod websocket;

use std::{
    io::Write,
    net::SocketAddr,
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use thiserror::Error;

use accounts::Accounts;
use api::App;
use engine_pool::EnginePool;
use live::Hub;
use lobby::Lobby;
use store::{Store, StoreError};

/// How `serve` runs.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Where to listen.
    pub addr: SocketAddr,
    /// The database: a SQLite file, or a PostgreSQL server.
    pub db: store::Target,
    /// PostgreSQL: connections at most.
    pub db_connections: usize,
    /// Engine searches at once (default: one per core).
    pub engines: Option<usize>,
    /// How long a client may take over a request or stay idle; how long a live channel
    /// may stay silent.
    pub client_timeout: Duration,
    /// Connections at once (default: what the file limit allows).
    pub max_connections: Option<usize>,
    /// How long a login lasts.
    pub session_ttl: Duration,
    /// How long a person must be away from an untimed game before the other may claim it.
    pub abandon_after: Duration,
    /// Proxies (nginx in front of several servers) whose `X-Forwarded-For` names the
    /// client.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Games, and challenges, a client may make a minute (0: no limit).
    pub games_per_minute: u64,
}

/// Why the server could not run.
#[derive(Debug, Error)]
pub enum ServeError {
    /// The database could not be opened.
    #[error("cannot open the database {target}: {source}")]
    Store {
        /// The database.
        target: store::Target,
        /// Why.
        source: StoreError,
    },
    /// Another server holds the database: two would each keep their own copy of a game
    /// in memory and overwrite each other's moves.
    #[error(
        "the database {} is in use by another othello serve ({holder}): stop that server, or give another --db",
        path.display()
    )]
    InUse {
        /// The database.
        path: PathBuf,
        /// Who holds it: `process 1234`.
        holder: String,
    },
    /// The address could not be bound, or serving failed.
    #[error("cannot serve on {addr}: {source}")]
    Io {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
}

/// Games being played that a start loads at once (their engines reply without waiting
/// for a visitor); older ones come back when someone asks for them.
const RESUMED_GAMES: usize = 1000;

/// On a shared database, how often engine replies whose server is gone are looked for.
const TAKE_OVER_EVERY: Duration = Duration::from_millis(500);

/// How often idle games are let go of, and after how long unused.
const SWEEP_EVERY: Duration = Duration::from_secs(60);
const IDLE: Duration = Duration::from_secs(15 * 60);

/// How often the games whose flag falls soon are looked for in the store (those nobody
/// opened since this server started: days-a-move games), and how far ahead.
const DUE_EVERY: Duration = Duration::from_secs(30);
const DUE_AHEAD: Duration = Duration::from_secs(60);

/// How long the runtime waits for its tasks once serving has stopped.
const GRACE: Duration = Duration::from_secs(10);

/// Serves until Ctrl-C or SIGTERM, then stops gracefully: no new connections, requests in
/// flight finish, live channels close, every commit is written and the database closed.
/// The first line written to `out` is `othello serve: http://ADDRESS/` (with the port
/// actually bound, for `--addr 127.0.0.1:0`).
///
/// # Errors
/// [`ServeError`] if the database cannot be opened or the address bound.
pub fn run(options: &ServeOptions, out: &mut impl Write) -> Result<(), ServeError> {
    let open_files = raise_file_limit();
    // One server per database, for as long as it runs (the system lets go of the lock
    // however the process ends).
    let _lock = match &options.db {
        store::Target::Sqlite(path) => Some(lock_database(path)?),
        store::Target::Postgres(_) => None,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|source| ServeError::Io {
            addr: options.addr,
            source,
        })?;
    let (store, writer) = match &options.db {
        store::Target::Sqlite(path) => {
            Store::sqlite(path).map(|(store, writer)| (store, Some(writer)))
        }
        store::Target::Postgres(url) => runtime
            .block_on(Store::postgres(url, options.db_connections))
            .map(|store| (store, None)),
    }
    .map_err(|source| ServeError::Store {
        target: options.db.clone(),
        source,
    })?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(options.addr)
            .await
            .map_err(|source| ServeError::Io {
                addr: options.addr,
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| ServeError::Io {
            addr: options.addr,
            source,
        })?;
        let pool = match options.engines {
            Some(size) => EnginePool::new(size),
            None => EnginePool::per_core(),
        };
        let engines = pool.size();
        let accounts = Arc::new(Accounts::new(store.clone(), options.session_ttl));
        let store_notices = store.listen();
        let store_shared = store.is_shared();
        let lobby =
            Arc::new(
                Lobby::open(store.clone())
                    .await
                    .map_err(|error| ServeError::Store {
                        target: options.db.clone(),
                        source: StoreError::Damaged(error.to_string()),
                    })?,
            );
        puzzles::stock_shipped(&store)
            .await
            .map_err(|source| ServeError::Store {
                target: options.db.clone(),
                source,
            })?;
        // The store moves into the hub: once the hub and the accounts are gone, the writer
        // commits what it has and ends.
        let hub = Arc::new(Hub::new(store, pool).abandon_after(options.abandon_after));
        let director = director::Director::new(Arc::clone(&hub));
        // On a shared database: what the other servers change, as they change it.
        if let Some(notices) = store_notices {
            tokio::spawn(follow(
                notices,
                Arc::clone(&hub),
                Arc::clone(&lobby),
                Arc::clone(&accounts),
                Arc::clone(&director),
            ));
        }
        if store_shared {
            hub.share_presence();
        }
        let engine_sweeper = if store_shared {
            // On a shared database: engine replies whose server is gone (or that were due
            // when every server stopped) are taken over once their lease runs out.
            let hub = Arc::clone(&hub);
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(TAKE_OVER_EVERY).await;
                    hub.take_over_engine_turns().await;
                }
            })
        } else {
            // Engines that were to move when the server last stopped move again.
            let hub = Arc::clone(&hub);
            tokio::spawn(async move { hub.resume(RESUMED_GAMES).await })
        };
        let (stop, stopping) = tokio::sync::watch::channel(false);
        let directing = tokio::spawn(Arc::clone(&director).run(stopping.clone()));
        // An address to open: on all interfaces, this machine's own (loopback) one.
        let local = if addr.ip().is_unspecified() {
            let loopback: std::net::IpAddr = if addr.is_ipv4() {
                std::net::Ipv4Addr::LOCALHOST.into()
            } else {
                std::net::Ipv6Addr::LOCALHOST.into()
            };
            SocketAddr::new(loopback, addr.port())
        } else {
            addr
        };
        let origin = format!("http://{local}");
        let app = App {
            accounts,
            lobby,
            lobby_lists: Arc::default(),
            hub: Arc::clone(&hub),
            origin: origin.clone(),
            stopping,
            client_timeout: options.client_timeout,
            trusted_proxies: options.trusted_proxies.clone().into(),
            admission: Arc::new(limits::Admission::new(options.games_per_minute)),
            bots: Default::default(),
            explorers: Default::default(),
            tournaments: Arc::clone(&director),
        };
        let mut limits = http::ConnectionLimits::for_files(options.client_timeout, open_files);
        if let Some(max) = options.max_connections {
            limits.max_connections = max;
        }
        limits.shared_addresses = options.trusted_proxies.clone().into();
        let _ = writeln!(out, "othello serve: {origin}/");
        if addr.ip().is_unspecified() {
            let others: Vec<String> = network_addresses(addr.is_ipv4())
                .into_iter()
                .map(|ip| format!("http://{}/", SocketAddr::new(ip, addr.port())))
                .collect();
            let _ = writeln!(
                out,
                "listening on all interfaces ({addr}); from other machines: {}",
                if others.is_empty() {
                    "this machine's address, port ".to_owned() + &addr.port().to_string()
                } else {
                    others.join(" ")
                }
            );
        }
        let _ = writeln!(
            out,
            "games in {}; {} at once; Ctrl-C stops",
            options.db,
            crate::words::count(engines as u64, "engine thread")
        );
        let _ = out.flush();
        // Games nobody has used for a while leave memory (the store keeps them); games
        // whose flag falls soon come back to it, to fall on time.
        let sweeper = {
            let hub = Arc::clone(&hub);
            tokio::spawn(async move {
                let mut evicted = tokio::time::Instant::now();
                loop {
                    hub.watch_due(DUE_AHEAD).await;
                    tokio::time::sleep(DUE_EVERY).await;
                    if evicted.elapsed() >= SWEEP_EVERY {
                        hub.evict_idle(IDLE);
                        evicted = tokio::time::Instant::now();
                    }
                }
            })
        };
        let router = api::router(app);
        let shutdown = async move {
            stop_signal().await;
            let _ = stop.send(true);
        };
        http::serve(listener, router, limits, shutdown).await;
        sweeper.abort();
        engine_sweeper.abort();
        directing.abort();
        hub.release_engine_turns().await;
        hub.withdraw_presence().await;
        drop(hub);
        Ok::<(), ServeError>(())
    })?;
    runtime.shutdown_timeout(GRACE);
    // Every handle on the store is gone: the writer commits what it has and ends.
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    Ok(())
}

/// Follows what other servers on the same database commit: games they change are read
/// again (and their watchers here told), as are the lobby's challenges and lists, and a
/// logout there ends the session here.
async fn follow(
    mut notices: tokio::sync::mpsc::UnboundedReceiver<store::Notice>,
    hub: Arc<Hub>,
    lobby: Arc<Lobby>,
    accounts: Arc<Accounts>,
    director: Arc<director::Director>,
) {
    while let Some(notice) = notices.recv().await {
        match notice {
            store::Notice::Game { id, version } => {
                let hub = Arc::clone(&hub);
                tokio::spawn(async move { hub.refresh(&id, version).await });
            }
            store::Notice::Lists => hub.lists_changed(),
            store::Notice::Seeks => {
                if let Err(error) = lobby.reload().await {
                    eprintln!("othello serve: the lobby could not be read again: {error}");
                }
            }
            store::Notice::Logout(hash) => accounts.forget(Some(&hash)),
            store::Notice::Account => accounts.forget(None),
            store::Notice::Presence(id) => {
                let hub = Arc::clone(&hub);
                tokio::spawn(async move { hub.refresh_presence(&id).await });
            }
            store::Notice::Tournament(_) => director.changed(),
            store::Notice::Resync => {
                director.changed();
                accounts.forget(None);
                let _ = lobby.reload().await;
                let hub = Arc::clone(&hub);
                tokio::spawn(async move { hub.refresh_all().await });
            }
        }
    }
}

/// One server per SQLite database, however it is named: the database file itself is
/// locked (a symbolic or hard link to it finds the same lock), for as long as the server
/// runs (the system lets go of it however the process ends).
#[derive(Debug)]
pub(crate) struct DatabaseLock {
    _file: std::fs::File,
}

/// What a SQLite database file starts with.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Takes `db`'s [`DatabaseLock`]. Before anything is made, `db` must be absent, or a
/// regular file that is empty or a SQLite database; and an absent or empty one must have
/// no write-ahead log beside it (`othello.db-wal`): that is a live server's log whose
/// database was moved or deleted (SQLite would delete it, and the games in it), or what
/// is left of one.
fn lock_database(db: &Path) -> Result<DatabaseLock, ServeError> {
    use std::io::Read;
    let refuse = |why: String| ServeError::Store {
        target: store::Target::Sqlite(db.to_owned()),
        source: StoreError::NotADatabase(why),
    };
    let io = |error: std::io::Error| ServeError::Store {
        target: store::Target::Sqlite(db.to_owned()),
        source: StoreError::Lock(error),
    };
    let begun = match std::fs::metadata(db) {
        Ok(metadata) if !metadata.is_file() => {
            return Err(refuse(format!(
                "not a regular file ({}), not a SQLite database: give a database file's path",
                file_kind(&metadata)
            )));
        }
        Ok(metadata) if metadata.len() > 0 => {
            let mut header = [0; 16];
            let read = std::fs::File::open(db)
                .and_then(|mut file| file.read_exact(&mut header))
                .is_ok();
            if !read || &header != SQLITE_HEADER {
                return Err(refuse(
                    "another kind of file, not a SQLite database: give a new file's path, or \
                     an othello database"
                        .into(),
                ));
            }
            true
        }
        Ok(_) => false,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => false,
        Err(error) => return Err(io(error)),
    };
    let mut log = db.as_os_str().to_owned();
    log.push("-wal");
    if !begun && std::fs::symlink_metadata(&log).is_ok_and(|log| log.len() > 0) {
        return Err(refuse(format!(
            "{} is there without its database: a server may be using it under another name \
             (the database moved or deleted while it runs), or it is what is left of one; \
             move the log away, or the database back beside it",
            PathBuf::from(log).display()
        )));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(db)
        .map_err(io)?;
    match file.try_lock() {
        Ok(()) => Ok(DatabaseLock { _file: file }),
        Err(std::fs::TryLockError::WouldBlock) => Err(ServeError::InUse {
            path: db.to_owned(),
            holder: crate::files::Held {
                pid: file
                    .metadata()
                    .ok()
                    .and_then(|metadata| lock_holder(&metadata)),
            }
            .holder(),
        }),
        Err(std::fs::TryLockError::Error(error)) => Err(io(error)),
    }
}

/// The process holding the `flock` on the file of `metadata`, from Linux's `/proc/locks`
/// (`1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF`: the device's numbers in hex, then
/// the inode).
fn lock_holder(metadata: &std::fs::Metadata) -> Option<u32> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::MetadataExt;
        let (major, minor) = (libc::major(metadata.dev()), libc::minor(metadata.dev()));
        let file = format!("{major:02x}:{minor:02x}:{}", metadata.ino());
        std::fs::read_to_string("/proc/locks")
            .ok()?
            .lines()
            .find_map(|line| {
                let fields: Vec<&str> = line.split_whitespace().collect();
                (fields.get(1) == Some(&"FLOCK") && fields.get(5) == Some(&file.as_str()))
                    .then(|| fields.get(4)?.parse().ok())
                    .flatten()
            })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = metadata;
        None
    }
}

/// What a file that is not a regular one is, in words.
fn file_kind(metadata: &std::fs::Metadata) -> &'static str {
    let kind = metadata.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

/// This machine's addresses other than loopback (IPv4 or IPv6), for people on the network.
fn network_addresses(ipv4: bool) -> Vec<std::net::IpAddr> {
    let mut found = Vec::new();
    #[cfg(unix)]
    // SAFETY: getifaddrs fills a list this function walks read-only and frees; each
    // address is read as the family it says it is.
    unsafe {
        let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
        if libc::getifaddrs(&mut list) != 0 {
            return found;
        }
        let mut entry = list;
        while !entry.is_null() {
            let address = (*entry).ifa_addr;
            if !address.is_null() {
                let ip: Option<std::net::IpAddr> = match i32::from((*address).sa_family) {
                    libc::AF_INET if ipv4 => {
                        let v4 = &*address.cast::<libc::sockaddr_in>();
                        Some(std::net::Ipv4Addr::from(u32::from_be(v4.sin_addr.s_addr)).into())
                    }
                    libc::AF_INET6 if !ipv4 => {
                        let v6 = &*address.cast::<libc::sockaddr_in6>();
                        Some(std::net::Ipv6Addr::from(v6.sin6_addr.s6_addr).into())
                    }
                    _ => None,
                };
                if let Some(ip) = ip.filter(|ip| !ip.is_loopback() && !found.contains(ip)) {
                    found.push(ip);
                }
            }
            entry = (*entry).ifa_next;
        }
        libc::freeifaddrs(list);
    }
    found
}

/// Each connection is a file: lets the server have as many as the system allows this
/// process (the soft limit, often 1024, up to the hard one). Returns the files it may
/// open.
fn raise_file_limit() -> usize {
    #[cfg(unix)]
    // SAFETY: plain system calls on this process's own limits.
    unsafe {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 1024;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                ..limit
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
        usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX)
    }
    #[cfg(not(unix))]
    1024
}

/// Ctrl-C, or SIGTERM on Unix.
async fn stop_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}
