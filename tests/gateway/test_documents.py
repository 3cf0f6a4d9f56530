"""The protocol document, served as written."""

import re
from pathlib import Path

from matching import ranking

ROOT = Path(__file__).resolve().parents[2]


def test_the_protocol_document_is_served_as_markdown(client):
    response = client.get("/docs/INTENT_MATCHING_PROTOCOL.md")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    assert response.content == (ROOT / "docs" / "INTENT_MATCHING_PROTOCOL.md").read_bytes()
    assert response.content.startswith(b"# The intent-matching protocol, v0.2")


def test_the_protocol_document_is_read_only(client):
    response = client.post("/docs/INTENT_MATCHING_PROTOCOL.md")

    assert response.status_code == 405
    assert response.json()["error"] == "method_not_allowed"


def test_the_protocol_document_names_every_operation_merchants_and_demand_agents_use():
    text = (ROOT / "docs" / "INTENT_MATCHING_PROTOCOL.md").read_text()

    for operation in [
        "/v1/merchant/register", "/v1/merchant/heartbeat", "/rotate-token", "/deactivate",
        "/v1/intents", "/v1/proposals", "/v1/match", "/accept", "/v1/match-tokens/",
        "/v1/intent-mandates/sign", "/v1/intent-mandates/verify", "webhook-signature",
        "webhook-id", "410", "include_expired", "next_cursor", "/v1/attribution/conversions",
        "WEBHOOK_ALLOW_PRIVATE_TARGETS", "WEBHOOK_ALLOW_HTTP",
    ]:  # fmt: skip
        assert operation in text, operation


def test_the_documented_ranking_weights_are_the_ones_the_gateway_uses():
    text = (ROOT / "docs" / "INTENT_MATCHING_PROTOCOL.md").read_text()

    documented = {
        name: float(weight)
        for name, weight in re.findall(r"^\| (\w+) \| (0\.\d+) \|", text, flags=re.MULTILINE)
    }

    assert documented == ranking.WEIGHTS


def test_every_test_security_md_cites_exists():
    text = (ROOT / "SECURITY.md").read_text()
    cited: list[tuple[str, str]] = []
    current = ""
    for path, name in re.findall(r"`(tests/[\w/]+\.py)?(?:::(\w+))?`", text):
        current = path or current
        if name:
            cited.append((current, name))

    assert len(cited) > 30
    for path, name in cited:
        assert f"def {name}(" in (ROOT / path).read_text(), f"{path}::{name}"
