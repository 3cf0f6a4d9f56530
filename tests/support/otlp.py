"""A trace collector on loopback: a real HTTP server taking what OTLP/HTTP exporters send to
`/v1/traces` (protobuf, gzip or not), decoded with opentelemetry-proto's ExportTraceServiceRequest,
and kept as plain spans the tests can query.

    with OtlpReceiver() as collector:
        ... env={"OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint} ...
        span = collector.wait_for(lambda spans: find(spans, "chat scripted"))
"""

import gzip
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, TypeVar

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span as ProtoSpan
from opentelemetry.proto.trace.v1.trace_pb2 import Status

from tests.support.network import LoopbackServer, reply

PROTOBUF = "application/x-protobuf"

T = TypeVar("T")


@dataclass(frozen=True)
class Span:
    """One span as a collector received it: ids in hex, attributes as plain values."""

    service: str
    name: str
    kind: str
    trace_id: str
    span_id: str
    parent_id: str
    attributes: dict[str, Any]
    links: list[tuple[str, str]]  # (trace id, span id)
    status: str = ""
    events: list[str] = field(default_factory=list)


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(item) for item in value.array_value.values]
    return getattr(value, kind) if kind else None


def _attributes(items: Iterable[KeyValue]) -> dict[str, Any]:
    return {item.key: _value(item.value) for item in items}


def spans_of(request: ExportTraceServiceRequest) -> list[Span]:
    spans = []
    for resource_spans in request.resource_spans:
        resource = _attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                spans.append(
                    Span(
                        service=resource.get("service.name", ""),
                        name=span.name,
                        kind=ProtoSpan.SpanKind.Name(span.kind),
                        trace_id=span.trace_id.hex(),
                        span_id=span.span_id.hex(),
                        parent_id=span.parent_span_id.hex(),
                        attributes=_attributes(span.attributes),
                        links=[(link.trace_id.hex(), link.span_id.hex()) for link in span.links],
                        status=Status.StatusCode.Name(span.status.code),
                        events=[event.name for event in span.events],
                    )
                )
    return spans


class _Handler(BaseHTTPRequestHandler):
    server: "LoopbackServer[OtlpReceiver]"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        if self.path != "/v1/traces":
            reply(self, 404, b"", PROTOBUF)
            return
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        self.server.owner.keep(spans_of(request), dict(self.headers.items()))
        reply(self, 200, ExportTraceServiceResponse().SerializeToString(), PROTOBUF)


class OtlpReceiver:
    """An OTLP/HTTP collector at `endpoint` (http://127.0.0.1:<port>, the exporters' base)."""

    def __init__(self) -> None:
        self._server = LoopbackServer(_Handler, self)
        self._lock = threading.Condition()
        self.spans: list[Span] = []
        self.headers: list[dict[str, str]] = []  # of each export request
        self.endpoint = self._server.url_root

    def __enter__(self) -> "OtlpReceiver":
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def keep(self, spans: list[Span], headers: dict[str, str]) -> None:
        with self._lock:
            self.spans.extend(spans)
            self.headers.append({name.lower(): value for name, value in headers.items()})
            self._lock.notify_all()

    def wait_for(self, found: Callable[[list[Span]], T | None], timeout: float = 60) -> T:
        """What `found(spans)` answers once it is not None, over the spans received so far;
        fails after `timeout` seconds (exporters send in batches, every few hundred ms here)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while (answer := found(list(self.spans))) is None:
                left = deadline - time.monotonic()
                assert left > 0, f"not received in time; spans: {[s.name for s in self.spans]}"
                self._lock.wait(min(left, 0.5))
            return answer
