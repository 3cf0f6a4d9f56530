"""`/` is a page for browsers and a JSON index of the entry points for every other client; the
guides and the protocol document are HTML to browsers and Markdown to everyone else
(tests/gateway/test_negotiation.py: each Accept form)."""

import html
import re
from pathlib import Path

import pytest

from gateway.documents import Slugs
from tests.support.accept import BROWSER

ROOT = Path(__file__).resolve().parents[2]


def test_a_browser_at_the_root_gets_the_landing_page_with_every_door(client, settings):
    settings.INTENT_ENGINE_MODEL = ""
    page = client.get("/", HTTP_ACCEPT=BROWSER)

    text = page.content.decode()
    assert page.status_code == 200
    assert page["Content-Type"] == "text/html; charset=utf-8"
    assert "Accept" in page["Vary"]
    links = set(re.findall(r'href="([^"]+)"', text))
    for door in ["/docs/", "/openapi.json", "/admin/", "/reports/",
                 "/docs/INTENT_MATCHING_PROTOCOL.md", "/.well-known/agent-card.json",
                 "/docs/engine.md", "/healthz"]:  # fmt: skip
        assert door in links, door
    assert "503 <code>intent_engine_unavailable</code>" in text  # the engine is not configured
    for guide in (ROOT / "docs").glob("*.md"):
        assert f"/docs/{guide.name}" in links, guide.name


def test_every_link_of_the_landing_page_answers(client, trail_shoe, engine):
    text = client.get("/", HTTP_ACCEPT=BROWSER).content.decode()

    for link in sorted({html.unescape(href) for href in re.findall(r'href="(/[^"]*)"', text)}):
        if link.startswith("/v1/products/"):
            continue  # the demo catalog's shoe: the tour test loads that catalog
        answer = client.get(link, HTTP_ACCEPT=BROWSER)
        assert answer.status_code in (200, 302), link  # the admin and reports redirect to login


def test_the_recommend_example_is_a_link_to_the_url_it_shows(client, trail_shoe, engine):
    example = "/v1/recommend?intent=waterproof+trail+running+shoes&limit=3"
    escaped = "/v1/recommend?intent=waterproof+trail+running+shoes&amp;limit=3"

    text = client.get("/", HTTP_ACCEPT=BROWSER).content.decode()
    answer = client.get(example)

    assert f'<a href="{escaped}"><code>GET {escaped}</code></a>' in text
    assert example not in text  # the & of the query is escaped wherever it is written
    assert answer.status_code == 200
    assert engine.intent_texts == ["waterproof trail running shoes"]
    assert [item["product"]["id"] for item in answer.json()["items"]] == [str(trail_shoe.id)]


def test_the_landing_page_names_the_configured_engine(client, settings):
    settings.INTENT_ENGINE_MODEL = "openai/gpt-4o-mini"

    text = client.get("/", HTTP_ACCEPT=BROWSER).content.decode()

    assert "<code>openai/gpt-4o-mini</code>. Recommendations are on." in text


# The last: an Accept range Django cannot read (an RFC 2231 parameter), taken as a program's.
@pytest.mark.parametrize(
    "accept", [None, "application/json", "*/*", "text/plain", "text/html; a*=xx''v"]
)
def test_any_other_client_at_the_root_gets_the_index_of_the_entry_points(client, settings, accept):
    settings.PUBLIC_BASE_URL = "https://gw.example"
    settings.INTENT_ENGINE_MODEL = ""
    headers = {"HTTP_ACCEPT": accept} if accept else {}

    answer = client.get("/", **headers)

    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/json"
    assert "Accept" in answer["Vary"]
    index = answer.json()
    assert index["engine"] is None
    urls = {entry["name"]: entry["url"] for entry in index["entry_points"]}
    assert urls["openapi"] == "https://gw.example/openapi.json"
    assert urls["protocol"] == "https://gw.example/docs/INTENT_MATCHING_PROTOCOL.md"
    for name in ["api_reference", "agent_card", "ucp", "mcp", "recommend", "healthz", "readyz"]:
        assert name in urls, name
    assert "<html" not in answer.content.decode()


def test_the_root_is_read_only(client):
    answer = client.post("/", HTTP_ACCEPT="application/json")

    assert answer.status_code == 404
    assert answer.json()["error"] == "not found"


def test_every_entry_point_of_the_index_is_served(client, settings):
    settings.PUBLIC_BASE_URL = "http://testserver"
    index = client.get("/", HTTP_ACCEPT="application/json").json()

    for entry in index["entry_points"]:
        path = entry["url"].removeprefix("http://testserver")
        if path in ("/mcp", "/a2a/jsonrpc"):
            continue  # served by the agents' ASGI application, beside Django (agents/asgi.py)
        answer = client.get(path, HTTP_ACCEPT="*/*")
        # routed, though not every one answers 200 here: recommend without an intent is a 400
        assert answer.status_code != 404, path


def test_the_protocol_document_is_html_for_a_browser_with_anchors_and_no_dead_links(client):
    page = client.get("/docs/INTENT_MATCHING_PROTOCOL.md", HTTP_ACCEPT=BROWSER)

    text = page.content.decode()
    assert page.status_code == 200
    assert page["Content-Type"] == "text/html; charset=utf-8"
    assert "<h1" in text
    assert "# The intent-matching protocol" not in text
    assert "<table>" in text  # the ranking weights
    assert "Accept" in page["Vary"]


@pytest.mark.parametrize("guide", sorted(p.name for p in (ROOT / "docs").glob("*.md")))
def test_every_guide_is_served_and_its_links_lead_somewhere(client, guide):
    markdown = client.get(f"/docs/{guide}")
    html = client.get(f"/docs/{guide}", HTTP_ACCEPT=BROWSER).content.decode()

    assert markdown["Content-Type"] == "text/markdown; charset=utf-8"
    assert markdown.content == (ROOT / "docs" / guide).read_bytes()
    ids = set(re.findall(r' id="([^"]+)"', html))
    for href in re.findall(r'<a href="([^"]+)"', html):
        if href.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = href.partition("#")
        target = f"/docs/{path}" if path and not path.startswith("/") else path
        if target:
            assert client.get(target, HTTP_ACCEPT=BROWSER).status_code in (200, 302), href
        if anchor and not path:
            assert anchor in ids, href
        elif anchor:
            linked = client.get(target, HTTP_ACCEPT=BROWSER).content.decode()
            assert f' id="{anchor}"' in linked, href


def test_a_link_to_a_file_that_is_not_served_reads_as_its_name():
    from gateway.documents import rendered_document

    html = rendered_document("api.md")  # links kernel/errors.py, a source file

    assert '<span class="file" title="../kernel/errors.py">kernel/errors.py</span>' in html
    assert 'href="../kernel/errors.py"' not in html


@pytest.mark.parametrize("name", ["nope.md", "..%2Fsettings.py", "api", "API.MD", "a" * 50 + ".md"])
def test_only_the_guides_are_served(client, name):
    answer = client.get(f"/docs/{name}")

    assert answer.status_code == 404
    assert answer.json()["error"] == "not found"


def test_the_guides_are_read_only(client):
    assert client.post("/docs/api.md").status_code == 404


def test_anchors_are_githubs():
    slugs = Slugs()

    assert [slugs.next(h) for h in ["The engine's breaker", "Logs", "Logs"]] == [
        "the-engines-breaker",
        "logs",
        "logs-1",
    ]


def test_browsers_get_an_icon_instead_of_a_404(client):
    icon = client.get("/favicon.ico")

    assert icon.status_code == 200
    assert icon["Content-Type"] == "image/svg+xml"
    assert icon.content.startswith(b"<svg")
