//! The accept loop: every connection is served by hyper's HTTP/1 connection with its
//! header-read timeout (which also closes a kept-alive connection left silent), under a cap
//! on connections open at once and on connections from one client address, so that no
//! client can take the descriptors the games need. Past the cap the server stops
//! accepting (waiting clients stay in the kernel's queue, costing the server nothing); a
//! client address over its own cap has its new connections closed at once.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt as _;

/// The caps and the header timeout of a listener.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    /// Time to send a request's headers, and the longest silence between requests.
    pub header_timeout: Duration,
    /// Connections open at once.
    pub max_connections: usize,
    /// Connections open at once from one address.
    pub per_address: usize,
}

/// How long the server waits for open connections (event streams...) at shutdown.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Serves `app` on `listener` until `shutdown` fires, then lets the open connections finish
/// their requests for at most [`SHUTDOWN_GRACE`].
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    shutdown: CancellationToken,
) {
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let per_address = AddressCounts::default();
    // Every connection's task holds a sender: when all have gone, every connection has ended.
    let (open, mut all_closed) = tokio::sync::mpsc::channel::<()>(1);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(limits.header_timeout).keep_alive(true);
    loop {
        let permit = tokio::select! {
            () = shutdown.cancelled() => break,
            p = permits.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
        };
        let (stream, peer) = tokio::select! {
            () = shutdown.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    accept_failed(&e).await;
                    continue;
                }
            },
        };
        let Some(slot) = per_address.take(peer.ip(), limits.per_address) else {
            tracing::debug!(%peer, "too many connections from this address: closed");
            continue;
        };
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(%peer, error = %e, "cannot set TCP_NODELAY");
        }
        // Handlers may read the client's address (`ConnectInfo`).
        let app = app.clone().map_request(move |mut request: axum::http::Request<hyper::body::Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            request
        });
        // With upgrades: a game's WebSocket (`/play`) keeps its connection (and its place).
        let connection =
            http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app)).with_upgrades();
        let (open, stop) = (open.clone(), shutdown.clone());
        tokio::spawn(async move {
            let mut connection = std::pin::pin!(connection);
            // At shutdown the connection finishes its request and closes (an upgraded socket
            // is cut when the server's runtime ends).
            let ended = tokio::select! {
                ended = connection.as_mut() => ended,
                () = stop.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(e) = ended {
                tracing::debug!(%peer, error = %e, "connection ended with an error");
            }
            drop(slot);
            drop(permit);
            drop(open);
        });
    }
    drop(listener);
    drop(open);
    tokio::select! {
        _ = all_closed.recv() => {}
        () = tokio::time::sleep(SHUTDOWN_GRACE) => {
            tracing::info!("connections still open at shutdown are dropped");
        }
    }
}

/// After a failed `accept`: a connection reset before it was taken is nothing; running out
/// of descriptors or memory waits a moment (the games' descriptors come first, and an
/// immediate retry would spin).
async fn accept_failed(e: &std::io::Error) {
    use std::io::ErrorKind;
    if matches!(e.kind(), ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset | ErrorKind::Interrupted)
    {
        return;
    }
    tracing::warn!(error = %e, "cannot accept a connection: waiting 100 ms");
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// Open connections per client address (an IPv6 client counted by its /64).
#[derive(Debug, Default, Clone)]
struct AddressCounts(Arc<Mutex<HashMap<IpAddr, usize>>>);

/// One connection's place in its address's count, given back when dropped.
struct AddressSlot {
    counts: AddressCounts,
    key: IpAddr,
}

impl AddressCounts {
    fn take(&self, ip: IpAddr, cap: usize) -> Option<AddressSlot> {
        let key = address_key(ip);
        let mut counts = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let n = counts.entry(key).or_insert(0);
        if *n >= cap {
            return None;
        }
        *n += 1;
        Some(AddressSlot { counts: self.clone(), key })
    }
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut counts = self.counts.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(n) = counts.get_mut(&self.key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                counts.remove(&self.key);
            }
        }
    }
}

/// The address a client is counted by: an IPv4 address (or an IPv4-mapped IPv6 one) as is,
/// any other IPv6 address by its /64 (one host usually has a whole /64).
fn address_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut segments = v6.segments();
                segments[4..].fill(0);
                IpAddr::V6(segments.into())
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_over_its_cap_is_refused_until_a_connection_ends() {
        let counts = AddressCounts::default();
        let ip: IpAddr = "10.0.0.1".parse().expect("ip");
        let a = counts.take(ip, 2).expect("first");
        let _b = counts.take(ip, 2).expect("second");
        assert!(counts.take(ip, 2).is_none(), "a third over the cap of 2");
        assert!(counts.take("10.0.0.2".parse().expect("ip"), 2).is_some(), "another address");
        drop(a);
        assert!(counts.take(ip, 2).is_some(), "a place came free");
    }

    #[test]
    fn ipv6_clients_are_counted_by_their_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().expect("ip");
        let b: IpAddr = "2001:db8:1:2:bbbb::2".parse().expect("ip");
        assert_eq!(address_key(a), address_key(b));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().expect("ip");
        assert_eq!(address_key(mapped), "10.0.0.1".parse::<IpAddr>().expect("ip"));
    }
}
