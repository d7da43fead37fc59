//! The connections: accepted here, each served by hyper with the limits an open server
//! needs (axum's own `serve` sets none), so no visitor can hold the server's sockets:
//!
//! - a client has [`ConnectionLimits::client_timeout`] to send a request's headers, and as
//!   long to stay idle between requests on a kept-alive connection (one timer in hyper,
//!   which starts when the server waits for the next request); request bodies have as long
//!   (see `api::Body`);
//! - beyond [`ConnectionLimits::max_connections`] open at once, a new connection is answered
//!   `503` with a JSON error and a `Retry-After` and closed, instead of waiting in the
//!   kernel's queue until the process runs out of files; and beyond a quarter of them from
//!   one address (a trusted proxy's excepted), so that no one client holds them all;
//! - live channels answer pings and are dropped when silent (see `live`).
//!
//! On the stop signal: no new connections, requests in flight finish (up to a grace
//! period), live channels close.

use std::{
    collections::HashMap,
    future::Future,
    net::IpAddr,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use axum::{Router, body::Body, http::Request};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use serde::Serialize;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpListener,
    sync::watch,
};
use tower::ServiceExt;

/// What a connection may do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// For a request's headers, its body, and the quiet between two requests.
    pub client_timeout: Duration,
    /// Connections open at once, beyond which new ones are refused.
    pub max_connections: usize,
    /// Addresses whose connections are many people's (the proxies in front): not held to
    /// a share.
    pub shared_addresses: Arc<[IpAddr]>,
}

impl ConnectionLimits {
    /// How many connections one address may hold: a quarter of all (at least 16), so that
    /// one client can never take them all.
    pub fn per_address(&self) -> usize {
        (self.max_connections / 4).max(16).min(self.max_connections)
    }
}

/// Files kept for everything but connections: the database, the engine threads' pipes,
/// the page's assets.
const RESERVED_FILES: usize = 64;

/// The most connections by default, whatever the file limit: each holds some memory.
const MAX_DEFAULT_CONNECTIONS: usize = 50_000;

impl ConnectionLimits {
    /// The limits `client_timeout` and the files this process may open allow (one per
    /// connection, less [`RESERVED_FILES`]).
    pub fn for_files(client_timeout: Duration, open_files: usize) -> ConnectionLimits {
        ConnectionLimits {
            client_timeout,
            max_connections: open_files
                .saturating_sub(RESERVED_FILES)
                .clamp(16, MAX_DEFAULT_CONNECTIONS),
            shared_addresses: Arc::from([]),
        }
    }
}

/// How long a refused connection is told to wait, in seconds.
const RETRY_AFTER: u32 = 5;

/// How long requests in flight may take to finish once a stop is asked for.
const GRACE: Duration = Duration::from_secs(10);

/// Serves `router` on `listener` until `stop` completes.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    stop: impl Future<Output = ()>,
) {
    let open = Arc::new(AtomicUsize::new(0));
    let by_address: ByAddress = Arc::default();
    // Dropped when serving stops: each connection then shuts down gracefully.
    let (stopping, stopped) = watch::channel(());
    let mut stop = std::pin::pin!(stop);
    loop {
        let stream = tokio::select! {
            () = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of files, say: wait a moment rather than spin.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let (stream, peer) = stream;
        let _ = stream.set_nodelay(true);
        if open.load(Ordering::Relaxed) >= limits.max_connections {
            tokio::spawn(refuse(stream, limits.client_timeout));
            continue;
        }
        let address = super::client::one_client(peer.ip());
        let counted = !limits.shared_addresses.contains(&peer.ip());
        if counted {
            let mut held = by_address.lock().expect("not poisoned");
            let count = held.entry(address).or_default();
            if *count >= limits.per_address() {
                drop(held);
                tokio::spawn(refuse(stream, limits.client_timeout));
                continue;
            }
            *count += 1;
        }
        open.fetch_add(1, Ordering::Relaxed);
        let slot = Slot {
            open: Arc::clone(&open),
            by_address: counted.then(|| (Arc::clone(&by_address), address)),
        };
        let router = router.clone();
        let mut stopped = stopped.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let mut request = request.map(Body::new);
                // Who is asking, for the login limits.
                request
                    .extensions_mut()
                    .insert(axum::extract::ConnectInfo(peer));
                router.clone().oneshot(request)
            });
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.client_timeout)
                .max_buf_size(64 * 1024);
            let connection = builder
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => return,
                _ = stopped.changed() => connection.as_mut().graceful_shutdown(),
            }
            let _ = tokio::time::timeout(GRACE, connection).await;
        });
    }
    drop(stopping);
    // Wait for the connections to finish (each has its grace period).
    let deadline = tokio::time::Instant::now() + GRACE + Duration::from_secs(1);
    while open.load(Ordering::Relaxed) > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Connections open per address.
type ByAddress = Arc<Mutex<HashMap<IpAddr, usize>>>;

/// A place among the open connections (and its address's), given back when dropped.
struct Slot {
    open: Arc<AtomicUsize>,
    by_address: Option<(ByAddress, IpAddr)>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.open.fetch_sub(1, Ordering::Relaxed);
        if let Some((held, address)) = &self.by_address {
            let mut held = held.lock().expect("not poisoned");
            if let Some(count) = held.get_mut(address) {
                *count -= 1;
                if *count == 0 {
                    held.remove(address);
                }
            }
        }
    }
}

/// The API's error body.
#[derive(Serialize)]
struct Refusal {
    error: RefusalBody,
}

#[derive(Serialize)]
struct RefusalBody {
    code: &'static str,
    message: String,
}

/// The most a refused connection's request is read before it is closed.
const REFUSED_READ_LIMIT: usize = 64 * 1024;

/// How long a refused connection's request is read after the answer, at most.
const REFUSED_LINGER: Duration = Duration::from_secs(1);

/// Answers a connection over the limit with a `503` and closes it: its request's head is
/// read first (for [`REFUSED_LINGER`] at most), and what follows (up to
/// [`REFUSED_READ_LIMIT`], for [`REFUSED_LINGER`]) after the answer, because a socket
/// closed with unread data sends a reset, which can reach the client before it has read
/// the answer.
async fn refuse(mut stream: tokio::net::TcpStream, timeout: Duration) {
    let body = serde_json::to_string(&Refusal {
        error: RefusalBody {
            code: "too_many_connections",
            message: format!(
                "the server has as many connections as it takes; try again in {RETRY_AFTER} s"
            ),
        },
    })
    .expect("strings serialize");
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
         retry-after: {RETRY_AFTER}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    // The request's head first: a client that gets an answer before it has sent its
    // request (an HTTP client's fresh connection) takes it for garbage.
    let _ = tokio::time::timeout(REFUSED_LINGER.min(timeout), async {
        let mut head = Vec::new();
        let mut buffer = [0u8; 4096];
        while head.len() < REFUSED_READ_LIMIT && !head.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => head.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await;
    let _ = tokio::time::timeout(timeout, async {
        let _ = stream.write_all(response.as_bytes()).await;
        let _ = stream.shutdown().await;
    })
    .await;
    let _ = tokio::time::timeout(REFUSED_LINGER.min(timeout), async {
        let (mut buffer, mut read) = ([0u8; 4096], 0);
        while read < REFUSED_READ_LIMIT {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => read += n,
            }
        }
    })
    .await;
}
