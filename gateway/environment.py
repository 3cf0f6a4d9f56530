"""The environment the settings read: `.env` beside manage.py (the real environment wins), and
numbers that must fall within bounds and switches that must be true or false, refused at start
otherwise."""

import math
import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)


def bounded(name: str, default: float, low: float, high: float, unit: str = "") -> float:
    """A number from the environment within [low, high]; anything else stops the start."""
    raw = env.str(name, default=str(default))
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not low <= value <= high:  # NaN fails this too
        raise ImproperlyConfigured(
            f"{name} must be between {low:g} and {high:g}{unit}, not {raw!r}"
        )
    return value


def bounded_int(name: str, default: int, low: int, high: int, unit: str = "") -> int:
    value = bounded(name, default, low, high, unit)
    if value != int(value):
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value:g}")
    return int(value)


def switch(name: str, default: bool) -> bool:
    """`true` or `false` from the environment; anything else stops the start (django-environ's
    own reading takes any unknown word, a typo included, as false)."""
    raw = env.str(name, default=str(default).lower())
    value = {"true": True, "false": False}.get(raw.strip().lower())
    if value is None:
        raise ImproperlyConfigured(f"{name} must be true or false, not {raw!r}")
    return value


def database(url: str) -> dict[str, Any]:
    config: dict[str, Any] = environ.Env.db_url_config(url)
    engine = config["ENGINE"]
    if engine == "django.db.backends.sqlite3":
        name = Path(config["NAME"])
        if config["NAME"] != ":memory:":
            name = name if name.is_absolute() else BASE_DIR / name
            name.parent.mkdir(parents=True, exist_ok=True)
            config["NAME"] = str(name)
            # The test database is a file too, so worker processes started by tests share it.
            config["TEST"] = {"NAME": str(name.with_name(f"test-{name.name}"))}
        config["OPTIONS"] = {
            # WAL lets readers run beside the single writer; IMMEDIATE takes the write lock as a
            # transaction begins, so a writer waits for it there (up to `timeout` seconds, in
            # SQLite's busy handler) instead of failing on a lock upgrade halfway through.
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        }
    elif engine == "django.db.backends.postgresql":
        config["ENGINE"] = "gateway.postgresql"  # its health check costs no round trip
        # Statements are prepared only where the code asks (kernel/inserts.py): Django binds
        # values in the client, so no other statement's text comes twice. Django's default
        # (None) would refuse even those; a threshold no statement reaches keeps the rest as is.
        config["OPTIONS"] = {"prepare_threshold": 2**31 - 1, **config.get("OPTIONS", {})}
    else:
        raise ImproperlyConfigured(f"DATABASE_URL must be sqlite:// or postgres://, not {engine}")
    # Kept between requests on both vendors: opening a connection (and on SQLite running its
    # init_command) costs more than serving a card. Each is checked before a request's first
    # query: one the server ended is replaced instead of failing the request.
    config["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=60)
    config["CONN_HEALTH_CHECKS"] = True
    return config


def throttle_rates(raw: str, defaults: dict[str, str | None]) -> dict[str, str | None]:
    """THROTTLE_RATES: `off`, or scope=N/period entries over the defaults."""
    rates = dict(defaults)
    if raw.strip().lower() == "off":
        return dict.fromkeys(rates)
    for item in filter(None, (part.strip() for part in raw.split(","))):
        scope, _, rate = item.partition("=")
        if scope not in rates or not re.fullmatch(r"\d+/(s|sec|m|min|h|hour|d|day)", rate):
            raise ImproperlyConfigured(
                f"THROTTLE_RATES entry {item!r} must be scope=N/period with a scope of "
                f"{', '.join(sorted(rates))} and a period of s, min, hour or day"
            )
        rates[scope] = rate
    return rates


def served_at(host: str, port: str) -> str:
    """The base URL of a gateway served on `host`:`port` (HOST, PORT of the Procfile's web
    role), as a browser on the same machine reaches it: an address that listens everywhere
    is reached at 127.0.0.1."""
    host = host.strip() or "127.0.0.1"
    if host in ("0.0.0.0", "::"):  # noqa: S104 - a bind address, read here, not bound
        host = "127.0.0.1"
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port.strip() or '8000'}"


def allowed_ports(raw: str) -> frozenset[int]:
    """WEBHOOK_ALLOWED_PORTS: comma-separated TCP ports, 1-65535."""
    ports = [part.strip() for part in raw.split(",") if part.strip()]
    if not ports or not all(port.isdigit() and 1 <= int(port) <= 65535 for port in ports):
        raise ImproperlyConfigured(
            f"WEBHOOK_ALLOWED_PORTS must be comma-separated ports 1-65535, not {raw!r}"
        )
    return frozenset(int(port) for port in ports)


def supply_keys(raw: str, min_length: int) -> list[str]:
    """SUPPLY_API_KEYS: comma-separated keys, each at least `min_length` characters."""
    keys = [key.strip() for key in raw.split(",") if key.strip()]
    if any(len(key) < min_length for key in keys):
        raise ImproperlyConfigured(
            f"SUPPLY_API_KEYS entries must be at least {min_length} characters"
        )
    return keys


# The default table holds the rupee at the rate the relevance catalog's prices were converted at.
USD_RATES_DEFAULT = "INR=1/82.5"


def exchange_rates(environ: Mapping[str, str]) -> dict[str, Decimal]:
    """USD_RATES, the one table of exchange rates: US dollars per unit of other currencies, for
    the budgets recommend reads and the sales the reports add up. REPORT_USD_RATES, its name
    before recommend read it too, still counts when USD_RATES is not set."""
    if "USD_RATES" in environ:
        return usd_rates(environ["USD_RATES"], "USD_RATES")
    return usd_rates(environ.get("REPORT_USD_RATES", USD_RATES_DEFAULT), "REPORT_USD_RATES")


def usd_rates(raw: str, name: str = "USD_RATES") -> dict[str, Decimal]:
    """USD_RATES: "EUR=1.08,INR=1/82.5", US dollars per unit of each currency (or one over the
    units a dollar buys), each currency once (USD is 1 by definition), each rate above 0 and up
    to 1,000,000."""
    rates: dict[str, Decimal] = {}
    for pair in (part.strip() for part in raw.split(",")):
        if not pair:
            continue
        code, _, text = (side.strip() for side in pair.partition("="))
        over, slash, under = text.partition("/")
        try:
            rate = Decimal(over) / Decimal(under) if slash else Decimal(text)
        except (InvalidOperation, ArithmeticError):
            rate = Decimal("NaN")
        code = code.upper()
        known = re.fullmatch("[A-Z]{3}", code) and code != "USD" and code not in rates
        if not known or not rate.is_finite() or not 0 < rate <= 1_000_000:
            raise ImproperlyConfigured(
                f"{name} must be comma-separated CODE=rate pairs such as EUR=1.08 or "
                f"INR=1/82.5 (each currency once, not USD; a rate above 0), not {pair!r}"
            )
        rates[code] = rate
    return rates


def idempotency_windows(engine_timeout_s: float) -> tuple[int, int]:
    """IDEMPOTENCY_KEY_TTL_S, how long a key and its answer are kept (a day), and
    IDEMPOTENCY_LOCK_S, how long a request that never finished (a killed worker) holds its key:
    longer than any request takes, the engine's whole timeout included (by default that
    timeout and 30 s, at least a minute), and at most the key's own life."""
    ttl = bounded_int("IDEMPOTENCY_KEY_TTL_S", 86_400, 60, 30 * 86_400, " seconds")
    lock = bounded_int(
        "IDEMPOTENCY_LOCK_S", max(60, math.ceil(engine_timeout_s) + 30), 5, 3600, " seconds"
    )
    if not engine_timeout_s < lock <= ttl:
        raise ImproperlyConfigured(
            f"IDEMPOTENCY_LOCK_S ({lock}) must be longer than INTENT_ENGINE_TIMEOUT_S "
            f"({engine_timeout_s:g}) and at most IDEMPOTENCY_KEY_TTL_S ({ttl})"
        )
    return ttl, lock
