"""The contract at /openapi.json, in English or (`?locale=zh`) Simplified Chinese, and its
Swagger UI at /docs/.

The schema is generated once per process, in English. The Chinese one is the same schema with
every title, summary and description replaced by its translation from the gettext catalog
`locale/zh_Hans/LC_MESSAGES/django.po`, whose msgids are the English strings themselves; so no
view has to mark its texts for translation. `python manage.py openapi_messages` keeps that
catalog in step with the schema.
"""

import functools
from collections.abc import Callable
from typing import Any

from django.urls import reverse
from django.utils import translation
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularSwaggerView
from rest_framework.request import Request
from rest_framework.response import Response

# ?locale= value -> Django language, and the Content-Language the schema is served with.
LANGUAGES = {"en": "en", "zh": "zh-hans"}
CONTENT_LANGUAGES = {"en": "en", "zh-hans": "zh-Hans"}
# Choices of the Swagger UI's language switch: ?locale= value and its label.
SWAGGER_LOCALES = [("en", "English"), ("zh", "中文")]

# Keys whose string values are prose for people.
TEXT_KEYS = frozenset({"title", "summary", "description"})
# Keys whose values are data (example bodies, defaults, enums): never translated.
DATA_KEYS = frozenset({"value", "example", "default", "enum", "const"})

Visit = Callable[[str, str], str]


def map_texts(node: Any, visit: Visit, pointer: str = "", *, properties: bool = False) -> Any:
    """A copy of `node` with `visit(text, pointer)` in place of every title, summary and
    description. Under `properties` the keys are field names (a field may be called
    `description` or `value`), so each value there is a schema, whatever its key."""
    if isinstance(node, list):
        return [map_texts(item, visit, f"{pointer}/{index}") for index, item in enumerate(node)]
    if not isinstance(node, dict):
        return node
    copy: dict[str, Any] = {}
    for key, value in node.items():
        here = f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}"
        if properties:
            copy[key] = map_texts(value, visit, here)
        elif key in TEXT_KEYS and isinstance(value, str):
            copy[key] = visit(value, here) if value else value
        elif key in DATA_KEYS:
            copy[key] = value
        else:
            copy[key] = map_texts(value, visit, here, properties=key == "properties")
    return copy


def schema_texts(schema: dict[str, Any]) -> dict[str, list[str]]:
    """Every title, summary and description of the schema, in order of first appearance, with
    the JSON pointers where it appears."""
    found: dict[str, list[str]] = {}

    def collect(text: str, pointer: str) -> str:
        found.setdefault(text, []).append(pointer)
        return text

    map_texts(schema, collect)
    return found


def translated(schema: dict[str, Any], language: str) -> dict[str, Any]:
    """The schema with its texts translated into `language` through the gettext catalogs;
    a text without a translation stays as it is."""
    with translation.override(language):
        result: dict[str, Any] = map_texts(schema, lambda text, pointer: translation.gettext(text))
        return result


@functools.cache
def english_schema() -> dict[str, Any]:
    """The contract as drf-spectacular generates it. It is static per deploy, so once is enough."""
    schema: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    return schema


@functools.cache
def localized_schema(language: str) -> dict[str, Any]:
    schema = english_schema()
    return schema if language == "en" else translated(schema, language)


def requested_language(request: Request) -> str:
    """The Django language `?locale=` asks for: zh gives zh-hans; anything else English."""
    return LANGUAGES.get(request.query_params.get("locale", "").strip().lower(), "en")


def retry_after_header(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: every 429 response names its Retry-After header."""
    for operations in result["paths"].values():
        for operation in operations.values():
            throttled = operation.get("responses", {}).get("429")
            if throttled is not None:
                throttled["headers"] = {
                    "Retry-After": {
                        "description": "Seconds to wait before the next request.",
                        "schema": {"type": "integer", "minimum": 1},
                    }
                }
    return result


def required_bodies(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: a body that must carry one of several fields (an
    `anyOf` of required fields, see gateway.contract.AtLeastOneOfSerializer) is itself required;
    drf-spectacular only looks at the fields every body requires."""
    schemas = result.get("components", {}).get("schemas", {})
    for operations in result["paths"].values():
        for operation in operations.values():
            body = operation.get("requestBody")
            for media in (body or {}).get("content", {}).values():
                name = media.get("schema", {}).get("$ref", "").rsplit("/", 1)[-1]
                if "anyOf" in schemas.get(name, {}):
                    body["required"] = True
    return result


def _with_empty(schema: dict[str, Any]) -> dict[str, Any]:
    """A query string's schema that also allows the empty value, in one plain `string` where it
    can be (Swagger UI shows an `anyOf` as a puzzle of types): a query value is never null, the
    empty one needs no minimum length, and a pattern gains the empty alternative. A format (a
    date-time) cannot say "or empty", so there the empty string is a second choice."""
    if "format" in schema:
        return {"anyOf": [schema, {"type": "string", "maxLength": 0}]}
    plain = {key: value for key, value in schema.items() if key != "minLength"}
    plain["type"] = "string"
    if "pattern" in schema:
        plain["pattern"] = f"^$|{schema['pattern']}"
    if "enum" in schema:
        plain["enum"] = [*schema["enum"], ""] if "" not in schema["enum"] else schema["enum"]
    return plain


def empty_query_values(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: an optional string query parameter given empty
    (`channel=`) counts as absent, as DRF reads query strings, so the contract allows the empty
    value."""
    for operations in result["paths"].values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                kind = parameter["schema"].get("type")
                strings = kind == "string" or (isinstance(kind, list) and "string" in kind)
                if parameter["in"] == "query" and not parameter.get("required") and strings:
                    parameter["schema"] = _with_empty(parameter["schema"])
    return result


class SchemaView(SpectacularJSONAPIView):
    @extend_schema(
        operation_id="getOpenApi",
        summary="This contract (OpenAPI 3.1)",
        description="Every operation with its parameters, bodies, responses, errors, security "
        "and examples. `locale=zh` gives every title, summary and description in Simplified "
        "Chinese; without it, or with any other value, they are in English.",
        tags=["discovery"],
        parameters=[
            # Any value is accepted (English unless it is zh), so the schema lists no enum.
            OpenApiParameter(
                "locale",
                OpenApiTypes.STR,
                description="Language of the texts: `en` (the default) or `zh`.",
            ),
            OpenApiParameter(
                "Content-Language",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                response=[200],
                description="`en` or `zh-Hans`: the language of the texts served.",
            ),
        ],
        responses={200: OpenApiTypes.OBJECT},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        language = requested_language(request)
        return Response(
            localized_schema(language),
            headers={"Content-Language": CONTENT_LANGUAGES[language]},
        )


class SwaggerView(SpectacularSwaggerView):
    """Swagger UI of the contract, from local assets, with a switch between its languages."""

    template_name = "gateway/swagger_ui.html"
    url_name = "openapi"

    @extend_schema(exclude=True)
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        response: Response = super().get(request, *args, **kwargs)
        base = reverse(self.url_name)
        wanted = request.query_params.get("locale", "").strip().lower()
        selected = wanted if wanted in LANGUAGES else "en"
        choices = [
            {
                "url": base if locale == "en" else f"{base}?locale={locale}",
                "label": label,
                "selected": locale == selected,
            }
            for locale, label in SWAGGER_LOCALES
        ]
        response.data["schema_url"] = next(item["url"] for item in choices if item["selected"])
        response.data["schema_choices"] = choices
        return response
