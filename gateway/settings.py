"""Settings of the gateway: every knob is an environment variable with a safe default.

A `.env` file beside `manage.py` is read when present (`make run` and `make test` create one with
a random secret key). Bad values raise `ImproperlyConfigured` at start, never at first use.
"""

import os
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from gateway.cache_settings import cache_settings
from gateway.celery_settings import TASK_ROUTES, beat_schedule, broker_transport_options
from gateway.contract_settings import spectacular_settings
from gateway.environment import (
    allowed_ports,
    bounded,
    bounded_int,
    database,
    env,
    exchange_rates,
    idempotency_windows,
    served_at,
    supply_keys,
    throttle_rates,
)
from gateway.logging_settings import log_format, logging_config
from gateway.metrics_settings import REQUEST_BUCKETS, metrics_settings
from gateway.throttle_settings import DEFAULT_THROTTLE_RATES
from kernel.signing import load_signing_keys

BASE_DIR = Path(__file__).resolve().parent.parent
# The embedded default's files: file cache, filesystem broker, beat's schedule. A relative path is
# read against the project; the test suite gives each of its parallel workers one of its own.
VAR_DIR = BASE_DIR / env.str("VAR_DIR", default="var")

DEBUG = env.bool("DJANGO_DEBUG", default=False)
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is required when DJANGO_DEBUG is off (make run writes one to .env)."
        )
    SECRET_KEY = "insecure-development-only-key"  # noqa: S105 - only ever used with DEBUG on
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1"])
# Passphrases of the keys that encrypt secrets at rest (kernel/secrets.py): the first encrypts,
# all decrypt. By default the one SECRET_KEY; list the old one after a new one to rotate.
SECRETS_ENCRYPTION_KEYS = env.list("SECRETS_ENCRYPTION_KEYS", default=[]) or [SECRET_KEY]

# Unset, it follows where the web role is served (HOST, PORT): `PORT=9000 make run` links to 9000.
_SERVED_AT = served_at(env.str("HOST", default="127.0.0.1"), env.str("PORT", default="8000"))
PUBLIC_BASE_URL = env.str("PUBLIC_BASE_URL", default=_SERVED_AT).rstrip("/")
if not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", PUBLIC_BASE_URL):
    raise ImproperlyConfigured(
        f"PUBLIC_BASE_URL must be an absolute http(s) URL: {PUBLIC_BASE_URL}"
    )
# The shop's home page: where a dead buy link's page sends the shopper (reporting/dead_links.py).
# Unset, the page says the offer is gone without a link to the shop.
SHOP_HOME_URL = env.str("SHOP_HOME_URL", default="")
if SHOP_HOME_URL and not re.fullmatch(r"https?://[^\s/?#]+(/[^\s]*)?", SHOP_HOME_URL):
    raise ImproperlyConfigured(f"SHOP_HOME_URL must be an absolute http(s) URL: {SHOP_HOME_URL}")
# Who runs this gateway, as the A2A agent card names its provider.
AGENT_CARD_ORGANIZATION = env.str("AGENT_CARD_ORGANIZATION", default="Gateway operator")

INSTALLED_APPS = [
    "gateway.admin_site.GatewayAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "gateway.apps.GatewayConfig",
    "kernel",
    "catalog",
    "merchants",
    "matching",
    "reporting",
    "agents",
    "gateway.admin_site.StaffLoginAttemptsConfig",
]

# The staff login, bounded (django-axes): after AXES_FAILURE_LIMIT wrong passwords for one user
# name from one address, that pair is locked out for AXES_COOLOFF_TIME (a 429 page), the right
# password included. Counting the pair, not the address alone or the name alone, keeps an
# attacker from locking a colleague out from elsewhere. Attempts are rows (admin: Staff login
# attempts).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = bounded_int("ADMIN_LOGIN_FAILURE_LIMIT", 5, 1, 100)
AXES_COOLOFF_TIME = timedelta(
    minutes=bounded_int("ADMIN_LOGIN_LOCKOUT_MINUTES", 15, 1, 24 * 60, " minutes")
)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
# The client as the throttles find it: X-Forwarded-For only through TRUSTED_PROXY_COUNT proxies.
AXES_CLIENT_IP_CALLABLE = "kernel.throttles.login_address"
AXES_VERBOSE = False
SILENCED_SYSTEM_CHECKS = ["axes.W002"]  # its middleware: gateway.middleware.LoginLockoutMiddleware

MIDDLEWARE = [
    # gateway/middleware.py: each of Django's own, fitted for the coroutine views' chain.
    "gateway.middleware.RequestIdMiddleware",
    "gateway.middleware.SecurityMiddleware",
    "gateway.middleware.StaticFilesMiddleware",
    "gateway.middleware.SessionMiddleware",
    "gateway.middleware.CommonMiddleware",
    "gateway.middleware.CsrfViewMiddleware",
    "gateway.middleware.AuthenticationMiddleware",
    "gateway.middleware.MessageMiddleware",
    "gateway.middleware.XFrameOptionsMiddleware",
    # Last: django-axes' lockout answer for the admin login (docs/data.md#the-staff-login).
    "gateway.middleware.LoginLockoutMiddleware",
]

# Metrics, on when METRICS_TOKEN is set (docs/alerts.md#metrics, gateway/metrics_settings.py).
METRICS_TOKEN, METRICS_DIR, MIDDLEWARE = metrics_settings(MIDDLEWARE)
PROMETHEUS_LATENCY_BUCKETS = REQUEST_BUCKETS

ROOT_URLCONF = "gateway.urls"
WSGI_APPLICATION = "gateway.wsgi.application"
ASGI_APPLICATION = "gateway.asgi.application"
# Threads of a web worker that run synchronous views, and those that run the synchronous steps of
# the views that wait (gateway/asgi.py); each keeps its own database connection between requests.
WEB_THREADS = bounded_int("WEB_THREADS", 4, 1, 256)
WEB_STEP_THREADS = bounded_int("WEB_STEP_THREADS", 1, 1, 256)
# The API's paths carry no trailing slash; never redirect a POST to a slashed twin.
APPEND_SLASH = False

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": database(env.str("DATABASE_URL", default="sqlite:///var/gateway.sqlite3"))}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env.str("REDIS_URL", default="")
# The caches (kernel/cache.py says what lives in each): shared state, the intent engine's
# resolutions, A2A tasks (CACHES), and each process's own memory of the catalog (CATALOG_*).
INTENT_ENGINE_CACHE_ENTRIES = bounded_int("INTENT_ENGINE_CACHE_ENTRIES", 10_000, 100, 10_000_000)
CATALOG_CACHE_S = bounded_int("CATALOG_CACHE_S", 60, 0, 3600, " seconds")
CATALOG_CACHE_ENTRIES = bounded_int("CATALOG_CACHE_ENTRIES", 5_000, 100, 1_000_000)
# The semantic signal of search (catalog/semantic.py): products' and queries' embeddings. Off,
# nothing is embedded and search is the lexical tiers alone.
SEMANTIC_SEARCH = env.bool("SEMANTIC_SEARCH", default=True)
# A2A tasks: how many the embedded default's file store keeps, and the Redis that keeps them
# (REDIS_URL unless named), agents/a2a/tasks.py.
A2A_TASK_STORE_ENTRIES = bounded_int("A2A_TASK_STORE_ENTRIES", 5_000, 100, 1_000_000)
A2A_TASKS_REDIS_URL = env.str("A2A_TASKS_REDIS_URL", default="")
CACHES = cache_settings(
    redis_url=REDIS_URL,
    tasks_redis_url=A2A_TASKS_REDIS_URL,
    var_dir=VAR_DIR,
    engine_entries=INTENT_ENGINE_CACHE_ENTRIES,
    task_entries=A2A_TASK_STORE_ENTRIES,
)

# Celery: Redis when configured, else a filesystem broker under var/ so a fresh machine needs
# nothing else running.
CELERY_BROKER_URL = (
    env.str("CELERY_BROKER_URL", default="") or REDIS_URL or "filesystem://localhost//"
)
BROKER_DIR = VAR_DIR / "broker"
CELERY_BROKER_TRANSPORT_OPTIONS = broker_transport_options(CELERY_BROKER_URL)
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT = "gateway.filesystem_broker:Transport"  # kombu's, with two fixes
    CELERY_BROKER_TRANSPORT_OPTIONS.update(
        data_folder_in=str(BROKER_DIR / "queue"),
        data_folder_out=str(BROKER_DIR / "queue"),
        processed_folder=str(BROKER_DIR / "processed"),
        control_folder=str(BROKER_DIR / "control"),
        store_processed=False,
        # Workers look for new messages ten times a second (the default is once a second).
        polling_interval=0.1,
    )
    # The filesystem transport expects its folders to exist before the first message.
    for folder in ("queue", "processed", "control"):
        (BROKER_DIR / folder).mkdir(parents=True, exist_ok=True)
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None  # a lost broker is retried for as long as it takes
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

REST_FRAMEWORK: dict[str, Any] = {
    "DEFAULT_RENDERER_CLASSES": ["kernel.jsonio.OrjsonRenderer"],
    "DEFAULT_PARSER_CLASSES": ["kernel.jsonio.OrjsonParser"],
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_THROTTLE_CLASSES": ["kernel.throttles.ScopeThrottle"],
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_THROTTLE_RATES": throttle_rates(
        env.str("THROTTLE_RATES", default=""), DEFAULT_THROTTLE_RATES
    ),
    # Clients are identified by REMOTE_ADDR unless the operator says how many proxies to trust;
    # trusting X-Forwarded-For blindly would let anyone pick their own throttle bucket.
    "NUM_PROXIES": env.int("TRUSTED_PROXY_COUNT", default=0),
    "EXCEPTION_HANDLER": "kernel.handlers.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "kernel.contract.GatewaySchema",
    "URL_FORMAT_OVERRIDE": None,
}


SPECTACULAR_SETTINGS = spectacular_settings(PUBLIC_BASE_URL)

# Bodies above 256 KB are refused with 413 before they are parsed.
DATA_UPLOAD_MAX_MEMORY_SIZE = 256 * 1024
# A form's fields (the staff console's): an object is edited as rows of two fields each, and a
# merchant's metadata may hold thousands of small names within its 16 KB. The body's size above
# still bounds what is read.
DATA_UPLOAD_MAX_NUMBER_FIELDS = 10_000

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
# The API speaks English; /openapi.json?locale=zh is also served in Simplified Chinese, from the
# gettext catalog under locale/ (the compiled .mo is committed, so no gettext tools are needed).
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# WhiteNoise serves the admin's and Swagger UI's assets straight from the installed apps, so the
# gateway needs no collectstatic step before it can answer.
WHITENOISE_USE_FINDERS = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
# A form sent without its token: a page for people, the envelope for programs.
CSRF_FAILURE_VIEW = "kernel.handlers.csrf_failure"
if PUBLIC_BASE_URL.startswith("https://"):
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    CSRF_TRUSTED_ORIGINS = [PUBLIC_BASE_URL]

# Merchant agent endpoints must be public https URLs; these switches are for local development
# and tests only (a loopback merchant stub).
WEBHOOK_ALLOW_PRIVATE_TARGETS = env.bool("WEBHOOK_ALLOW_PRIVATE_TARGETS", default=False)
WEBHOOK_ALLOW_HTTP = env.bool("WEBHOOK_ALLOW_HTTP", default=False)
# Ports a merchant endpoint may use (merchants/endpoints.py); any, with private targets allowed.
WEBHOOK_ALLOWED_PORTS = allowed_ports(env.str("WEBHOOK_ALLOWED_PORTS", default="443"))

# Intent.Surge webhooks and health probes (DESIGN.md section 7). One attempt may take at most
# WEBHOOK_TIMEOUT_S (connect, answer and read together); the delivery task's time limits and the
# lease after which a claimed delivery counts as abandoned follow from it.
WEBHOOK_TIMEOUT_S = bounded("WEBHOOK_TIMEOUT_S", 10.0, 1, 60, " seconds")
WEBHOOK_FANOUT_MAX = bounded_int("WEBHOOK_FANOUT_MAX", 1000, 1, 100_000)
WEBHOOK_SWEEP_INTERVAL_S = bounded("WEBHOOK_SWEEP_INTERVAL_S", 5.0, 0.5, 300, " seconds")
MERCHANT_PROBE_INTERVAL_S = bounded("MERCHANT_PROBE_INTERVAL_S", 60.0, 5, 86_400, " seconds")
# What recommends and intents store is kept this long, unless attribution still points at it
# (reporting/retention.py): intents with their proposals and sessions, then the cards.
INTENT_RETENTION_DAYS = bounded_int("INTENT_RETENTION_DAYS", 30, 1, 3650, " days")
RECOMMENDATION_RETENTION_DAYS = bounded_int("RECOMMENDATION_RETENTION_DAYS", 90, 1, 3650, " days")
if RECOMMENDATION_RETENTION_DAYS < INTENT_RETENTION_DAYS:
    # A kept session keeps its cards: cards must outlive the intents they answered.
    raise ImproperlyConfigured(
        "RECOMMENDATION_RETENTION_DAYS must be at least INTENT_RETENTION_DAYS "
        f"({RECOMMENDATION_RETENTION_DAYS} < {INTENT_RETENTION_DAYS})"
    )
# How often beat's sweep tries the unresolved intents that are due (matching/intent_resolution.py).
INTENT_SWEEP_INTERVAL_S = bounded("INTENT_SWEEP_INTERVAL_S", 60.0, 1, 3600, " seconds")
# Finished deliveries (with their attempts) and health probes are kept this many days.
WEBHOOK_RETENTION_DAYS = bounded_int("WEBHOOK_RETENTION_DAYS", 30, 1, 3650, " days")
HEALTH_PROBE_RETENTION_DAYS = bounded_int("HEALTH_PROBE_RETENTION_DAYS", 7, 1, 3650, " days")
# A USD conversion over this many times the credited price times its quantity is flagged.
CONVERSION_PRICE_FACTOR = bounded("CONVERSION_PRICE_FACTOR", 3.0, 1, 1000)
# A client's follows of one card's buy link count as one click within this window.
CLICK_WINDOW_S = bounded_int("CLICK_WINDOW_S", 1800, 0, 7 * 86_400, " seconds")
# How long an A2A task stays readable (tasks/get) after it finished: a completed one, a failed
# one; and the largest task kept whole (agents/a2a/tasks.py).
A2A_TASK_TTL_S = bounded_int("A2A_TASK_TTL_S", 86_400, 60, 30 * 86_400, " seconds")
A2A_FAILED_TASK_TTL_S = bounded_int("A2A_FAILED_TASK_TTL_S", 300, 10, 86_400, " seconds")
A2A_TASK_MAX_BYTES = bounded_int("A2A_TASK_MAX_BYTES", 65_536, 4_096, 1_048_576, " bytes")
# A health answer is reused this long per merchant, however many callers ask; new probes asked
# for through the API go out on this many threads per web process at most (merchants/probes.py).
MERCHANT_HEALTH_CACHE_S = 30
MERCHANT_PROBE_CONCURRENCY = bounded_int("MERCHANT_PROBE_CONCURRENCY", 4, 1, 64)

# Deliveries under way to one merchant, and to one destination (address and port), at most; the
# next goes when one finishes. A merchant that hangs holds this many of the fast lane's threads.
WEBHOOK_MERCHANT_IN_FLIGHT = bounded_int("WEBHOOK_MERCHANT_IN_FLIGHT", 1, 1, 100)
# Requests (deliveries and verifications) to one destination (the address and port an endpoint
# resolves to) a minute, however it is named (merchants/delivery/hosts.py); the rest wait.
WEBHOOK_HOST_PER_MINUTE = bounded_int("WEBHOOK_HOST_PER_MINUTE", 120, 1, 100_000)

CELERY_TASK_ROUTES = TASK_ROUTES
CELERY_BEAT_SCHEDULE = beat_schedule(
    sweep_s=WEBHOOK_SWEEP_INTERVAL_S,
    probe_s=MERCHANT_PROBE_INTERVAL_S,
    intent_sweep_s=INTENT_SWEEP_INTERVAL_S,
)

# The intent engine (DESIGN.md section 6): a language model reached through litellm. Unset
# INTENT_ENGINE_MODEL = not configured: recommend answers 503 and new intents wait, unresolved.
INTENT_ENGINE_MODEL = env.str("INTENT_ENGINE_MODEL", default="").strip()
INTENT_ENGINE_API_BASE = env.str("INTENT_ENGINE_API_BASE", default="").strip() or None
INTENT_ENGINE_API_KEY = env.str("INTENT_ENGINE_API_KEY", default="").strip() or None
# One resolution may take at most this long, retries included; an answer is cut at MAX_TOKENS:
# keep the timeout twice the time the model takes to write them (docs/engine.md).
# The longest it may be set to: ops/nginx/gateway.conf gives the web roles longer than this.
INTENT_ENGINE_TIMEOUT_MAX_S = 120
INTENT_ENGINE_TIMEOUT_S = bounded(
    "INTENT_ENGINE_TIMEOUT_S", 8.0, 0.5, INTENT_ENGINE_TIMEOUT_MAX_S, " seconds"
)
INTENT_ENGINE_MAX_TOKENS = bounded_int("INTENT_ENGINE_MAX_TOKENS", 300, 64, 4096)
# Extra attempts after a provider error (never after a timeout: the time is spent).
INTENT_ENGINE_RETRIES = bounded_int("INTENT_ENGINE_RETRIES", 1, 0, 3)
# Outages of this many distinct intents in a row, the last confirmed by a canary call, open the
# breaker (503 at once) for COOLDOWN_S, then one trial call decides
# (matching/engine/breaker.py). A bad answer to one input is remembered for
# INTENT_ENGINE_BAD_INPUT_S.
INTENT_ENGINE_BREAKER_FAILURES = bounded_int("INTENT_ENGINE_BREAKER_FAILURES", 5, 1, 100)
INTENT_ENGINE_BREAKER_COOLDOWN_S = bounded(
    "INTENT_ENGINE_BREAKER_COOLDOWN_S", 30.0, 1, 3600, " seconds"
)
INTENT_ENGINE_BAD_INPUT_S = bounded_int("INTENT_ENGINE_BAD_INPUT_S", 60, 0, 86_400, " seconds")
INTENT_ENGINE_CANARY_TIMEOUT_S = bounded("INTENT_ENGINE_CANARY_TIMEOUT_S", 2.0, 0.2, 30, " seconds")
# Resolutions are reused this long for the same normalized text and region.
INTENT_ENGINE_CACHE_S = bounded_int("INTENT_ENGINE_CACHE_S", 3600, 0, 7 * 86_400, " seconds")
# Idempotency-Key (kernel/idempotency.py): a key's lifetime, and an unfinished request's hold.
IDEMPOTENCY_KEY_TTL_S, IDEMPOTENCY_LOCK_S = idempotency_windows(INTENT_ENGINE_TIMEOUT_S)
# The live keys a client (an address) may hold; past it a new key is 429 idempotency_key_limit.
IDEMPOTENCY_KEYS_PER_CLIENT = bounded_int("IDEMPOTENCY_KEYS_PER_CLIENT", 1000, 10, 1_000_000, "")
# litellm would fetch its price list from the network on import; its own copy does (DESIGN.md 3).
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

# Keys accepted in X-Supply-Key by GET /v1/report/attribution (two while one replaces the other;
# none: 503).
SUPPLY_API_KEY_MIN_LENGTH = 16
SUPPLY_API_KEYS = supply_keys(env.str("SUPPLY_API_KEYS", default=""), SUPPLY_API_KEY_MIN_LENGTH)
# The one table of exchange rates (kernel/money.py), for recommend's budgets and the reports.
USD_RATES = exchange_rates(os.environ)

# How long a minted match token can be confirmed.
MATCH_TOKEN_TTL_HOURS = bounded_int("MATCH_TOKEN_TTL_HOURS", 24, 1, 24 * 30, " hours")

# Signed intent mandates (DESIGN.md section 5) and the agent card's signature. The private key(s),
# EC P-256 (ES256) or RSA (RS256): MANDATE_SIGNING_KEY_FILE lists PEM files (comma-separated,
# relative to the project), MANDATE_SIGNING_KEY holds PEM text (`\n` escapes allowed); either may
# carry several keys: the first signs, all are published. Neither set = signing not configured
# (503, and an unsigned card). Checked now, so a bad key stops the start.
MANDATE_SIGNING_KEY = env.str("MANDATE_SIGNING_KEY", default="")
MANDATE_SIGNING_KEY_FILE = env.str("MANDATE_SIGNING_KEY_FILE", default="")
load_signing_keys(
    key_text=MANDATE_SIGNING_KEY, key_files=MANDATE_SIGNING_KEY_FILE, base_dir=BASE_DIR
)
# How long a signed mandate stays valid, and the largest amount_limit one may carry.
MANDATE_LIFETIME_S = bounded_int("MANDATE_LIFETIME_S", 900, 10, 86_400, " seconds")
MANDATE_MAX_AMOUNT = bounded("MANDATE_MAX_AMOUNT", 100_000.0, 1, 1_000_000_000)

# Cards show at most this many creator videos, best first.
CARD_MAX_VIDEOS = bounded_int("CARD_MAX_VIDEOS", 3, 1, 10)

LOG_LEVEL = env.str("LOG_LEVEL", default="INFO").upper()
# A plain line a record, or a JSON object a line with the request id and the trace id.
LOG_FORMAT = log_format(env.str("LOG_FORMAT", default="text"))
# Beat's tasks log a line of their own when they did something; Celery's lines for each run go.
LOGGING = logging_config(
    level=LOG_LEVEL,
    quiet_tasks=[entry["task"] for entry in CELERY_BEAT_SCHEDULE.values()],
    form=LOG_FORMAT,
)
