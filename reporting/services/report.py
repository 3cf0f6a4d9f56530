"""The attribution report: cards, clicks, conversions and GMV by product and creator."""

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import (
    CharField,
    Count,
    DecimalField,
    Exists,
    F,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Cast, Coalesce, Concat, TruncDate
from django.utils import timezone

from catalog.models import Product, Recommendation, Video
from matching.models import AcceptanceState, MatchSession, MatchStatus, MatchToken
from reporting.models import Click, Conversion
from reporting.services.figures import (
    ZERO,
    CreatorFigures,
    Figures,
    ProductFigures,
    to_the_cent,
)

MONEY = DecimalField(max_digits=14, decimal_places=2)
COUNTED = Q(flagged=False)


@dataclass
class AttributionReport:
    days: int
    since: datetime
    until: datetime
    channel: str | None
    product_id: int | None
    totals: Figures
    usd_rates: Mapping[str, Decimal]  # the rates gmv_usd_total was worked out with
    by_day: list[tuple[date, Figures]]
    by_channel: list[tuple[str | None, Figures]]
    by_product: list[ProductFigures]
    by_creator: list[CreatorFigures]

    def as_dict(self) -> dict[str, Any]:
        """The report as the API answers it."""
        return {
            "window": {"days": self.days, "since": self.since, "until": self.until},
            "filters": {"channel": self.channel, "product_id": self.product_id},
            "usd_rates": dict(self.usd_rates),
            "totals": self.totals.as_dict(),
            "by_day": [{"date": day, **figures.as_dict()} for day, figures in self.by_day],
            "by_channel": [
                {"channel": channel, **figures.as_dict()} for channel, figures in self.by_channel
            ],
            "by_product": [
                {
                    "product_id": row.product_id,
                    "title": row.title,
                    "creator": row.creator,
                    **row.figures.as_dict(),
                }
                for row in self.by_product
            ],
            "by_creator": [
                {
                    "username": row.username,
                    "display_name": row.display_name,
                    "products": row.products,
                    **row.figures.as_dict(),
                }
                for row in self.by_creator
            ],
        }


@dataclass(frozen=True)
class Fact:
    """Where one kind of fact lives: its rows, its time, its channel and its product."""

    name: str  # the Figures attribute it counts into
    rows: QuerySet[Any]
    at: str
    channel: str
    product: str


def _facts() -> list[Fact]:
    # A match the demand side accepted: its token and its session accepted. A confirmation that
    # bound nothing (matching/demand.py) leaves its session open and is no accepted match.
    accepted = MatchToken.objects.filter(
        acceptance_state=AcceptanceState.ACCEPTED, session__status=MatchStatus.ACCEPTED
    )
    return [
        Fact("recommendations", Recommendation.objects.all(), "created_at", "channel", "product"),
        Fact(
            "clicks",
            Click.objects.all(),
            "clicked_at",
            "recommendation__channel",
            "recommendation__product",
        ),
        # A match session counts for the product it ranked first.
        Fact(
            "match_sessions",
            MatchSession.objects.all(),
            "created_at",
            "intent__source_channel",
            "best_proposal__product",
        ),
        Fact(
            "accepted_matches",
            accepted,
            "accepted_at",
            "intent__source_channel",
            "proposal__product",
        ),
        Fact("conversions", Conversion.objects.all(), "occurred_at", "channel", "product"),
    ]


def _in_window(
    fact: Fact, since: datetime, until: datetime, channel: str | None, product_id: int | None
) -> QuerySet[Any]:
    rows = fact.rows.filter(**{f"{fact.at}__gte": since, f"{fact.at}__lte": until})
    if channel is not None:
        rows = rows.filter(**{fact.channel: channel})
    if product_id is not None:
        rows = rows.filter(**{f"{fact.product}_id": product_id})
    return rows.order_by()


def _measures(fact: Fact) -> dict[str, Any]:
    if fact.name == "clicks":  # and the same rows, each card and client counted once a day
        day = Cast(TruncDate("clicked_at"), CharField())
        once = Concat("recommendation_id", Value(":"), "client_key", Value(":"), day)
        return {"n": Count("pk"), "unique": Count(once, distinct=True)}
    if fact.name != "conversions":
        return {"n": Count("pk")}
    # Flagged conversions (the conversions policy) are counted apart and earn no GMV.
    return {
        "n": Count("pk", filter=COUNTED),
        "flagged_n": Count("pk", filter=~COUNTED),  # not "flagged": the field's name
        "amount": Coalesce(Sum("amount", filter=COUNTED), ZERO, output_field=MONEY),
    }


def _count_into(figures: Figures, fact: Fact, row: dict[str, Any]) -> None:
    setattr(figures, fact.name, getattr(figures, fact.name) + row["n"])
    if fact.name == "clicks":
        figures.unique_clicks += row["unique"]
    if fact.name == "conversions":
        figures.flagged_conversions += row["flagged_n"]
        if row["n"]:  # a currency of flagged conversions alone earned nothing
            figures.add_gmv(row["currency"], to_the_cent(row["amount"]))


def _top_creator(field_name: str) -> Subquery:
    """The `field_name` of the creator of the product's best-selling video (ties: task_id)."""
    best = Video.objects.filter(product=OuterRef("pk")).order_by("-gmv_usd", "task_id")
    return Subquery(best.values(field_name)[:1])


def _ranked(rows: Iterable[Any], key: Any, top: int | None) -> list[Any]:
    ordered = sorted(rows, key=key)
    return ordered if top is None else ordered[:top]


@contextmanager
def _snapshot() -> Iterator[None]:
    """One view of the facts for all the report's queries, so its sections agree: on PostgreSQL
    a read-only REPEATABLE READ transaction. (SQLite's read transactions would hold its single
    writer's lock here; its report may differ by the facts written while it runs.)"""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


def attribution_report(
    *, days: int, channel: str | None, product_id: int | None, top: int | None
) -> AttributionReport:
    """The attribution report (see _report), read from one snapshot of the facts."""
    with _snapshot():
        return _report(days=days, channel=channel, product_id=product_id, top=top)


def _window(days: int) -> tuple[datetime, datetime]:
    """The last `days` days, today included: from midnight UTC of the first to now."""
    until = timezone.now()
    first_day = until.date() - timedelta(days=days - 1)
    return datetime.combine(first_day, time.min, tzinfo=until.tzinfo), until


# Channels are free text any client may send: the pages' choice lists this many at most.
MAX_CHANNEL_CHOICES = 200


def report_channels(*, days: int) -> list[str]:
    """The channels of the facts of the last `days` days (today included, UTC), by name, the
    first MAX_CHANNEL_CHOICES: the choices of the supply pages' channel filter. One query."""
    since, until = _window(days)
    named = [
        _in_window(fact, since, until, None, None)
        .filter(**{f"{fact.channel}__isnull": False})
        .values_list(fact.channel, flat=True)
        for fact in _facts()
    ]
    union = named[0].union(*named[1:])  # UNION: each channel once
    return list(union.order_by(named[0].query.values_select[0])[:MAX_CHANNEL_CHOICES])


def _report(
    *, days: int, channel: str | None, product_id: int | None, top: int | None
) -> AttributionReport:
    """The attribution figures of the last `days` days (today included, UTC), optionally of
    one channel and/or one product, with breakdowns by day, channel, product and creator.

    Facts and their times: cards issued (created_at), buy-link clicks (clicked_at), match
    sessions (created_at), accepted match tokens (accepted_at) and conversions (occurred_at).
    A product's figures all go to one creator: the creator of its best-selling video (highest
    GMV, then task_id), the one its cards lead with. GMV is summed per currency; USD and the
    currencies USD_RATES prices make gmv_usd_total, the others stay apart. `top` keeps the
    best channels, products and creators (GMV in USD, conversions, clicks, cards); None keeps
    all.

    Eleven queries whatever the volume: per fact, one grouped by (day, channel) and one by
    product; then one for the titles and creators of the products that had any fact.
    """
    since, until = _window(days)
    first_day = since.date()

    by_day = {first_day + timedelta(days=offset): Figures() for offset in range(days)}
    by_channel: dict[str | None, Figures] = {}
    by_product: dict[int, Figures] = {}
    for fact in _facts():
        rows = _in_window(fact, since, until, channel, product_id)
        # Conversions are grouped by currency too: amounts of two currencies never add up.
        fields = ["currency"] if fact.name == "conversions" else []
        keys = {"day": TruncDate(fact.at), "channel_key": F(fact.channel)}
        for row in rows.values(*fields, **keys).annotate(**_measures(fact)):
            day_figures = by_day.get(row["day"])
            if day_figures is None:  # only if the database's days were not UTC days
                continue
            _count_into(day_figures, fact, row)
            _count_into(by_channel.setdefault(row["channel_key"], Figures()), fact, row)
        per_product = rows.filter(**{f"{fact.product}__isnull": False}).values(
            *fields, product_key=F(f"{fact.product}_id")
        )
        for row in per_product.annotate(**_measures(fact)):
            _count_into(by_product.setdefault(row["product_key"], Figures()), fact, row)

    totals = Figures()
    for figures in by_day.values():
        totals.add(figures)

    products = _product_rows(by_product, since, until, channel, product_id)
    creators: dict[str, CreatorFigures] = {}
    for product in products:
        if product.creator is None:
            continue  # a product without videos has no creator to credit
        creator = creators.setdefault(
            product.creator,
            CreatorFigures(product.creator, product.creator_name or product.creator, 0, Figures()),
        )
        creator.products += 1
        creator.figures.add(product.figures)

    rates = settings.USD_RATES
    for figures in (
        totals,
        *by_day.values(),
        *by_channel.values(),
        *(product.figures for product in products),
        *(creator.figures for creator in creators.values()),
    ):
        figures.price(rates)

    def best(figures: Figures) -> tuple[Any, ...]:
        return tuple(-value for value in figures.rank())

    return AttributionReport(
        days=days,
        since=since,
        until=until,
        channel=channel,
        product_id=product_id,
        totals=totals,
        usd_rates=dict(sorted(rates.items())),
        by_day=sorted(by_day.items()),
        by_channel=_ranked(
            by_channel.items(),
            lambda item: (*best(item[1]), item[0] is None, item[0] or ""),
            top,
        ),
        by_product=_ranked(products, lambda row: (*best(row.figures), row.product_id), top),
        by_creator=_ranked(creators.values(), lambda row: (*best(row.figures), row.username), top),
    )


def _product_rows(
    by_product: dict[int, Figures],
    since: datetime,
    until: datetime,
    channel: str | None,
    product_id: int | None,
) -> list[ProductFigures]:
    """Titles and credited creators of the products that had any fact, in one query.

    The products are found again with EXISTS rather than an IN list of ids, which SQLite caps.
    """
    if not by_product:
        return []
    active = Q()
    for fact in _facts():
        rows = _in_window(fact, since, until, channel, product_id)
        active |= Q(Exists(rows.filter(**{fact.product: OuterRef("pk")})))
    found = (
        Product.objects.filter(active)
        .annotate(
            creator_username=_top_creator("creator__username"),
            creator_name=_top_creator("creator__display_name"),
        )
        .values_list("id", "title", "creator_username", "creator_name")
    )
    products = []
    for pk, title, username, display_name in found:
        figures = by_product.get(pk)
        if figures is None:  # a fact recorded between the queries
            continue
        products.append(ProductFigures(pk, title, username, display_name, figures))
    return products
