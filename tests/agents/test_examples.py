"""The Python examples of docs/agents.md, run as written against the web role on loopback."""

import os
import re
import subprocess
import sys

import pytest

from tests.support.worker import ROOT

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def examples() -> list[str]:
    return EXAMPLE.findall((ROOT / "docs" / "agents.md").read_text())


def run(code: str, web) -> str:
    result = subprocess.run(  # noqa: S603 - our interpreter, the documentation's code
        [sys.executable, "-c", code],
        env={**os.environ, "GATEWAY_URL": web.url},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_documentation_has_one_example_per_protocol():
    (a2a, mcp, ucp) = examples()

    assert "a2a.client" in a2a
    assert "mcp.client" in mcp
    assert "/.well-known/ucp" in ucp


def test_the_a2a_example_prints_cards_with_their_buy_links(web, scripted, shelf):
    scripted.answer(
        "waterproof trail running shoes under $120",
        normalized_query="waterproof trail running shoes",
        keywords=["trail running", "shoe"],
        categories=["Running Shoes"],
        intent_tags=["trail", "running"],
        budget={"min": None, "max": 120, "currency": "USD"},
    )

    printed = run(examples()[0], web)

    assert "completed" in printed
    assert "You asked for" in printed
    rec_ids = re.findall(r"^(rec_\w+) .* (http\S+/r/rec_\w+\S*)$", printed, re.MULTILINE)
    assert rec_ids
    for rec_id, link in rec_ids:
        assert rec_id in link
        assert web.get(f"/v1/cards/{rec_id}").status == 200


def test_the_mcp_example_lists_the_tools_and_reads_a_card(web, scripted, shelf):
    printed = run(examples()[1], web)

    tools, card = printed.splitlines()
    assert "'recommend'" in tools
    assert "'get_card'" in tools
    assert "/r/rec_" in card


def test_the_ucp_example_searches_then_looks_up_with_buy_links(web, scripted, shelf):
    scripted.answer(
        "trail running shoes",
        normalized_query="trail running shoes",
        keywords=["trail running", "shoe"],
        categories=["Running Shoes"],
        intent_tags=["trail", "running"],
    )

    printed = run(examples()[2], web).splitlines()

    *products, looked_up = printed
    assert products
    for line in products:
        *_, price, currency, link = line.split()
        assert currency == "USD"
        assert float(price) <= 150
        assert "/r/rec_" in link
        assert web.get(f"/v1/cards/{link.rsplit('/', 1)[1]}").status == 200
    assert looked_up == f"{len(products)} looked up"
