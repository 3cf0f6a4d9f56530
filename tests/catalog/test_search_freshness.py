"""Catalog changes reach search on every web process and every host within the bound, and no
request waits for them: the Procfile's `web` role on loopback over the test database, searched
through GET /v1/recommend (the scripted engine answers each intent with its own words)."""

import json
import shutil
import subprocess
import sys
import time
from urllib.parse import quote_plus

import pytest
import requests
from django.conf import settings
from django.db import connection, transaction
from django.urls import reverse

from catalog.importer import catalog_import
from catalog.models import Product
from tests.support.engine import ScriptedEngine
from tests.support.forms import current_form_data
from tests.support.web import WebServer
from tests.support.worker import ROOT

pytestmark = pytest.mark.django_db(transaction=True)

# DESIGN.md section 5: imports and admin edits reach search within this, everywhere.
BOUND_S = 10

shared_stores = pytest.mark.skipif(
    connection.vendor != "postgresql" or not settings.REDIS_URL,
    reason="needs DATABASE_URL=postgres://... and REDIS_URL: two hosts share PostgreSQL and "
    "Redis (the embedded default is one host's)",
)


@pytest.fixture(scope="module")
def engine():
    with ScriptedEngine() as scripted:
        yield scripted


def web_env(engine: ScriptedEngine) -> dict[str, str]:
    return {
        "INTENT_ENGINE_MODEL": "openai/scripted",
        "INTENT_ENGINE_API_BASE": engine.api_base,
        "INTENT_ENGINE_API_KEY": "sk-test",
        "WEB_CONCURRENCY": "2",
    }


def found(web: WebServer, words: str) -> list[int]:
    """The products an intent's own tiers find (trending fill left out)."""
    answer = web.get(f"/v1/recommend?intent={quote_plus(words)}&limit=5")
    assert answer.status == 200, answer.body
    body = answer.json()
    return [int(card["product"]["id"]) for card in body["items"]][
        : body["retrieval"]["intent_hits"]
    ]


def seen_everywhere(web: WebServer, words: str, product_id: int) -> bool:
    # Four asks: with two workers taking turns, both answer (each keeps its own memory).
    return all(product_id in found(web, words) for _ in range(4))


def wait_for(condition, what: str) -> float:
    """Poll `condition()` until it holds, within BOUND_S; the seconds it took."""
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < BOUND_S, f"{what} not within {BOUND_S} s"
        time.sleep(0.2)
    return time.monotonic() - started


def admin_rename(session: requests.Session, base: str, product_id: int, title: str) -> None:
    """Rename a product through the admin's change form, as staff in a browser would."""
    url = base + reverse("admin:catalog_product_change", args=[product_id])
    data = current_form_data(session.get(url, timeout=30).text)
    data["title"] = title
    saved = session.post(url, data={**data, "_save": "Save"}, timeout=30, allow_redirects=False)
    assert saved.status_code == 302, saved.text[:2000]


def staff_session(base: str, django_user_model) -> requests.Session:
    django_user_model.objects.create_superuser("staff", "staff@gateway.test", "pw-for-tests")
    session = requests.Session()
    login = base + reverse("admin:login")
    page = session.get(login, timeout=30)
    token = current_form_data(page.text)["csrfmiddlewaretoken"]
    signed_in = session.post(
        login,
        data={"csrfmiddlewaretoken": token, "username": "staff", "password": "pw-for-tests"},
        timeout=30,
        allow_redirects=False,
    )
    assert signed_in.status_code == 302, signed_in.text[:2000]
    return session


def test_an_admin_edit_reaches_every_web_process_within_the_bound(
    tmp_path, engine, shelf, django_user_model
):
    with WebServer(tmp_path, env=web_env(engine)) as web:
        # Each worker has searched for it (and keeps the answer in its memory), and found none.
        assert not any(found(web, "kayak spraydeck") for _ in range(4))
        session = staff_session(web.url, django_user_model)

        admin_rename(session, web.url, 2005, "Riverline Kayak Spraydeck")

        wait_for(lambda: seen_everywhere(web, "kayak spraydeck", 2005), "the renamed title")
        assert 2005 not in found(web, "merino hiking socks")


def test_an_import_reaches_search_and_searches_meanwhile_never_wait_for_it(tmp_path, engine, shelf):
    lines = tmp_path / "paddles.jsonl"
    lines.write_text(
        "\n".join(
            json.dumps(
                {
                    "id": 7000 + n,
                    "title": f"Riverline Carbon Kayak Paddle {n}",
                    "price_usd": 80 + n,
                    "category_l1": "Sports & Outdoors",
                    "category_l2": "Paddles",
                    "url": f"https://shop.test/p/{7000 + n}",
                    "regions": [],
                }
            )
            for n in range(300)
        )
    )
    with WebServer(tmp_path, env=web_env(engine)) as web:
        assert found(web, "carbon kayak paddle") == []
        if connection.vendor == "postgresql":
            # An import still open: searches answer at once, from the catalog as committed.
            with transaction.atomic():
                catalog_import(
                    lines=[
                        b'{"id": 7999, "title": "Riverline Kayak Paddle", '
                        b'"url": "https://shop.test/p/7999"}'
                    ]
                )
                assert found(web, "riverline kayak paddle") == []
        imported = subprocess.run(  # noqa: S603 - the project's own command
            [sys.executable, "manage.py", "import_catalog", str(lines)],
            cwd=ROOT,
            env=web.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert imported.returncode == 0, imported.stderr

        wait_for(lambda: seen_everywhere(web, "carbon kayak paddle", 7000), "the imported products")
        assert Product.objects.filter(id__gte=7000, id__lt=7300).count() == 300


@shared_stores
def test_two_hosts_search_one_catalog(tmp_path, engine, shelf, django_user_model):
    """Two web roles, each run from its own checkout (its own var/: no files shared), over one
    PostgreSQL and one Redis: an edit made through one is searched by the other."""
    hosts = []
    for name in ("host-a", "host-b"):
        checkout = tmp_path / name
        shutil.copytree(
            ROOT,
            checkout,
            ignore=shutil.ignore_patterns(
                ".git", ".venv", "var", ".mypy_cache", ".ruff_cache", "__pycache__", ".hypothesis"
            ),
        )
        hosts.append(checkout)
    env = {**web_env(engine), "MANDATE_SIGNING_KEY_FILE": "", "MANDATE_SIGNING_KEY": ""}
    with (
        WebServer(tmp_path, env=env, root=hosts[0]) as first,
        WebServer(tmp_path, env=env, root=hosts[1]) as second,
    ):
        assert not any(found(second, "kayak spraydeck") for _ in range(4))
        session = staff_session(first.url, django_user_model)

        admin_rename(session, first.url, 2005, "Riverline Kayak Spraydeck")

        wait_for(lambda: seen_everywhere(second, "kayak spraydeck", 2005), "the other host")
        assert seen_everywhere(first, "kayak spraydeck", 2005)
