//! `[http]`: where (and whether) the supervisor listens on Streamable HTTP
//! (served by src/mcp/http). Plain data: config is core and imports no
//! transport.

use std::net::SocketAddr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The loopback address `--http` listens on when none is given or
/// configured: a free port chosen at start-up.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:0";

/// `[http]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HttpConfig {
    /// Where to listen (`"127.0.0.1:0"`: loopback, a free port). Absent:
    /// no HTTP unless `--http` is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listen: Option<String>,
    /// Browser origins allowed besides the server's own loopback ones
    /// (`"https://app.example:8443"`). A request with any other `Origin`
    /// is refused (403).
    pub allowed_origins: Vec<String>,
    /// `Host` values allowed besides the listening address and, on
    /// loopback, `localhost`/`127.0.0.1`/`[::1]` with its port.
    pub allowed_hosts: Vec<String>,
    /// Seconds without a request after which an HTTP session ends.
    pub idle_timeout_secs: u64,
    /// Largest request body accepted, in bytes.
    pub max_body_bytes: usize,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            listen: None,
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            idle_timeout_secs: 1800,
            // As over stdio (mcp::transport::MAX_MESSAGE_BYTES): 16 MiB.
            max_body_bytes: 16 * 1024 * 1024,
        }
    }
}

/// Why `[http] listen` / `--http ADDR` is unusable.
#[derive(Debug, thiserror::Error)]
#[error("http listen address {given:?} is not IP:PORT (e.g. 127.0.0.1:0)")]
pub struct BadListen {
    /// What was given.
    pub given: String,
}

impl HttpConfig {
    /// Apply `--http [ADDR]`: `Some("")` (the flag without a value) turns
    /// HTTP on at the configured address or loopback; `Some(addr)` listens
    /// there.
    pub fn apply_flag(&mut self, flag: Option<&str>) {
        match flag {
            None => {}
            Some("") => {
                self.listen
                    .get_or_insert_with(|| DEFAULT_LISTEN.to_string());
            }
            Some(addr) => self.listen = Some(addr.to_string()),
        }
    }

    /// The address to listen on, if HTTP is on.
    pub fn listen_addr(&self) -> Result<Option<SocketAddr>, BadListen> {
        let Some(given) = self.listen.as_deref() else {
            return Ok(None);
        };
        let given = given.trim();
        let addr = if given.eq_ignore_ascii_case("localhost") || given.is_empty() {
            DEFAULT_LISTEN.to_string()
        } else if let Some(port) = given.strip_prefix("localhost:") {
            format!("127.0.0.1:{port}")
        } else {
            given.to_string()
        };
        addr.parse().map(Some).map_err(|_| BadListen {
            given: given.to_string(),
        })
    }

    /// How long an idle session lives.
    pub fn idle_timeout(&self) -> Duration {
        Duration::from_secs(self.idle_timeout_secs.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_turns_http_on_at_loopback_unless_configured() {
        let mut c = HttpConfig::default();
        assert_eq!(c.listen_addr().unwrap(), None);
        c.apply_flag(Some(""));
        assert_eq!(
            c.listen_addr().unwrap(),
            Some("127.0.0.1:0".parse().unwrap())
        );
        let mut c = HttpConfig {
            listen: Some("[::1]:8123".into()),
            ..Default::default()
        };
        c.apply_flag(Some(""));
        assert_eq!(
            c.listen_addr().unwrap(),
            Some("[::1]:8123".parse().unwrap())
        );
        c.apply_flag(Some("0.0.0.0:9000"));
        assert_eq!(
            c.listen_addr().unwrap(),
            Some("0.0.0.0:9000".parse().unwrap())
        );
        c.apply_flag(Some("localhost:7"));
        assert_eq!(
            c.listen_addr().unwrap(),
            Some("127.0.0.1:7".parse().unwrap())
        );
        c.apply_flag(Some("nonsense"));
        assert!(c.listen_addr().is_err());
    }
}
