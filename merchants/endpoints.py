"""Merchant agent endpoints are attacker-controlled URLs: check them before anything calls them.

An endpoint must be https, carry no credentials, use an allowed port (WEBHOOK_ALLOWED_PORTS,
443 by default) and resolve only to public addresses (every A/AAAA answer), unless the operator
allows plain http or private targets (any port then) for local development. An IPv6 address
that carries an IPv4 one (compatible, mapped, translated, NAT64, 6to4, Teredo) is refused
whatever it carries: the IPv4 address inside decides where a packet goes, and Python calls most
of these forms global.

Python's own idea of a global address misses some of the special-purpose blocks (RFC 6890 and
the IANA registries that followed it): SPECIAL_PURPOSE lists, in one place, the blocks refused
whatever the interpreter says.

An IPv4 address is written one way only, as four decimal numbers (`93.184.216.34`). The other
spellings the resolver accepts (`2130706433`, `0x7f000001`, `0177.0.0.1`, `127.1`) are refused
when an endpoint is registered or changed: one address, one spelling.

Where an endpoint points is never told apart: one that does not resolve, resolves to a private
address, is spelled oddly or uses another port gets the same sentence, so registration is no
probe of the gateway's own network.

Every request goes to a Destination: the address and port the check looked up and judged. The
client connects to that address (pinned: no second lookup), and the bounds on what the gateway
sends (merchants/delivery/hosts.py, in-flight deliveries) count destinations, never spellings.
"""

import ipaddress
import re
import socket
import threading
from dataclasses import dataclass
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
# An IPv4 address as a dotted quad, and a host name whose last label starts with a letter: the
# one spelling of an address, and no name that reads as an address (odd_ipv4).
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_DOTTED_QUAD = re.compile(rf"{_OCTET}(?:\.{_OCTET}){{3}}")
_HOST_NAME = rf"(?:{_LABEL}\.)*[A-Za-z](?:[A-Za-z0-9-]{{0,61}}[A-Za-z0-9])?"
# The contract's pattern: the same shape, https, with a host name or an IPv4 address, each
# written the one way registration accepts.
ENDPOINT_PATTERN = rf"^https:{_after_scheme(f'(?:{_DOTTED_QUAD.pattern}|{_HOST_NAME})')}$"


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


# Special-purpose blocks (RFC 6890, the IANA IPv4 and IPv6 special-purpose address registries)
# that are not globally reachable, refused whatever `is_global` says. Each was checked against
# the interpreter (CPython 3.11.7): the first four it calls global; the others it already
# refuses, and are listed so that the rule does not hang on the interpreter's version.
SPECIAL_PURPOSE = tuple(
    ipaddress.ip_network(network)
    for network in (
        "192.0.0.0/24",  # IETF protocol assignments (but .9 and .10: GLOBALLY_REACHABLE)
        "192.88.99.0/24",  # 6to4 relay anycast (deprecated, RFC 7526): relays into IPv6
        "3fff::/20",  # documentation (RFC 9637)
        "5f00::/16",  # segment routing SIDs (RFC 9602)
        "0.0.0.0/8",  # "this network"
        "10.0.0.0/8",  # private use
        "100.64.0.0/10",  # shared address space (carrier NAT)
        "127.0.0.0/8",  # loopback
        "169.254.0.0/16",  # link local
        "172.16.0.0/12",  # private use
        "192.0.2.0/24",  # documentation (TEST-NET-1)
        "192.168.0.0/16",  # private use
        "198.18.0.0/15",  # benchmarking
        "198.51.100.0/24",  # documentation (TEST-NET-2)
        "203.0.113.0/24",  # documentation (TEST-NET-3)
        "240.0.0.0/4",  # reserved
        "255.255.255.255/32",  # limited broadcast
    )
)
# Within 192.0.0.0/24, the two globally reachable anycast addresses (PCP, TURN).
GLOBALLY_REACHABLE = frozenset(ipaddress.ip_address(a) for a in ("192.0.0.9", "192.0.0.10"))


def public_address(address: str) -> bool:
    """Whether `address` (an IPv4 or IPv6 literal) is a public one a merchant may be at."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if ip not in GLOBALLY_REACHABLE and any(ip in network for network in SPECIAL_PURPOSE):
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        if any(ip in network for network in EMBEDS_IPV4):
            return False
        # Python counts the deprecated site-local block (fec0::/10) as global; networks that
        # still route it are private ones.
        if ip.is_site_local:
            return False
    return ip.is_global and not ip.is_multicast


def odd_ipv4(host: str) -> bool:
    """Whether `host` (as urlsplit gives it: no brackets) is an IPv4 address spelled other than as
    a dotted quad: a number (decimal, hex, octal), fewer than four parts, leading zeros. As WHATWG
    URLs read a host, one whose last label is a number is an IPv4 address; a name's last label (a
    top-level domain) starts with a letter."""
    if ":" in host:  # an IPv6 address
        return False
    last = host.rsplit(".", 1)[-1]
    return not (_DOTTED_QUAD.fullmatch(host) or (last[:1].isascii() and last[:1].isalpha()))


@dataclass(frozen=True)
class Destination:
    """Where a request goes: the address an endpoint's host resolved to, and the port."""

    address: str
    port: int

    @property
    def key(self) -> str:
        """One name per destination, whatever spelling led to it (`[::1]:443`, `1.1.1.1:443`)."""
        ip = ipaddress.ip_address(self.address)
        return f"[{ip.compressed}]:{self.port}" if ip.version == 6 else f"{ip}:{self.port}"


@dataclass(frozen=True)
class Target:
    """An endpoint URL checked: its destination, or why it may not be called."""

    url: str
    destination: Destination | None
    problem: str = ""


def endpoint_target(url: str) -> Target:
    """Check `url` (module docstring) and look up where it goes: every address its host resolves
    to must be allowed; the first is the destination."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return Target(url, None, "is not a valid URL")
    allowed = ("https", "http") if settings.WEBHOOK_ALLOW_HTTP else ("https",)
    if parts.scheme not in allowed:
        return Target(url, None, "must be an https URL")
    if parts.username is not None or parts.password is not None:
        return Target(url, None, "must not carry credentials")
    if not parts.hostname:
        return Target(url, None, "must name a host")
    if not re.fullmatch(rf"(?i:{parts.scheme}):{_AFTER_SCHEME}", url):
        return Target(url, None, "is not a valid URL")
    port = port or (443 if parts.scheme == "https" else 80)
    private_allowed = settings.WEBHOOK_ALLOW_PRIVATE_TARGETS
    if not private_allowed and port not in settings.WEBHOOK_ALLOWED_PORTS:
        return Target(url, None, NOT_PUBLIC)
    try:
        answers = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return Target(url, None, NOT_PUBLIC)
    addresses = [str(answer[4][0]) for answer in answers]
    if not addresses or not (private_allowed or all(map(public_address, addresses))):
        return Target(url, None, NOT_PUBLIC)
    return Target(url, Destination(addresses[0].split("%", 1)[0], port))


def endpoint_target_within(url: str, timeout: float) -> Target:
    """endpoint_target, given up after `timeout` seconds (a resolver that hangs holds no one:
    the lookup's thread ends on its own)."""
    found: list[Target] = []
    thread = threading.Thread(target=lambda: found.append(endpoint_target(url)), daemon=True)
    thread.start()
    thread.join(timeout)
    return found[0] if found else Target(url, None, NOT_PUBLIC)


def endpoint_problem(url: str) -> str | None:
    """Why `url` may not be called now, or None when it may."""
    return endpoint_target(url).problem or None


def registration_problem(url: str) -> str | None:
    """Why `url` may not become a merchant's endpoint, or None when it may: the rules of a call,
    and an IPv4 address written as a dotted quad only."""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        host = None
    if host and odd_ipv4(host):
        return NOT_PUBLIC
    return endpoint_problem(url)
