"""What an A2A message asks of the gateway, and the parts that answer it.

A message asks for one operation (agents/operations.py):
- a data part `{"operation": "get_card", "arguments": {"rec_id": "rec_..."}}` names it;
- a data part with an `intent` (and `limit`, `region`, `channel`) asks for recommend;
- otherwise its text is the shopper's words, and recommend answers them.

A recommend is answered with the shopper guide as text, one data part per card (the card JSON
as GET /v1/cards/{rec_id} serves it, buy link verbatim) and a data part with the recommend's
metadata; any other operation with one data part holding the JSON the REST API answers.

A part that names a media type names one of the card's input modes (text/plain,
application/json), or the message is refused (`unaccepted`) before anything is asked.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from a2a.helpers.proto_helpers import get_data_parts, get_text_parts, new_data_part, new_text_part
from a2a.types.a2a_pb2 import Message, Part

RECOMMEND = "recommend"
RECOMMEND_METADATA = ("intent_id", "match_session_id", "match_tier", "demand_token")


class NotUnderstood(ValueError):
    """The message asks for nothing the gateway does."""


@dataclass(frozen=True)
class Ask:
    operation: str
    arguments: Any


def _whole_numbers(value: Any) -> Any:
    """A data part's numbers as JSON meant them: A2A carries every number as a double, so a
    `limit` of 3 arrives as 3.0."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_whole_numbers(item) for item in value]
    return value


def ask_of(message: Message) -> Ask:
    """The operation `message` asks for. Raises NotUnderstood."""
    data = [_whole_numbers(item) for item in get_data_parts(list(message.parts))]
    objects = [item for item in data if isinstance(item, dict)]
    named = [item for item in objects if "operation" in item]
    if len(named) > 1:
        raise NotUnderstood("A message asks for one operation; this one names several.")
    if named:
        ask = named[0]
        if not isinstance(ask["operation"], str) or set(ask) - {"operation", "arguments"}:
            raise NotUnderstood(
                'An operation is asked as {"operation": "<name>", "arguments": {...}}.'
            )
        return Ask(ask["operation"], ask.get("arguments", {}))
    intents = [item for item in objects if "intent" in item]
    if len(intents) > 1:
        raise NotUnderstood("A message carries one shopping intent; this one carries several.")
    if intents:
        return Ask(RECOMMEND, intents[0])
    text = "\n".join(part for part in get_text_parts(list(message.parts)) if part.strip())
    if text:
        return Ask(RECOMMEND, {"intent": text})
    raise NotUnderstood(
        "Send the shopper's words as text, a data part with an `intent`, or a data part "
        'naming an operation: {"operation": "get_card", "arguments": {"rec_id": "rec_..."}}.'
    )


def media_type(name: str) -> str:
    """A media type as compared: without its parameters (`; charset=utf-8`), in lower case."""
    return name.partition(";")[0].strip().lower()


def unaccepted(message: Message, accepted: Iterable[str]) -> list[str]:
    """The media types `message`'s parts name that are none of `accepted`. A part that names
    none is not checked: a text part is text, a data part JSON."""
    modes = {media_type(mode) for mode in accepted}
    named = (part.media_type for part in message.parts if part.media_type)
    return sorted({name for name in named if media_type(name) not in modes})


def answer_parts(ask: Ask, body: dict[str, Any]) -> list[Part]:
    """The parts of the artifact that answers `ask` with the REST API's `body`."""
    if ask.operation != RECOMMEND:
        return [new_data_part(body, media_type="application/json")]
    return [
        new_text_part(body["shopper_guide"], media_type="text/plain"),
        *(new_data_part(card, media_type="application/json") for card in body["items"]),
        new_data_part(
            {key: body[key] for key in RECOMMEND_METADATA}, media_type="application/json"
        ),
    ]
