"""Configuration fails loudly at start on bad values, never at first use."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from gateway import environment
from gateway.settings import DEFAULT_THROTTLE_RATES, SUPPLY_API_KEY_MIN_LENGTH


def _throttle_rates(raw):
    return environment.throttle_rates(raw, DEFAULT_THROTTLE_RATES)


def _supply_keys(raw):
    return environment.supply_keys(raw, SUPPLY_API_KEY_MIN_LENGTH)


ROOT = Path(__file__).resolve().parents[2]


def test_throttle_rates_override_named_scopes():
    rates = _throttle_rates("recommend=5/min, cards=1/s")

    assert rates["recommend"] == "5/min"
    assert rates["cards"] == "1/s"
    assert rates["register"] == "30/min"


def test_supply_keys_are_a_comma_separated_list_without_blanks():
    assert _supply_keys("") == []
    assert _supply_keys(" key-one-0123456789 , ,key-two-0123456789,") == [
        "key-one-0123456789",
        "key-two-0123456789",
    ]


def test_throttle_rates_off_disables_every_scope():
    assert set(_throttle_rates("off").values()) == {None}


@pytest.mark.parametrize("raw", ["recommend", "nope=1/min", "recommend=fast", "cards=1/week"])
def test_bad_throttle_rates_are_refused(raw):
    with pytest.raises(ImproperlyConfigured, match="THROTTLE_RATES"):
        _throttle_rates(raw)


def _import_settings(
    cwd: Path, code: str = "import gateway.settings", **overrides: str
) -> subprocess.CompletedProcess[str]:
    """Runs `code` (by default, imports the settings) in a process of its own with `overrides`
    in its environment."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("DJANGO_")}
    env.update(overrides)
    return subprocess.run(  # noqa: S603 - our own interpreter and code
        [sys.executable, "-c", code],
        cwd=cwd,  # not tests/, whose own gateway package would shadow the real one
        env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"DJANGO_SECRET_KEY": "", "DJANGO_DEBUG": "false"}, "DJANGO_SECRET_KEY is required"),
        ({"DJANGO_SECRET_KEY": "k", "DATABASE_URL": "mysql://x/y"}, "DATABASE_URL must be"),
        ({"DJANGO_SECRET_KEY": "k", "PUBLIC_BASE_URL": "ftp://x"}, "PUBLIC_BASE_URL must be"),
        ({"DJANGO_SECRET_KEY": "k", "THROTTLE_RATES": "x=1"}, "THROTTLE_RATES entry"),
        ({"DJANGO_SECRET_KEY": "k", "CARD_MAX_VIDEOS": "0"}, "CARD_MAX_VIDEOS must be"),
        ({"DJANGO_SECRET_KEY": "k", "REPORT_USD_RATES": "EUR=1,08"}, "REPORT_USD_RATES must be"),
        ({"DJANGO_SECRET_KEY": "k", "USD_RATES": "INR=1/0"}, "USD_RATES must be"),
        ({"DJANGO_SECRET_KEY": "k", "WEBHOOK_TIMEOUT_S": "0.5"}, "WEBHOOK_TIMEOUT_S must be"),
        ({"DJANGO_SECRET_KEY": "k", "WEBHOOK_TIMEOUT_S": "nan"}, "WEBHOOK_TIMEOUT_S must be"),
        ({"DJANGO_SECRET_KEY": "k", "WEBHOOK_FANOUT_MAX": "0"}, "WEBHOOK_FANOUT_MAX must be"),
        (
            {"DJANGO_SECRET_KEY": "k", "WEBHOOK_SWEEP_INTERVAL_S": "0"},
            "WEBHOOK_SWEEP_INTERVAL_S must be",
        ),
        (
            {"DJANGO_SECRET_KEY": "k", "MERCHANT_PROBE_INTERVAL_S": "1"},
            "MERCHANT_PROBE_INTERVAL_S must be",
        ),
        ({"DJANGO_SECRET_KEY": "k", "WEBHOOK_RETENTION_DAYS": "1.5"}, "must be a whole number"),
        ({"DJANGO_SECRET_KEY": "k", "WEB_THREADS": "0"}, "WEB_THREADS must be"),
        ({"DJANGO_SECRET_KEY": "k", "WEB_STEP_THREADS": "0"}, "WEB_STEP_THREADS must be"),
        (
            {"DJANGO_SECRET_KEY": "k", "MERCHANT_PROBE_CONCURRENCY": "1000"},
            "MERCHANT_PROBE_CONCURRENCY must be",
        ),
        (
            {"DJANGO_SECRET_KEY": "k", "INTENT_ENGINE_CACHE_ENTRIES": "10"},
            "INTENT_ENGINE_CACHE_ENTRIES must be",
        ),
        (
            {"DJANGO_SECRET_KEY": "k", "INTENT_ENGINE_MAX_TOKENS": "100000"},
            "INTENT_ENGINE_MAX_TOKENS must be",
        ),
        (
            {"DJANGO_SECRET_KEY": "k", "INTENT_ENGINE_CANARY_TIMEOUT_S": "0"},
            "INTENT_ENGINE_CANARY_TIMEOUT_S must be",
        ),
        (
            {
                "DJANGO_SECRET_KEY": "k",
                "INTENT_RETENTION_DAYS": "60",
                "RECOMMENDATION_RETENTION_DAYS": "30",
            },
            "RECOMMENDATION_RETENTION_DAYS must be at least INTENT_RETENTION_DAYS",
        ),
        (
            {"DJANGO_SECRET_KEY": "k", "MANDATE_SIGNING_KEY": "x", "MANDATE_SIGNING_KEY_FILE": ""},
            "MANDATE_SIGNING_KEY holds no PEM block",
        ),
        (
            {
                "DJANGO_SECRET_KEY": "k",
                "MANDATE_SIGNING_KEY_FILE": "var/absent.pem",
                "MANDATE_SIGNING_KEY": "",
            },
            "MANDATE_SIGNING_KEY_FILE: cannot read",
        ),
        ({"DJANGO_SECRET_KEY": "k", "MANDATE_LIFETIME_S": "0"}, "MANDATE_LIFETIME_S must be"),
        ({"DJANGO_SECRET_KEY": "k", "MANDATE_MAX_AMOUNT": "inf"}, "MANDATE_MAX_AMOUNT must be"),
        (
            {"DJANGO_SECRET_KEY": "k", "SUPPLY_API_KEYS": "long-enough-key-0001,short"},
            "SUPPLY_API_KEYS entries must be at least 16 characters",
        ),
        ({"DJANGO_SECRET_KEY": "k", "IDEMPOTENCY_KEY_TTL_S": "59"}, "IDEMPOTENCY_KEY_TTL_S must"),
        (
            {"DJANGO_SECRET_KEY": "k", "IDEMPOTENCY_LOCK_S": "8", "INTENT_ENGINE_TIMEOUT_S": "8"},
            "IDEMPOTENCY_LOCK_S (8) must be longer than INTENT_ENGINE_TIMEOUT_S (8)",
        ),
        (
            {"DJANGO_SECRET_KEY": "k", "IDEMPOTENCY_LOCK_S": "120", "IDEMPOTENCY_KEY_TTL_S": "60"},
            "and at most IDEMPOTENCY_KEY_TTL_S (60)",
        ),
    ],
)
@pytest.mark.processes
def test_bad_configuration_stops_the_start(tmp_path, overrides, message):
    result = _import_settings(tmp_path, **overrides)

    assert result.returncode != 0
    assert message in result.stderr


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"WEB_BODY_TIMEOUT_S": "0"}, "WEB_BODY_TIMEOUT_S must be between 0.5 and 600 seconds"),
        ({"WEB_BODY_TIMEOUT_S": "nan"}, "WEB_BODY_TIMEOUT_S must be between 0.5 and 600"),
        ({"WEB_BODY_TIMEOUT_S": "30s"}, "WEB_BODY_TIMEOUT_S must be between 0.5 and 600"),
        ({"WEB_MAX_CONNECTIONS_PER_CLIENT": "0"}, "WEB_MAX_CONNECTIONS_PER_CLIENT must be between"),
        (
            {"WEB_MAX_CONNECTIONS_PER_CLIENT": "2.5"},
            "WEB_MAX_CONNECTIONS_PER_CLIENT must be a whole",
        ),
        (
            {"WEB_MAX_CONNECTIONS": "50", "WEB_MAX_CONNECTIONS_PER_CLIENT": "51"},
            "WEB_MAX_CONNECTIONS_PER_CLIENT must be between 1 and 50, not '51'",
        ),
        ({"WEB_CLIENT_BOUNDS": "of"}, "WEB_CLIENT_BOUNDS must be true or false, not 'of'"),
    ],
)
@pytest.mark.processes
def test_bad_web_bounds_stop_the_web_roles_start(tmp_path, overrides, message):
    result = _import_settings(
        tmp_path, "import gateway.web_config", DJANGO_SECRET_KEY="k", **overrides
    )

    assert result.returncode != 0
    assert message in result.stderr


@pytest.mark.processes
def test_the_web_roles_bounds_default_to_a_tenth_of_the_connections_per_client(tmp_path):
    code = "import gateway.web_config as c; print(c.BODY_TIMEOUT_S, c.MAX_CONNECTIONS_PER_CLIENT)"
    default = _import_settings(tmp_path, code, DJANGO_SECRET_KEY="k")
    fewer = _import_settings(tmp_path, code, DJANGO_SECRET_KEY="k", WEB_MAX_CONNECTIONS="50")

    assert (default.returncode, default.stdout) == (0, "30.0 100\n")
    assert (fewer.returncode, fewer.stdout) == (0, "30.0 5\n")


@pytest.mark.processes
def test_one_table_of_rates_prices_the_rupee_by_default_and_takes_the_reports_old_name(tmp_path):
    code = (
        "import gateway.settings as s; print(sorted((k, str(v)) for k, v in s.USD_RATES.items()))"
    )
    default = _import_settings(tmp_path, code, DJANGO_SECRET_KEY="k")
    old_name = _import_settings(tmp_path, code, DJANGO_SECRET_KEY="k", REPORT_USD_RATES="EUR=1.08")
    both = _import_settings(
        tmp_path, code, DJANGO_SECRET_KEY="k", REPORT_USD_RATES="EUR=1.08", USD_RATES="GBP=1.27"
    )
    none = _import_settings(tmp_path, code, DJANGO_SECRET_KEY="k", USD_RATES="")

    assert default.returncode == 0, default.stderr
    assert default.stdout.startswith("[('INR', '0.01212121212")
    assert old_name.stdout == "[('EUR', '1.08')]\n"
    assert both.stdout == "[('GBP', '1.27')]\n"  # the one table wins over the old name
    assert none.stdout == "[]\n"  # no rates at all: every other currency stays apart


@pytest.mark.processes
def test_a_signing_key_file_relative_to_the_project_starts(tmp_path, rsa_pems):
    key_file = ROOT / "var" / f"test-signing-key-{tmp_path.name}.pem"
    key_file.parent.mkdir(exist_ok=True)
    key_file.write_text(rsa_pems[0])
    try:
        result = _import_settings(
            tmp_path,
            DJANGO_SECRET_KEY="k",
            MANDATE_SIGNING_KEY="",
            MANDATE_SIGNING_KEY_FILE=f"var/{key_file.name}",
        )
    finally:
        key_file.unlink()

    assert result.returncode == 0, result.stderr


@pytest.mark.processes
@pytest.mark.parametrize(
    ("overrides", "base"),
    [
        ({}, "http://127.0.0.1:8000"),
        ({"PORT": "18100"}, "http://127.0.0.1:18100"),
        ({"HOST": "0.0.0.0", "PORT": "9000"}, "http://127.0.0.1:9000"),  # noqa: S104
        ({"HOST": "::1", "PORT": "9000"}, "http://[::1]:9000"),
        (
            {"PORT": "9000", "PUBLIC_BASE_URL": "https://gateway.example/"},
            "https://gateway.example",
        ),
    ],
)
def test_links_follow_the_port_unless_the_base_url_is_set(tmp_path, overrides, base):
    env = {key: value for key, value in os.environ.items() if not key.startswith("DJANGO_")}
    for name in ("HOST", "PORT", "PUBLIC_BASE_URL"):
        env.pop(name, None)
    printed = subprocess.run(
        [sys.executable, "-c", "import gateway.settings as s; print(s.PUBLIC_BASE_URL)"],
        cwd=tmp_path,
        env={**env, "DJANGO_SECRET_KEY": "k", **overrides, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert printed.stdout.strip() == base


def test_sqlite_is_django_s_own_backend_and_postgresql_keeps_its_own_health_check(monkeypatch):
    monkeypatch.delenv("DATABASE_CONN_MAX_AGE", raising=False)

    sqlite = environment.database("sqlite:///:memory:")
    postgresql = environment.database("postgres://u@127.0.0.1:5432/x")

    assert sqlite["ENGINE"] == "django.db.backends.sqlite3"
    assert (sqlite["OPTIONS"]["transaction_mode"], sqlite["OPTIONS"]["timeout"]) == (
        "IMMEDIATE",
        20,
    )
    assert postgresql["ENGINE"] == "gateway.postgresql"
    for config in (sqlite, postgresql):
        assert (config["CONN_MAX_AGE"], config["CONN_HEALTH_CHECKS"]) == (60, True)
