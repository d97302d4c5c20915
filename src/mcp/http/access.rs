//! Who may talk to the HTTP endpoint: the per-supervisor secret (in the
//! capability URL `/mcp/<secret>` or `Authorization: Bearer <secret>`),
//! the `Host` the request names (DNS rebinding) and its `Origin`.
//!
//! The secret is never logged, never audited, and never reaches rmcp: the
//! request rmcp sees has the plain path `/mcp` and no `Authorization`.

use std::fmt;
use std::net::SocketAddr;

use http::request::Parts;
use http::{HeaderMap, StatusCode, header};

/// The endpoint's path; the capability URL adds `/<secret>`.
pub const MCP_PATH: &str = "/mcp";

/// The per-supervisor secret: 32 random bytes, hex.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// A fresh random secret.
    pub fn generate() -> Self {
        let bytes: [u8; 32] = rand::random();
        Self(hex::encode(bytes))
    }

    /// The secret's text (for the capability URL and the runtime file only).
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Compare with what a request carried, in constant time.
    pub fn matches(&self, given: &[u8]) -> bool {
        constant_time_eq(self.0.as_bytes(), given)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// Equal bytes, taking the same time wherever they differ.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

/// Why a request was refused before it reached MCP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The `Host` header is missing or names another host.
    Host(String),
    /// The `Origin` header names a foreign origin.
    Origin(String),
    /// No secret in the path nor a bearer token.
    MissingSecret,
    /// A secret that is not this supervisor's.
    WrongSecret,
    /// Not the MCP endpoint.
    NotFound,
}

impl Refusal {
    /// The HTTP status answered.
    pub fn status(&self) -> StatusCode {
        match self {
            Refusal::Host(_) | Refusal::Origin(_) => StatusCode::FORBIDDEN,
            Refusal::MissingSecret | Refusal::WrongSecret => StatusCode::UNAUTHORIZED,
            Refusal::NotFound => StatusCode::NOT_FOUND,
        }
    }

    /// What the client (and the audit trail) is told; never the secret.
    pub fn describe(&self) -> String {
        match self {
            Refusal::Host(h) => format!("Host {h:?} is not allowed (DNS rebinding protection)"),
            Refusal::Origin(o) => format!("Origin {o:?} is not allowed"),
            Refusal::MissingSecret => "the airlock secret is missing: use the URL from \
                 `airlock connect --print-url` or `Authorization: Bearer <secret>`"
                .to_string(),
            Refusal::WrongSecret => "wrong airlock secret".to_string(),
            Refusal::NotFound => format!("not found: the MCP endpoint is {MCP_PATH}/<secret>"),
        }
    }
}

/// The checks for one listening address.
#[derive(Debug, Clone)]
pub struct Access {
    secret: Secret,
    hosts: Vec<String>,
    origins: Vec<String>,
}

impl Access {
    /// Checks for a server bound to `addr`, with the configured extra
    /// hosts and origins.
    pub fn new(secret: Secret, addr: SocketAddr, hosts: &[String], origins: &[String]) -> Self {
        let port = addr.port();
        let mut own = vec![authority(&addr.ip().to_string(), port)];
        if addr.ip().is_loopback() || addr.ip().is_unspecified() {
            for h in ["127.0.0.1", "localhost", "::1"] {
                own.push(authority(h, port));
            }
        }
        own.dedup();
        let mut origin_list: Vec<String> = own.iter().map(|a| format!("http://{a}")).collect();
        origin_list.extend(
            origins
                .iter()
                .map(|o| o.trim().trim_end_matches('/').to_lowercase()),
        );
        own.extend(hosts.iter().map(|h| h.trim().to_lowercase()));
        Self {
            secret,
            hosts: own,
            origins: origin_list,
        }
    }

    /// The secret.
    pub fn secret(&self) -> &Secret {
        &self.secret
    }

    /// Check a request: `Host`, `Origin`, then the secret. `Ok` means it
    /// may go on to MCP.
    pub fn check(&self, parts: &Parts) -> Result<(), Refusal> {
        self.check_host(&parts.headers)?;
        self.check_origin(&parts.headers)?;
        self.check_secret(parts.uri.path(), &parts.headers)
    }

    fn check_host(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .map(|h| h.trim().to_lowercase())
            .ok_or_else(|| Refusal::Host(String::new()))?;
        let name_only = host
            .rsplit_once(':')
            .filter(|(_, p)| p.chars().all(|c| c.is_ascii_digit()))
            .map_or(host.as_str(), |(n, _)| n);
        let ok = self
            .hosts
            .iter()
            .any(|allowed| *allowed == host || (!allowed.contains(':') && allowed == name_only));
        if ok { Ok(()) } else { Err(Refusal::Host(host)) }
    }

    fn check_origin(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let Some(origin) = headers.get(header::ORIGIN) else {
            return Ok(());
        };
        let origin = String::from_utf8_lossy(origin.as_bytes())
            .trim()
            .to_lowercase();
        if self.origins.contains(&origin) {
            Ok(())
        } else {
            Err(Refusal::Origin(origin))
        }
    }

    fn check_secret(&self, path: &str, headers: &HeaderMap) -> Result<(), Refusal> {
        let in_path = match path.strip_prefix(MCP_PATH) {
            Some("" | "/") => None,
            Some(rest) => match rest.strip_prefix('/') {
                Some(s) => Some(s.trim_end_matches('/')),
                None => return Err(Refusal::NotFound),
            },
            None => return Err(Refusal::NotFound),
        };
        if in_path.is_some_and(|s| s.contains('/')) {
            return Err(Refusal::NotFound);
        }
        let bearer = headers
            .get(header::AUTHORIZATION)
            .map(http::HeaderValue::as_bytes)
            .map(|v| strip_bearer(v).unwrap_or(b"\0not a bearer token"));
        let given: Vec<&[u8]> = in_path
            .map(str::as_bytes)
            .into_iter()
            .chain(bearer)
            .collect();
        if given.is_empty() {
            return Err(Refusal::MissingSecret);
        }
        // Every secret given must be right (no short-circuit on the first).
        let right = given.iter().fold(true, |ok, g| self.secret.matches(g) & ok);
        if right {
            Ok(())
        } else {
            Err(Refusal::WrongSecret)
        }
    }
}

/// `host:port` as it appears in a `Host` header (IPv6 in brackets).
fn authority(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

fn strip_bearer(v: &[u8]) -> Option<&[u8]> {
    let (scheme, rest) = v.split_at_checked(7)?;
    scheme
        .eq_ignore_ascii_case(b"bearer ")
        .then(|| rest.trim_ascii())
}

/// The request path as it may be logged or audited: the secret replaced.
pub fn redacted_path(path: &str) -> String {
    match path
        .strip_prefix(MCP_PATH)
        .and_then(|r| r.strip_prefix('/'))
    {
        Some(rest) if !rest.is_empty() => format!("{MCP_PATH}/<secret>"),
        _ => path.chars().take(128).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(path: &str, headers: &[(&str, &str)]) -> Parts {
        let mut b = http::Request::builder().uri(path);
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        b.body(()).unwrap().into_parts().0
    }

    fn access() -> (Access, String) {
        let s = Secret::generate();
        let text = s.expose().to_string();
        let a = Access::new(s, "127.0.0.1:4000".parse().unwrap(), &[], &[]);
        (a, text)
    }

    #[test]
    fn the_secret_is_required_in_the_path_or_as_a_bearer_token() {
        let (a, s) = access();
        let host = ("host", "127.0.0.1:4000");
        assert_eq!(a.check(&parts(&format!("/mcp/{s}"), &[host])), Ok(()));
        let bearer = format!("Bearer {s}");
        assert_eq!(
            a.check(&parts("/mcp", &[host, ("authorization", &bearer)])),
            Ok(())
        );
        assert_eq!(
            a.check(&parts("/mcp", &[host])),
            Err(Refusal::MissingSecret)
        );
        assert_eq!(
            a.check(&parts("/mcp/nope", &[host])),
            Err(Refusal::WrongSecret)
        );
        assert_eq!(
            a.check(&parts(
                &format!("/mcp/{s}"),
                &[host, ("authorization", "Bearer x")]
            )),
            Err(Refusal::WrongSecret),
            "a wrong bearer token is refused even beside the right path"
        );
        assert_eq!(a.check(&parts("/other", &[host])), Err(Refusal::NotFound));
        assert_eq!(a.check(&parts("/mcpx", &[host])), Err(Refusal::NotFound));
    }

    #[test]
    fn host_and_origin_are_checked() {
        let (a, s) = access();
        let p = format!("/mcp/{s}");
        assert_eq!(a.check(&parts(&p, &[("host", "localhost:4000")])), Ok(()));
        assert_eq!(a.check(&parts(&p, &[("host", "[::1]:4000")])), Ok(()));
        assert!(matches!(
            a.check(&parts(&p, &[("host", "evil.example:4000")])),
            Err(Refusal::Host(_))
        ));
        assert!(matches!(a.check(&parts(&p, &[])), Err(Refusal::Host(_))));
        let host = ("host", "127.0.0.1:4000");
        assert_eq!(
            a.check(&parts(&p, &[host, ("origin", "http://localhost:4000")])),
            Ok(())
        );
        for bad in ["https://evil.example", "null", "http://localhost:4001"] {
            assert!(matches!(
                a.check(&parts(&p, &[host, ("origin", bad)])),
                Err(Refusal::Origin(_))
            ));
        }
    }

    #[test]
    fn constant_time_compare_and_redaction() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
        assert_eq!(redacted_path("/mcp/deadbeef"), "/mcp/<secret>");
        assert_eq!(redacted_path("/mcp"), "/mcp");
        assert!(!format!("{:?}", Secret::generate()).contains(|c: char| c.is_ascii_digit()));
    }
}
