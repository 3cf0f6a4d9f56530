"""The digests under which the gateway keeps the tokens it issues (a merchant's registration
token, a demand agent's token): never the token itself."""

import hashlib


def token_digest(token: str) -> str:
    """The SHA-256 hex digest under which a token is stored and looked up.

    A token carries 256 random bits, so a fast unsalted hash is enough: there is nothing to
    guess. Lookups go by digest (a unique index), so no stored secret is ever compared in Python.
    """
    return hashlib.sha256(token.encode()).hexdigest()
