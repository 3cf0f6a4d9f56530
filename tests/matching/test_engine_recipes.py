"""The provider recipes of docs/engine.md, run as written through `manage.py check_engine` and
litellm, against the scripted engine speaking each provider's API on loopback: only the address
changes (a provider's own host becomes the scripted server's)."""

import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.support.engine import ScriptedEngine

GUIDE = (Path(__file__).resolve().parents[2] / "docs" / "engine.md").read_text()
RECIPES = dict(re.findall(r"<!-- recipe: ([\w-]+) -->\n```sh\n(.*?)```", GUIDE, re.DOTALL))
LOCAL = re.compile(r"http://127\.0\.0\.1:\d+")

# What each recipe must send: the path of the provider's API and the model named in the body.
EXPECTED = {
    "openai": ("/v1/chat/completions", "gpt-4o-mini"),
    "anthropic": ("/v1/messages", "claude-haiku-4-5"),
    "ollama": ("/v1/chat/completions", "qwen2.5"),
    "openai-compatible": ("/v1/chat/completions", "Qwen/Qwen2.5-7B-Instruct"),
}

pytestmark = pytest.mark.django_db


def test_the_guide_has_every_recipe():
    assert set(RECIPES) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_recipe_works_as_written(name, settings, trail_shoe):
    variables = dict(line.split("=", 1) for line in RECIPES[name].strip().splitlines())
    assert all(hasattr(settings, key) for key in variables), variables  # real settings only
    with ScriptedEngine() as engine:
        root = f"http://127.0.0.1:{engine.port}"
        base = variables.get("INTENT_ENGINE_API_BASE")
        settings.INTENT_ENGINE_MODEL = variables["INTENT_ENGINE_MODEL"]
        settings.INTENT_ENGINE_API_KEY = variables["INTENT_ENGINE_API_KEY"]
        # A provider's own host is replaced by the scripted server (its API under /v1, as
        # OpenAI's; Anthropic's base is the host itself); a local server's port likewise.
        settings.INTENT_ENGINE_API_BASE = (
            LOCAL.sub(root, base) if base else root if name == "anthropic" else engine.api_base
        )
        settings.INTENT_ENGINE_TIMEOUT_S = float(variables.get("INTENT_ENGINE_TIMEOUT_S", 8))
        out = StringIO()

        call_command("check_engine", stdout=out)

        call = engine.calls[-1]
    assert "The engine works" in out.getvalue()
    assert (call.path, call.body["model"]) == EXPECTED[name]
