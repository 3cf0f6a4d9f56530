"""What the bench scripts share: scratch databases, Django set-up, the demo catalog, the web
role on loopback, load generators, percentiles, and the figures each script reports against
DESIGN.md section 11.

Every script measures on SQLite (a scratch file under var/) and, when DATABASE_URL or
BENCH_POSTGRES_URL points to PostgreSQL, on a scratch database `gateway_<name>` of that server
(`BENCH_DATABASE_PREFIX` changes `gateway_`, for two checkouts measuring on one server;
`BENCH_VENDORS=postgresql` leaves SQLite out);
never on the gateway's own data. Django is set up once per process, so a script runs itself once
per database (`script.py --run URL`). Figures are printed as they come; when BENCH_RESULTS names a
file they are also appended to it, one JSON object a line, for bench/budgets.py's table."""

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent


VAR = ROOT / "var"


PRODUCTS = 10_000  # the catalog size of every budget


RUNS = 200


VENDORS = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.1)


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def timed_ms(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000


@dataclass(frozen=True)
class Figure:
    """One measured figure on one database, beside its budget (met is None: no budget)."""

    name: str
    vendor: str  # a key of VENDORS
    value: str
    budget: str = ""
    met: bool | None = None
    note: str = ""  # printed under the table (a query plan, the load generator)
    measured: float | None = None  # the value as a number, in the budget's unit
    limit: float | None = None  # the budget as a number
    higher_is_better: bool = False  # a floor (requests/s), not a ceiling (milliseconds)
    ratio: float | None = None  # measured / the reference (bench/reference.py)
    reference: str = ""  # what the ratio divides by


def at_most(name: str, vendor: str, value: float, limit: float, unit: str = "ms") -> Figure:
    return Figure(
        name, vendor, f"{value:,.2f} {unit}", f"<= {limit:,g} {unit}", value <= limit,
        measured=value, limit=limit,
    )  # fmt: skip


def at_least(name: str, vendor: str, value: float, floor: float, unit: str) -> Figure:
    return Figure(
        name, vendor, f"{value:,.0f} {unit}", f">= {floor:,g} {unit}", value >= floor,
        measured=value, limit=floor, higher_is_better=True,
    )  # fmt: skip


def shown(name: str, vendor: str, value: float, unit: str = "ms", *, rate: bool = False) -> Figure:
    """A figure without a budget, shown for information (and stated against its reference)."""
    text = f"{value:,.0f} {unit}" if rate else f"{value:,.2f} {unit}"
    return Figure(name, vendor, text, measured=value, higher_is_better=rate)


def against(figure: Figure, reference: float, what: str) -> Figure:
    """`figure` with its ratio to `reference` (in the figure's own unit), described by `what`."""
    assert figure.measured is not None, figure.name
    return replace(figure, ratio=figure.measured / reference, reference=what)


def report(figures: list[Figure]) -> None:
    """Print the figures and hand them to bench/budgets.py when it is collecting."""
    for figure in figures:
        budget = f"   (budget {figure.budget})" if figure.budget else ""
        ratio = "" if figure.ratio is None else f"   x{figure.ratio:,.2f} the {figure.reference}"
        print(f"  {figure.name + ':':<52} {figure.value}{budget}{ratio}")
        if figure.note:
            print(f"    {figure.note}")
    if path := os.environ.get("BENCH_RESULTS"):
        with open(path, "a", encoding="utf-8") as results:
            for figure in figures:
                results.write(json.dumps(asdict(figure)) + "\n")
    sys.stdout.flush()


def vendor_of(database_url: str) -> str:
    return "postgresql" if database_url.startswith(("postgres://", "postgresql://")) else "sqlite"


def postgres_server() -> str | None:
    """The PostgreSQL server to measure on, if any: BENCH_POSTGRES_URL, else DATABASE_URL."""
    url = os.environ.get("BENCH_POSTGRES_URL") or os.environ.get("DATABASE_URL", "")
    return url if vendor_of(url) == "postgresql" else None


def scratch_databases(name: str, *, fresh: bool = False) -> list[str]:
    """The part's scratch databases: var/<name>.sqlite3 and, on a PostgreSQL server,
    `gateway_<name>`; created when missing, emptied first when `fresh`."""
    sqlite = VAR / f"{name}.sqlite3"
    VAR.mkdir(exist_ok=True)
    if fresh:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{sqlite}{suffix}").unlink(missing_ok=True)
    urls = [f"sqlite:///{sqlite}"]
    if server := postgres_server():
        prefix = os.environ.get("BENCH_DATABASE_PREFIX", "gateway_")
        urls.append(scratch_postgres(server, f"{prefix}{name}", fresh=fresh))
    # BENCH_VENDORS=postgresql measures on one database alone (a scenario re-run after a change).
    vendors = os.environ.get("BENCH_VENDORS", ",".join(VENDORS)).split(",")
    return [url for url in urls if vendor_of(url) in vendors]


def scratch_postgres(server: str, database: str, *, fresh: bool = False) -> str:
    import psycopg

    parts = urlsplit(server)
    admin = urlunsplit((parts.scheme, parts.netloc, "/postgres", "", ""))
    with psycopg.connect(admin, autocommit=True) as conn:
        if fresh:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database])
        if not exists.fetchone():
            conn.execute(f'CREATE DATABASE "{database}"')
    return urlunsplit((parts.scheme, parts.netloc, f"/{database}", "", ""))


def per_database(run: Callable[[str], None], database: str, *, fresh: bool = False) -> None:
    """The main of a bench script: `run` in a process of its own on each scratch database."""
    if len(sys.argv) == 3 and sys.argv[1] == "--run":
        run(sys.argv[2])
        return
    for url in scratch_databases(database, fresh=fresh):
        subprocess.run([sys.executable, sys.argv[0], "--run", url], check=True)  # noqa: S603


def gateway_env(database_url: str) -> dict[str, str]:
    """The environment of a measured gateway: the scratch database, no throttling."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "THROTTLE_RATES": "off",
        "LOG_LEVEL": "ERROR",
        # Merchants and the engine are receivers on loopback.
        "WEBHOOK_ALLOW_PRIVATE_TARGETS": "true",
        "WEBHOOK_ALLOW_HTTP": "true",
        # The gateway's settings with the reference view's route (bench/settings.py).
        "DJANGO_SETTINGS_MODULE": "bench.settings",
        "DJANGO_ALLOWED_HOSTS": "localhost,127.0.0.1",
    }
    if vendor_of(database_url) == "sqlite":
        env.pop("REDIS_URL", None)  # the embedded default: file cache
    return env


def django_setup(database_url: str, **env: str) -> None:
    """Set Django up in this process on `database_url`, as gateway_env describes."""
    measured = gateway_env(database_url) | env
    os.environ.clear()  # gateway_env may leave a variable out (REDIS_URL)
    os.environ.update(measured)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def engine_env(api_base: str) -> dict[str, str]:
    """The settings that point the gateway at the scripted engine on loopback."""
    return {
        "INTENT_ENGINE_MODEL": "openai/scripted",
        "INTENT_ENGINE_API_BASE": api_base,
        "INTENT_ENGINE_API_KEY": "sk-bench",
    }


def demo_catalog_file(products: int = PRODUCTS) -> Path:
    """The demo catalog as JSON Lines (what seed_demo writes), generated once under var/."""
    path = VAR / f"bench_catalog_{products}.jsonl"
    if not path.exists():
        from datetime import UTC, datetime

        from catalog.demo import generate_catalog
        from gateway.jsonio import dumps

        today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        partial = path.with_suffix(".part")
        with partial.open("wb") as stream:
            for record in generate_catalog(products=products, seed=7, now=today):
                stream.write(dumps(record) + b"\n")
        partial.rename(path)
    return path


def ensure_catalog(products: int = PRODUCTS) -> None:
    """Migrate the scratch database and give it the demo catalog of `products` products (kept
    from an earlier run when it is there)."""
    from io import StringIO

    from django.core.management import call_command

    from catalog.models import Product

    call_command("migrate", verbosity=0)
    if Product.objects.count() != products:
        call_command("flush", interactive=False, verbosity=0)
        print(f"  (loading the {products:,}-product demo catalog)")
        call_command("import_catalog", str(demo_catalog_file(products)), stdout=StringIO())
    forget_records()


# What the gateway records as it serves, newest tables first: every run measures from the same
# state, the catalog alone (a scratch database kept between runs would otherwise grow by
# hundreds of MB, and its figures drift with it).
RECORD_TABLES = (
    "reporting_conversion",
    "reporting_click",
    "matching_matchtoken",
    "matching_matchsession",
    "matching_proposal",
    "matching_intenttag",
    "matching_intent",
    "matching_intentmandate",
    "catalog_recommendation",
    "merchants_deliveryattempt",
    "merchants_webhookdelivery",
    "merchants_webhookevent",
    "merchants_healthprobe",
    "merchants_merchantagent",
)


def forget_records() -> None:
    """Delete everything recorded on the scratch database; keep the catalog."""
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"TRUNCATE {', '.join(RECORD_TABLES)} CASCADE")
        else:
            for table in RECORD_TABLES:
                cursor.execute(f"DELETE FROM {table}")  # noqa: S608 - constant names
            cursor.execute("VACUUM")


def title_words(title: str) -> list[str]:
    """Two words a shopper might type for a product: its first words of four letters or more."""
    return [word.lower() for word in title.split() if len(word) > 3][:2] or ["gift"]


def shopper_intents(count: int) -> dict[str, dict[str, object]]:
    """`count` intents the catalog can answer, each with the resolution a language model would
    give it: two words of a product's title, the product's category, a budget of $150."""
    from catalog.models import Product

    step = 20  # every twentieth product of the catalog's first ones
    rows = Product.objects.order_by("id").values("title", "category_l2")[: count * step : step]
    intents: dict[str, dict[str, object]] = {}
    for n, row in enumerate(rows):
        words = title_words(str(row["title"]))
        intents[f"bench intent {n}: {' '.join(words)} please"] = {
            "normalized_query": " ".join(words),
            "keywords": words,
            "categories": [str(row["category_l2"])],
            "intent_tags": words,
            "budget": {"min": None, "max": 150, "currency": "USD"},
        }
    return intents
