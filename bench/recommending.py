"""What the recommend scenarios share: the scripted engine answering the bench's shoppers, the
settings that point a web role at it, and a recommend asked over HTTP."""

import re
from collections.abc import Callable
from urllib.parse import quote_plus

from bench import loopback
from tests.support.engine import ScriptedEngine, fallback_resolution

# A shopper's intent made distinct by a suffix of its own ("<intent> r1x7"), so that it calls
# the engine; the scripted engine answers it as the intent without its suffix.
NUMBERED = re.compile(r"\s+\S+x\d+$")


def resolver(intents: dict[str, dict[str, object]]) -> Callable[[str], dict[str, object]]:
    """The scripted engine's answer to a numbered intent: that of the intent without its number."""

    def resolve(text: str) -> dict[str, object]:
        return intents.get(NUMBERED.sub("", text)) or fallback_resolution(text)

    return resolve


def engine_env(engine: ScriptedEngine) -> dict[str, str]:
    """A web role's settings for `engine`, under the name of a real model: litellm then takes
    its whole path for that provider (request transforms, pricing), as it would in production."""
    return {
        "INTENT_ENGINE_MODEL": "openai/gpt-4o-mini",
        "INTENT_ENGINE_API_BASE": engine.api_base,
        "INTENT_ENGINE_API_KEY": "sk-bench",
    }


def path(intent: str, limit: int = 3) -> str:
    return f"/v1/recommend?limit={limit}&intent={quote_plus(intent)}"


def recommend(port: int, intent: str) -> None:
    """One recommend on a fresh connection; it must answer 200."""
    status = loopback.get(port, path(intent))
    assert status == 200, status
