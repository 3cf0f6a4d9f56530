"""import_catalog: idempotent upserts, per-line rejection reasons, --strict writes nothing."""

import io
import json
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catalog import search, spelling
from catalog.importer import catalog_import
from catalog.models import Creator, Product, SearchWord, Video
from catalog.search import SearchQuery

pytestmark = pytest.mark.django_db


def product_line(product_id: object, **overrides) -> dict:
    line = {
        "id": product_id,
        "title": f"Lumora Vitamin C Serum {product_id}",
        "brand": "Lumora",
        "price_usd": 24.5,
        "original_price_usd": 35,
        "main_image": "https://img.shop.test/1.jpg",
        "gallery": ["https://img.shop.test/2.jpg"],
        "category_l1": "Beauty & Personal Care",
        "category_l2": "Skincare",
        "url": f"https://shop.test/p/{product_id}",
        "description": "Brightening serum.",
        "tags": ["serum", "vitamin c"],
        "regions": ["us", "GB"],
        "risk_level": "low",
        "target_audience": {"persona": "Skincare fans", "age": "25-54"},
        "videos": [
            {
                "task_id": f"v-{product_id}-1",
                "creator": {"username": "glow.with.ana", "display_name": "Ana", "followers": 9000},
                "video_url": "https://video.shop.test/1.mp4",
                "duration_s": 20,
                "gmv_usd": 490.0,
                "orders": 20,
                "views": 4000,
                "published_at": "2026-11-01T12:00:00Z",
            }
        ],
    }
    line.update(overrides)
    return line


def write_lines(tmp_path, lines: list) -> str:
    path = tmp_path / "catalog.jsonl"
    path.write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n"
    )
    return str(path)


def run(path: str, *args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("import_catalog", path, *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_import_creates_products_creators_and_videos(tmp_path):
    out, err = run(write_lines(tmp_path, [product_line(1), product_line(2)]))

    assert out.startswith("created 2, updated 0, rejected 0 (2 videos, 1 creator)")
    assert err == ""
    product = Product.objects.get(id=1)
    assert product.price_usd == Decimal("24.50")
    assert product.regions == ["US", "GB"]
    assert (product.target_persona, product.target_age) == ("Skincare fans", "25-54")
    assert Creator.objects.get().followers == 9000
    assert Video.objects.get(task_id="v-1-1").product_id == 1


def test_reimport_updates_in_place_and_duplicates_nothing(tmp_path):
    run(write_lines(tmp_path, [product_line(1), product_line(2)]))

    changed = product_line(1, price_usd=19.99)
    changed["videos"][0]["creator"]["followers"] = 12000
    out, _ = run(
        write_lines(tmp_path, [product_line(2), changed])
    )  # last mention of a creator wins

    assert out.startswith("created 0, updated 2, rejected 0")
    assert Product.objects.count() == 2
    assert Video.objects.count() == 2
    assert Creator.objects.count() == 1
    assert Product.objects.get(id=1).price_usd == Decimal("19.99")
    assert Creator.objects.get().followers == 12000


def test_an_import_is_searched_as_it_commits_and_a_reimport_as_it_now_reads(tmp_path):
    run(write_lines(tmp_path, [product_line(1), product_line(2, title="Lumora Retinol Cream")]))

    assert search.tier_ids("narrow", SearchQuery("", ["vitamin serum"], []), 5) == [1]
    assert spelling.correction("retinool") == "retinol"
    assert SearchWord.objects.filter(word__in=["lumora", "retinol", "serum"]).count() == 3

    run(write_lines(tmp_path, [product_line(1, title="Lumora Night Balm")]))

    assert search.tier_ids("narrow", SearchQuery("", ["night balm"], []), 5) == [1]
    # The tag "vitamin c" still names it; the title's serum is gone.
    assert search.tier_ids("raw_substring", SearchQuery("vitamin c serum", [], []), 5) == []


def test_a_line_is_the_whole_truth_about_its_videos(tmp_path):
    two_videos = product_line(1)
    two_videos["videos"].append({**two_videos["videos"][0], "task_id": "v-1-2"})
    run(write_lines(tmp_path, [two_videos]))

    run(write_lines(tmp_path, [product_line(1)]))

    assert list(Video.objects.values_list("task_id", flat=True)) == ["v-1-1"]


def test_the_last_line_for_a_product_id_wins(tmp_path):
    out, _ = run(
        write_lines(tmp_path, [product_line(1, title="First"), product_line(1, title="Last")])
    )

    assert out.startswith("created 1, updated 0, rejected 0")
    assert Product.objects.get(id=1).title == "Last"


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "a line must be a JSON object"),
        (product_line(0), "id must be a positive integer"),
        (product_line("7"), "id must be a positive integer"),
        (product_line(True), "id must be a positive integer"),
        (product_line(3, title=""), "title must not be empty"),
        (product_line(3, title=None), "title is required"),
        (product_line(3, price_usd=-1), "price_usd must be between 0 and"),
        (product_line(3, price_usd="9.99"), "price_usd must be a number"),
        (product_line(3, url="javascript:alert(1)"), "url must be an http(s) URL"),
        (product_line(3, url=None), "url is required"),
        (product_line(3, regions=["USA"]), "regions entries must be at most 2 characters"),
        (product_line(3, regions=["1A"]), "regions must be ISO 3166-1 alpha-2"),
        (product_line(3, risk_level="extreme"), "risk_level must be one of low, medium, high"),
        (product_line(3, tags="serum"), "tags must be a list of strings"),
        (product_line(3, videos={}), "videos must be a list"),
        (product_line(3, videos=[1]), "videos[0] must be an object"),
        (
            product_line(3, videos=[{"task_id": "v", "creator": {"username": "bad name"}}]),
            "videos[0].creator.username must be 1-64 characters",
        ),
        (
            product_line(3, videos=[{"task_id": "v", "creator": {"username": "a"}, "orders": -2}]),
            "videos[0].orders must be a whole number from 0 to 2147483647",
        ),
        (
            product_line(
                3, videos=[{"task_id": "v", "creator": {"username": "a"}, "orders": 2**31}]
            ),
            "videos[0].orders must be a whole number from 0 to 2147483647",
        ),
        (product_line(3, price_usd=1e26), "price_usd must be between 0 and 9999999999.99"),
        (product_line(3, title="Mug\u0000"), "title must not contain NUL characters"),
        (product_line(3, tags=["a\u0000b"]), "tags entries must not contain NUL characters"),
        (
            product_line(
                3,
                videos=[
                    {
                        "task_id": "v",
                        "creator": {"username": "a"},
                        "published_at": "0001-01-01T00:00:00+01:00",
                    }
                ],
            ),
            "videos[0].published_at must be an ISO 8601 date-time",
        ),
        (
            product_line(
                3,
                videos=[
                    {"task_id": "v", "creator": {"username": "a"}, "published_at": "yesterday"}
                ],
            ),
            "videos[0].published_at must be an ISO 8601 date-time",
        ),
    ],
)
def test_a_rejected_line_names_its_number_and_reason(tmp_path, line, reason):
    out, err = run(write_lines(tmp_path, [product_line(1), line, product_line(2)]))

    assert out.startswith("created 2, updated 0, rejected 1")
    assert err.startswith(f"line 2: {reason}")
    assert set(Product.objects.values_list("id", flat=True)) == {1, 2}


def test_blank_lines_are_skipped_and_numbering_stays_true(tmp_path):
    _, err = run(write_lines(tmp_path, [product_line(1), "", "oops"]))

    assert err.strip().startswith("line 3: not valid JSON")


def test_strict_import_with_a_bad_line_writes_nothing(tmp_path):
    path = write_lines(tmp_path, [product_line(1), "oops", product_line(2), "{}"])

    with pytest.raises(CommandError, match="2 lines rejected with --strict: nothing was imported"):
        run(path, "--strict")

    assert not Product.objects.exists()
    assert not Creator.objects.exists()


def test_strict_import_of_good_lines_imports_them(tmp_path):
    out, _ = run(write_lines(tmp_path, [product_line(1)]), "--strict")

    assert out.startswith("created 1, updated 0, rejected 0")


def test_import_spans_batches(tmp_path):
    lines = [product_line(n) for n in range(1, 1203)]

    out, _ = run(write_lines(tmp_path, lines))

    assert out.startswith("created 1202, updated 0, rejected 0")
    assert Product.objects.count() == 1202
    assert Video.objects.count() == 1202


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match="No such file"):
        run(str(tmp_path / "missing.jsonl"))


HOSTILE = [
    "",
    "\x00",
    "a\x00b",
    "0001-01-01T00:00:00+01:00",
    "9999-12-31T23:59:59-01:00",
    "javascript:x",
    2**31,
    2**63,
    -(2**63),
    10**30,
    1e26,
    -0.0,
    1e-9,
    True,
    [],
    {},
    ["\x00"],
    [None],
    "x" * 2000,
]
json_values = st.recursive(
    st.sampled_from(HOSTILE)
    | st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=10), children, max_size=3)
    ),
    max_leaves=12,
)
TOP = [
    "id",
    "title",
    "brand",
    "price_usd",
    "original_price_usd",
    "main_image",
    "gallery",
    "category_l2",
    "url",
    "description",
    "tags",
    "regions",
    "risk_level",
    "target_audience",
    "videos",
]
VIDEO = [
    "task_id",
    "creator",
    "thumbnail",
    "duration_s",
    "gmv_usd",
    "orders",
    "views",
    "published_at",
]
CREATOR = ["username", "display_name", "avatar", "followers"]
places = (
    st.tuples(st.just("top"), st.sampled_from(TOP))
    | st.tuples(st.just("video"), st.sampled_from(VIDEO))
    | st.tuples(st.just("creator"), st.sampled_from(CREATOR))
)


def import_with(place: tuple[str, str], value: object):
    """Import a valid line with one value replaced, in a savepoint that is rolled back."""
    line = product_line(42)
    where, key = place
    target = {"top": line, "video": line["videos"][0], "creator": line["videos"][0]["creator"]}
    target[where][key] = value
    with transaction.atomic():
        summary = catalog_import(lines=[json.dumps(line, allow_nan=True).encode()])
        transaction.set_rollback(True)
    return summary


ALL_PLACES = (
    [("top", key) for key in TOP]
    + [("video", key) for key in VIDEO]
    + [("creator", key) for key in CREATOR]
)


@pytest.mark.parametrize("place", ALL_PLACES, ids=lambda place: ".".join(place))
def test_every_hostile_value_in_every_field_is_imported_or_rejected(db, place):
    for value in HOSTILE:
        summary = import_with(place, value)
        assert summary.created + len(summary.rejected) == 1, (place, value)


@pytest.mark.django_db
@settings(
    max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(place=places, value=json_values)
def test_any_value_in_any_field_is_imported_or_rejected_never_a_crash(place, value):
    """One random value anywhere in a valid line, written to the real database."""
    summary = import_with(place, value)

    assert summary.created + len(summary.rejected) == 1
    assert all(reason for _, reason in summary.rejected)


def test_text_is_cleaned_as_it_is_stored_and_the_summary_counts_it(tmp_path):
    messy = product_line(
        1,
        title="Women&#39;s  Trail\u200b Shoe\ufffd &amp;amp; Socks\x07",
        brand="  Trail&amp;Co ",
        description="Light&nbsp;and\r\n\tdry",
        tags=["trail&amp;run", "\u200b"],
    )
    path = write_lines(tmp_path, [messy, product_line(2), messy])

    out, _ = run(path)

    product = Product.objects.get(id=1)
    assert product.title == "Women's Trail Shoe & Socks"
    assert product.brand == "Trail&Co"
    assert product.description == "Light and dry"
    assert product.tags == ["trail&run"]
    assert Product.objects.get(id=2).title == "Lumora Vitamin C Serum 2"  # clean text untouched
    # Listed twice, cleaned once: the summary counts products.
    assert "cleaned the text of 1 product:" in out


def test_a_title_that_is_only_invisible_characters_is_rejected(tmp_path):
    path = write_lines(tmp_path, [product_line(1, title="\u200b&#8203;\ufeff")])

    _, err = run(path)

    assert "line 1: title must not be empty" in err
    assert not Product.objects.exists()
