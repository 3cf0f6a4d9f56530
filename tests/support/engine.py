"""An intent engine on loopback: a scripted OpenAI-compatible chat-completions server that tests
reach through litellm's real HTTP path (model "openai/scripted", api_base=engine.api_base,
api_key "sk-test"). It records every completion request and answers from a script ("ok",
"fenced", "garbage", "wrong-schema", "raw:<text>", "500", "503", "429", "400", "401",
"hang[:<seconds>]"), or by the intent asked about (`fail`).

    with ScriptedEngine() as engine:
        engine.answer("trail shoes", normalized_query="trail running shoes", keywords=["trail"])
        engine.script("503", "ok")
        engine.fail("words that choke it", "hang:5")  # every time, while others are answered
        ...
        assert engine.intent_texts == ["trail shoes", "trail shoes"]
"""

import re
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import orjson

COMPLETION_PATHS = frozenset({"/v1/chat/completions", "/chat/completions"})
# Anthropic's Messages API, which litellm's `anthropic/` provider speaks (api_base: the root).
MESSAGES_PATHS = frozenset({"/v1/messages"})
DEFAULT_HANG_SECONDS = 30.0
GARBAGE_CONTENT = "Sure! Here are some great shoes for you."
WRONG_SCHEMA_CONTENT = '{"answer": "shoes"}'
ERROR_STATUSES = frozenset({"500", "503", "429", "400", "401"})

_INTENT_RE = re.compile(r"<intent>(.*)</intent>", re.DOTALL)
_WORD_RE = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Call:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def intent_text(self) -> str:
        return intent_text(self.body)


def _content_text(content: Any) -> str:
    """A message's content as text: a string as is, a list of parts as their joined texts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def intent_text(body: dict[str, Any]) -> str:
    """The text between the first <intent> and the last </intent> of the last user message,
    stripped; the whole (stripped) content when the delimiters are missing."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return ""
    users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    if not users:
        return ""
    content = _content_text(users[-1].get("content"))
    match = _INTENT_RE.search(content)
    return (match.group(1) if match else content).strip()


def fallback_resolution(text: str) -> dict[str, Any]:
    """The resolution answered for an intent text that has no scripted answer."""
    words: list[str] = []
    for word in _WORD_RE.findall(text.lower()):
        if len(word) >= 3 and word not in words:
            words.append(word)
    words = words[:5]
    return {
        "normalized_query": " ".join(text.lower().split()),
        "keywords": list(words),
        "categories": [],
        "intent_tags": list(words),
        "target_audience": None,
        "budget": {"min": None, "max": None, "currency": None},
        "region": None,
        "constraints": [],
        "summary": text[:100],
    }


class _Handler(BaseHTTPRequestHandler):
    server: "_Server"
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        # Headers and body go out as two writes: without this, Nagle's algorithm holds the body
        # until the client acknowledges the headers, which it delays by 40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._drain()
        self._send_json(404, _error_body("not found", "invalid_request_error"))

    def do_POST(self) -> None:
        raw = self._drain()
        path = self.path.split("?", 1)[0]
        if path not in COMPLETION_PATHS | MESSAGES_PATHS:
            self._send_json(404, _error_body("not found", "invalid_request_error"))
            return
        engine = self.server.engine
        try:
            parsed = orjson.loads(raw) if raw else {}
        except orjson.JSONDecodeError:
            parsed = None
        body: dict[str, Any] = parsed if isinstance(parsed, dict) else {}
        headers = {k.lower(): v for k, v in self.headers.items()}
        mode, number = engine.record(Call(self.path, headers, body))
        if parsed is None:
            self._send_json(400, _error_body("body is not JSON", "invalid_request_error"))
            return
        kind, _, arg = mode.partition(":")
        if engine.delay_s and engine.closed.wait(engine.delay_s):  # a model that takes its time
            self.close_connection = True
            return
        while not engine.gate.wait(0.05):  # held: answer once released (or closed: never)
            if engine.closed.is_set():
                self.close_connection = True
                return
        if kind == "hang":  # accept, then answer nothing until closed or `arg` seconds pass
            if engine.closed.wait(float(arg or DEFAULT_HANG_SECONDS)):
                self.close_connection = True
                return
            kind = "ok"
        if kind in ERROR_STATUSES:
            self._send_json(int(kind), _error_body("scripted failure", "server_error"))
            return
        resolution_json = orjson.dumps(engine.resolution_for(intent_text(body))).decode()
        if kind == "ok":
            content = resolution_json
        elif kind == "fenced":
            content = f"```json\n{resolution_json}\n```"
        elif kind == "garbage":
            content = GARBAGE_CONTENT
        elif kind == "wrong-schema":
            content = WRONG_SCHEMA_CONTENT
        elif kind == "raw":
            content = arg
        else:
            self._send_json(500, _error_body(f"unknown scripted mode {mode!r}", "server_error"))
            return
        model = str(body.get("model", "scripted"))
        if path in MESSAGES_PATHS:
            self._send_json(200, _message(number, model, content, body.get("tools")))
        else:
            self._send_json(200, _completion(number, model, content))

    def _drain(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _send_json(self, status: int, payload: dict[str, Any]) -> None:
        """Answer, keeping the connection open for the client's next call, as providers do."""
        data = orjson.dumps(payload)
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (e.g. a timeout)
            pass


def _error_body(message: str, error_type: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": error_type, "code": None}}


def _completion(number: int, model: str, content: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30},
    }


def _message(number: int, model: str, content: str, tools: Any) -> dict[str, Any]:
    """An Anthropic Messages answer: the text, or, when the caller asked for JSON through a
    forced tool (litellm's JSON mode for Anthropic), that tool called with the JSON."""
    names = [tool.get("name") for tool in tools or [] if isinstance(tool, dict)]
    try:
        as_json = orjson.loads(content) if names else None
    except orjson.JSONDecodeError:
        as_json = None
    block: dict[str, Any] = (
        {"type": "tool_use", "id": f"toolu_{number}", "name": names[0], "input": as_json}
        if isinstance(as_json, dict)
        else {"type": "text", "text": content}
    )
    return {
        "id": f"msg_{number}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [block],
        "stop_reason": "tool_use" if block["type"] == "tool_use" else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 20},
    }


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # a benchmark's burst of concurrent callers

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up (a caller past its deadline, a benchmark stopping) is no
        error of the engine's; anything else is printed as usual."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    block_on_close = False
    engine: "ScriptedEngine"


class ScriptedEngine:
    """A scripted chat-completions endpoint at `api_base` (http://127.0.0.1:<port>/v1).

    `delay_s` makes every answer wait that long first, as a real language model does;
    `resolver`, when given, answers the intents nobody scripted (instead of the fallback
    derived from their words).
    """

    def __init__(
        self,
        *,
        delay_s: float = 0.0,
        resolver: Callable[[str], dict[str, Any]] | None = None,
    ) -> None:
        self.delay_s = delay_s
        self.resolver = resolver
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.engine = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._lock = threading.Lock()
        self._modes: deque[str] = deque()
        self._failing: dict[str, str] = {}
        self._calls: list[Call] = []
        self._count = 0
        self.answers: dict[str, dict[str, Any]] = {}
        self.closed = threading.Event()
        self.gate = threading.Event()
        self.gate.set()
        self.port: int = self._server.server_address[1]

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> "ScriptedEngine":
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stops serving and releases any hanging request at once (it answers nothing)."""
        if self.closed.is_set():
            return
        self.closed.set()
        if self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()

    def script(self, *modes: str) -> None:
        """One-shot modes for the next requests, in order: "ok", "fenced" (the JSON in a
        ```json fence), "garbage" (prose), "wrong-schema" ({"answer": "shoes"}), "raw:<text>",
        "500", "503", "429", "400", "401", "hang" or "hang:<seconds>" (then ok). After the
        script: "ok"."""
        with self._lock:
            self._modes.extend(modes)

    def fail(self, text: str, mode: str) -> None:
        """Answer every call about the intent `text` (as it reads between the delimiters) with
        `mode`, one of the script's ("hang:<seconds>", "503", ...), whatever the script says:
        words the engine chokes on while it answers every other question."""
        with self._lock:
            self._failing[text.strip()] = mode

    def hold(self) -> None:
        """Keep every call waiting, unanswered, until `release()`."""
        self.gate.clear()

    def release(self) -> None:
        self.gate.set()

    def answer(self, text: str, **resolution: Any) -> None:
        """The resolution object to answer for the intent `text`."""
        with self._lock:
            self.answers[text.strip()] = dict(resolution)

    def resolution_for(self, text: str) -> dict[str, Any]:
        """The answer for `text` (exact match after strip, then case-insensitive), else the
        fallback derived from the text."""
        key = text.strip()
        with self._lock:
            if key in self.answers:
                return self.answers[key]
            folded = key.casefold()
            for known, resolution in self.answers.items():
                if known.strip().casefold() == folded:
                    return resolution
        return self.resolver(key) if self.resolver else fallback_resolution(key)

    def record(self, call: Call) -> tuple[str, int]:
        """Records `call`; its mode (popped from the script) and its number (from 1)."""
        with self._lock:
            self._calls.append(call)
            self._count += 1
            failing = self._failing.get(call.intent_text)
            if failing is not None:
                return failing, self._count
            return (self._modes.popleft() if self._modes else "ok"), self._count

    @property
    def calls(self) -> list[Call]:
        with self._lock:
            return list(self._calls)

    @property
    def calls_count(self) -> int:
        with self._lock:
            return len(self._calls)

    @property
    def intent_texts(self) -> list[str]:
        return [call.intent_text for call in self.calls]

    def reset(self) -> None:
        """Forgets the calls, the script, the failing intents and the answers, and answers at
        once again."""
        self.gate.set()
        with self._lock:
            self._calls.clear()
            self._modes.clear()
            self._failing.clear()
            self.answers.clear()
