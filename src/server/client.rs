//! Who a request comes from, for what an open server shares out per client: engine time
//! (one lane each in the engine pool), and how fast games and challenges may be made.

use std::{
    fmt,
    net::{IpAddr, SocketAddr},
};

use axum::http::HeaderMap;

/// Whose work or request it is.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Client {
    /// A member, by account, from whatever address.
    Member(i64),
    /// A guest, by address (an IPv6 address by its /64, what one machine or household
    /// is given: a client cannot become many by changing the rest).
    Address(IpAddr),
    /// A game whose maker this server does not know (read back from the database): a lane
    /// of its own.
    Game(String),
}

impl Client {
    /// The guest at `address`.
    pub fn guest(address: IpAddr) -> Client {
        Client::Address(one_client(address))
    }

    /// Whether it is a guest (no account): what it may ask for is capped.
    pub fn is_guest(&self) -> bool {
        !matches!(self, Client::Member(_))
    }
}

impl fmt::Display for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Client::Member(id) => write!(f, "member {id}"),
            Client::Address(ip) => write!(f, "address {ip}"),
            Client::Game(id) => write!(f, "game {id}"),
        }
    }
}

/// `address` as one client's: an IPv6 address by its /64, an IPv4-mapped one as IPv4.
pub fn one_client(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
        },
        v4 @ IpAddr::V4(_) => v4,
    }
}

/// The client's address: the peer's, or behind a trusted proxy (`--trusted-proxy`) the
/// last address in `X-Forwarded-For` that is not a trusted proxy's (what the proxy saw;
/// anything before it the client may have written).
pub fn address(peer: SocketAddr, headers: &HeaderMap, trusted: &[IpAddr]) -> IpAddr {
    let trusted = |ip: &IpAddr| trusted.contains(ip);
    if !trusted(&peer.ip()) {
        return peer.ip();
    }
    headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(str::trim)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .map_while(|hop| hop.parse::<IpAddr>().ok())
        .find(|ip| !trusted(ip))
        .unwrap_or(peer.ip())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_guest_is_its_64_and_a_mapped_ipv4_its_address() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(Client::guest(a), Client::guest(b));
        assert_ne!(Client::guest(a), Client::guest(c));
        let mapped: IpAddr = "::ffff:10.0.0.7".parse().unwrap();
        assert_eq!(
            Client::guest(mapped),
            Client::Address("10.0.0.7".parse().unwrap())
        );
        assert!(Client::guest(a).is_guest());
        assert!(!Client::Member(3).is_guest());
    }

    #[test]
    fn only_a_trusted_proxy_names_the_client() {
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-for", "6.6.6.6, 10.0.0.1".parse().unwrap());
        let proxy: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        let trusted = ["127.0.0.1".parse().unwrap()];
        assert_eq!(
            address(proxy, &headers, &trusted),
            "10.0.0.1".parse::<IpAddr>().unwrap()
        );
        assert_eq!(address(proxy, &headers, &[]), proxy.ip());
    }
}
