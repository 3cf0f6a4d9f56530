"""A demand agent's calls of the match flow, through Django's test client."""

from tests.protocol import post


def match(client, intent_id, **body):
    return post(client, "/v1/match", {"intent_id": intent_id, **body})


def accept(client, session_id, **body):
    return post(client, f"/v1/match/{session_id}/accept", body)
