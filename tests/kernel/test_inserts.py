"""The bulk writer (kernel/inserts.py): the rows of several models written at once, read back
exactly as the ORM would have written them, all or none, in one statement on PostgreSQL, each
instance with its key; the upsert that the catalog import writes with."""

import json
from collections.abc import Sequence
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import DatabaseError, connection, models, transaction
from django.test.utils import CaptureQueriesContext, isolate_apps
from django.utils import timezone

from catalog.models import Creator, Recommendation
from kernel.inserts import insert_together, upsert
from matching.models import (
    Intent,
    IntentTag,
    MatchSession,
    Proposal,
    ProposalStatus,
    Provenance,
    ResolutionSource,
)
from merchants.models import MerchantAgent

pytestmark = pytest.mark.django_db

# Text that needs escaping in SQL and in JSON, and characters beyond ASCII.
VALID_UNTIL = timezone.now() + timedelta(days=2)
AWKWARD = "O'Brien's \"best\" \\ 50% off; DROP TABLE x; -- \u00e9\u4e2d\U0001f45f\n\ttabbed"


def _intent(intent_id: str = "int_inserts", **fields) -> Intent:
    return Intent(
        intent_id=intent_id,
        raw_query=AWKWARD,
        intent_tags=["trail", "running"],
        budget_range={"min": None, "max": 120.5, "currency": "USD"},
        region="US",
        resolution_source=ResolutionSource.ENGINE,
        metadata={"nested": {"list": [1, 2.5, None, True, AWKWARD]}, "empty": {}},
        **fields,
    )


def _family(product, intent: Intent, name: str = "inserts") -> list[Sequence[models.Model]]:
    tags = [IntentTag(intent=intent, tag=tag) for tag in intent.intent_tags]
    card = {"rec_id": "rec_inserts", "product": {"id": product.id, "title": AWKWARD}}
    rec = Recommendation(
        rec_id=f"rec_{name}", product=product, card=card, channel="tiktok", intent_id="x"
    )
    proposal = Proposal(
        proposal_id=f"prop_{name}",
        merchant=None,
        intent=intent,
        product=product,
        offer_title=AWKWARD,
        price=Decimal("89.99"),
        provenance=Provenance.CATALOG,
        status=ProposalStatus.SUBMITTED,
        valid_until=VALID_UNTIL,
    )
    session = MatchSession(
        match_session_id=f"ms_{name}",
        intent=intent,
        best_proposal=proposal,
        ranked_proposals=[{"proposal_id": "prop_inserts", "score": 0.9}],
        summary={"why": AWKWARD},
        card_rec_ids=["rec_inserts"],
    )
    return [[intent], tags, [rec], [proposal], [session]]


def test_rows_read_back_as_the_orm_would_have_written_them(trail_shoe):
    intent = _intent()
    family = _family(trail_shoe, intent)

    insert_together(*family)

    for group in family:
        for written in group:
            stored = type(written)._default_manager.filter(pk=written.pk).first()
            assert stored is not None
            for field in type(written)._meta.concrete_fields:
                assert getattr(stored, field.attname) == getattr(written, field.attname), field
    stored_intent = Intent.objects.get(pk="int_inserts")
    assert stored_intent.raw_query == AWKWARD
    assert stored_intent.metadata["nested"]["list"] == [1, 2.5, None, True, AWKWARD]
    assert stored_intent.budget_range == {"min": None, "max": 120.5, "currency": "USD"}
    assert Proposal.objects.get(pk="prop_inserts").price == Decimal("89.99")
    tags = IntentTag.objects.filter(intent=intent).values_list("tag", flat=True)
    assert sorted(tags) == ["running", "trail"]
    assert MatchSession.objects.get(pk="ms_inserts").best_proposal_id == "prop_inserts"
    assert not intent._state.adding


def test_a_json_field_holding_none_is_null_in_sql():
    insert_together([Intent(intent_id="int_nobudget", raw_query="q", budget_range=None)])

    assert Intent.objects.filter(pk="int_nobudget", budget_range__isnull=True).exists()


def test_creation_times_are_stamped_only_where_none_is_held(trail_shoe):
    before = timezone.now()
    earlier = before - timedelta(hours=3)
    stamped, kept = _intent("int_stamped"), _intent("int_kept", created_at=earlier)

    insert_together([stamped, kept])

    assert before <= Intent.objects.get(pk="int_stamped").created_at <= timezone.now()
    assert Intent.objects.get(pk="int_kept").created_at == earlier
    assert stamped.created_at == Intent.objects.get(pk="int_stamped").created_at


def test_a_field_converts_its_own_value_as_it_is_written():
    merchant = MerchantAgent(
        merchant_id="inserted-shop",
        agent_endpoint="https://203.0.113.9/hook",
        token_hash="h" * 64,
        webhook_secret="whsec_plain",
    )

    insert_together([merchant])

    with connection.cursor() as cursor:
        cursor.execute("SELECT webhook_secret FROM merchants_merchantagent")
        (stored,) = cursor.fetchone()
    assert stored != "whsec_plain"  # encrypted, as the ORM writes it
    assert MerchantAgent.objects.get(merchant_id="inserted-shop").webhook_secret == "whsec_plain"


def test_one_failing_row_writes_none_of_the_others(trail_shoe):
    Intent.objects.create(intent_id="int_taken", raw_query="first")
    intent = _intent()
    family = _family(trail_shoe, intent)
    duplicate = Intent(intent_id="int_taken", raw_query="second")

    with pytest.raises(DatabaseError), transaction.atomic():
        insert_together(*family, [duplicate])

    assert Intent.objects.get(pk="int_taken").raw_query == "first"
    assert not Intent.objects.filter(pk=intent.pk).exists()
    assert not IntentTag.objects.filter(intent_id=intent.pk).exists()
    assert not Recommendation.objects.filter(pk="rec_inserts").exists()
    assert not Proposal.objects.filter(pk="prop_inserts").exists()
    assert not MatchSession.objects.filter(pk="ms_inserts").exists()


def test_a_child_whose_parent_is_missing_is_refused(trail_shoe):
    orphan = MatchSession(match_session_id="ms_orphan", intent_id="int_missing", card_rec_ids=[])

    def insert_then_check() -> None:
        with transaction.atomic():
            insert_together([orphan])
            connection.check_constraints()  # what a commit does with deferred keys

    with pytest.raises(DatabaseError):
        insert_then_check()

    assert not MatchSession.objects.filter(pk="ms_orphan").exists()


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="on PostgreSQL only (DATABASE_URL=postgres://...): its one statement for every row",
)
def test_on_postgresql_every_row_goes_in_one_statement(trail_shoe):
    with CaptureQueriesContext(connection) as queries:
        insert_together(*_family(trail_shoe, _intent()))

    assert len(queries) == 1
    assert MatchSession.objects.filter(pk="ms_inserts").exists()


@isolate_apps("gateway")
def test_a_field_it_cannot_write_is_named():
    class Odd(models.Model):
        when = models.DurationField()

        class Meta:
            app_label = "gateway"

        def __str__(self) -> str:
            return "odd"

    with pytest.raises(TypeError, match=r"Odd\.when"):
        insert_together([Odd(when=timedelta(seconds=1))])


def test_a_group_must_hold_one_model():
    with pytest.raises(TypeError, match="a group of Intent holds other models"):
        insert_together([_intent(), IntentTag(intent_id="int_inserts", tag="x")])

    assert not Intent.objects.filter(pk="int_inserts").exists()


def test_nothing_to_insert_costs_nothing():
    with CaptureQueriesContext(connection) as queries:
        insert_together([], [])

    assert len(queries) == 0


def test_each_instance_gets_the_key_the_database_gave_its_row(trail_shoe):
    earlier = IntentTag.objects.create(intent=Intent.objects.create(intent_id="int_early"), tag="x")
    intent = _intent()
    tags = [IntentTag(intent=intent, tag=tag) for tag in ["trail", "running", "shoes"]]

    insert_together([intent], tags)

    assert all(tag.pk is not None and tag.pk > earlier.pk for tag in tags)
    stored = dict(IntentTag.objects.filter(intent=intent).values_list("pk", "tag"))
    assert stored == {tag.pk: tag.tag for tag in tags}
    assert [tag._state.adding for tag in tags] == [False, False, False]
    assert IntentTag.objects.filter(pk=tags[0].pk).get().tag == "trail"


def test_an_upsert_inserts_new_rows_and_updates_only_the_named_columns_of_others():
    created = timezone.now() - timedelta(days=1)
    Creator.objects.create(username="miles", display_name="Miles", followers=10)
    first_created_at = Creator.objects.get(username="miles").created_at
    now = timezone.now()
    rows = [
        {"username": "miles", "display_name": "Miles R.", "followers": 12},
        {"username": "ana", "display_name": AWKWARD, "followers": 3},
    ]
    stamps = {"created_at": created, "updated_at": now}

    upsert(
        Creator,
        [row | stamps for row in rows],
        key="username",
        update=["display_name", "followers", "updated_at"],
        insert_only=["created_at"],
    )

    stored = {c.username: c for c in Creator.objects.all()}
    assert (stored["miles"].display_name, stored["miles"].followers) == ("Miles R.", 12)
    assert stored["miles"].created_at == first_created_at  # written on insert only
    assert (stored["ana"].display_name, stored["ana"].followers) == (AWKWARD, 3)
    assert stored["ana"].created_at == created


def _stored(instance: models.Model) -> dict[str, object]:
    """The row of `instance` as the database holds it (read without any field's conversion, a
    JSON document parsed), but for its key, the keys of its parents and the times that Django
    stamps as it saves."""
    model = type(instance)
    columns = [
        str(field.column)
        for field in model._meta.concrete_fields
        if not (field.primary_key or field.is_relation or getattr(field, "auto_now", False))
        and not getattr(field, "auto_now_add", False)
    ]
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {', '.join(quote(column) for column in columns)} "  # noqa: S608
            f"FROM {quote(model._meta.db_table)} WHERE {quote(str(model._meta.pk.column))} = %s",
            [instance.pk],
        )
        row: dict[str, object] = dict(zip(columns, cursor.fetchone(), strict=True))
    for field in model._meta.concrete_fields:  # a document, however its text is spaced
        text = row.get(str(field.column))
        if isinstance(field, models.JSONField) and isinstance(text, str):
            row[str(field.column)] = json.loads(text)
    return row


def test_it_stores_exactly_what_bulk_create_stores(trail_shoe):
    """The writer's canary: it prepares values itself, so a Django upgrade that changes how a
    field is written (a JSON document's encoding, a date's format, a field's own conversion)
    shows here as a column that differs from what the ORM's bulk_create writes."""
    written = _family(trail_shoe, _intent("int_written"), "written")
    by_orm = _family(trail_shoe, _intent("int_by_orm"), "by_orm")

    insert_together(*written)
    for group in by_orm:
        type(group[0])._default_manager.bulk_create(group)

    for ours, theirs in zip(written, by_orm, strict=True):
        for mine, orm in zip(ours, theirs, strict=True):
            assert _stored(mine) == _stored(orm), type(mine).__name__
