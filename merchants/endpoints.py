"""Merchant agent endpoints are attacker-controlled URLs: check them before anything calls them.

An endpoint must be https, carry no credentials, use an allowed port (WEBHOOK_ALLOWED_PORTS,
443 by default) and resolve only to public addresses (every A/AAAA answer), unless the operator
allows plain http or private targets (any port then) for local development. An IPv6 address
that carries an IPv4 one (compatible, mapped, translated, NAT64, 6to4, Teredo) is refused
whatever it carries: the IPv4 address inside decides where a packet goes, and Python calls most
of these forms global.

Where an endpoint points is never told apart: one that does not resolve, resolves to a private
address or uses another port gets the same sentence, so registration is no probe of the
gateway's own network.
"""

import ipaddress
import re
import socket
from urllib.parse import urlsplit

from django.conf import settings

# The shape of an endpoint after its scheme, in RFC 3986 characters: a host name, an IPv4
# address or a bracketed IPv6 address, an optional port 1-65535, then an optional path, query and
# fragment (ASCII, other characters percent-encoded).
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_NAME = rf"{_LABEL}(?:\.{_LABEL})*"
_PORT = r"6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}"
_PCHAR = r"(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})"


def _after_scheme(host: str) -> str:
    return (
        rf"//{host}(?::(?:{_PORT}))?(?:/(?:{_PCHAR}|/)*)?"
        rf"(?:\?(?:{_PCHAR}|[/?])*)?(?:#(?:{_PCHAR}|[/?])*)?"
    )


# An IPv6 literal's own syntax is left to urlsplit, which refuses an invalid one.
_AFTER_SCHEME = _after_scheme(rf"(?:{_NAME}|\[[0-9A-Fa-f:.]+\])")
# The contract's pattern: the same shape, https, with a host name or an IPv4 address.
ENDPOINT_PATTERN = rf"^https:{_after_scheme(_NAME)}$"


NOT_PUBLIC = "must resolve only to public addresses, on an allowed port"

# IPv6 ranges whose addresses carry an IPv4 address.
EMBEDS_IPV4 = tuple(
    ipaddress.IPv6Network(network)
    for network in (
        "::/96",  # IPv4-compatible (deprecated), and :: and ::1
        "::ffff:0:0/96",  # IPv4-mapped
        "::ffff:0:0:0/96",  # IPv4-translated (SIIT)
        "64:ff9b::/96",  # NAT64, well-known prefix
        "64:ff9b:1::/48",  # NAT64, local-use prefix
        "2002::/16",  # 6to4
        "2001::/32",  # Teredo
    )
)


def public_address(address: str) -> bool:
    """Whether `address` (an IPv4 or IPv6 literal) is a public one a merchant may be at."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        if any(ip in network for network in EMBEDS_IPV4):
            return False
        # Python counts the deprecated site-local block (fec0::/10) as global; networks that
        # still route it are private ones.
        if ip.is_site_local:
            return False
    return ip.is_global and not ip.is_multicast


def endpoint_problem(url: str) -> str | None:
    """Why `url` may not be a merchant endpoint, or None when it may."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "is not a valid URL"
    allowed = ("https", "http") if settings.WEBHOOK_ALLOW_HTTP else ("https",)
    if parts.scheme not in allowed:
        return "must be an https URL"
    if parts.username is not None or parts.password is not None:
        return "must not carry credentials"
    if not parts.hostname:
        return "must name a host"
    if not re.fullmatch(rf"(?i:{parts.scheme}):{_AFTER_SCHEME}", url):
        return "is not a valid URL"
    port = port or (443 if parts.scheme == "https" else 80)
    private_allowed = settings.WEBHOOK_ALLOW_PRIVATE_TARGETS
    if not private_allowed and port not in settings.WEBHOOK_ALLOWED_PORTS:
        return NOT_PUBLIC
    try:
        answers = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return NOT_PUBLIC
    if not private_allowed and not all(public_address(str(answer[4][0])) for answer in answers):
        return NOT_PUBLIC
    return None
