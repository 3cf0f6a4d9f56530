"""What an Idempotency-Key may cost (kernel/idempotent_answers.py, kernel/idempotency_keys.py),
through Django's test client: answers past 6 KB are kept as a digest, whose replay is 409
`idempotency_answer_not_kept`; an answer that shows a secret once is kept whole; a refusal of
the request itself is not kept; a client holds at most IDEMPOTENCY_KEYS_PER_CLIENT live keys,
whatever credentials it presents; the acceptance of a match is throttled."""

import hashlib
import secrets
from base64 import b64encode

import orjson
import pytest
from django.db import connection

from kernel.models import IdempotencyKey
from matching.models import MatchToken
from tests.factories import ProductFactory
from tests.protocol import create_intent, propose, register

pytestmark = pytest.mark.django_db

ADDRESS = "203.0.113.7"


def keyed_post(client, path, body, key, **headers):
    return client.post(
        path,
        data=body,
        content_type="application/json",
        headers={"Idempotency-Key": key, **headers},
        REMOTE_ADDR=ADDRESS,
    )


def stored_bytes() -> int:
    """The bytes the keys' table holds in its text columns (its fixed-width ones are ~40 a row)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT COALESCE(SUM(LENGTH(key_hash) + LENGTH(request_hash) + LENGTH(caller) "
            "+ LENGTH(method) + LENGTH(path) + LENGTH(owner) "
            "+ COALESCE(LENGTH(stored_answer), 0)), 0) FROM kernel_idempotencykey"
        )
        (total,) = cursor.fetchone()
        return int(total)


def noise(size: int) -> str:
    """Text that deflates little (random base64), as an attacker would send."""
    return secrets.token_urlsafe(size * 3 // 4)[:size]


def minted_session(client) -> tuple[str, str]:
    """A match session over one proposal, intent and proposal each carrying ~15 KB of metadata;
    its session id and proposal id."""
    ProductFactory(id=1001)
    shop = register(client, "shop-1")
    intent = create_intent(client, intent_tags=["trail"], metadata={"notes": noise(15_000)})
    proposal = propose(client, shop, intent["intent_id"], 1001, metadata={"notes": noise(15_000)})
    assert proposal.status_code == 201, proposal.content
    match = client.post(
        "/v1/match", {"intent_id": intent["intent_id"]}, content_type="application/json"
    )
    assert match.status_code == 201, match.content
    return match.json()["match_session"]["match_session_id"], proposal.json()["proposal"][
        "proposal_id"
    ]


def test_300_keyed_accepts_and_100_ucp_lookups_keep_less_than_a_megabyte(client, unthrottled):
    session, proposal_id = minted_session(client)
    for pid in range(3001, 3051):
        ProductFactory(id=pid, description=noise(2_000))
    accept = f"/v1/match/{session}/accept"
    lookup = {"ids": [str(pid) for pid in range(3001, 3051)]}
    before = stored_bytes()

    accepted = [
        keyed_post(client, accept, {"proposal_id": proposal_id}, f"a-{n}") for n in range(300)
    ]
    looked_up = [keyed_post(client, "/ucp/catalog/lookup", lookup, f"l-{n}") for n in range(100)]

    assert {answer.status_code for answer in accepted + looked_up} == {200}
    assert len(accepted[0].content) > 30_000  # each answer carries both metadata
    assert len(looked_up[0].content) > 100_000  # 50 products' details
    assert MatchToken.objects.count() == 1  # re-minting the same token each time
    assert IdempotencyKey.objects.count() == 400
    grown = stored_bytes() - before
    assert grown < 1_000_000, grown  # whole, they would be ~40 MB
    assert grown / 400 < 1_000  # a status and a digest a key


def test_a_large_answers_replay_is_409_with_its_status_and_runs_nothing(client, unthrottled):
    session, proposal_id = minted_session(client)
    accept = f"/v1/match/{session}/accept"
    body = {"proposal_id": proposal_id}

    first = keyed_post(client, accept, body, "accept-1")
    again = keyed_post(client, accept, body, "accept-1")
    other = keyed_post(client, accept, {**body, "proposal_id": "prp_other"}, "accept-1")

    assert first.status_code == 200
    assert again.status_code == 409
    assert again.json()["error"] == "idempotency_answer_not_kept"
    token = first.json()["match_token"]
    assert again.json()["message"] == (
        f"The request first sent with this Idempotency-Key ran and answered 200 "
        f"({len(first.content)} bytes, too large to keep); "
        f"it named match_token_id {token['match_token_id']}, "
        f"match_session_id {token['match_session_id']}, "
        f"intent_id {token['intent_id']}, proposal_id {proposal_id}: "
        "read the resource, or send the request again under a new key."
    )
    assert "Idempotent-Replayed" not in again
    assert other.status_code == 422  # another request under the key, as ever
    row = IdempotencyKey.objects.get()
    kept = orjson.loads(row.stored_answer or "")
    assert row.status_code == 200
    assert kept["size"] == len(first.content)
    assert kept["sha256"] == hashlib.sha256(first.content).hexdigest()
    assert ["match_token_id", token["match_token_id"]] in kept["ids"]


def test_an_answer_that_shows_a_secret_once_is_kept_whole_whatever_its_size(client):
    body = {"raw_query": "trail shoes", "intent_tags": ["trail"], "metadata": {"n": noise(16_000)}}

    first = keyed_post(client, "/v1/intents", body, "intent-1")
    again = keyed_post(client, "/v1/intents", body, "intent-1")

    assert first.status_code == again.status_code == 201
    assert len(first.content) > 16_000
    assert again.content == first.content  # its demand_token included
    assert again["Idempotent-Replayed"] == "true"


def test_a_404_is_not_kept_and_releases_the_key(client):
    missing = "mss_" + "0" * 24

    refused = keyed_post(client, f"/v1/match/{missing}/accept", {"proposal_id": "p"}, "k-404")

    assert refused.status_code == 404
    assert not IdempotencyKey.objects.exists()


def test_a_client_holds_at_most_its_keys_whatever_credentials_it_presents(client, settings):
    settings.IDEMPOTENCY_KEYS_PER_CLIENT = 10
    settings.IDEMPOTENCY_KEY_TTL_S = 3600
    body = {"raw_query": "trail shoes", "intent_tags": ["trail"]}
    for n in range(10):
        demand = {"X-Demand-Token": f"dmt_guess{n}"}  # a caller of its own, not a client
        assert keyed_post(client, "/v1/intents", body, f"k-{n}", **demand).status_code == 201

    refused = keyed_post(client, "/v1/intents", body, "k-new", **{"X-Demand-Token": "dmt_x"})
    replayed = keyed_post(client, "/v1/intents", body, "k-3", **{"X-Demand-Token": "dmt_guess3"})
    unkeyed = client.post("/v1/intents", body, content_type="application/json", REMOTE_ADDR=ADDRESS)
    elsewhere = client.post(
        "/v1/intents",
        body,
        content_type="application/json",
        headers={"Idempotency-Key": "k-new"},
        REMOTE_ADDR="198.51.100.20",
    )

    assert refused.status_code == 429
    assert refused.json()["error"] == "idempotency_key_limit"
    assert 3500 < int(refused["Retry-After"]) <= 3600  # until its oldest key expires
    assert replayed.status_code == 201
    assert replayed["Idempotent-Replayed"] == "true"  # a key it holds still answers
    assert unkeyed.status_code == elsewhere.status_code == 201
    assert IdempotencyKey.objects.count() == 11


def test_the_acceptance_of_a_match_is_throttled_per_client(client, settings):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "accept": "3/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    session, proposal_id = minted_session(client)
    accept = f"/v1/match/{session}/accept"

    answers = [keyed_post(client, accept, {"proposal_id": proposal_id}, f"t-{n}") for n in range(4)]
    other = client.post(
        accept, {"proposal_id": proposal_id}, content_type="application/json", REMOTE_ADDR="::1"
    )

    assert [answer.status_code for answer in answers] == [200, 200, 200, 429]
    assert answers[3].json()["error"] == "throttled"
    assert "Retry-After" in answers[3]
    assert other.status_code == 200  # another client's allowance
    assert IdempotencyKey.objects.count() == 3  # the throttled one claimed no key


def test_an_answer_kept_before_answers_were_deflated_still_replays(client):
    body = {"raw_query": "trail shoes", "intent_tags": ["trail"]}
    first = keyed_post(client, "/v1/intents", body, "old-1")
    row = IdempotencyKey.objects.get()
    old = {
        "headers": [["Content-Type", "application/json"]],
        "content": b64encode(first.content).decode(),
    }
    IdempotencyKey.objects.filter(pk=row.pk).update(stored_answer=orjson.dumps(old).decode())

    again = keyed_post(client, "/v1/intents", body, "old-1")

    assert again.status_code == 201
    assert again.content == first.content
    assert again["Idempotent-Replayed"] == "true"
