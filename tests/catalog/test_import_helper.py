"""The import's helper process (catalog/import_helper.py): the readings and embeddings it makes
are those the importing process makes, and a helper that cannot start, stops, or answers
nonsense leaves the import whole. A real process, through the real importer."""

import json
import sys

import pytest

from catalog import import_helper, semantic
from catalog.documents import read
from catalog.importer import BATCH_SIZE, catalog_import
from catalog.models import Product
from tests.catalog.test_import import product_line

pytestmark = pytest.mark.django_db

BRANDS = ["Lumora", "Wildcraft", "Prestige", "boAt", "Nivia"]
THINGS = [
    "Vitamin C Serum",
    "Backpack with Rain Cover",
    "Pressure Cooker, 5 Litre",
    "Wireless Earbuds (Black)",
    "Football Size 5 for Kids",
    "Cycle Bell for Bicycle",
]
COUNT = 2 * BATCH_SIZE + 137  # three batches, the last one short


def lines() -> list[bytes]:
    """Products of several brands and kinds, each titled as titles are."""
    return [
        json.dumps(
            product_line(
                number,
                title=f"{BRANDS[number % 5]} {THINGS[number % 6]} {number}",
                brand=None,
                tags=[THINGS[number % 6].split()[0].lower()],
            )
        ).encode()
        for number in range(1, COUNT + 1)
    ]


def stored_as_read_here() -> None:
    """Every product holds what this process reads of it, and the embedding it makes."""
    products = list(Product.objects.order_by("id"))
    assert len(products) == COUNT
    fields = [
        {name: getattr(product, name) for name in Product.TEXT_FIELDS} for product in products
    ]
    meanings = semantic.embeddings([semantic.product_text(row) for row in fields])
    for product, row, meaning in zip(products, fields, meanings, strict=True):
        expected = read(row)
        assert product.search_document == expected["search_document"], product.title
        assert product.product_type == expected["product_type"], product.title
        assert product.brand_key == expected["brand_key"], product.title
        assert product.embedding is not None
        assert bytes(product.embedding) == meaning, product.title


@pytest.fixture
def waited(monkeypatch):
    """Every batch waits for the helper to be up, so that the helper reads them all."""
    monkeypatch.setattr(import_helper, "WAIT_UNTIL_UP", True)


def test_the_helper_reads_every_batch_as_this_process_would(waited):
    summary = catalog_import(lines=lines())

    assert summary.created == COUNT
    assert summary.helped == 3
    stored_as_read_here()


def test_an_import_of_one_batch_starts_no_helper(waited):
    summary = catalog_import(lines=lines()[: BATCH_SIZE - 1])

    assert summary.created == BATCH_SIZE - 1
    assert summary.helped == 0


def test_with_the_semantic_signal_off_the_helper_embeds_nothing(waited, settings):
    settings.SEMANTIC_SEARCH = False

    summary = catalog_import(lines=lines())

    assert summary.helped == 3
    assert not Product.objects.filter(embedding__isnull=False).exists()
    product = Product.objects.get(id=7)
    assert product.product_type == read({"title": product.title})["product_type"]


# A helper that says it is up, answers `answered` batches, then misbehaves as `then` says.
BROKEN = """
import sys
from catalog import import_helper as helper
answers = sys.stdout.buffer
helper._send(answers, helper._UP)
for _ in range({answered}):
    texts, embed = helper._receive(sys.stdin.buffer)
    helper._send(answers, helper.readings(texts, embed))
texts, embed = helper._receive(sys.stdin.buffer)
{then}
"""


@pytest.mark.parametrize(
    "then",
    [
        "sys.exit(3)",  # stops with a batch unanswered
        "helper._send(answers, [])",  # answers a batch with no products
        "helper._send(answers, 'nonsense')",
        "answers.write(b'\\x00\\x00\\x10\\x00half'); answers.flush(); sys.exit(0)",  # half a frame
    ],
    ids=["stops", "answers-empty", "answers-nonsense", "half-a-frame"],
)
def test_a_helper_that_fails_mid_import_loses_nothing(waited, monkeypatch, then):
    script = BROKEN.format(answered=1, then=then)
    monkeypatch.setattr(import_helper, "COMMAND", [sys.executable, "-c", script])

    summary = catalog_import(lines=lines())

    assert summary.created == COUNT
    assert summary.helped == 1  # the first batch; the others read here
    stored_as_read_here()


def test_a_helper_that_cannot_start_leaves_the_import_to_this_process(waited, monkeypatch):
    monkeypatch.setattr(import_helper, "COMMAND", ["/nonexistent/python"])

    summary = catalog_import(lines=lines())

    assert (summary.created, summary.helped) == (COUNT, 0)
    stored_as_read_here()


def test_a_helper_that_never_says_it_is_up_is_not_waited_for_past_its_time(waited, monkeypatch):
    monkeypatch.setattr(import_helper, "ANSWER_WITHIN_S", 0.5)
    monkeypatch.setattr(
        import_helper, "COMMAND", [sys.executable, "-c", "import time; time.sleep(30)"]
    )

    summary = catalog_import(lines=lines())

    assert (summary.created, summary.helped) == (COUNT, 0)
    stored_as_read_here()
