"""The attribution report: cards, clicks, conversions and GMV by product and creator."""

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

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
from matching.models import AcceptanceState, MatchSession, MatchToken
from reporting.models import Click, Conversion

GMV_CURRENCY = "USD"


ZERO = Decimal("0.00")


def _to_the_cent(value: Decimal | None) -> Decimal:
    """A sum of amounts to the cent: SQLite adds decimals as binary floats."""
    return (value or ZERO).quantize(ZERO)


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


MONEY = DecimalField(max_digits=14, decimal_places=2)
COUNTED = Q(flagged=False)


@dataclass
class Figures:
    """The facts of one slice of the report (a day, a channel, a product, a creator)."""

    recommendations: int = 0
    clicks: int = 0
    unique_clicks: int = 0
    match_sessions: int = 0
    accepted_matches: int = 0
    conversions: int = 0
    flagged_conversions: int = 0
    gmv_usd: Decimal = ZERO

    @property
    def click_through_rate(self) -> float | None:
        return _ratio(self.clicks, self.recommendations)

    @property
    def conversion_rate(self) -> float | None:
        return _ratio(self.conversions, self.clicks)

    def add(self, other: "Figures") -> None:
        self.recommendations += other.recommendations
        self.clicks += other.clicks
        self.unique_clicks += other.unique_clicks
        self.match_sessions += other.match_sessions
        self.accepted_matches += other.accepted_matches
        self.conversions += other.conversions
        self.flagged_conversions += other.flagged_conversions
        self.gmv_usd += other.gmv_usd

    def rank(self) -> tuple[Decimal, int, int, int]:
        """Best first when sorted descending: GMV, then conversions, clicks, cards."""
        return (self.gmv_usd, self.conversions, self.clicks, self.recommendations)

    def as_dict(self) -> dict[str, Any]:
        return {
            "recommendations": self.recommendations,
            "clicks": self.clicks,
            "unique_clicks": self.unique_clicks,
            "click_through_rate": self.click_through_rate,
            "match_sessions": self.match_sessions,
            "accepted_matches": self.accepted_matches,
            "conversions": self.conversions,
            "flagged_conversions": self.flagged_conversions,
            "gmv_usd": self.gmv_usd,
            "conversion_rate": self.conversion_rate,
        }


@dataclass
class ProductFigures:
    product_id: int
    title: str
    creator: str | None  # username of the creator the product's figures go to
    creator_name: str | None
    figures: Figures


@dataclass
class CreatorFigures:
    username: str
    display_name: str
    products: int
    figures: Figures


@dataclass
class AttributionReport:
    days: int
    since: datetime
    until: datetime
    channel: str | None
    product_id: int | None
    totals: Figures
    gmv_by_currency: dict[str, Decimal]
    by_day: list[tuple[date, Figures]]
    by_channel: list[tuple[str | None, Figures]]
    by_product: list[ProductFigures]
    by_creator: list[CreatorFigures]

    def as_dict(self) -> dict[str, Any]:
        """The report as the API answers it."""
        return {
            "window": {"days": self.days, "since": self.since, "until": self.until},
            "filters": {"channel": self.channel, "product_id": self.product_id},
            "totals": {**self.totals.as_dict(), "gmv_by_currency": self.gmv_by_currency},
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
    accepted = MatchToken.objects.filter(acceptance_state=AcceptanceState.ACCEPTED)
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


def _count_into(figures: Figures, fact: Fact, row: dict[str, Any], *, usd_only: bool) -> None:
    setattr(figures, fact.name, getattr(figures, fact.name) + row["n"])
    if fact.name == "clicks":
        figures.unique_clicks += row["unique"]
    if fact.name == "conversions":
        figures.flagged_conversions += row["flagged_n"]
    if fact.name == "conversions" and (not usd_only or row.get("currency") == GMV_CURRENCY):
        figures.gmv_usd += _to_the_cent(row["amount"])


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


def _report(
    *, days: int, channel: str | None, product_id: int | None, top: int | None
) -> AttributionReport:
    """The attribution figures of the last `days` days (today included, UTC), optionally of
    one channel and/or one product, with breakdowns by day, channel, product and creator.

    Facts and their times: cards issued (created_at), buy-link clicks (clicked_at), match
    sessions (created_at), accepted match tokens (accepted_at) and conversions (occurred_at).
    A product's figures all go to one creator: the creator of its best-selling video (highest
    GMV, then task_id), the one its cards lead with. `top` keeps the best channels, products and
    creators (GMV, conversions, clicks, cards); None keeps all.

    Eleven queries whatever the volume: per fact, one grouped by (day, channel) and one by
    product; then one for the titles and creators of the products that had any fact.
    """
    until = timezone.now()
    first_day = until.date() - timedelta(days=days - 1)
    since = datetime.combine(first_day, time.min, tzinfo=until.tzinfo)

    by_day = {first_day + timedelta(days=offset): Figures() for offset in range(days)}
    by_channel: dict[str | None, Figures] = {}
    by_product: dict[int, Figures] = {}
    gmv_by_currency: dict[str, Decimal] = {}
    for fact in _facts():
        rows = _in_window(fact, since, until, channel, product_id)
        fields = ["currency"] if fact.name == "conversions" else []
        keys = {"day": TruncDate(fact.at), "channel_key": F(fact.channel)}
        for row in rows.values(*fields, **keys).annotate(**_measures(fact)):
            day_figures = by_day.get(row["day"])
            if day_figures is None:  # only if the database's days were not UTC days
                continue
            _count_into(day_figures, fact, row, usd_only=True)
            channel_figures = by_channel.setdefault(row["channel_key"], Figures())
            _count_into(channel_figures, fact, row, usd_only=True)
            if fact.name == "conversions":
                total = gmv_by_currency.get(row["currency"], ZERO)
                gmv_by_currency[row["currency"]] = total + _to_the_cent(row["amount"])
        per_product = rows.filter(**{f"{fact.product}__isnull": False}).values(
            product_key=F(f"{fact.product}_id")
        )
        if fact.name == "conversions":
            measures = {
                **_measures(fact),
                "amount": Coalesce(
                    Sum("amount", filter=COUNTED & Q(currency=GMV_CURRENCY)),
                    ZERO,
                    output_field=MONEY,
                ),
            }
        else:
            measures = _measures(fact)
        for row in per_product.annotate(**measures):
            product_figures = by_product.setdefault(row["product_key"], Figures())
            _count_into(product_figures, fact, row, usd_only=False)

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

    def best(figures: Figures) -> tuple[Any, ...]:
        return tuple(-value for value in figures.rank())

    return AttributionReport(
        days=days,
        since=since,
        until=until,
        channel=channel,
        product_id=product_id,
        totals=totals,
        gmv_by_currency=dict(sorted(gmv_by_currency.items())),
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
