"""Traces: OpenTelemetry's SDK, exporting by OTLP over HTTP, when OTEL_EXPORTER_OTLP_ENDPOINT
(or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set; off and free otherwise.

Off, nothing here runs: no SDK provider is installed, no instrumentation wraps anything, and
the spans the gateway opens (kernel/tracing.py) go to the API's no-op tracer. On, each process
installs its provider once, after it is forked (its batch processor's thread and its
exporter's connections are then its own): a web worker as its ASGI lifespan starts
(gateway/asgi.py), a Celery worker as it starts (gateway/celery.py); each flushes what it holds
as it stops. The exporter and the sampler read the standard variables
(OTEL_EXPORTER_OTLP_HEADERS, OTEL_TRACES_SAMPLER, OTEL_SERVICE_NAME...); the service is named
for its role (gateway-web, gateway-worker) unless OTEL_SERVICE_NAME names it. Every attribute
value is cut to ATTRIBUTE_LENGTH characters, the SDK's span limit (OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT
sets another): a client chooses some of them (its user agent, the path it asked, a JSON-RPC
request's id), and none may cost a span more than that.
docs/alerts.md ("Traces") lists the spans.

The request's span comes from OpenTelemetry's ASGI middleware around the whole application
rather than from its Django middleware: that one is synchronous only, and in the chain of the
coroutine views Django would run it on a thread that it then holds for the whole request, an
engine call included (gateway/asgi.py). Around the application it covers both ways the gateway
serves a request, without a thread; the span is named for the route Django resolves.
"""

from typing import Any

from opentelemetry import trace

from gateway.environment import env  # .env read first: its OTEL_* variables count too

# The exporter's own variables: either one turns tracing on.
ENDPOINTS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
ATTRIBUTE_LENGTH = 256  # characters of an attribute value, unless LENGTH_LIMIT says
LENGTH_LIMIT = "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT"

_provider: Any = None  # the SDK's TracerProvider of this process, once started


def enabled() -> bool:
    """Whether this process exports traces: an OTLP endpoint is set, and the SDK not disabled
    (OTEL_SDK_DISABLED, the standard switch)."""
    if env.str("OTEL_SDK_DISABLED", default="").strip().lower() == "true":
        return False
    return any(env.str(name, default="").strip() for name in ENDPOINTS)


def start(role: str) -> None:
    """Install the SDK's tracer provider in this process, exporting by OTLP/HTTP in batches,
    and instrument Celery (the tasks this process sends carry the trace; those it runs continue
    it). Once per process; nothing when tracing is off."""
    global _provider  # one provider a process, as the API keeps it
    if _provider is not None or not enabled():
        return
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.instrumentation.celery import CeleryInstrumentor
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import SpanLimits, TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    named = env.str("OTEL_SERVICE_NAME", default="").strip()
    # None: the SDK reads the standard variable (and refuses a value that is no integer).
    length = None if env.str(LENGTH_LIMIT, default="") else ATTRIBUTE_LENGTH
    _provider = TracerProvider(
        resource=Resource.create({} if named else {SERVICE_NAME: role}),
        span_limits=SpanLimits(max_attribute_length=length),
    )
    _provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(_provider)
    CeleryInstrumentor().instrument(tracer_provider=_provider)


def stop() -> None:
    """Export what is left, as the process stops."""
    if _provider is not None:
        _provider.shutdown()


def served(app: Any, route_of: Any) -> Any:
    """The ASGI application `app`, in a server span per HTTP request when tracing is on (`app`
    itself otherwise). `route_of(path)` names the route the request took, or None.

    The span never sees the query string: a recommend's holds the shopper's words, personal
    data, which the instrumentation would record in `http.url`. The application gets it back."""
    if not enabled():
        return app
    from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware
    from opentelemetry.util.http import sanitize_method

    def span_details(scope: dict[str, Any]) -> tuple[str, dict[str, str]]:
        method = sanitize_method(scope.get("method", "").strip())
        method = "HTTP" if method == "_OTHER" else method
        route = route_of(scope.get("path", ""))
        if route is None:
            return method, {}
        return f"{method} {route}", {"http.route": route}

    async def with_query(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if QUERY in scope:
            scope = {**scope, "query_string": scope[QUERY]}
        await app(scope, receive, send)

    traced = OpenTelemetryMiddleware(
        with_query, default_span_details=span_details, exclude_spans=["receive", "send"]
    )

    async def without_query(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("query_string"):
            scope = {**scope, "query_string": b"", QUERY: scope["query_string"]}
        await traced(scope, receive, send)

    return without_query


# Where the query string waits while the request's span is opened (an ASGI extension key).
QUERY = "gateway.query_string"
