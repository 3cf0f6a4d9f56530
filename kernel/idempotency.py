"""Idempotency-Key on the API's POSTs: a retried request gets the first one's stored answer and
runs nothing again.

An agent that did not hear the answer to a POST (a timeout, a dropped connection) cannot know
whether it ran; retried blindly, `POST /v1/intents` would record a second intent and send every
subscribed merchant a second Intent.Surge. With `Idempotency-Key: <a value unique to the
request>` (Stripe's header, and the IETF httpapi draft's) it retries safely:

- the same key with the same request (a SHA-256 of its method, path and raw body) from the same
  caller gets the first answer again, status, body and headers, with `Idempotent-Replayed: true`;
- the same key with another request: 422 `idempotency_key_reused`;
- the same key while the first request is still being answered: 409 `idempotency_key_in_flight`.
  A request that died (a killed worker) holds its key IDEMPOTENCY_LOCK_S at most, longer than
  any request takes; the key's next retry then runs (the work a request commits and the answer
  kept for it are two writes: a request that died between them runs again then);
- a key is kept IDEMPOTENCY_KEY_TTL_S (24 hours) from its first request, then it is new again;
  beat's hourly prune deletes the expired ones.

Which answers are kept, and how much of each: kernel/idempotent_answers.py (a 2xx, a 409 or a
410; deflated, and past 6 KB only its status and digest, a replay then 409
`idempotency_answer_not_kept`). Any other answer (a refusal of the request itself: a 400, 401,
403 or 404; a throttle's 429; a 5xx) releases the key, so that the retry runs afresh. A request
refused before it runs (a credential missing or wrong, a throttle, a malformed key, a body too
large) claims no key: the claim is made after DRF's authentication, permissions and throttles.

A key costs a row for a day, so a client holds at most IDEMPOTENCY_KEYS_PER_CLIENT live keys
(1,000), counted by its address as the throttles know it, whatever credentials it presents
(those are free to vary); past that a new key is refused 429 `idempotency_key_limit`, with
`Retry-After` until its oldest key expires. Every keyed POST is throttled per client too.

A key belongs to its caller, never shared: the principal the view authenticated or its store
recognises (`idempotency_principal`: a merchant, by any of its X-Merchant-Tokens, which the
merchants app registers with kernel/idempotency_keys.py), else the
credentials the request presents (X-Merchant-Token, X-Supply-Key, X-Demand-Token), else the
client's address as the throttles know it. What is stored is a hash of caller and key, the
request's hash, and the answer encrypted (it may hold a secret shown once: a registration_token,
a demand_token); nothing of it is logged.

To opt in, a ViewSet takes `Idempotent` (kernel/idempotency_keys.py: this mechanism over the
kernel's table of keys, kernel/models.py) first among its bases.
Every POST action of it then takes the header, sync or coroutine (adrf), and /openapi.json
documents the header and its answers on each (`document`, called by kernel/contract.py):

    class CatalogSearchViewSet(Idempotent, viewsets.ViewSet): ...
"""

import asyncio
import copy
import hashlib
import logging
import re
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from asgiref.sync import sync_to_async
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from rest_framework.request import Request
from rest_framework.response import Response

from kernel import metrics
from kernel.errors import (
    IDEMPOTENCY_ANSWER_NOT_KEPT,
    IDEMPOTENCY_KEY_IN_FLIGHT,
    IDEMPOTENCY_KEY_LIMIT,
    IDEMPOTENCY_KEY_REUSED,
    INVALID_IDEMPOTENCY_KEY,
    ApiError,
    either,
)
from kernel.idempotent_answers import REPLAYED_HEADER, Answer, Digest, keeps, kept
from kernel.throttles import client_address

logger = logging.getLogger(__name__)

HEADER = "Idempotency-Key"
# 1 to 255 printable ASCII characters, no space at either end (HTTP would strip it).
KEY = re.compile(r"[!-~](?:[ -~]{0,253}[!-~])?")
# Credentials a request may present without its view authenticating a principal by them
# (registration with a token, the acceptance of a match).
CREDENTIAL_HEADERS = ("X-Merchant-Token", "X-Supply-Key", "X-Demand-Token")

REQUESTS = metrics.counter(
    "gateway_idempotent_requests",
    "POSTs that carried an Idempotency-Key, by outcome: kept (it ran, its answer is stored), "
    "digested (it ran, its answer too large to keep), released (it ran and its answer is not "
    "kept, or it failed), replayed, not_kept (409, a replay of a digested answer), reused "
    "(422), in_flight (409), limit (429, the client holds as many keys as it may).",
    ("outcome",),
)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- What is stored -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Keyed:
    """A POST that carries a key, as the store sees it."""

    key_hash: str  # SHA-256 of the caller and the key
    request_hash: str  # SHA-256 of the method, the path (and query) and the raw body
    caller: str  # the kind of caller: a model's label, "credential" or "client"
    method: str
    path: str
    owner: str  # SHA-256 of the client's address, whose live keys are counted


@dataclass(frozen=True)
class Claim:
    """A key claimed by one run of its request: the store's row, and which run it is."""

    row: int
    run: int


class Store(Protocol):
    """Where keys are kept (kernel/idempotency_keys.py)."""

    def claim(self, keyed: Keyed) -> Claim | Answer | Digest | ApiError:
        """The key claimed for this run; or its stored answer (or that answer's digest); or
        why not: another request had it (IDEMPOTENCY_KEY_REUSED), it is being answered
        (IDEMPOTENCY_KEY_IN_FLIGHT), or the client holds as many keys as it may
        (IDEMPOTENCY_KEY_LIMIT)."""
        ...

    def keep(self, claim: Claim, answer: Answer | Digest) -> None:
        """Store the claimed run's answer for the key's retries."""
        ...

    def release(self, claim: Claim) -> None:
        """Forget the claimed run: the key's next retry runs."""
        ...


# --- The request's caller and key ---------------------------------------------------------------


def caller(request: Request, principal: Any) -> tuple[str, str]:
    """Who sent the request, as (kind, identity): its principal (a model's row: the one the view
    authenticated, or its store found), else a hash of the credentials presented, else the
    client's address."""
    meta = getattr(principal, "_meta", None)
    if meta is not None and getattr(principal, "pk", None) is not None:
        return meta.label_lower, f"{meta.label_lower}:{principal.pk}"
    presented = [
        f"{name}: {request.headers[name]}" for name in CREDENTIAL_HEADERS if name in request.headers
    ]
    if presented:
        return "credential", "credential:" + _sha256("\n".join(presented).encode())
    return "client", f"client:{client_address(request)}"


def keyed(request: Request, key: str, principal: Any) -> Keyed:
    """The request under its key. Its raw body is read here, before DRF parses it (Django keeps
    it for the parser)."""
    kind, identity = caller(request, principal)
    method = str(request.method)
    target = f"{method} {request.get_full_path()}\n".encode()
    return Keyed(
        key_hash=_sha256(f"{identity}\n{key}".encode()),
        request_hash=_sha256(target + request.body),
        caller=kind,
        method=method,
        path=request.path,
        owner=_sha256(f"client:{client_address(request)}".encode()),
    )


# --- The view mixin -----------------------------------------------------------------------------


class Replay(Exception):
    """The key's answer is stored: the view answers it instead of running."""

    def __init__(self, answer: Answer) -> None:
        super().__init__("replayed")
        self.answer = answer


# A ViewSet mixin, first among its bases: every POST action takes an Idempotency-Key (the
# module's docstring). `idempotency_store` keeps the keys. Each method hands over to the view's
# own (DRF's or adrf's), next in line after the mixin. (No docstring: drf-spectacular would make
# it the description of the view's operations that have none.)
class IdempotentPosts:
    idempotency_store: ClassVar[Store]
    idempotency_claim: Claim | None = None

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        key = request.headers.get(HEADER) if request.method == "POST" else None
        if key is not None and not KEY.fullmatch(key):
            raise INVALID_IDEMPOTENCY_KEY()  # a client's mistake, whoever the client
        view: Any = super()
        view.initial(request, *args, **kwargs)  # authentication, permissions, throttles
        if key is None:
            return
        outcome = self.idempotency_store.claim(
            keyed(request, key, self.idempotency_principal(request))
        )
        if isinstance(outcome, ApiError):
            REQUESTS.labels(outcome.code.removeprefix("idempotency_key_")).inc()
            raise outcome
        if isinstance(outcome, Digest):
            REQUESTS.labels("not_kept").inc()
            raise IDEMPOTENCY_ANSWER_NOT_KEPT(
                status=outcome.status, size=outcome.size, named=outcome.named()
            )
        if isinstance(outcome, Answer):
            REQUESTS.labels("replayed").inc()
            raise Replay(outcome)
        self.idempotency_claim = outcome

    def idempotency_principal(self, request: Request) -> Any:
        """Whose keys the request's are: the principal the view authenticated, if any."""
        return request.user

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, Replay):
            return exc.answer.replayed()
        view: Any = super()
        answer: Response = view.handle_exception(exc)
        return answer

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        """DRF's (or adrf's) dispatch; then the answer kept for the key, or the key released."""
        self.idempotency_claim = None
        view: Any = super()
        try:
            answered = view.dispatch(request, *args, **kwargs)
        except BaseException:
            self._release()
            raise
        if asyncio.iscoroutine(answered):
            return self._settle_later(answered)
        return self._settle(answered)

    async def _settle_later(
        self, answering: Coroutine[Any, Any, HttpResponseBase]
    ) -> HttpResponseBase:
        try:
            response = await answering
        except BaseException:  # the client went away (cancelled), or a bug
            if self.idempotency_claim is not None:
                await sync_to_async(self._release)()
            raise
        if self.idempotency_claim is None:
            return response
        return await sync_to_async(self._settle)(response)

    def _settle(self, response: HttpResponseBase) -> HttpResponseBase:
        claim, self.idempotency_claim = self.idempotency_claim, None
        if claim is None:
            return response
        if not keeps(response.status_code) or not isinstance(response, HttpResponse):
            self._forget(claim)  # a streamed answer is not kept either
            return response
        render = getattr(response, "render", None)
        if callable(render):
            render()  # a DRF Response of a synchronous view: rendered once, here
        answer = kept(response)
        try:
            self.idempotency_store.keep(claim, answer)
        except DatabaseError as exc:
            # The request ran; its answer goes out. The key stays claimed until its lock lapses.
            logger.warning("the answer of an idempotent request could not be kept: %s", exc)
            return response
        REQUESTS.labels("kept" if isinstance(answer, Answer) else "digested").inc()
        return response

    def _release(self) -> None:
        claim, self.idempotency_claim = self.idempotency_claim, None
        if claim is not None:
            self._forget(claim)

    def _forget(self, claim: Claim) -> None:
        try:
            self.idempotency_store.release(claim)
        except DatabaseError as exc:  # the key stays claimed until its lock lapses
            logger.warning("an idempotency key could not be released: %s", exc)
            return
        REQUESTS.labels("released").inc()


# --- What /openapi.json says --------------------------------------------------------------------


def applies(view: Any, method: str) -> bool:
    """Whether the operation of `view` for `method` takes an Idempotency-Key."""
    return isinstance(view, IdempotentPosts) and method.upper() == "POST"


KEY_PARAMETER = {
    "in": "header",
    "name": HEADER,
    "required": False,
    "schema": {
        "type": "string",
        "minLength": 1,
        "maxLength": 255,
        "pattern": f"^{KEY.pattern}$",
    },
    "description": "A value of your choosing, unique to this request (a UUID), to retry it "
    "safely: the same key with the same request (method, path and body) from the same caller "
    "is answered with the first answer (`Idempotent-Replayed: true`), and nothing runs again; "
    "with another request, 422; while the first is still being answered, 409. 1 to 255 "
    "printable ASCII characters; kept 24 hours (IDEMPOTENCY_KEY_TTL_S), 1,000 live keys a "
    "client at most (IDEMPOTENCY_KEYS_PER_CLIENT). Only a 2xx, 409 or 410 answer is kept, and "
    "one over 6 KB deflated only as its digest (a replay is then 409); any other answer is not "
    "kept: its retry runs.",
}
REPLAYED = {
    "description": "`true` on an answer replayed for a repeated Idempotency-Key; absent otherwise.",
    "schema": {"type": "string", "enum": ["true"]},
}


def _with(operation: dict[str, Any], status: str, doc: str, error: dict[str, Any]) -> None:
    """The operation's `status` answer names `doc` first (what the view wrote may end with a
    sentence of its own), or is added with the error envelope."""
    responses = operation["responses"]
    if status in responses:
        responses[status]["description"] = either(doc, responses[status]["description"])
    else:
        responses[status] = {
            "content": {"application/json": {"schema": error}},
            "description": doc,
        }


def document(operation: dict[str, Any], error: dict[str, Any]) -> None:
    """Add the key to an operation of /openapi.json: the request header, the replay header on
    the answers a replay may give, and its own errors (`error`: the envelope's schema)."""
    operation.setdefault("parameters", []).append(copy.deepcopy(KEY_PARAMETER))
    for status, response in operation["responses"].items():
        if keeps(int(status)):
            response.setdefault("headers", {})[REPLAYED_HEADER] = copy.deepcopy(REPLAYED)
    _with(operation, "400", INVALID_IDEMPOTENCY_KEY.doc(), error)
    _with(
        operation,
        "409",
        either(IDEMPOTENCY_KEY_IN_FLIGHT.doc(), IDEMPOTENCY_ANSWER_NOT_KEPT.doc()),
        error,
    )
    _with(operation, "422", IDEMPOTENCY_KEY_REUSED.doc(), error)
    _with(operation, "429", IDEMPOTENCY_KEY_LIMIT.doc(), error)
    operation["responses"] = dict(sorted(operation["responses"].items()))
