"""Merchant agent endpoints are attacker-controlled URLs: check them before anything calls them.

An endpoint must be https, carry no credentials, and resolve only to public addresses (every
A/AAAA answer), unless the operator allows plain http or private targets for local development.
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


def _public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    # Python counts the deprecated IPv6 site-local block (fec0::/10) as global; networks that
    # still route it are private ones.
    site_local = isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local
    return ip.is_global and not ip.is_multicast and not site_local


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
    try:
        answers = socket.getaddrinfo(parts.hostname, port or 443, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return "does not resolve"
    if not settings.WEBHOOK_ALLOW_PRIVATE_TARGETS and not all(
        _public(str(answer[4][0])) for answer in answers
    ):
        return "must resolve only to public addresses"
    return None
