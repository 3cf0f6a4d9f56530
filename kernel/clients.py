"""Who a client is, wherever the gateway counts clients: the web worker's connections, the
throttles, the Idempotency-Keys a client may hold, the staff login's lockout, A2A and MCP
callers, buy-link clicks. nginx keys its own bounds the same way (ops/nginx/).

An IPv4 address is one client. An IPv6 address is its /64: one subscriber's network (RFC 6177,
RFC 8981), in which a host picks any of 2**64 addresses at will, so counting addresses would give
one host as many allowances as it likes. An IPv4 address mapped into IPv6 (a dual-stack socket's
peer) is that IPv4 address.
"""

import ipaddress


def client_network(address: str) -> str:
    """The client `address` stands for: `203.0.113.7`, or `2001:db8:1:2::/64` for any address of
    that /64 (a zone index such as `%eth0` dropped). Anything that is no address (an empty
    string, a Unix socket's name) is kept as written, stripped of blanks."""
    text = address.strip()
    try:
        ip = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return text
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def network_address(client: str) -> str:
    """The first address of a client's network (`2001:db8:1:2::` for `2001:db8:1:2::/64`), an IP
    address for a store that keeps one (the login lockout's column); an IPv4 client as it is."""
    return client.removesuffix("/64")
