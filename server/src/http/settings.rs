//! The `[http]` section of `arena.toml`: what one client may hold of the server (timeouts,
//! connections, event streams) and where `/metrics` is served.

use std::net::SocketAddr;
use std::time::Duration;

use serde::Deserialize;

/// Connection limits and timeouts (docs/server.md, "Connections").
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HttpConfig {
    /// Seconds a client has to send a request's headers; also how long a kept-alive
    /// connection may stay silent before its next request.
    pub header_timeout_secs: u64,
    /// Seconds a request's body may stall between two pieces.
    pub body_timeout_secs: u64,
    /// Seconds from a request's headers to its answer's headers (uploads included; an event
    /// stream, once answered, is not cut).
    pub request_timeout_secs: u64,
    /// Connections open at the same time (lowered at start to fit the descriptor limit).
    pub max_connections: usize,
    /// Connections open at the same time from one client address (IPv4 address or IPv6 /64).
    pub max_connections_per_address: usize,
    /// Event streams (live pages) open at the same time.
    pub max_event_streams: usize,
    /// Who may read `/metrics` on the main address: `"admin"` (an admin's API token) or
    /// `"public"`. Ignored when `metrics_listen` is set.
    pub metrics: MetricsAccess,
    /// Serve `/metrics` (to anyone) on this address only, e.g. `127.0.0.1:9100`.
    pub metrics_listen: Option<SocketAddr>,
}

/// Who may read `/metrics` on the main address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricsAccess {
    /// Only with an administrator's API token.
    Admin,
    /// Anyone.
    Public,
}

impl Default for HttpConfig {
    fn default() -> HttpConfig {
        HttpConfig {
            header_timeout_secs: 10,
            body_timeout_secs: 30,
            request_timeout_secs: 120,
            max_connections: 1024,
            max_connections_per_address: 64,
            max_event_streams: 256,
            metrics: MetricsAccess::Admin,
            metrics_listen: None,
        }
    }
}

impl HttpConfig {
    /// The header-read (and idle) timeout.
    #[must_use]
    pub fn header_timeout(&self) -> Duration {
        Duration::from_secs(self.header_timeout_secs)
    }

    /// The body timeout.
    #[must_use]
    pub fn body_timeout(&self) -> Duration {
        Duration::from_secs(self.body_timeout_secs)
    }

    /// The request timeout.
    #[must_use]
    pub fn request_timeout(&self) -> Duration {
        Duration::from_secs(self.request_timeout_secs)
    }

    /// Checks the values; the error names the key.
    pub fn validate(&self) -> Result<(), String> {
        let positive = [
            ("http.header_timeout_secs", self.header_timeout_secs as usize),
            ("http.body_timeout_secs", self.body_timeout_secs as usize),
            ("http.request_timeout_secs", self.request_timeout_secs as usize),
            ("http.max_connections", self.max_connections),
            ("http.max_connections_per_address", self.max_connections_per_address),
            ("http.max_event_streams", self.max_event_streams),
        ];
        for (key, value) in positive {
            if value == 0 {
                return Err(format!("{key} must be at least 1"));
            }
        }
        if self.max_event_streams >= self.max_connections {
            return Err(format!(
                "http.max_event_streams ({}) must be below http.max_connections ({}): every stream holds a connection",
                self.max_event_streams, self.max_connections
            ));
        }
        Ok(())
    }
}
