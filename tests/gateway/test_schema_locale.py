"""The contract in Chinese (?locale=zh), its gettext catalog, and the Swagger UI's switch."""

import io
import re
import shutil

import polib
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from openapi_spec_validator import validate

from kernel.schema import map_texts, schema_texts

CJK = re.compile(r"[\u4e00-\u9fff]")


def _by_pointer(schema):
    return {
        pointer: text for text, pointers in schema_texts(schema).items() for pointer in pointers
    }


def test_locale_zh_serves_every_text_in_chinese(client):
    english = client.get("/openapi.json").json()

    response = client.get("/openapi.json?locale=zh")

    assert response.status_code == 200
    assert response["Content-Language"] == "zh-Hans"
    chinese = response.json()
    assert chinese["info"]["title"] == "商品推荐与意图匹配网关"
    english_texts, chinese_texts = _by_pointer(english), _by_pointer(chinese)
    assert chinese_texts.keys() == english_texts.keys()
    assert [p for p, text in chinese_texts.items() if text == english_texts[p]] == []
    assert [p for p, text in chinese_texts.items() if not CJK.search(text)] == []


def test_locale_zh_changes_only_texts(client):
    english = client.get("/openapi.json").json()
    chinese = client.get("/openapi.json?locale=zh").json()

    def blank(text, pointer):
        return ""

    # Paths, parameters, schemas, codes, identifiers and example bodies are the same.
    assert map_texts(chinese, blank) == map_texts(english, blank)
    recommend = chinese["paths"]["/v1/recommend"]["get"]
    assert recommend["summary"] == "根据自然语言的购物意图返回商品卡片"
    assert "`intent_engine_unavailable`" in recommend["responses"]["503"]["description"]
    assert recommend["tags"] == ["recommend"]


def test_every_operation_summary_is_chinese(client):
    schema = client.get("/openapi.json?locale=zh").json()

    english = [
        (path, method)
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
        if not CJK.search(operation["summary"])
    ]

    assert english == []
    assert all(CJK.search(tag["description"]) for tag in schema["tags"])


def test_the_chinese_contract_is_valid_openapi(client):
    validate(client.get("/openapi.json?locale=zh").json())


@pytest.mark.parametrize("query", ["", "?locale=en", "?locale=fr", "?locale=", "?locale=zh-TW"])
def test_unknown_or_absent_locale_serves_english(client, query):
    response = client.get(f"/openapi.json{query}")

    assert response.status_code == 200
    assert response["Content-Language"] == "en"
    schema = response.json()
    assert schema["info"]["title"] == "Product Recommendation and Intent-Matching Gateway"
    assert not CJK.search(schema["paths"]["/v1/recommend"]["get"]["summary"])


def test_the_contract_declares_its_locale_parameter(client):
    operation = client.get("/openapi.json").json()["paths"]["/openapi.json"]["get"]

    locale = next(p for p in operation["parameters"] if p["name"] == "locale")
    assert locale["in"] == "query"
    # Any other value serves English (above), so the schema must not restrict it to an enum.
    assert locale["schema"] == {"type": "string"}
    assert "`en`" in locale["description"]
    assert "`zh`" in locale["description"]
    assert operation["responses"]["200"]["headers"]["Content-Language"]


def test_every_string_of_the_contract_has_a_chinese_translation():
    out = io.StringIO()

    call_command("openapi_messages", "--check", stdout=out)  # CommandError lists any missing

    assert out.getvalue().startswith("All ")


@pytest.fixture
def catalog_dir(settings, tmp_path):
    settings.LOCALE_PATHS = [tmp_path]
    po = tmp_path / "zh_Hans" / "LC_MESSAGES" / "django.po"
    po.parent.mkdir(parents=True)
    po.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Create an intent"\nmsgstr "创建意图"\n\n'
        'msgid "A text the schema no longer has"\nmsgstr "旧的译文"\n',
        encoding="utf-8",
    )
    return po


def test_messages_keep_translations_and_add_new_strings_untranslated(catalog_dir):
    call_command("openapi_messages", stdout=io.StringIO())

    catalog = polib.pofile(str(catalog_dir))
    assert catalog.find("Create an intent").msgstr == "创建意图"
    assert catalog.find("Create an intent").comment == "/paths/~1v1~1intents/post/summary"
    register = "Register a merchant agent, or update one with its current token"
    assert catalog.find(register).msgstr == ""
    old = catalog.find("A text the schema no longer has", include_obsolete_entries=True)
    assert old.obsolete
    assert old.msgstr == "旧的译文"
    compiled = polib.mofile(str(catalog_dir.with_suffix(".mo")))
    assert {entry.msgid: entry.msgstr for entry in compiled} == {"Create an intent": "创建意图"}


def test_messages_check_lists_strings_without_translation(catalog_dir):
    call_command("openapi_messages", stdout=io.StringIO())

    with pytest.raises(CommandError) as failure:
        call_command("openapi_messages", "--check")

    message = str(failure.value)
    assert "no translation: 'Register a merchant agent, or update one" in message
    assert "'Create an intent'" not in message


def test_messages_check_finds_a_stale_mo(catalog_dir, settings):
    committed = settings.BASE_DIR / "locale" / "zh_Hans" / "LC_MESSAGES"
    shutil.copy(committed / "django.po", catalog_dir)
    shutil.copy(committed / "django.mo", catalog_dir.with_suffix(".mo"))
    catalog = polib.pofile(str(catalog_dir))
    catalog.find("Create an intent").msgstr = "新建意图"
    catalog.save()

    with pytest.raises(CommandError, match=r"django\.mo does not match"):
        call_command("openapi_messages", "--check")


def _assets_served_elsewhere(html: str) -> list[str]:
    """Scripts and stylesheets the page loads from another host (a CDN)."""
    addresses = re.findall(r'(?:src|href)="([^"]+)"', html)
    return [a for a in addresses if re.match(r"(?:[a-z]+:)?//", a, re.IGNORECASE)]


@pytest.mark.django_db
def test_swagger_ui_offers_english_and_chinese(client):
    html = client.get("/docs/").content.decode()

    assert '<option value="/openapi.json" selected>English</option>' in html
    assert '<option value="/openapi.json?locale=zh">中文</option>' in html
    assert 'url: "/openapi.json",' in html
    assert _assets_served_elsewhere(html) == []


@pytest.mark.django_db
def test_swagger_ui_opens_in_chinese_with_locale_zh(client):
    html = client.get("/docs/?locale=zh").content.decode()

    assert '<option value="/openapi.json?locale=zh" selected>中文</option>' in html
    assert 'url: "/openapi.json?locale\\u003Dzh",' in html
