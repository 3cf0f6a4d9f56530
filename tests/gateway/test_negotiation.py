"""Every document route serves what it offers for each form of Accept: HTML to browsers,
Markdown to every other client (no header, `*/*`, `text/*`, `text/markdown`, and types it does not
offer, `application/json`, `text/plain`), and a 406 in the error envelope only when the header
refuses both with `q=0`."""

from pathlib import Path

import pytest

from tests.support.accept import BROWSER

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ["/docs/INTENT_MATCHING_PROTOCOL.md", "/docs/engine.md"]

MARKDOWN = "text/markdown; charset=utf-8"
HTML = "text/html; charset=utf-8"


@pytest.mark.parametrize("path", DOCUMENTS)
@pytest.mark.parametrize(
    ("accept", "served"),
    [
        (None, MARKDOWN),
        ("", MARKDOWN),
        ("*/*", MARKDOWN),
        ("text/*", MARKDOWN),
        ("text/markdown", MARKDOWN),
        ("application/json", MARKDOWN),  # not offered: the default form instead of a 406
        ("text/plain", MARKDOWN),
        ("image/png", MARKDOWN),
        ("text/html", HTML),
        (BROWSER, HTML),
        ("application/xhtml+xml", HTML),
        ("text/html;q=0.5, text/markdown", MARKDOWN),
        ("text/markdown;q=0.2, text/html;q=0.9", HTML),
        ("application/json;q=0.9, text/markdown;q=0.1", MARKDOWN),
        ("text/markdown;q=0", HTML),  # Markdown refused, the page is not
        ("text/markdown;q=0, */*", HTML),  # the most specific range rates Markdown
        ("text/html;q=0, application/xhtml+xml", MARKDOWN),  # the page refused by its own type
        ("Text/HTML", HTML),
        ("text/html; a*=xx''v", MARKDOWN),  # a range Django cannot read names nothing
        ("text/html; a*=xx''v, text/html;q=0.5", HTML),
    ],
)
def test_a_document_answers_the_type_the_accept_header_prefers(client, path, accept, served):
    headers = {"HTTP_ACCEPT": accept} if accept is not None else {}

    answer = client.get(path, **headers)

    assert answer.status_code == 200
    assert answer["Content-Type"] == served
    assert "Accept" in answer["Vary"]
    if served == MARKDOWN:
        assert answer.content == (ROOT / path.removeprefix("/")).read_bytes()
    else:
        assert answer.content.startswith(b"<!DOCTYPE html>") or b"<html" in answer.content[:200]


@pytest.mark.parametrize("path", DOCUMENTS)
@pytest.mark.parametrize(
    "accept",
    [
        "*/*;q=0",
        "text/markdown;q=0, text/html;q=0, */*;q=0",
        "text/markdown;q=0, text/html;q=0",
        "application/json, text/*;q=0",
    ],
)
def test_a_document_refuses_only_a_header_that_refuses_both_its_types(client, path, accept):
    answer = client.get(path, HTTP_ACCEPT=accept)

    assert answer.status_code == 406
    assert answer["Content-Type"] == "application/json"
    assert "Accept" in answer["Vary"]
    assert answer.json() == {
        "error": "not_acceptable",
        "message": "This resource is served as text/markdown or text/html; the Accept header "
        "asks for none of them.",
    }
