"""`AnyOf` (kernel/lookups.py): the rows `__in` finds, on either database; on PostgreSQL the
values go as one array parameter, however many there are."""

import pytest
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext

from catalog.models import Creator
from kernel.lookups import AnyOf

pytestmark = pytest.mark.django_db

NAMES = ["ann", "bo", "o'brien", "\u00e9lo", "zed"]


@pytest.fixture
def creators() -> list[Creator]:
    return [Creator.objects.create(username=name, display_name=name) for name in NAMES]


def _names(queryset) -> list[str]:
    return sorted(queryset.values_list("username", flat=True))


@pytest.mark.parametrize(
    "values",
    [["bo", "zed"], ["o'brien", "nobody"], ["bo", None, "bo"], [], [None], NAMES],
)
def test_any_of_finds_what_in_finds_and_its_negation_too(creators, values):
    every = Creator.objects.all()

    assert _names(every.filter(AnyOf(F("username"), values))) == _names(
        every.filter(username__in=values)
    )
    assert _names(every.exclude(AnyOf(F("username"), values))) == _names(
        every.exclude(username__in=values)
    )


def test_any_of_takes_ids_of_any_number_and_a_dict_for_its_keys(creators):
    ids = {creator.id: creator for creator in creators[:3]}
    many = [*ids, *range(10**6, 10**6 + 3000)]

    assert _names(Creator.objects.filter(AnyOf(F("id"), ids))) == sorted(NAMES[:3])
    with CaptureQueriesContext(connection) as queries:
        assert _names(Creator.objects.filter(AnyOf(F("id"), many))) == sorted(NAMES[:3])

    sql = queries.captured_queries[0]["sql"]
    if connection.vendor == "postgresql":
        assert "= ANY(" in sql
        assert " IN (" not in sql
    else:
        assert " IN (" in sql
