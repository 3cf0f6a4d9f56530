"""What an Idempotency-Key keeps of its request's answer (kernel/idempotency.py): which answers
are kept at all, and how much of one.

A key costs a row for a day, whoever sends it, so what a row holds is bounded:

- Only answers a retry could otherwise change are kept: a 2xx (the request did its work), and a
  409 or 410 (it met a state another request made: a match accepted, a token expired). Any
  other answer is a refusal that depends on the request alone, or on nothing the request did (a
  400 of its body, a 401 or 403 of its credentials, a 404 of an unknown id): it changed nothing,
  so its key is released and a retry runs afresh, as a request without a key would.
- A kept answer is deflated; past ANSWER_MAX_BYTES once sealed (its headers, its body deflated,
  base64: what is encrypted), only its status, its size, a SHA-256 of its body and the ids it
  named (`proposal_id`, `match_session_id`: those of its top-level objects) are kept, and a
  replay is refused 409 `idempotency_answer_not_kept` naming them, so that the caller reads the
  resource by its id (or sends a lookup, or a mint of the same token, again). 6 KB sealed is at
  most 8,292 bytes encrypted (Fernet's base64 of the ciphertext, its IV, time and MAC): almost
  every answer of a command fits; a UCP lookup's products, or an acceptance or a proposal
  carrying large metadata, do not, and need not.
- An answer that shows a secret once (a registration_token, a webhook_secret, a demand_token)
  is kept whole whatever its size (`shown_once`): its replay is the only way to see it again.
  Its size is bounded by its request's (metadata at most 16 KB, a body at most 256 KB).
"""

import base64
import hashlib
import zlib
from dataclasses import dataclass
from functools import cached_property

import orjson
from django.http import HttpResponse
from rest_framework.response import Response

REPLAYED_HEADER = "Idempotent-Replayed"
# The most a kept answer may take sealed (headers, deflated body, base64), before encryption.
ANSWER_MAX_BYTES = 6 * 1024
# 2xx aside, the answers kept for a key's retries: a conflict with what another request did.
KEPT_ERRORS = frozenset({409, 410})
# An attribute of a response whose body shows a secret once: kept whole, whatever its size.
SHOWN_ONCE = "idempotency_shown_once"


def keeps(status: int) -> bool:
    """Whether an answer of this status is stored for the key's retries (the module's
    docstring); any other releases the key."""
    return 200 <= status < 300 or status in KEPT_ERRORS


def shown_once(response: Response) -> Response:
    """Mark an answer that shows a secret once: its key keeps it whole, whatever its size."""
    setattr(response, SHOWN_ONCE, True)
    return response


@dataclass(frozen=True)
class Answer:
    """An answer as kept for a key's retries: its status, headers and body."""

    status: int
    headers: tuple[tuple[str, str], ...]
    content: bytes

    @classmethod
    def of(cls, response: HttpResponse) -> "Answer":
        return cls(response.status_code, tuple(response.items()), bytes(response.content))

    @cached_property
    def sealed(self) -> str:
        """The headers and the deflated body as one text, for an encrypted column."""
        deflated = base64.b64encode(zlib.compress(self.content, 6)).decode()
        return orjson.dumps({"headers": self.headers, "deflated": deflated}).decode()

    def replayed(self) -> Response:
        """The answer again, as DRF's dispatch takes it from a handler; its body already
        rendered, so no renderer touches it."""
        response = Response(status=self.status)
        for name, value in self.headers:
            response[name] = value
        response[REPLAYED_HEADER] = "true"
        response.content = self.content
        return response


@dataclass(frozen=True)
class Digest:
    """An answer too large to keep, as kept: its status, its body's size and SHA-256, and the
    ids its top-level objects named."""

    status: int
    size: int
    sha256: str
    ids: tuple[tuple[str, str], ...] = ()

    @property
    def sealed(self) -> str:
        document = {"size": self.size, "sha256": self.sha256, "ids": self.ids}
        return orjson.dumps(document).decode()

    def named(self) -> str:
        """The ids, as the refusal of a replay names them."""
        named = ", ".join(f"{name} {value}" for name, value in self.ids)
        return f"; it named {named}" if named else ""


def _ids(content: bytes) -> tuple[tuple[str, str], ...]:
    """The `*_id` members of a JSON answer's top-level objects (`{"proposal": {"proposal_id"`)."""
    try:
        body = orjson.loads(content)
    except orjson.JSONDecodeError:
        return ()
    if not isinstance(body, dict):
        return ()
    objects = [value for value in body.values() if isinstance(value, dict)]
    return tuple(
        (name, value)
        for found in objects
        for name, value in found.items()
        if name.endswith("_id") and isinstance(value, str) and len(value) <= 64
    )[:4]


def kept(response: HttpResponse) -> Answer | Digest:
    """What a key keeps of a rendered answer: the answer, or, past the bound, its digest."""
    answer = Answer.of(response)
    if getattr(response, SHOWN_ONCE, False) or len(answer.sealed) <= ANSWER_MAX_BYTES:
        return answer
    digest = hashlib.sha256(answer.content).hexdigest()
    return Digest(answer.status, len(answer.content), digest, _ids(answer.content))


def unsealed(status: int, text: str) -> Answer | Digest:
    """A kept answer read back (an answer kept before answers were deflated included)."""
    document = orjson.loads(text)
    if "sha256" in document:
        ids = tuple((str(name), str(value)) for name, value in document["ids"])
        return Digest(status, int(document["size"]), str(document["sha256"]), ids)
    headers = tuple((str(name), str(value)) for name, value in document["headers"])
    if "deflated" in document:
        return Answer(status, headers, zlib.decompress(base64.b64decode(document["deflated"])))
    return Answer(status, headers, base64.b64decode(document["content"]))
