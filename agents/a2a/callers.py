"""Who an A2A caller is: the holder of the key it sends, or no one.

A2A callers need no account. A caller that wants its tasks to itself, and listed (ListTasks),
makes itself a key: a random secret of KEY_MIN_CHARS characters or more, as
`secrets.token_urlsafe(32)` makes one, sent with every A2A request as `Authorization: Bearer
<key>` (the card's security scheme CALLER_KEY_SCHEME). Its tasks are kept under its owner, a
keyed digest of the key (HMAC-SHA256 under SECRET_KEY): the key itself is kept nowhere, and a
store that leaks lets no one find a key or test a guess of one. Only the same key reads those
tasks (GetTask), lists them (ListTasks) or names one in a message.

A caller without a key is anonymous: its tasks are kept under no owner (the SDK's anonymous
user, whose name is empty), read by whoever holds a task's id (a random UUID answered to that
caller alone), and never listed: any anonymous caller may be anyone, so ListTasks answers an
anonymous caller an empty list.

An Authorization header that is not a caller key (another scheme, a key too short, characters
no bearer token has) is refused with 401 and a challenge before anything runs: a caller that
meant to send a key learns it was not taken, rather than making tasks it then cannot list.
"""

import re

from django.utils.crypto import salted_hmac
from starlette.authentication import (
    AuthCredentials,
    AuthenticationBackend,
    AuthenticationError,
    BaseUser,
)
from starlette.requests import HTTPConnection
from starlette.responses import Response

from agents.a2a import A2A_JSONRPC_PATH, refusals

CALLER_KEY_SCHEME = "CallerKey"
KEY_MIN_CHARS = 32
KEY_MAX_CHARS = 256
# RFC 6750's b64token: what a bearer token is made of.
_KEY = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
# What makes an owner of a key: salted_hmac's salt, told apart from every other use of the key.
_SALT = "agents.a2a.callers.owner"
OWNER_PREFIX = "key-"


class KeyHolder(BaseUser):
    """A caller that sent a caller key: its name is the owner of its tasks."""

    def __init__(self, owner: str) -> None:
        self.owner = owner

    @property
    def is_authenticated(self) -> bool:
        return True

    @property
    def display_name(self) -> str:
        return self.owner


def owner_of(key: str) -> str:
    """The owner of the tasks of the caller holding `key`: never the key, nor a digest of it
    that anyone without SECRET_KEY could make."""
    return OWNER_PREFIX + salted_hmac(_SALT, key, algorithm="sha256").hexdigest()


def key_problem(key: str) -> str | None:
    """Why `key` is not a caller key, or None when it is one."""
    if not KEY_MIN_CHARS <= len(key) <= KEY_MAX_CHARS:
        return (
            f"A caller key is {KEY_MIN_CHARS} to {KEY_MAX_CHARS} characters (this one is "
            f"{len(key)}): make one with secrets.token_urlsafe(32)."
        )
    if not _KEY.fullmatch(key):
        return "A caller key is made of letters, digits and - . _ ~ + / (a bearer token)."
    return None


class CallerKeys(AuthenticationBackend):
    """Starlette's authentication backend for the A2A server: the key holder of a request with
    `Authorization: Bearer <key>`, none without Authorization, a refusal for anything else."""

    async def authenticate(self, conn: HTTPConnection) -> tuple[AuthCredentials, BaseUser] | None:
        header = conn.headers.get("authorization")
        if header is None:
            return None
        scheme, _, key = header.strip().partition(" ")
        if scheme.lower() != "bearer":
            raise AuthenticationError(
                "The A2A server takes one credential, a caller key: Authorization: Bearer <key>."
            )
        problem = key_problem(key.strip())
        if problem is not None:
            raise AuthenticationError(problem)
        return AuthCredentials(["tasks"]), KeyHolder(owner_of(key.strip()))


def refused(conn: HTTPConnection, exc: Exception) -> Response:
    """The answer to a request whose Authorization is no caller key, in its binding's terms."""
    sentence = f"invalid_caller_key: {exc}"
    if conn.url.path == A2A_JSONRPC_PATH:
        return refusals.jsonrpc_unauthenticated(sentence)
    return refusals.rest_unauthenticated(sentence)
