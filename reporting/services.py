"""Attribution use cases: follow a card's buy link, record a conversion, report the figures."""

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from django.db import IntegrityError, connection, transaction
from django.db.models import Count, DecimalField, Exists, F, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce, TruncDate
from django.utils import timezone

from catalog.models import Product, Recommendation, Video
from gateway.api import CONVERSION, MATCH_TOKEN, REC, ApiError, find_minted, new_id, not_found
from matching.models import AcceptanceState, MatchSession, MatchToken, Provenance
from merchants.models import MerchantAgent
from reporting.models import CLOCK_SKEW, Click, Conversion

# --- Buy links ---------------------------------------------------------------------------------


def with_rec_id(url: str, rec_id: str) -> str:
    """The shop URL with `rec_id` as a query parameter, replacing any rec_id it had.

    The rest of the query is kept byte for byte: merchants' signed or affiliate parameters must
    reach the shop exactly as they were stored.
    """
    parts = urlsplit(url)
    kept = [
        pair
        for pair in parts.query.split("&")
        if pair and unquote_plus(pair.partition("=")[0]) != "rec_id"
    ]
    return urlunsplit(parts._replace(query="&".join([*kept, f"rec_id={rec_id}"])))


def buy_link_follow(*, rec_id: str, user_agent: str, referrer: str, count_click: bool) -> str:
    """The shop URL that the buy link of `rec_id` leads to; records a Click when `count_click`."""
    shop_urls = Recommendation.objects.values_list("product__url", flat=True)
    missing = not_found("not found", "No card was issued under that rec_id.")
    shop_url = find_minted(shop_urls, REC, rec_id, missing)
    if count_click:
        # Headers are the visitor's bytes: PostgreSQL text holds no NUL.
        Click.objects.create(
            recommendation_id=rec_id,
            user_agent=user_agent.replace("\x00", "\ufffd")[:300],
            referrer=referrer.replace("\x00", "\ufffd")[:500],
        )
    return with_rec_id(shop_url, rec_id)


# --- Conversions -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConversionResult:
    conversion: Conversion
    created: bool


def _conflict() -> ApiError:
    return ApiError(
        409,
        "conversion_conflict",
        "This merchant already recorded that order_id with different facts.",
    )


def _same_facts(conversion: Conversion, facts: dict[str, Any]) -> bool:
    return all(getattr(conversion, name) == value for name, value in facts.items())


def conversion_record(
    *,
    merchant: MerchantAgent,
    order_id: str,
    rec_id: str | None,
    match_token_id: str | None,
    amount: Decimal,
    currency: str,
    occurred_at: datetime,
) -> ConversionResult:
    """Record an order as the outcome of a card and/or a match token, once per order_id.

    The same order again with the same facts answers the recorded conversion; with different
    facts it is a conflict. A match token counts only for its own merchant's proposal or for a
    catalog proposal (which any shop may fulfil). The product comes from the reference; the
    channel from the card, else from the intent of the token.
    """
    recommendation = token = None
    if rec_id is not None:
        recommendations = Recommendation.objects.all()
        missing = not_found("recommendation_not_found", "No card was issued under that rec_id.")
        recommendation = find_minted(recommendations, REC, rec_id, missing)
    if match_token_id is not None:
        tokens = MatchToken.objects.select_related("proposal", "intent")
        missing = not_found("match_token_not_found", "No match token has that match_token_id.")
        token = find_minted(tokens, MATCH_TOKEN, match_token_id, missing)
        proposal = token.proposal
        if proposal.provenance != Provenance.CATALOG and proposal.merchant_id != merchant.pk:
            raise ApiError(
                403,
                "match_token_not_yours",
                "That match token is for another merchant's proposal.",
            )
        if token.acceptance_state != AcceptanceState.ACCEPTED:
            # An issued token is an offer the demand side has not taken (yet); a superseded one
            # lost. Only an accepted match is a fact a sale can be credited to.
            raise ApiError(
                409,
                "match_token_not_accepted",
                "That match token was not accepted, so no sale can be credited to it.",
            )
    if recommendation and token and recommendation.product_id != token.proposal.product_id:
        raise ApiError(
            400,
            "invalid_body",
            "rec_id and match_token_id name different products.",
            fields={"match_token_id": ["Its proposal is not for the card's product."]},
        )
    # An order placed before its card or match existed cannot be their outcome (clocks may
    # drift by CLOCK_SKEW).
    references = [recommendation.created_at if recommendation else None]
    references.append(token.issued_at if token else None)
    earliest = max((moment for moment in references if moment is not None), default=None)
    if earliest is not None and occurred_at < earliest - CLOCK_SKEW:
        raise ApiError(
            400,
            "invalid_body",
            "occurred_at is before the card or match token it credits was issued.",
            fields={"occurred_at": ["The order cannot be older than what it credits."]},
        )
    facts: dict[str, Any] = {
        "recommendation_id": rec_id,
        "match_token_id": match_token_id,
        "amount": amount,
        "currency": currency,
        "occurred_at": occurred_at,
    }
    recorded = Conversion.objects.select_related("merchant")
    existing = recorded.filter(merchant=merchant, order_id=order_id).first()
    if existing is not None:
        if not _same_facts(existing, facts):
            raise _conflict()
        return ConversionResult(existing, created=False)
    if recommendation is not None:
        product_id, channel = recommendation.product_id, recommendation.channel
    else:
        assert token is not None
        product_id, channel = token.proposal.product_id, token.intent.source_channel
    try:
        with transaction.atomic():
            conversion = Conversion.objects.create(
                conversion_id=new_id(CONVERSION),
                merchant=merchant,
                order_id=order_id,
                product_id=product_id,
                channel=channel,
                **facts,
            )
    except IntegrityError:
        # The same order was recorded by a concurrent request: judge against that one.
        existing = recorded.get(merchant=merchant, order_id=order_id)
        if not _same_facts(existing, facts):
            raise _conflict() from None
        return ConversionResult(existing, created=False)
    return ConversionResult(conversion, created=True)


# --- The attribution report --------------------------------------------------------------------

GMV_CURRENCY = "USD"
ZERO = Decimal("0.00")


def _money(value: Decimal | None) -> Decimal:
    """A sum of amounts to the cent: SQLite adds decimals as binary floats."""
    return (value or ZERO).quantize(ZERO)


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


@dataclass
class Figures:
    """The facts of one slice of the report (a day, a channel, a product, a creator)."""

    recommendations: int = 0
    clicks: int = 0
    match_sessions: int = 0
    accepted_matches: int = 0
    conversions: int = 0
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
        self.match_sessions += other.match_sessions
        self.accepted_matches += other.accepted_matches
        self.conversions += other.conversions
        self.gmv_usd += other.gmv_usd

    def rank(self) -> tuple[Decimal, int, int, int]:
        """Best first when sorted descending: GMV, then conversions, clicks, cards."""
        return (self.gmv_usd, self.conversions, self.clicks, self.recommendations)

    def as_dict(self) -> dict[str, Any]:
        return {
            "recommendations": self.recommendations,
            "clicks": self.clicks,
            "click_through_rate": self.click_through_rate,
            "match_sessions": self.match_sessions,
            "accepted_matches": self.accepted_matches,
            "conversions": self.conversions,
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
    if fact.name != "conversions":
        return {"n": Count("pk")}
    return {"n": Count("pk"), "amount": Sum("amount")}


def _count_into(figures: Figures, fact: Fact, row: dict[str, Any], *, usd_only: bool) -> None:
    setattr(figures, fact.name, getattr(figures, fact.name) + row["n"])
    if fact.name == "conversions" and (not usd_only or row.get("currency") == GMV_CURRENCY):
        figures.gmv_usd += _money(row["amount"])


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
                gmv_by_currency[row["currency"]] = total + _money(row["amount"])
        per_product = rows.filter(**{f"{fact.product}__isnull": False}).values(
            product_key=F(f"{fact.product}_id")
        )
        if fact.name == "conversions":
            measures = {
                "n": Count("pk"),
                "amount": Coalesce(
                    Sum("amount", filter=Q(currency=GMV_CURRENCY)),
                    ZERO,
                    output_field=DecimalField(max_digits=14, decimal_places=2),
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
