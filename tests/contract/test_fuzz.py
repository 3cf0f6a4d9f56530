"""Contract fuzzing: every operation of the gateway's own /openapi.json, driven by schemathesis
against the ASGI application the web role serves (`gateway.asgi:application`, what gunicorn's
workers run) in-process, with every default check of schemathesis.

Through the served application, not Django's WSGI handler: the gateway answers requests its own
way there (coroutine views, their steps on a pool of their own, the error envelope of a request
refused before any view), and that is what clients meet. The application runs views on threads
of its own, with database connections of their own, so each operation's database is committed
(a transactional test), not a transaction of the test's thread that they could not see.

Each operation is one test (`test_contract[GET /v1/recommend]`), run on a fresh database that
holds the world of world.py (a small catalog with the ids of the contract's examples, one
registered merchant agent with a failed delivery, an intent), the scripted intent engine on
loopback and a mandate signing key; throttling is off so that no 429 hides an answer.
Generation is bounded (MAX_EXAMPLES per operation in the fuzzing phase, plus the examples and
coverage phases) and derandomized with a fixed seed, so a run is reproducible and a failure
reproduces with the same command. test_explicit.py adds the values generation reaches too
seldom (a query value given empty or blank, the bounds of an intent's constraints).

Two answers are right although no schema can say so, and are not counted as failures:

- a schema-valid request that breaks a rule no JSON Schema states (a valid_until gone by, a
  cursor the gateway never issued) is refused with 400: rules.py lists each rule, and no
  schema-valid case breaking one is generated (`filter_case`);
- an Idempotency-Key sent again with another request (method, path or body) is refused with
  422 `idempotency_key_reused`, as the contract documents: the gateway cannot run a second
  request under a key that stands for the first. A fuzzer reuses keys freely (the coverage
  phase sends the key "0" with every body it tries), so each schema-valid case's key is made
  its own request's (`_key_of_its_own`); a schema-violating case is refused either way. A
  plain `st run` against a gateway shows these 422s as "Schema-valid request rejected" (see
  docs/agents.md, Conformance).

    .venv/bin/pytest -m contract
"""

import asyncio
import hashlib
import json
import os
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
import schemathesis
from django.test import Client
from hypothesis import HealthCheck, settings

from gateway.asgi import application
from tests.contract.rules import NOT_IN_SCHEMA
from tests.contract.world import DELIVERY_ID, MERCHANT_ID, PRODUCT_IDS, Credentials, credentials

pytestmark = pytest.mark.contract

MAX_EXAMPLES = 25  # with the examples and coverage phases: CI stays well within its 30 minutes
SEED = 20251120
# The phases run: all three, unless GATEWAY_CONTRACT_PHASES names some. The coverage phase's
# cases (the schema's boundary values, 2,300 of the run's 3,200) are planned as the tests are
# collected, by each parallel worker, for the same contract whatever the database: .ci/run
# runs them in its SQLite pass and leaves them out of its PostgreSQL pass.
PHASES = ("examples", "coverage", "fuzzing")
CHOSEN = os.environ.get("GATEWAY_CONTRACT_PHASES", ",".join(PHASES)).split(",")
if unknown := set(CHOSEN) - set(PHASES):
    raise pytest.UsageError(f"GATEWAY_CONTRACT_PHASES: no phase {', '.join(sorted(unknown))}")

CONFIG = schemathesis.Config.from_dict(
    {
        "seed": SEED,
        "phases": {phase: {"enabled": phase in CHOSEN} for phase in PHASES},
        "generation": {
            "max-examples": MAX_EXAMPLES,
            "deterministic": True,
            "database": "none",
            # The gateway refuses a NUL character in any string of any body or query with 400
            # `invalid_body` / `invalid_parameter`, on purpose (PostgreSQL cannot store one;
            # tests/kernel/test_errors.py covers it): schema-valid strings without NUL only.
            "allow-x00": False,
        },
        # Half of the merchant and product ids the fuzzer sends name the registered merchant
        # and catalog products, so that operations also succeed on records that exist (and the
        # ignored-auth check has 2xx answers to probe).
        "dictionaries": {
            "merchants": {"values": [MERCHANT_ID]},
            "products": {"values": PRODUCT_IDS},
            "deliveries": {"values": [DELIVERY_ID]},
        },
        "parameters": {
            **{
                key: {"dictionary": "merchants", "probability": 0.5}
                for key in ("path.merchantId", "body.merchant_id", "body.merchant_agent_id")
            },
            **{
                key: {"dictionary": "products", "probability": 0.5}
                for key in ("path.productId", "body.product_id")
            },
            "path.deliveryId": {"dictionary": "deliveries", "probability": 0.5},
        },
        "operations": [
            {
                # The interface fixes an unknown product_id of a mandate as 400 `invalid_body`
                # (not 404), and no schema can say which ids the catalog holds: a schema-valid
                # body naming a product that does not exist is rightly refused with 400.
                "include-operation-id": "signIntentMandate",
                "checks": {
                    "positive_data_acceptance": {
                        "expected-statuses": ["2xx", "3xx", "400", "401", "403", "404", "409"]
                    }
                },
            },
            {
                # A delivery can be retried once it has failed: the first retry of the failed
                # delivery succeeds, and the schema cannot say that later ones find it pending
                # (409 `delivery_not_failed`).
                "include-operation-id": "retryMerchantDelivery",
                "checks": {
                    "positive_data_acceptance": {
                        "expected-statuses": ["2xx", "401", "403", "404", "409"]
                    }
                },
            },
        ],
    }
)


class Worker:
    """The served application as one web worker runs it: started once (its lifespan's
    start-up: the warm-up, then its pools and the agents' servers), then serving every test's
    cases. schemathesis starts an application's lifespan for each test and stops it after, but
    the gateway's stops for good (a web worker's pools are never started again), so the start
    is passed on the first time only and the stops are not passed on: the worker runs until
    the module's last test (`_worker_stopped`). It starts in the first case, on schemathesis's
    event loop (one for the whole run), with that test's database."""

    started: "asyncio.Task[None] | None" = None
    loop: asyncio.AbstractEventLoop | None = None
    stopping: asyncio.Event | None = None

    @classmethod
    async def start(cls) -> None:
        if cls.started is None:
            ready, forever = asyncio.Event(), asyncio.Event()

            async def receive() -> dict[str, str]:
                if not ready.is_set():
                    return {"type": "lifespan.startup"}
                await forever.wait()  # until the module's tests are over
                return {"type": "lifespan.shutdown"}

            async def send(message: Any) -> None:
                assert message["type"].startswith("lifespan."), message
                ready.set()

            lifespan = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
            cls.loop, cls.stopping = asyncio.get_running_loop(), forever
            cls.started = asyncio.ensure_future(application(lifespan, receive, send))
            waiting = asyncio.ensure_future(ready.wait())
            await asyncio.wait({cls.started, waiting}, return_when=asyncio.FIRST_COMPLETED)
            if cls.started.done():
                cls.started.result()  # the start-up failed: say how

    @classmethod
    def stop(cls) -> None:
        """Stop the worker as a web worker stops (its lifespan's shutdown), from another thread."""
        if cls.started is None or cls.loop is None or cls.stopping is None:
            return
        cls.loop.call_soon_threadsafe(cls.stopping.set)
        started = cls.started

        async def stopped() -> None:
            await started

        asyncio.run_coroutine_threadsafe(stopped(), cls.loop).result(timeout=30)
        cls.started = cls.loop = cls.stopping = None

    @classmethod
    async def serve(cls, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "lifespan":
            await application(scope, receive, send)
            return
        await receive()  # lifespan.startup
        await cls.start()
        await send({"type": "lifespan.startup.complete"})
        await receive()  # lifespan.shutdown, at the end of a test: the worker goes on
        await send({"type": "lifespan.shutdown.complete"})


# The contract as the gateway serves it, read through Django's test client: schemathesis's own
# loader would ask the application while tests are collected, before the test database exists.
contract = orjson.loads(Client(HTTP_HOST="localhost").get("/openapi.json").content)
schema = schemathesis.openapi.from_dict(contract, config=CONFIG)
schema.app = Worker.serve


@schema.auth(refresh_interval=None)
class GatewayCredentials:
    """X-Merchant-Token / X-Supply-Key for the operations whose security requires one. An
    operation where credentials are optional (registration) is sent without."""

    def get(self, case: Any, context: Any) -> type[Credentials]:
        return Credentials

    def set(self, case: Any, data: type[Credentials], context: Any) -> None:
        headers = credentials(case.operation.definition.raw)
        if headers:
            case.headers = {**(case.headers or {}), **headers}


@schema.hook
def filter_case(context: Any, case: Any) -> bool:
    rules = NOT_IN_SCHEMA.get(case.operation.definition.raw.get("operationId", ""))
    if not rules or case.meta is None or not case.meta.generation.mode.is_positive:
        return True
    containers = {"body": case.body, "query": case.query}
    for location, field, rule in rules:
        container = containers[location]
        if isinstance(container, dict) and field in container and not rule(container[field]):
            return False
    return True


@pytest.fixture(scope="module", autouse=True)
def _worker_stopped() -> Iterator[None]:
    yield
    Worker.stop()


def _key_of_its_own(case: Any) -> None:
    """A schema-valid case's Idempotency-Key, made its request's own: a key sent before with
    another request is rightly 422 (no schema can say which were), and the coverage phase sends
    one key ("0") with every body it tries, invalid ones first. The digest of the request goes
    after the key: the same request again gets the same key, and the kept answer replayed."""
    key = (case.headers or {}).get("Idempotency-Key")
    if key is None or case.meta is None or not case.meta.generation.mode.is_positive:
        return
    request = json.dumps([case.path_parameters, case.query, case.body], default=repr)
    digest = hashlib.sha256(request.encode()).hexdigest()[:16]
    case.headers["Idempotency-Key"] = f"{key[:238]}-{digest}"


def _no_platform(case: Any) -> None:
    """No UCP-Agent header: one naming a platform makes the gateway look the platform's host up
    and fetch its profile (tests/agents/test_ucp_releases.py tries that on loopback), which no
    schema can say will work, and the fuzzing sends nothing off the machine."""
    if case.headers:
        case.headers.pop("UCP-Agent", None)


@schema.parametrize()
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_contract(case, gateway, contract_stats):
    """Every default check: no 5xx, documented status codes, content types, headers and
    bodies; schema-valid requests accepted and invalid ones refused; required headers and
    credentials enforced."""
    _key_of_its_own(case)
    _no_platform(case)
    with contract_stats.recording(case.operation.label):
        case.call_and_validate()
