"""A2A with the official SDK's client only (a2a-sdk): its card resolver reads the live card, and
its client talks to every interface the card lists, against the web role on loopback."""

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import rfc8785
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.helpers.proto_helpers import get_data_parts, get_text_parts, new_data_part, new_text_part
from a2a.types.a2a_pb2 import (
    AgentCard,
    GetTaskRequest,
    Message,
    Role,
    SendMessageRequest,
    Task,
    TaskState,
)
from a2a.utils.errors import InvalidParamsError
from joserfc.jwk import KeySet
from joserfc.jws import deserialize_compact

from kernel.signing import b64url_decode
from tests.agents.conftest import INTENT

pytestmark = pytest.mark.django_db(transaction=True)


def resolved_card(web) -> AgentCard:
    async def resolve() -> AgentCard:
        async with httpx.AsyncClient() as http:
            return await A2ACardResolver(http, web.url).get_agent_card()

    return asyncio.run(resolve())


def interfaces(web) -> Iterator[tuple[str, AgentCard]]:
    """One card per interface the live card lists, listing that interface alone: a client made
    from it can talk through nothing else."""
    card = resolved_card(web)
    for interface in card.supported_interfaces:
        only = AgentCard()
        only.CopyFrom(card)
        del only.supported_interfaces[:]
        only.supported_interfaces.append(interface)
        yield f"{interface.protocol_binding} {interface.protocol_version}", only


def send(card: AgentCard, *parts: Any) -> Task:
    """One message through the SDK's client; the finished task it answers."""

    async def exchange() -> Task:
        async with httpx.AsyncClient(timeout=30) as http:
            binding = card.supported_interfaces[0].protocol_binding
            config = ClientConfig(
                streaming=False, httpx_client=http, supported_protocol_bindings=[binding]
            )
            client = ClientFactory(config).create(card)
            message = Message(role=Role.ROLE_USER, message_id="msg-1", parts=list(parts))
            events = [
                event async for event in client.send_message(SendMessageRequest(message=message))
            ]
            assert len(events) == 1
            assert events[0].HasField("task"), events[0]
            return events[0].task

    return asyncio.run(exchange())


def get_task(card: AgentCard, task_id: str) -> Task:
    async def read() -> Task:
        async with httpx.AsyncClient(timeout=30) as http:
            binding = card.supported_interfaces[0].protocol_binding
            config = ClientConfig(
                streaming=False, httpx_client=http, supported_protocol_bindings=[binding]
            )
            return await ClientFactory(config).create(card).get_task(GetTaskRequest(id=task_id))

    return asyncio.run(read())


def test_the_card_lists_the_interfaces_the_gateway_serves(web):
    card = resolved_card(web)

    assert [(i.url, i.protocol_binding, i.protocol_version) for i in card.supported_interfaces] == [
        (f"{web.url}/a2a/jsonrpc", "JSONRPC", "1.0"),
        (f"{web.url}/a2a/rest", "HTTP+JSON", "1.0"),
        (f"{web.url}/a2a/jsonrpc", "JSONRPC", "0.3"),
    ]
    assert not card.capabilities.streaming
    assert not card.capabilities.push_notifications


def test_the_resolved_card_is_signed_with_the_key_its_jku_publishes(web):
    """The signature the SDK's resolver reads, checked by another JOSE library (joserfc) with
    the key set fetched over HTTP from the header's jku, over the card as served."""
    (signature,) = resolved_card(web).signatures
    served = web.get("/.well-known/agent-card.json").json()
    header = json.loads(b64url_decode(signature.protected))
    assert (header["alg"], header["typ"]) == ("ES256", "JOSE")
    assert header["jku"] == f"{web.url}/.well-known/jwks.json"
    key = KeySet.import_key_set(httpx.get(header["jku"]).json()).get_by_kid(header["kid"])
    unsigned = {name: value for name, value in served.items() if name != "signatures"}

    deserialize_compact(
        f"{signature.protected}..{signature.signature}",
        key,
        algorithms=["ES256"],
        payload=rfc8785.dumps(unsigned),
    )
    assert served["signatures"] == [
        {"protected": signature.protected, "signature": signature.signature}
    ]


def test_every_interface_recommends_with_cards_whose_rec_ids_resolve(web, scripted, shelf):
    for name, card in interfaces(web):
        task = send(card, new_text_part(INTENT))

        assert task.status.state == TaskState.TASK_STATE_COMPLETED, (
            name,
            get_text_parts(list(task.status.message.parts)),
        )
        (artifact,) = task.artifacts
        guide = get_text_parts(list(artifact.parts))
        *cards, metadata = get_data_parts(list(artifact.parts))
        assert guide[0].startswith("You asked for"), name
        assert cards, name
        assert set(metadata) == {"intent_id", "match_session_id", "match_tier", "demand_token"}
        for card_json in cards:
            served = web.get(f"/v1/cards/{card_json['rec_id']}")
            assert served.status == 200, name
            assert card_json == served.json(), name  # the buy link verbatim, and all the rest
            assert card_json["rec_id"] in card_json["cta"]["primary"]["url"]
        # The metadata names what the REST API recorded.
        assert web.get(f"/v1/intents/{metadata['intent_id']}").status == 200
        assert web.get(f"/v1/match/{metadata['match_session_id']}").status == 200
        # The finished task is read back by its id, through the same interface.
        again = get_task(card, task.id)
        assert (again.id, again.status.state) == (task.id, TaskState.TASK_STATE_COMPLETED)
        # Everything but the demand credential, which message/send answered once.
        *_, kept_metadata = get_data_parts(list(again.artifacts[0].parts))
        assert kept_metadata == {k: v for k, v in metadata.items() if k != "demand_token"}
        assert list(again.artifacts[0].parts)[:-1] == list(artifact.parts)[:-1]


def test_a_data_part_carries_the_intent_and_its_options(web, scripted, shelf):
    _, card = next(interfaces(web))

    task = send(card, new_data_part({"intent": INTENT, "limit": 1, "region": "US"}))

    *cards, _metadata = get_data_parts(list(task.artifacts[0].parts))
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert len(cards) == 1
    assert scripted.intent_texts[-1] == INTENT


def test_other_operations_are_messages_naming_them(web, scripted, shelf):
    _, card = next(interfaces(web))

    created = send(
        card,
        new_data_part(
            {"operation": "create_intent", "arguments": {"raw_query": INTENT, "region": "US"}}
        ),
    )
    (intent,) = get_data_parts(list(created.artifacts[0].parts))
    intent_id = intent["intent"]["intent_id"]
    listed = send(
        card,
        new_data_part({"operation": "list_proposals", "arguments": {"intent_id": intent_id}}),
    )

    assert created.status.state == TaskState.TASK_STATE_COMPLETED
    stored = web.get(f"/v1/intents/{intent_id}").json()["intent"]
    assert intent == {"intent": stored, "demand_token": intent["demand_token"]}
    assert intent["demand_token"].startswith("dmt_")  # the demand agent's credential
    assert get_data_parts(list(listed.artifacts[0].parts)) == [
        {"intent_id": intent_id, "count": 0, "proposals": [], "next_cursor": None}
    ]


def test_a_credential_is_answered_once_and_never_kept_with_the_task(web, scripted, shelf):
    _, card = next(interfaces(web))
    recommended = send(card, new_text_part(INTENT))
    *_cards, metadata = get_data_parts(list(recommended.artifacts[0].parts))
    session_id, demand_token = metadata["match_session_id"], metadata["demand_token"]
    proposal_id = web.get(f"/v1/match/{session_id}").json()["ranked_proposals"][0]["proposal_id"]
    arguments = {"match_session_id": session_id}

    def accept(**more: str) -> Task:
        ask = {"operation": "accept", "arguments": {**arguments, **more}}
        return send(card, new_data_part(ask))

    minted = accept(proposal_id=proposal_id)
    (answer,) = get_data_parts(list(minted.artifacts[0].parts))
    token_id = answer["match_token"]["match_token_id"]
    confirmed = accept(match_token_id=token_id, demand_token=demand_token)
    (confirmation,) = get_data_parts(list(confirmed.artifacts[0].parts))

    assert demand_token.startswith("dmt_")
    assert confirmation["match_token"]["confirmed_by"] == "demand"
    kept = [get_task(card, task.id) for task in (recommended, confirmed)]
    assert all(task.status.state == TaskState.TASK_STATE_COMPLETED for task in kept)
    assert demand_token not in "".join(str(task) for task in kept)
    *_, kept_metadata = get_data_parts(list(kept[0].artifacts[0].parts))
    assert kept_metadata == {key: metadata[key] for key in metadata if key != "demand_token"}
    (asked,) = get_data_parts(list(kept[1].history[0].parts))
    assert asked == {
        "operation": "accept",
        "arguments": {**arguments, "match_token_id": token_id},
    }


def test_an_unavailable_engine_fails_the_task_with_the_gateways_message(web, scripted, shelf):
    for name, card in interfaces(web):
        scripted.script("503")

        task = send(card, new_text_part(f"{INTENT} for the rain"))

        assert task.status.state == TaskState.TASK_STATE_FAILED, name
        parts = list(task.status.message.parts)
        (error,) = get_data_parts(parts)
        assert error["error"] == "intent_engine_unavailable", name
        assert get_text_parts(parts) == [f"intent_engine_unavailable: {error['message']}"]


@pytest.mark.parametrize(
    "part",
    [
        new_data_part({"intent": INTENT, "limit": 500}),
        new_data_part({"operation": "get_card", "arguments": {}}),
        new_data_part({"operation": "delete_everything"}),
        new_data_part([1, 2, 3]),
    ],
    ids=["limit out of range", "missing id", "unknown operation", "nothing asked"],
)
def test_bad_input_is_the_protocols_invalid_params_error(web, scripted, part):
    for _name, card in interfaces(web):
        with pytest.raises(InvalidParamsError):
            send(card, part)

    assert scripted.calls_count == 0
