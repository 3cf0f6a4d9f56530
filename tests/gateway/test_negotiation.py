"""Every document route serves what it offers for each form of Accept: Markdown to agents and
tools (no header, `*/*`, `text/*`, `text/markdown`), HTML to browsers, and a 406 in the error
envelope only for a type it cannot serve."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ["/docs/INTENT_MATCHING_PROTOCOL.md", "/docs/engine.md"]
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
MARKDOWN = "text/markdown; charset=utf-8"
HTML = "text/html; charset=utf-8"


@pytest.mark.parametrize("path", DOCUMENTS)
@pytest.mark.parametrize(
    ("accept", "served"),
    [
        (None, MARKDOWN),
        ("*/*", MARKDOWN),
        ("text/*", MARKDOWN),
        ("text/markdown", MARKDOWN),
        ("text/html", HTML),
        (BROWSER, HTML),
        ("text/html;q=0.5, text/markdown", MARKDOWN),
        ("text/markdown;q=0.2, text/html;q=0.9", HTML),
        ("application/json;q=0.9, text/markdown;q=0.1", MARKDOWN),
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
@pytest.mark.parametrize("accept", ["application/json", "image/png", "text/markdown;q=0"])
def test_a_document_refuses_only_a_type_it_cannot_serve_with_the_envelope(client, path, accept):
    answer = client.get(path, HTTP_ACCEPT=accept)

    assert answer.status_code == 406
    assert answer["Content-Type"] == "application/json"
    assert answer.json() == {
        "error": "not_acceptable",
        "message": "This resource is served as text/markdown or text/html; the Accept header "
        "asks for none of them.",
    }
