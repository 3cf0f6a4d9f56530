"""The agent card's signature (A2A v1.0, section 8.4): a JWS with a detached payload.

The payload is the RFC 8785 canonical JSON of the card without its `signatures` member; the
protected header names the key (`kid`, its RFC 7638 thumbprint), its algorithm (`alg`, ES256 or
RS256 as the key is EC or RSA), `typ` JOSE and `jku`, the JWK Set that publishes the key. The
card carries `protected` and `signature`, as base64url; a verifier rebuilds the signing input,
BASE64URL(protected header) || "." || BASE64URL(canonical card), from the card it fetched and
checks it with the key it finds under `kid` in the JWK Set. The card is signed with the first
configured key (the mandates' signing key), and served unsigned when no key is configured.

The card is built for every request, but a signature is made once per (card, key): RSA costs
milliseconds a signature, and a busy card endpoint would pay that on every request.
"""

import functools
from typing import Any

from kernel.jsonio import dumps, loads
from kernel.signing import SigningKey, b64url, canonical_json, signing_keys

JWS_TYPE = "JOSE"


@functools.lru_cache(maxsize=16)
def _signature(key: SigningKey, card: bytes, jku: str) -> dict[str, str]:
    """The AgentCardSignature of the card whose JSON is `card` (the cache's key: the bytes the
    view serves, cheap to make and to compare, unlike the canonical form)."""
    header = {"alg": key.algorithm, "kid": key.kid, "jku": jku, "typ": JWS_TYPE}
    protected = b64url(canonical_json(header))
    payload = b64url(canonical_json(loads(card)))
    return {"protected": protected, "signature": key.sign(f"{protected}.{payload}".encode())}


def signed_card(card: dict[str, Any], *, jku: str) -> dict[str, Any]:
    """The card with `signatures` made by the signing key; the card itself without a key."""
    keys = signing_keys()
    if not keys:
        return card
    unsigned = {name: value for name, value in card.items() if name != "signatures"}
    return {**unsigned, "signatures": [_signature(keys[0], dumps(unsigned), jku)]}
