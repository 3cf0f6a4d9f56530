"""The agent card's JWS signature (A2A v1.0 section 8.4), checked by an independent JOSE library
(joserfc) with nothing but what the gateway serves: the card and the JWK Set its `jku` names;
each dialect of the card signed as it is served."""

import json
import uuid
from urllib.parse import urlsplit

import pytest
import rfc8785
from a2a.client.card_resolver import parse_agent_card
from a2a.compat.v0_3.types import AgentCard as AgentCardV03
from a2a.utils.signing import InvalidSignaturesError, create_signature_verifier
from joserfc.errors import BadSignatureError
from joserfc.jwk import KeySet
from joserfc.jws import deserialize_compact
from jwt import PyJWK

from kernel.signing import SigningKey, b64url, b64url_decode, load_signing_keys

pytestmark = pytest.mark.django_db

CARD = "/.well-known/agent-card.json"
LEGACY = "/.well-known/agent.json"  # the v0.3 card


@pytest.fixture(params=["ES256", "RS256"])
def card_key(request, settings, ec_pems, rsa_pems) -> str:
    """The card signed with an EC P-256 key, then with an RSA key; returns the algorithm."""
    pem = ec_pems[1] if request.param == "ES256" else rsa_pems[1]
    settings.MANDATE_SIGNING_KEY, settings.MANDATE_SIGNING_KEY_FILE = pem, ""
    return request.param


def header_of(signature: dict) -> dict:
    return json.loads(b64url_decode(signature["protected"]))


def verified(client, card: dict) -> dict:
    """The protected header of the card's signature once joserfc has verified it; raises
    BadSignatureError when it does not verify. The key comes from the JWK Set that the header's
    jku names, fetched from the gateway, found by the header's kid."""
    (signature,) = card["signatures"]
    header = header_of(signature)
    key_set = KeySet.import_key_set(client.get(urlsplit(header["jku"]).path).json())
    key = key_set.get_by_kid(header["kid"])
    assert key.get("alg") == header["alg"]  # the key's own algorithm, never another
    unsigned = {name: value for name, value in card.items() if name != "signatures"}
    deserialize_compact(
        f"{signature['protected']}..{signature['signature']}",  # the payload is detached
        key,
        algorithms=[header["alg"]],
        payload=rfc8785.dumps(unsigned),
    )
    return header


@pytest.mark.parametrize("path", [CARD, LEGACY])
def test_the_card_verifies_with_the_published_key_alone(client, settings, card_key, path):
    settings.PUBLIC_BASE_URL = "https://gateway.test"

    card = client.get(path).json()

    header = verified(client, card)
    signing_kid = client.get("/.well-known/jwks.json").json()["keys"][0]["kid"]
    assert header == {
        "alg": card_key,
        "kid": signing_kid,
        "jku": "https://gateway.test/.well-known/jwks.json",
        "typ": "JOSE",
    }
    assert set(card["signatures"][0]) == {"protected", "signature"}
    if card_key == "ES256":
        assert len(b64url_decode(card["signatures"][0]["signature"])) == 64  # r || s, not DER


@pytest.mark.parametrize(
    "tamper",
    [
        lambda card: card.update(name="Another Gateway"),
        lambda card: card.update(iconUrl="https://attacker.example/icon.png"),
        lambda card: card["supportedInterfaces"][0].update(url="https://attacker.example/a2a"),
        lambda card: card["skills"].pop(),
        lambda card: card.update(extra=True),
        lambda card: card["signatures"][0].update(
            protected=b64url(
                json.dumps({**header_of(card["signatures"][0]), "typ": "JWT"}).encode()
            )
        ),
    ],
    ids=["name", "icon added", "interface", "skill removed", "member added", "header"],
)
@pytest.mark.parametrize("path", [CARD, LEGACY])
def test_a_tampered_card_fails(client, card_key, tamper, path):
    card = client.get(path).json()
    verified(client, card)

    tamper(card)

    with pytest.raises((BadSignatureError, ValueError)):
        verified(client, card)


def test_a_signature_by_another_published_key_fails(client, settings, card_key, ec_pems, rsa_pems):
    other_pem = ec_pems[2] if card_key == "ES256" else rsa_pems[2]
    settings.MANDATE_SIGNING_KEY += other_pem  # published too, but the first key signs
    card = client.get(CARD).json()
    (other,) = load_signing_keys(key_text=other_pem, key_files="", base_dir=settings.BASE_DIR)
    signature = card["signatures"][0]
    unsigned = {name: value for name, value in card.items() if name != "signatures"}
    signing_input = f"{signature['protected']}.{b64url(rfc8785.dumps(unsigned))}"

    signature["signature"] = other.sign(signing_input.encode())

    assert header_of(signature)["kid"] != other.kid
    with pytest.raises(BadSignatureError):
        verified(client, card)


def test_without_a_key_the_card_is_unsigned(client, no_signing_key):
    assert "signatures" not in client.get(CARD).json()


def test_each_signed_dialect_parses_with_its_sdk_types(client, card_key):
    v1_body = client.get(CARD).json()
    v0_3_body = client.get(LEGACY).json()

    v1 = parse_agent_card(json.loads(json.dumps(v1_body)))
    v0_3 = AgentCardV03.model_validate(v0_3_body)

    assert [(s.protected, s.signature) for s in v1.signatures] == [
        (v1_body["signatures"][0]["protected"], v1_body["signatures"][0]["signature"])
    ]
    assert v0_3.signatures is not None
    assert v0_3.signatures[0].protected == v0_3_body["signatures"][0]["protected"]
    assert v0_3_body["signatures"] != v1_body["signatures"]  # each signs what it serves


def test_the_sdks_own_verifier_verifies_the_v1_card(client, card_key):
    """a2a-sdk's verifier canonicalizes its own v1.0 reading of the card: the v1.0 card,
    holding v1.0's members alone and none at its default, is exactly what it reads."""
    card = parse_agent_card(client.get(CARD).json())

    def key_of(kid: str | None, jku: str | None) -> PyJWK:
        assert jku is not None
        key_set = client.get(urlsplit(jku).path).json()
        return PyJWK(next(key for key in key_set["keys"] if key["kid"] == kid))

    create_signature_verifier(key_of, [card_key])(card)

    card.name = "Another Gateway"
    with pytest.raises(InvalidSignaturesError):
        create_signature_verifier(key_of, [card_key])(card)


def test_each_card_path_serves_its_signed_dialect_with_its_etag(client, card_key):
    v1 = client.get(CARD)
    legacy = client.get(LEGACY)
    asked = client.get(CARD, headers={"A2A-Version": "0.3"})
    again = client.get(CARD, HTTP_IF_NONE_MATCH=v1["ETag"])

    assert legacy.content == asked.content != v1.content
    assert legacy["ETag"] == asked["ETag"] != v1["ETag"]
    assert again.status_code == 304


def test_a_rotation_changes_the_signature_and_the_etag(client, settings, card_key, ec_pems):
    before = client.get(CARD)

    settings.MANDATE_SIGNING_KEY = ec_pems[0] + settings.MANDATE_SIGNING_KEY
    after = client.get(CARD)

    assert header_of(after.json()["signatures"][0])["alg"] == "ES256"
    assert verified(client, after.json())
    assert after["ETag"] != before["ETag"]
    assert client.get(CARD, HTTP_IF_NONE_MATCH=before["ETag"]).status_code == 200


def test_the_card_is_signed_once_not_on_every_request(client, settings, card_key, monkeypatch):
    signatures: list[bytes] = []
    sign = SigningKey.sign

    def counted(key: SigningKey, data: bytes) -> str:
        signatures.append(data)
        return sign(key, data)

    monkeypatch.setattr(SigningKey, "sign", counted)

    settings.PUBLIC_BASE_URL = f"https://{uuid.uuid4().hex}.test"  # a card not signed before
    bodies = {client.get(CARD).content for _ in range(5)}
    settings.PUBLIC_BASE_URL = elsewhere = f"https://{uuid.uuid4().hex}.test"  # signed anew
    other = client.get(CARD).json()

    assert len(bodies) == 1
    assert len(signatures) == 2
    assert header_of(other["signatures"][0])["jku"] == f"{elsewhere}/.well-known/jwks.json"
