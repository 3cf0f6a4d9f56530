"""Which UCP release a platform speaks: the `ucp.version` of its own profile, whose URL it names
with each request (REST: the UCP-Agent header, `profile="https://..."`, an RFC 8941 dictionary;
MCP: `meta.ucp-agent.profile`), as UCP's request-time validation asks. A release the gateway
does not speak is `version_unsupported`; a request that names no profile is answered in
profile.UNDECLARED.

A platform's profile is an attacker-controlled URL, fetched as a merchant endpoint is called
(merchants/endpoints.py, merchants/client.py): https, an allowed port and public addresses only
(the operator's switches for local development apply), the connection pinned to the address
checked, no redirect, no proxy; at most MAX_PROFILE_BYTES, within FETCH_TIMEOUT_S in all: the
connection is shut down at the deadline whatever it waits for, the TLS handshake, the head or
the body, however slowly the platform drips them (merchants/client.py), so a fetch's thread, and
its place among the fetches, ends with it. What a platform can make the gateway do is bounded:
at most FETCHES_IN_FLIGHT fetches a process at once (past them a request is refused at once, and
no other work waits on a fetch: none runs on the event loop's shared threads), at most
FETCHES_PER_DESTINATION_PER_MINUTE to one destination, counted apart from what merchants are sent
(merchants/delivery/hosts.py: naming profiles on a merchant's host spends nothing of its
deliveries'); and each process remembers what it learned of a URL, the release for as long as
the profile's Cache-Control lets, but KEEP_MIN_S at least (no platform makes the gateway fetch
on every request) and KEEP_MAX_S at most, a failure of the URL's for FAILURE_KEEP_S. A refusal
that says nothing of the URL (every fetch under way, its destination's minute spent) is never
remembered under it. The views negotiate after the throttles.
"""

import asyncio
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TypeGuard
from urllib.parse import urlsplit

import orjson
import requests
from cachetools import TLRUCache
from requests_hardened.ip_filter import InvalidIPAddress
from urllib3.exceptions import HTTPError

from agents.ucp import profile as ucp
from agents.ucp.errors import (
    UCP_BAD_AGENT,
    UCP_PROFILE_MALFORMED,
    UCP_PROFILE_NOT_PUBLIC,
    UCP_PROFILE_UNREACHABLE,
    UCP_VERSION_UNSUPPORTED,
)
from kernel.errors import ApiError
from merchants.client import pinned_session
from merchants.delivery.hosts import host_allows
from merchants.endpoints import endpoint_target

FETCH_TIMEOUT_S = 3.0
MAX_PROFILE_BYTES = 256 * 1024
MAX_URL_CHARS = 2048
KEEP_DEFAULT_S = 300  # a profile served without max-age
KEEP_MIN_S = 60  # a profile served no-store, no-cache or max-age=0 too
KEEP_MAX_S = 3600
FAILURE_KEEP_S = 60
FETCHES_IN_FLIGHT = 8  # in one process
FETCHES_PER_DESTINATION_PER_MINUTE = 30  # counted in the shared cache, for every process
READ_BYTES = 16 * 1024
USER_AGENT = "IntentGateway-UCP/1.0"
# The `profile` member of an RFC 8941 dictionary: an sf-string, `\"` and `\\` its escapes.
_PROFILE = re.compile(r'(?:^|,)\s*profile\s*=\s*"((?:[^"\\]|\\["\\])*)"\s*(?:;[^,]*)?(?=,|$)')
_MAX_AGE = re.compile(r"(?:^|,)\s*max-age\s*=\s*(\d{1,9})\s*(?=,|$)", re.IGNORECASE)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")

# URL -> (the release, or the error's status, code and sentence; seconds to keep it).
Learned = tuple[str | tuple[int, str, str], float]
_learned: "TLRUCache[str, Learned]" = TLRUCache(
    maxsize=4096, ttu=lambda _url, entry, now: now + entry[1]
)
_lock = threading.Lock()
_slots = threading.BoundedSemaphore(FETCHES_IN_FLIGHT)
# The threads that wait on fetches for the views, apart from the event loop's shared ones.
_waiting = ThreadPoolExecutor(max_workers=FETCHES_IN_FLIGHT, thread_name_prefix="ucp-profile")


def well_formed(url: object) -> TypeGuard[str]:
    """Whether `url` reads as a profile URL at all: http(s), a host, not overlong."""
    if not isinstance(url, str) or len(url) > MAX_URL_CHARS:
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def profile_url(header: str) -> str:
    """The platform's profile URL that a UCP-Agent header names. Raises UCP_BAD_AGENT."""
    found = _PROFILE.search(header.strip())
    url = re.sub(r"\\(.)", r"\1", found.group(1)) if found else None
    if not well_formed(url):
        raise UCP_BAD_AGENT()
    return url


def _keep_s(cache_control: str) -> float:
    if re.search(r"no-store|no-cache", cache_control, re.IGNORECASE):
        return KEEP_MIN_S
    found = _MAX_AGE.search(cache_control)
    if found is None:
        return KEEP_DEFAULT_S
    return min(max(int(found.group(1)), KEEP_MIN_S), KEEP_MAX_S)


def _read(response: requests.Response, deadline: float) -> bytes:
    """The body, a socket read at a time (never waiting to fill a chunk), until the deadline.
    Raises UCP_PROFILE_UNREACHABLE."""
    body = b""
    while chunk := response.raw.read1(READ_BYTES):
        body += chunk
        if len(body) > MAX_PROFILE_BYTES:
            raise UCP_PROFILE_UNREACHABLE(reason=f"it is larger than {MAX_PROFILE_BYTES} bytes.")
        if time.monotonic() > deadline:
            raise UCP_PROFILE_UNREACHABLE(reason=f"no answer within {FETCH_TIMEOUT_S:g} s.")
    return body


def _fetch(url: str, deadline: float) -> tuple[bytes, float]:
    """The profile at `url` and how long it may be kept. Raises UCP_PROFILE_NOT_PUBLIC or
    UCP_PROFILE_UNREACHABLE."""
    target = endpoint_target(url)
    if target.problem or target.destination is None:
        raise UCP_PROFILE_NOT_PUBLIC()
    if not host_allows(
        target, bound="ucp-profile-destination", per_minute=FETCHES_PER_DESTINATION_PER_MINUTE
    ):
        raise _busy("its host was asked as often as it may be this minute.")
    left = max(deadline - time.monotonic(), 0.1)
    session = pinned_session(
        target.destination, connect_s=left, read_s=left, user_agent=USER_AGENT, deadline=deadline
    )
    headers = {"Accept": "application/json", "Accept-Encoding": "identity"}  # no bomb
    try:
        with session, session.get(url, headers=headers, stream=True) as response:
            if not 200 <= response.status_code < 300:
                raise UCP_PROFILE_UNREACHABLE(reason=f"it answered {response.status_code}.")
            body = _read(response, deadline)
            if time.monotonic() >= deadline:  # cut short by the connection's shutdown
                raise UCP_PROFILE_UNREACHABLE(reason=f"no answer within {FETCH_TIMEOUT_S:g} s.")
            return body, _keep_s(response.headers.get("Cache-Control", ""))
    except InvalidIPAddress:
        raise UCP_PROFILE_NOT_PUBLIC() from None
    except (requests.RequestException, HTTPError, OSError) as exc:
        if isinstance(exc, requests.Timeout) or time.monotonic() >= deadline:
            reason = f"no answer within {FETCH_TIMEOUT_S:g} s."  # or shut down at the deadline
        elif isinstance(exc, requests.ConnectionError):
            reason = "could not connect."
        else:
            reason = f"the request failed ({type(exc).__name__})."
        raise UCP_PROFILE_UNREACHABLE(reason=reason) from None


def _fetched(url: str) -> tuple[bytes, float]:
    """_fetch in a thread of its own, one of FETCHES_IN_FLIGHT, waited on FETCH_TIMEOUT_S at
    most. Raises UCP_PROFILE_NOT_PUBLIC or UCP_PROFILE_UNREACHABLE."""
    if not _slots.acquire(blocking=False):
        raise _busy(
            "the gateway is fetching as many platform profiles as it may; ask again in a moment."
        )
    deadline = time.monotonic() + FETCH_TIMEOUT_S
    outcome: list[tuple[bytes, float] | ApiError] = []

    def fetch() -> None:
        try:
            outcome.append(_fetch(url, deadline))
        except ApiError as error:
            outcome.append(error)
        finally:
            _slots.release()

    thread = threading.Thread(target=fetch, name="ucp-profile-fetch", daemon=True)
    thread.start()
    thread.join(FETCH_TIMEOUT_S)
    if not outcome:
        raise UCP_PROFILE_UNREACHABLE(reason=f"no answer within {FETCH_TIMEOUT_S:g} s.")
    if isinstance(outcome[0], ApiError):
        raise outcome[0]
    return outcome[0]


class Busy(ApiError):
    """profile_unreachable for a reason of the gateway's, not the URL's: never remembered."""


def _busy(reason: str) -> Busy:
    error = UCP_PROFILE_UNREACHABLE(reason=reason)
    return Busy(error.status_code, error.code, error.message)


def _release(body: bytes) -> str:
    """The release a profile declares, when the gateway speaks it."""
    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise UCP_PROFILE_MALFORMED() from None
    meta = document.get("ucp") if isinstance(document, dict) else None
    version = meta.get("version") if isinstance(meta, dict) else None
    if not isinstance(version, str) or not _DATE.fullmatch(version):
        raise UCP_PROFILE_MALFORMED()
    if version not in ucp.RELEASES:
        raise UCP_VERSION_UNSUPPORTED(version=version, releases=" and ".join(ucp.RELEASES))
    return version


def _learn(url: str) -> Learned:
    """What the profile at `url` says, and how long to remember it (0: not at all)."""
    try:
        body, keep_s = _fetched(url)
        return _release(body), keep_s
    except Busy as error:
        return (error.status_code, error.code, error.message), 0
    except ApiError as error:
        return (error.status_code, error.code, error.message), FAILURE_KEEP_S


def release_of(url: str) -> str:
    """The release the platform whose profile is at `url` speaks; blocks for at most about
    FETCH_TIMEOUT_S. Raises ApiError: invalid_profile_url, profile_unreachable,
    profile_malformed or version_unsupported."""
    with _lock:
        learned = _learned.get(url)
    if learned is None:
        learned = _learn(url)
        if learned[1] > 0:
            with _lock:
                _learned[url] = learned
    outcome = learned[0]
    if isinstance(outcome, str):
        return outcome
    status, code, message = outcome
    raise ApiError(status, code, message)


def remembered(url: str) -> str | None:
    """The release this process knows the platform at `url` speaks, without fetching."""
    with _lock:
        learned = _learned.get(url)
    return learned[0] if learned is not None and isinstance(learned[0], str) else None


async def declared_release(url: str) -> str:
    """release_of, awaited off the event loop: answered in it when remembered, else waited on in
    a thread of this module's own."""
    known = remembered(url)
    if known is not None:
        return known
    return await asyncio.get_running_loop().run_in_executor(_waiting, release_of, url)
