"""The README's tour, run as written, by `make tour`: its shell blocks marked
`<!-- tour: ... -->`, with only the base URL changed, against the real web role serving the demo
catalog `make run` loads and the scripted intent engine (the README's engine is a real
provider's); and where no gateway answers, `make tour` says where it looked."""

import os
import re
import socket
import subprocess
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from reporting.models import Click
from tests.support.engine import ScriptedEngine
from tests.support.web import WebServer

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
TOUR = re.findall(r"<!-- tour: [^>]*-->\n```sh\n(.*?)```", README, re.DOTALL)
BASE = re.compile(r"^B=http://127\.0\.0\.1:8000\b", re.MULTILINE)
INTENT = "waterproof trail running shoes under 120"

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_readme_marks_the_tour_and_sets_its_base_url_once():
    assert len(TOUR) == 2
    assert len(BASE.findall(TOUR[0])) == 1


def test_the_readme_tour_runs_as_written(tmp_path):
    call_command("seed_demo", output=str(tmp_path / "demo.jsonl"), stdout=StringIO())
    with ScriptedEngine() as engine:
        engine.answer(
            INTENT,
            normalized_query="waterproof trail running shoes",
            keywords=["trail running shoe", "waterproof"],
            categories=["Running Shoes"],
            intent_tags=["trail", "running", "waterproof"],
            budget={"min": None, "max": 120, "currency": "USD"},
        )
        env = {
            "INTENT_ENGINE_MODEL": "openai/scripted",
            "INTENT_ENGINE_API_BASE": engine.api_base,
            "INTENT_ENGINE_API_KEY": "sk-test",
        }
        with WebServer(tmp_path, env=env) as web:
            run = make_tour(f"B={web.url}")

    out = run.stdout
    assert run.returncode == 0, run.stderr + out
    assert run.stderr == ""
    lines = out.splitlines()
    shown = re.findall(r'"rec_id": "([^"]+)"', out)
    assert '"title": "Gritline Waterproof Cushioned Trail Running Shoe",' in out  # 1: the card
    assert '"video_url"' in out  # ... with its creators' videos
    assert "Gritline Waterproof Cushioned Trail Running Shoe" in lines  # 2: by its rec_id
    assert any(re.fullmatch(r"302 https?://\S+", line) for line in lines)  # 2: the buy link
    assert '"raw_query": "waterproof trail running shoes under $120",' in out  # 3: the intent
    assert [click.recommendation_id for click in Click.objects.all()] == [shown[0]]  # 2: its click
    assert "Product Recommendation and Intent-Matching Gateway" in lines  # 4: the contract
    # `make tour` asks once whether an engine is configured, then the recommend block asks
    assert engine.intent_texts == ["tour", INTENT]
    guide = out.split("Product Recommendation and Intent-Matching Gateway\n", 1)[1]
    assert "its title mentions “trail running shoe” and “waterproof”" in guide  # the picks, why
    assert re.search(r"\$\d+\.\d\d under your budget", guide)
    ranked = re.findall(r"^#(\d) score (0\.\d+): product (\d+) \(catalog\) - (.+)$", guide, re.M)
    assert [rank for rank, *_ in ranked] == ["1", "2", "3"]  # 5: the recommend's proposals, ranked
    scores = [float(score) for _, score, *_ in ranked]
    assert scores == sorted(scores, reverse=True)
    assert ranked[0][3].startswith("matches 3 of 3 intent tags: trail (title, tags), ")
    assert "within budget: " in ranked[0][3]


def test_make_tour_names_the_address_where_no_gateway_answers():
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))  # bound and never listening: every connection is refused
        port = closed.getsockname()[1]
        by_port = make_tour(f"PORT={port}")
        by_base = make_tour(f"B=http://127.0.0.1:{port}")

    for run in (by_port, by_base):
        assert run.returncode != 0
        assert run.stdout == ""  # not one block of the tour ran
        assert (
            f"No gateway answers at http://127.0.0.1:{port}: start one with `make run`, or point "
            "the tour at yours with `make tour PORT=9000` (or `make tour B=http://host:port`).\n"
        ) in run.stderr


def make_tour(*variables: str) -> subprocess.CompletedProcess[str]:
    """`make tour` as it is run by hand, with `variables` on its command line (none inherited
    from this process: neither a B or PORT of its own nor an outer make's flags)."""
    inherited = {"B", "PORT", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"}
    return subprocess.run(  # noqa: S603 - the Makefile's own target
        ["make", "-s", "tour", *variables],  # noqa: S607 - make from PATH
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={name: value for name, value in os.environ.items() if name not in inherited},
    )
