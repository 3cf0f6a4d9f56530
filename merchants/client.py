"""The one way the gateway calls a merchant agent: a signed POST, SSRF-safe and bounded.

Merchant endpoints are attacker-controlled URLs. Before every request the endpoint is checked
again (https, no credentials, public addresses only: DNS may have changed since registration);
requests-hardened then connects to the address it checked (pinned), refuses private ones, and
never follows a redirect. Proxies from the environment are ignored, so none can bypass the
filter. Only the first kilobyte of an answer is read.

One call takes at most `timeout` seconds in all, however slowly the merchant drips its answer:
the request runs in a thread of its own and the caller stops waiting at the deadline (the thread
ends at its next socket timeout).
"""

import logging
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime

import requests
from django.conf import settings
from requests_hardened import Config, Manager
from requests_hardened.ip_filter import InvalidIPAddress
from standardwebhooks.webhooks import Webhook
from urllib3.exceptions import HTTPError

from merchants.endpoints import endpoint_problem

logger = logging.getLogger(__name__)

EXCERPT_BYTES = 1024
USER_AGENT = "IntentGateway-Webhooks/0.2"


@dataclass(frozen=True)
class Answer:
    """What came of one request: the merchant's status code, or why there was none."""

    status_code: int | None
    latency_ms: int
    error: str  # in the gateway's words; empty when the merchant answered 2xx
    excerpt: str = ""  # the start of the merchant's body, for staff only
    timed_out: bool = False  # no answer within the timeout (not a refusal or an error)

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def signature_headers(*, secret: str, msg_id: str, body: bytes, at: datetime) -> dict[str, str]:
    """Standard Webhooks headers for `body`, signed with the merchant's `whsec_` secret."""
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": Webhook(secret).sign(msg_id, at, body.decode()),
    }


def _session(timeout: float) -> requests.Session:
    session = Manager(
        Config(
            ip_filter_enable=not settings.WEBHOOK_ALLOW_PRIVATE_TARGETS,
            ip_filter_allow_loopback_ips=False,
            never_redirect=True,
            default_timeout=(min(timeout, 5.0), timeout),
            user_agent_override=USER_AGENT,
        )
    ).get_session()
    session.trust_env = False  # no proxy or .netrc from the environment
    return session


def _excerpt(response: requests.Response, deadline: float) -> str:
    """At most EXCERPT_BYTES of the body, read until the deadline; the rest is never read.

    The status code has arrived by now and alone decides the outcome: a body that breaks off or
    stalls leaves a shorter excerpt, never an error.
    """
    data = b""
    try:
        while len(data) < EXCERPT_BYTES and time.monotonic() < deadline:
            chunk = response.raw.read1(EXCERPT_BYTES - len(data))
            if not chunk:
                break
            data += chunk
    except (HTTPError, OSError):
        pass
    # PostgreSQL text holds no NUL; the excerpt is for people, so a replacement char will do.
    return data.decode("utf-8", "replace").replace("\x00", "\ufffd")


def _failure(status_code: int | None) -> str:
    if status_code is None or 200 <= status_code < 300:
        return ""
    if 300 <= status_code < 400:
        return f"The endpoint answered {status_code}, a redirect; redirects are never followed."
    return f"The endpoint answered {status_code}."


def _post(url: str, body: bytes, headers: dict[str, str], timeout: float, started: float) -> Answer:
    def elapsed_ms() -> int:
        return round((time.monotonic() - started) * 1000)

    try:
        with (
            _session(timeout) as session,
            session.post(url, data=body, headers=headers, stream=True) as response,
        ):
            excerpt = _excerpt(response, started + timeout)
            code = response.status_code
            return Answer(code, elapsed_ms(), _failure(code), excerpt)
    except InvalidIPAddress:
        error = "Not sent: the endpoint resolved to a private address."
    except requests.Timeout:
        return Answer(None, elapsed_ms(), f"No answer within {timeout:g} s.", timed_out=True)
    except requests.ConnectionError:
        error = "Could not connect to the endpoint."
    except (requests.RequestException, HTTPError, OSError) as exc:
        error = f"The request failed ({type(exc).__name__})."
    return Answer(None, elapsed_ms(), error)


def post_signed(*, url: str, secret: str, msg_id: str, body: bytes, timeout: float) -> Answer:
    """POST `body` to a merchant agent, signed; never takes much longer than `timeout` seconds
    and never raises: every failure is an Answer without a status code."""
    started = time.monotonic()
    headers = {
        "Content-Type": "application/json",
        **signature_headers(secret=secret, msg_id=msg_id, body=body, at=datetime.now(UTC)),
    }
    answers: list[Answer] = []

    def call() -> None:
        # The endpoint is checked here, in the thread: its DNS lookup is bounded by the deadline.
        problem = endpoint_problem(url)
        if problem:
            answers.append(Answer(None, 0, f"Not sent: the endpoint {problem}."))
        else:
            answers.append(_post(url, body, headers, timeout, started))

    thread = threading.Thread(target=call, name=f"merchant-call {msg_id}", daemon=True)
    thread.start()
    thread.join(timeout)
    answer = answers[0] if answers else None
    if answer is None:
        answer = Answer(
            None, round(timeout * 1000), f"No answer within {timeout:g} s.", timed_out=True
        )
    if not answer.ok:
        logger.info("merchant call %s failed: %s", msg_id, answer.error)
    return answer
