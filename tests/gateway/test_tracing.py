"""Traces through the real stack (gateway/telemetry.py): the Procfile's web role and a Celery
worker exporting by OTLP/HTTP to a collector on loopback (tests/support/otlp.py), the scripted
engine, a merchant on loopback. A recommend is one trace, from the request's span to the engine
call, the retrieval, the insert and, across Celery, the fan-out and the delivery of its
Intent.Surge; a fan-out the sweeper sends later is in a trace of its own, linked to the request.
A caller's made-up names reach no span, and no attribute is longer than the cap.
Without an endpoint nothing is traced (tests/gateway/test_tracing_off.py)."""

import asyncio
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from gateway.telemetry import ATTRIBUTE_LENGTH
from merchants.models import DeliveryStatus, WebhookDelivery, WebhookEvent
from tests.protocol import register
from tests.support.engine import ScriptedEngine
from tests.support.otlp import OtlpReceiver, Span
from tests.support.web import WebServer
from tests.support.worker import Worker, purge, wait_until

pytestmark = pytest.mark.django_db(transaction=True)

SECRETS = ("sk-engine-key-never-logged", "supply-key-never-logged", "bearer-never-logged")


def tracing_env(collector: OtlpReceiver) -> dict[str, str]:
    return {
        "OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint,
        "OTEL_EXPORTER_OTLP_HEADERS": "x-collector-tenant=gateway-tests",
        "OTEL_BSP_SCHEDULE_DELAY": "100",  # export within a tenth of a second, not five
    }


@pytest.fixture(scope="module")
def collector() -> Iterator[OtlpReceiver]:
    with OtlpReceiver() as received:
        yield received


@pytest.fixture(scope="module")
def engine() -> Iterator[ScriptedEngine]:
    with ScriptedEngine() as scripted:
        yield scripted


@pytest.fixture(scope="module")
def web(tmp_path_factory, collector, engine, django_db_setup) -> Iterator[WebServer]:
    env = {
        "INTENT_ENGINE_MODEL": "openai/scripted",
        "INTENT_ENGINE_API_BASE": engine.api_base,
        "INTENT_ENGINE_API_KEY": SECRETS[0],
        "INTENT_ENGINE_TIMEOUT_S": "60",
        "SUPPLY_API_KEYS": "",
        "LOG_FORMAT": "json",
        **tracing_env(collector),
    }
    with WebServer(tmp_path_factory.mktemp("web"), env=env) as server:
        yield server


@pytest.fixture
def traced_worker(tmp_path, broker_url, collector) -> Iterator[Worker]:
    """A worker (with beat) exporting its spans, started when the test chooses."""
    waiting = Worker(tmp_path, broker_url, env={**tracing_env(collector), "LOG_FORMAT": "json"})
    yield waiting
    waiting.stop()
    print(waiting.log())  # shown when the test failed


@pytest.fixture
def broker_url() -> str:
    from gateway.celery import app

    url: str = app.conf.broker_url
    purge(url)
    return url


def named(spans: list[Span], name: str, trace_id: str | None = None) -> Span | None:
    return next(
        (s for s in spans if s.name == name and trace_id in (None, s.trace_id)),
        None,
    )


def served(spans: list[Span], request_id: str) -> Span | None:
    """The server span of the request that answered with this X-Request-ID."""
    return next(
        (s for s in spans if s.attributes.get("gateway.request_id") == request_id),
        None,
    )


TASK_SPANS = ("run/merchants.tasks.fan_out", "run/merchants.tasks.deliver")


def ancestors(spans: list[Span], span: Span) -> list[str]:
    """The names of `span`'s ancestors, nearest first, as far as they were received."""
    by_id = {s.span_id: s for s in spans}
    names = []
    while span.parent_id in by_id:
        span = by_id[span.parent_id]
        names.append(span.name)
    return names


def test_a_recommend_is_one_trace_down_to_its_surge_delivered_by_the_worker(
    web, collector, traced_worker, receiver, client, shelf
):
    register(client, "shop", agent_endpoint=receiver.url, subscription_tags=["*"])
    traced_worker.start()

    answer = web.request(
        "GET", "/v1/recommend?intent=trail+running+shoes", headers={"X-Request-ID": "rec-trace-1"}
    )

    assert answer.status == 200, answer.body
    assert answer.headers["x-request-id"] == "rec-trace-1"
    receiver.wait_for(1)
    request = collector.wait_for(lambda spans: served(spans, "rec-trace-1"))
    assert request.service == "gateway-web"
    assert request.kind == "SPAN_KIND_SERVER"
    assert request.name == "GET /v1/recommend"
    assert request.attributes["http.route"] == "/v1/recommend"
    assert request.parent_id == ""
    in_trace = request.trace_id

    call = collector.wait_for(lambda spans: named(spans, "chat scripted", in_trace))
    assert call.kind == "SPAN_KIND_CLIENT"
    assert call.parent_id == request.span_id
    assert {
        name: call.attributes[name]
        for name in (
            "gen_ai.operation.name",
            "gen_ai.provider.name",
            "gen_ai.request.model",
            "gen_ai.response.model",
            "gen_ai.usage.input_tokens",
            "gen_ai.usage.output_tokens",
            "gen_ai.request.max_tokens",
            "gen_ai.request.temperature",
        )
    } == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "scripted",
        "gen_ai.response.model": "scripted",
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.output_tokens": 20,
        "gen_ai.request.max_tokens": 300,
        "gen_ai.request.temperature": 0.0,
    }
    assert "error.type" not in call.attributes
    assert call.status == "STATUS_CODE_UNSET"
    # Never the shopper's words, on any span of the trace.
    # Each process exports its spans in batches of its own: the delivery's may come first, and
    # a task's span (which ends after the spans inside it) in a later batch than they.
    spans = collector.wait_for(
        lambda spans: (
            spans
            if all(named(spans, name, in_trace) for name in ("deliver", "fan_out", *TASK_SPANS))
            else None
        )
    )
    recorded = repr([s for s in spans if s.trace_id == in_trace])
    assert "running" not in recorded  # nor the query string that holds them

    retrieve = named(spans, "retrieve", in_trace)
    assert retrieve is not None
    assert ancestors(spans, retrieve) == ["GET /v1/recommend"]
    assert retrieve.attributes["gateway.retrieval.match_tier"] == answer.json()["match_tier"]
    assert retrieve.attributes["gateway.retrieval.hits"] == answer.json()["count"]
    insert = named(spans, "insert", in_trace)
    assert insert is not None
    assert ancestors(spans, insert) == ["GET /v1/recommend"]
    assert insert.attributes["gateway.insert.rows.matching.intent"] == 1
    assert insert.attributes["gateway.insert.rows.merchants.webhookevent"] == 1

    # Across Celery: the request sent the fan-out, the fan-out sent the delivery.
    fan_out = named(spans, "fan_out", in_trace)
    assert fan_out is not None
    assert fan_out.service == "gateway-worker"
    assert ancestors(spans, fan_out) == [
        "run/merchants.tasks.fan_out",
        "apply_async/merchants.tasks.fan_out",
        "GET /v1/recommend",
    ]
    assert fan_out.attributes["gateway.fan_out.deliveries"] == 1
    assert fan_out.links == []  # already in the request's trace
    deliver = named(spans, "deliver", in_trace)
    assert deliver is not None
    assert ancestors(spans, deliver)[:3] == [
        "run/merchants.tasks.deliver",
        "apply_async/merchants.tasks.deliver",
        "fan_out",
    ]
    assert deliver.attributes["http.response.status_code"] == 200
    assert deliver.attributes["gateway.delivery.status"] == DeliveryStatus.SUCCEEDED
    # The event keeps the request's traceparent, for a fan-out or a retry sent later.
    version, trace_id, parent_id, flags = WebhookEvent.objects.get().traceparent.split("-")
    assert (version, trace_id, parent_id) == ("00", in_trace, request.span_id)
    assert int(flags, 16) & 1  # sampled
    # The exporter sends the configured headers.
    assert {"gateway-tests"} == {h.get("x-collector-tenant") for h in collector.headers}


def test_a_failed_engine_call_says_its_error_type(web, collector, engine):
    engine.script("503", "503")  # the call and its one retry

    answer = web.request(
        "GET", "/v1/recommend?intent=hiking+boots", headers={"X-Request-ID": "rec-fail-1"}
    )

    assert answer.status == 503
    request = collector.wait_for(lambda spans: served(spans, "rec-fail-1"))
    call = collector.wait_for(lambda spans: named(spans, "chat scripted", request.trace_id))
    assert call.attributes["error.type"] == "503"
    assert call.status == "STATUS_CODE_ERROR"
    assert "gen_ai.usage.input_tokens" not in call.attributes
    assert call.events == []  # no exception event: its message is never recorded
    assert request.attributes["http.status_code"] == 503


def test_a_fan_out_the_sweeper_sends_later_links_to_the_request(
    web, collector, traced_worker, broker_url, receiver, client
):
    register(client, "shop", agent_endpoint=receiver.url, subscription_tags=["trail"])
    body = orjson.dumps({"raw_query": "trail running shoes", "intent_tags": ["trail"]})

    answer = web.request(
        "POST",
        "/v1/intents",
        body,
        {"Content-Type": "application/json", "X-Request-ID": "intent-trace-1"},
    )

    assert answer.status == 201, answer.body
    purge(broker_url)  # the fan-out's task is lost: the sweeper sends it
    traced_worker.start()
    receiver.wait_for(1, timeout=60)
    request = collector.wait_for(lambda spans: served(spans, "intent-trace-1"))
    assert request.name == "POST /v1/intents"
    fan_out = collector.wait_for(
        lambda spans: next((s for s in spans if s.name == "fan_out" and s.links), None)
    )
    assert fan_out.trace_id != request.trace_id
    assert fan_out.links == [(request.trace_id, request.span_id)]
    # The sweep's span ends after the fan-out inside it: it may come in a later batch.
    assert collector.wait_for(
        lambda spans: "run/merchants.tasks.sweep_deliveries" in ancestors(spans, fan_out) or None
    )
    deliver = collector.wait_for(lambda spans: named(spans, "deliver", fan_out.trace_id))
    assert deliver.links == [(request.trace_id, request.span_id)]
    wait_until(
        lambda: WebhookDelivery.objects.filter(status=DeliveryStatus.SUCCEEDED).count() == 1,
        what="the delivery to succeed",
    )


def test_json_log_lines_lead_to_the_trace_and_hold_no_secret(web, collector):
    answer = web.request(
        "GET",
        "/v1/report/attribution",
        headers={
            "X-Request-ID": "log-trace-1",
            "X-Supply-Key": SECRETS[1],
            "Authorization": f"Bearer {SECRETS[2]}",
        },
    )

    assert answer.status == 503  # no supply keys configured: a warning of django.request
    request = collector.wait_for(lambda spans: served(spans, "log-trace-1"))
    wait_until(lambda: "log-trace-1" in web.log(), what="the request's log line")
    lines = [orjson.loads(line) for line in web.log().splitlines() if line.startswith("{")]
    (line,) = [line for line in lines if line.get("request_id") == "log-trace-1"]
    assert line["level"] == "WARNING"
    assert line["logger"] == "django.request"
    assert line["message"] == "Service Unavailable: /v1/report/attribution"
    assert line["trace_id"] == request.trace_id
    assert set(line) >= {"timestamp", "span_id", "status_code"}
    assert "request" not in line
    # Every line the web role wrote is JSON, gunicorn's and uvicorn's included.
    assert [text for text in web.log().splitlines() if not text.startswith("{")] == []
    for secret in SECRETS:
        assert secret not in web.log()


MADE_UP = "made_up_" + "x" * 3000  # a tool name, an A2A method: the caller's choice
A2A = "/a2a/jsonrpc"


def mcp_calls(web: WebServer) -> list[Any]:
    """A tool the gateway has not, then one it has, through the MCP client SDK."""

    async def run() -> list[Any]:
        async with (
            streamable_http_client(f"{web.url}/mcp") as (read, write, *_),
            ClientSession(read, write) as client,
        ):
            await client.initialize()
            with pytest.raises(MCPError) as refused:  # invalid params: no such tool
                await client.call_tool(MADE_UP, {})
            return [refused.value, await client.call_tool("get_card", {"rec_id": "rec_nothing"})]

    return asyncio.run(run())


def test_no_span_carries_a_callers_made_up_name_and_no_attribute_passes_the_cap(web, collector):
    unknown, known = mcp_calls(web)
    agent = "agent/" + "y" * 3000
    body = orjson.dumps({"jsonrpc": "2.0", "id": MADE_UP, "method": MADE_UP, "params": {}})
    headers = {"Content-Type": "application/json", "User-Agent": agent}
    answer = web.request("POST", A2A, body, headers)

    assert (unknown.error.code, known.is_error) == (INVALID_PARAMS, True)  # no such tool, not found
    assert (answer.status, answer.json()["error"]["code"]) == (200, -32601)  # no such method
    calls = collector.wait_for(
        lambda spans: (
            found
            if len(found := [s for s in spans if s.name.startswith("tools/call")]) == 2
            else None
        )
    )
    assert sorted(span.name for span in calls) == ["tools/call get_card", "tools/call unknown"]
    assert {span.attributes["gen_ai.tool.name"] for span in calls} == {"get_card", "unknown"}
    assert {span.attributes["mcp.method.name"] for span in calls} == {"tools/call"}
    request = collector.wait_for(
        lambda spans: next((s for s in spans if s.attributes.get("http.target") == A2A), None)
    )
    assert request.attributes["http.user_agent"] == agent[:ATTRIBUTE_LENGTH]  # cut, not dropped
    for span in collector.spans:
        assert "made_up" not in span.name
        for value in span.attributes.values():
            assert "made_up" not in str(value), span
            assert not isinstance(value, str) or len(value) <= ATTRIBUTE_LENGTH, span
