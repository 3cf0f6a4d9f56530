from collections.abc import Iterator
from decimal import Decimal

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from django.core.cache import caches

from kernel import cache
from tests.factories import CreatorFactory, ProductFactory, VideoFactory
from tests.support.engine import ScriptedEngine
from tests.support.receiver import Receiver
from tests.support.web import WebServer
from tests.support.worker import Worker

# The contract fuzzing's counts, added up over parallel workers (registered here, where the
# controller of `pytest -n` loads it too).
pytest_plugins = ["tests.support.contract_stats"]

# What starts real processes: the web role and Celery workers of tests/support, and the fixtures
# that serve them. Their tests are marked `processes` here; a test that starts a process of its
# own (a command, an interpreter) carries the mark itself. `make test-fast` leaves them out.
PROCESS_STARTERS = (Worker, WebServer)
PROCESS_FIXTURES = {"web", "worker", "waiting_worker", "bounded", "throttled"}


def _starts_processes(item: pytest.Item) -> bool:
    if PROCESS_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    names = vars(getattr(item, "module", None) or object)
    return any(value is starter for value in names.values() for starter in PROCESS_STARTERS)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _starts_processes(item):
            item.add_marker(pytest.mark.processes)
    items[:] = _spread(items)


def _spread(items: list[pytest.Item]) -> list[pytest.Item]:
    """The modules with tests that start processes, spread evenly over the run, each whole. Those
    tests mostly wait (on a server to start, a timeout to pass): spread, parallel workers keep
    the cores busy with the other tests meanwhile, where in the collection's order they come
    together (tests/gateway, tests/merchants) and every worker waits at once. The last tenth of
    the run is left to the other tests, short ones, so that no long test ends it alone."""
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::")[0], []).append(item)
    waiting: list[list[pytest.Item]] = []
    rest: list[list[pytest.Item]] = []
    for module in modules.values():
        starts = any(item.get_closest_marker("processes") for item in module)
        (waiting if starts else rest).append(module)
    if not waiting or not rest:
        return items
    after: dict[int, list[list[pytest.Item]]] = {}
    for n, module in enumerate(waiting):
        after.setdefault(n * len(rest) * 9 // (10 * len(waiting)), []).append(module)
    spread: list[pytest.Item] = []
    for n, module in enumerate(rest):
        for starting in after.get(n, []):
            spread += starting
        spread += module
    return spread


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    """Throttle counters and cached state never leak from one test into another."""
    for store in caches.all():
        store.clear()
    cache.forget()
    yield
    for store in caches.all():
        store.clear()
    cache.forget()


@pytest.fixture
def trail_shoe(db):
    """A discounted product with two creator videos whose figures the tests work out by hand."""
    product = ProductFactory(
        id=1001,
        title="TrailFox GTX Trail Running Shoe",
        brand="TrailFox",
        price_usd=Decimal("89.99"),
        original_price_usd=Decimal("119.99"),
        category_l1="Sports & Outdoors",
        category_l2="Running Shoes",
        url="https://shop.test/p/1001?ref=feed",
        regions=["US", "GB"],
        target_persona="Trail runners",
        target_age="18-44",
    )
    miles = CreatorFactory(username="milesrun", display_name="Miles", followers=120_000)
    ana = CreatorFactory(username="ana.runs", display_name="Ana", followers=30_000)
    VideoFactory(
        task_id="v-2",
        product=product,
        creator=ana,
        gmv_usd=Decimal("899.80"),
        orders=20,
        views=5_000,
        duration_s=15,
    )
    VideoFactory(
        task_id="v-1",
        product=product,
        creator=miles,
        gmv_usd=Decimal("4210.50"),
        orders=61,
        views=84_000,
        duration_s=31,
    )
    return product


@pytest.fixture(scope="session")
def rsa_pems() -> list[str]:
    """Three 2048-bit RSA private keys (PEM, PKCS#8), generated once per test session."""
    keys = [rsa.generate_private_key(public_exponent=65537, key_size=2048) for _ in range(3)]
    return [
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()
        for key in keys
    ]


@pytest.fixture(scope="session")
def ec_pems() -> list[str]:
    """Three EC P-256 private keys (PEM, PKCS#8), the kind new deployments sign ES256 with."""
    keys = [ec.generate_private_key(ec.SECP256R1()) for _ in range(3)]
    return [
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()
        for key in keys
    ]


@pytest.fixture
def signing_key(settings, rsa_pems) -> str:
    """Mandate signing configured with one key, given as PEM text; returns the PEM."""
    settings.MANDATE_SIGNING_KEY = rsa_pems[0]
    settings.MANDATE_SIGNING_KEY_FILE = ""
    return rsa_pems[0]


@pytest.fixture
def no_signing_key(settings) -> None:
    """Mandate signing not configured, whatever the environment or .env say."""
    settings.MANDATE_SIGNING_KEY = ""
    settings.MANDATE_SIGNING_KEY_FILE = ""


@pytest.fixture
def loopback(settings):
    """Merchant endpoints on this machine are allowed, as in local development."""
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_TIMEOUT_S = 1.0
    return settings


@pytest.fixture
def receiver(loopback) -> Iterator[Receiver]:
    """A merchant agent's endpoint on loopback (tests/support/receiver.py)."""
    with Receiver() as merchant:
        yield merchant


@pytest.fixture
def unthrottled(settings):
    """For tests that make more requests of a scope than its rate allows in a minute."""
    rates = dict.fromkeys(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"])
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}


@pytest.fixture(scope="session")
def _engine_client_warm() -> None:
    """litellm imports and builds its types on a process's first call: seconds on a busy
    machine, past the bounds the engine tests set. Paid once per test process here (as the web
    role's warm-up pays it before its first request), not inside whichever test calls first."""
    import litellm

    with ScriptedEngine() as scripted:
        litellm.completion(
            model="openai/scripted",
            api_base=scripted.api_base,
            api_key="sk-warm-up",
            messages=[{"role": "user", "content": "warm-up"}],
            timeout=120,
        )


@pytest.fixture
def engine(settings, _engine_client_warm) -> Iterator[ScriptedEngine]:
    """The intent engine, configured and answered by a scripted server on loopback; litellm
    reaches it over real HTTP. One attempt per call, a 2 s bound, a breaker after 3 failures."""
    with ScriptedEngine() as scripted:
        settings.INTENT_ENGINE_MODEL = "openai/scripted"
        settings.INTENT_ENGINE_API_BASE = scripted.api_base
        settings.INTENT_ENGINE_API_KEY = "sk-test-secret"
        settings.INTENT_ENGINE_TIMEOUT_S = 2.0
        settings.INTENT_ENGINE_RETRIES = 0
        settings.INTENT_ENGINE_BREAKER_FAILURES = 3
        yield scripted


@pytest.fixture
def shelf(db):
    """A small catalog where every retrieval tier has something to find (ids 2001-2007).

    Trending: the blender sold most in the last 30 days, the espresso machine most of all time.
    """
    from datetime import timedelta

    from django.utils import timezone

    def product(pid, title, category_l2, price, regions, tags, category_l1="Sports & Outdoors"):
        return ProductFactory(
            id=pid,
            title=title,
            brand=None,
            category_l1=category_l1,
            category_l2=category_l2,
            price_usd=Decimal(price),
            regions=regions,
            tags=tags,
        )

    shoe = product(
        2001,
        "TrailFox GTX Trail Running Shoe",
        "Running Shoes",
        "89.99",
        ["US", "GB"],
        ["trail", "waterproof"],
    )
    product(2002, "Roadster Running Shoe", "Running Shoes", "150.00", [], ["road"])
    product(2003, "Trail Running Vest", "Running Gear", "60.00", ["US"], ["hydration"])
    product(2004, "Alpine Waterproof Hiking Boot", "Hiking Boots", "130.00", [], ["boots"])
    product(2005, "Merino Hiking Socks", "Socks", "12.00", ["DE"], ["wool"])
    blender = product(
        2006,
        "Vortex Countertop Blender",
        "Kitchen Appliances",
        "49.00",
        [],
        ["smoothie"],
        category_l1="Home & Kitchen",
    )
    espresso = product(
        2007,
        "Barista Espresso Machine",
        "Kitchen Appliances",
        "350.00",
        [],
        ["coffee"],
        category_l1="Home & Kitchen",
    )
    now = timezone.now()
    VideoFactory(product=blender, gmv_usd=Decimal("9000"), published_at=now - timedelta(days=2))
    VideoFactory(product=espresso, gmv_usd=Decimal("50000"), published_at=now - timedelta(days=200))
    VideoFactory(product=shoe, gmv_usd=Decimal("500"), published_at=now - timedelta(days=90))
