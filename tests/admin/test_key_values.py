"""JSON objects and lists of objects are never typed nor read as JSON in the staff console: an
object is rows of a name and a value, saved as the same JSON the API stores; a list of objects
one item a line; what cannot be kept is a form error naming it, nothing saved, never a 500. On
pages staff only view, every JSON value is a small table."""

import re
from typing import Any
from urllib.parse import urlencode

import pytest
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.core.exceptions import ValidationError
from django.test import RequestFactory
from django.urls import reverse

from gateway.admin_forms import ConsoleForms
from kernel.admin_lists import StringListField
from kernel.admin_objects import ItemsField, ItemsWidget, KeyValueField
from kernel.admin_values import read_value, value_table, write_value
from matching.models import Proposal
from merchants.models import MerchantAgent
from tests.factories import ProductFactory
from tests.protocol import create_intent, propose, register
from tests.support.forms import current_form_data

pytestmark = pytest.mark.django_db

CAPABILITIES = {"streaming": False, "max_items": 3, "code": "42", "skills": ["quote", "ship"]}


@pytest.fixture
def merchant_url(client):
    register(
        client,
        "shop-1",
        a2a_capabilities=CAPABILITIES,
        metadata={"tier": "gold"},
        inventory_scope=[{"sku_prefix": "TF-", "region": "US"}, {"sku_prefix": "RL-"}],
    )
    merchant = MerchantAgent.objects.get()
    return reverse("admin:merchants_merchantagent_change", args=[merchant.pk])


def _rows(page: str, name: str) -> list[tuple[str, str]]:
    """The name/value rows of the editor `name` as the page shows them, blank ones left out."""
    data = current_form_data(page)
    numbers = sorted(int(m) for m in re.findall(rf'name="{name}-key-(\d+)"', page))
    rows = [(data[f"{name}-key-{n}"], data[f"{name}-value-{n}"]) for n in numbers]
    return [row for row in rows if row != ("", "")]


def _errors(response) -> str:
    found = re.findall(r'<ul class="errorlist"[^>]*>(.*?)</ul>', response.content.decode(), re.S)
    return " ".join(found)


def _post(staff, url, **changes):
    return staff.post(url, {**current_form_data(staff.get(url).content.decode()), **changes})


def test_objects_are_rows_of_names_and_values_labelled_in_words(staff, merchant_url):
    page = staff.get(merchant_url).content.decode()

    # In the order the database keeps the names (PostgreSQL's jsonb orders them its own way).
    assert sorted(_rows(page, "a2a_capabilities")) == [
        ("code", '"42"'),  # quoted: typed bare, 42 would be a number
        ("max_items", "3"),
        ("skills", '["quote", "ship"]'),
        ("streaming", "false"),
    ]
    assert _rows(page, "metadata") == [("tier", "gold")]
    assert '<label for="id_a2a_capabilities">A2A capabilities:</label>' in page
    assert '<textarea name="a2a_capabilities"' not in page  # no JSON text box
    assert '<textarea name="metadata"' not in page
    assert "json-editor" not in page
    assert "gateway/key-values.js" in page
    scope = re.search(r'<textarea name="inventory_scope"[^>]*>(.*?)</textarea>', page, re.S)
    assert scope is not None
    assert scope.group(1).strip() in (
        "sku_prefix = TF-; region = US\nsku_prefix = RL-",
        "region = US; sku_prefix = TF-\nsku_prefix = RL-",  # jsonb's order of the names
    )


def test_saved_unchanged_the_objects_keep_their_exact_json(staff, merchant_url):
    response = _post(staff, merchant_url)

    assert response.status_code == 302, _errors(response)
    merchant = MerchantAgent.objects.get()
    assert merchant.a2a_capabilities == CAPABILITIES
    assert merchant.metadata == {"tier": "gold"}
    assert merchant.inventory_scope == [
        {"sku_prefix": "TF-", "region": "US"},
        {"sku_prefix": "RL-"},
    ]


# Values the API takes that read as structure, quotes or line ends in the console's text.
AWKWARD_SCOPE = [
    {"sku_prefix": "TF-[", "region": "US"},
    {"note": 'size 5"', "region": "US"},
    {"[a": 1, "b": "{"},
    {" padded": "x", "": "empty name"},
    {"nested": {"a": [1, "c;d"]}, "eq": "a = b"},
    "",
    "a\u2028b\x85c",
    "a = b",
    3,
    None,
    [1, "a"],
]


def test_a_list_reads_back_as_what_was_written():
    field = ItemsField(max_items=100)

    assert field.clean(ItemsWidget().format_value(AWKWARD_SCOPE)) == AWKWARD_SCOPE


def test_saved_unchanged_awkward_values_keep_their_exact_json(staff):
    metadata = {" tier": "gold", "tier": "silver", "n": "007", "q": '"quoted"'}
    scope = [item for item in AWKWARD_SCOPE if isinstance(item, dict)]  # the API's kind
    register(staff, "shop-2", metadata=metadata, inventory_scope=scope)
    merchant = MerchantAgent.objects.get()
    url = reverse("admin:merchants_merchantagent_change", args=[merchant.pk])

    response = _post(staff, url)

    assert response.status_code == 302, _errors(response)
    merchant.refresh_from_db()
    assert merchant.metadata == metadata
    assert merchant.inventory_scope == scope


def test_metadata_of_thousands_of_names_is_saved(staff):
    metadata = {f"k{n}": n for n in range(1000)}  # 2,000 fields, within the 16 KB
    register(staff, "shop-2", metadata=metadata)
    merchant = MerchantAgent.objects.get()
    url = reverse("admin:merchants_merchantagent_change", args=[merchant.pk])

    response = _post(staff, url, **{"metadata-key-1000": "added", "metadata-value-1000": "1"})

    assert response.status_code == 302, _errors(response)
    merchant.refresh_from_db()
    assert merchant.metadata == {**metadata, "added": 1}


@pytest.mark.parametrize(
    "name", ["metadata-key-" + "9" * 5000, "metadata-key-007", "metadata-key-٣"]
)
def test_fields_the_form_does_not_number_are_no_rows(staff, merchant_url, name):
    data = {**current_form_data(staff.get(merchant_url).content.decode()), name: "forged"}
    form = urlencode({**data, name.replace("key", "value"): "1"})  # a form as browsers send it

    response = staff.post(merchant_url, form, content_type="application/x-www-form-urlencoded")

    assert response.status_code == 302, _errors(response)
    assert MerchantAgent.objects.get().metadata == {"tier": "gold"}


def _row_of(page: str, name: str, key: str) -> int:
    """The number of the row of editor `name` that shows the name `key`."""
    data = current_form_data(page)
    return next(n for n in range(100) if data.get(f"{name}-key-{n}") == key)


def test_rows_are_changed_added_and_removed(staff, merchant_url):
    streaming = _row_of(staff.get(merchant_url).content.decode(), "a2a_capabilities", "streaming")
    response = _post(
        staff,
        merchant_url,
        **{
            "metadata-key-0": " tier ",
            "metadata-value-0": " platinum ",
            "metadata-key-1": "since",
            "metadata-value-1": "2019",
            "metadata-key-2": "note",
            "metadata-value-2": "ships; fast = yes",
            f"a2a_capabilities-key-{streaming}": "",
            f"a2a_capabilities-value-{streaming}": "",  # streaming removed
            "a2a_capabilities-key-7": "push",  # a row the page's script added
            "a2a_capabilities-value-7": "true",
            "inventory_scope": "sku_prefix = TF-; region = US; limit = 5\n\n",
        },
    )

    assert response.status_code == 302, _errors(response)
    merchant = MerchantAgent.objects.get()
    assert merchant.metadata == {"tier": "platinum", "since": 2019, "note": "ships; fast = yes"}
    assert merchant.a2a_capabilities == {
        "max_items": 3,
        "code": "42",
        "skills": ["quote", "ship"],
        "push": True,
    }
    assert merchant.inventory_scope == [{"sku_prefix": "TF-", "region": "US", "limit": 5}]


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"metadata-key-1": "", "metadata-value-1": "orphan"}, "The value “orphan” has no name."),
        ({"metadata-key-1": "tier", "metadata-value-1": "x"}, "“tier” is named twice."),
        (
            {"metadata-key-1": "list", "metadata-value-1": "[1, 2"},
            "“list”: “[1, 2” starts as a list or object but is not valid JSON.",
        ),
        (
            {"metadata-key-1": "deep", "metadata-value-1": "[" * 40 + "]" * 40},
            "“deep”: JSON must not nest deeper than 32 levels.",
        ),
        (
            {"metadata-key-1": "big", "metadata-value-1": "x" * 17_000},
            "At most 16,384 bytes as compact JSON, not 17,024.",
        ),
        (
            {"metadata-key-1": "nul", "metadata-value-1": "a\x00b"},
            "Strings must not contain NUL characters.",
        ),
        ({"inventory_scope": "region = U\x00S"}, "Strings must not contain NUL characters."),
        ({"inventory_scope": "sku_prefix = TF-\njust words"}, "Scope 2 is not of the form"),
        ({"inventory_scope": "a = {oops"}, "“line 1”: “{oops” starts as a list or object"),
    ],
)
def test_what_cannot_be_kept_is_a_form_error_and_nothing_is_saved(
    staff, merchant_url, changes, error
):
    response = _post(staff, merchant_url, **changes)

    assert response.status_code == 200
    assert error in _errors(response)
    merchant = MerchantAgent.objects.get()
    assert merchant.metadata == {"tier": "gold"}
    assert merchant.inventory_scope[0] == {"sku_prefix": "TF-", "region": "US"}


def test_rows_refused_are_shown_again_as_typed(staff, merchant_url):
    response = _post(staff, merchant_url, **{"metadata-key-1": "", "metadata-value-1": "orphan"})

    assert _rows(response.content.decode(), "metadata") == [("tier", "gold"), ("", "orphan")]


def test_a_value_reads_back_as_what_was_written():
    values: list[Any] = [
        "gold",
        "",
        "3",
        "007",
        "true",
        "null",
        " padded ",
        "a\nb",
        '"q',
        "x;y=z",
        "[x",
    ]
    values += [3, 2.5, -1, True, False, None, [1, "a"], {"a": {"b": []}}]

    for value in values:
        assert read_value(write_value(value)) == value, value
        assert read_value(write_value(value, reserved=";=")) == value, value
    assert write_value("gold") == "gold"
    assert write_value("3") == '"3"'
    assert read_value(" 12 ") == 12
    assert read_value('"q') == '"q'


def test_the_fields_read_lists_and_objects():
    items = ItemsField(max_items=3)
    rows = KeyValueField(null=True)

    assert items.clean('a = 1; b = "x;y"\nplain text\n42') == [
        {"a": 1, "b": "x;y"},
        "plain text",
        42,
    ]
    assert rows.clean([("", "")]) is None  # a field that may be null: null, not {}
    assert KeyValueField().clean([]) == {}
    with pytest.raises(ValidationError, match="At most 3 items, not 4"):
        items.clean("a\nb\nc\nd")


def test_read_only_values_are_tables_never_json(staff, trail_shoe):
    ProductFactory(id=1002)
    intent_id = create_intent(
        staff,
        intent_tags=["trail"],
        budget_range={"min": 50, "max": 150, "currency": "USD"},
        metadata={"source": "chat", "nested": {"empty": [], "none": {}}},
    )["intent_id"]
    shop = register(staff, "shop-1")
    response = propose(
        staff,
        shop,
        intent_id,
        1001,
        shipping_commitment={"max_days": 3, "free": True},
        commission_plan={"rate": 0.12},
    )
    assert response.status_code == 201, response.content
    proposal = Proposal.objects.get()

    intent = staff.get(reverse("admin:matching_intent_change", args=[quote(intent_id)]))
    offer = staff.get(reverse("admin:matching_proposal_change", args=[quote(proposal.pk)]))

    page = intent.content.decode()
    assert '<th scope="row">max</th><td>150</td>' in page
    assert '<th scope="row">currency</th><td>USD</td>' in page
    assert '<th scope="row">empty</th><td>-</td>' in page  # nested nothing reads "-"
    offered = offer.content.decode()
    assert '<th scope="row">free</th><td>yes</td>' in offered
    assert '<th scope="row">rate</th><td>0.12</td>' in offered
    for text in (page, offered):
        readonly = " ".join(re.findall(r'<div class="readonly">(.*?)</div>\s*</div>', text, re.S))
        assert readonly
        for raw in ("[]", "{}", "{&quot;", "&quot;:"):
            assert raw not in readonly


def test_a_value_table_escapes_and_names_nothing_with_a_dash():
    shown = str(value_table({"a": "<b>", "b": [], "c": [{"x": 1}, {"y": None}], "d": ["p", "q"]}))

    assert "&lt;b&gt;" in shown
    assert "<b>" not in shown
    assert '<th scope="row">b</th><td>-</td>' in shown
    assert '<ol class="values"><li><table' in shown
    assert '<ul class="values"><li>p</li><li>q</li></ul>' in shown


def test_no_form_of_the_console_types_json():
    request = RequestFactory().get("/")
    request.user = type("Staff", (), {"has_perm": lambda *args: True, "is_active": True})()
    kinds = (StringListField, KeyValueField, ItemsField)

    checked = 0
    for model, model_admin in admin.site._registry.items():
        assert isinstance(model_admin, ConsoleForms)
        form = model_admin.get_form(request, None, fields=None)
        json_names = {
            field.name
            for field in model._meta.get_fields()
            if field.get_internal_type() == "JSONField"
        }
        for name, field in form.base_fields.items():
            if name in json_names:
                assert isinstance(field, kinds), f"{model.__name__}.{name}"
                checked += 1
    assert checked >= 8  # a product's and a merchant's lists and objects, at least
