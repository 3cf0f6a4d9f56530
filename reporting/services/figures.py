"""The figures of one slice of the attribution report (a day, a channel, a product, a creator),
and its GMV: per currency as reported, and in US dollars at the configured rates."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

GMV_CURRENCY = "USD"
ZERO = Decimal("0.00")


def to_the_cent(value: Decimal | None) -> Decimal:
    """An amount to the cent (SQLite adds decimals as binary floats; rates have more places)."""
    return (value or ZERO).quantize(ZERO, rounding=ROUND_HALF_UP)


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


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
    # Counted conversions' amounts by ISO currency, never converted.
    gmv_by_currency: dict[str, Decimal] = field(default_factory=dict)
    # Set by price(): USD plus every currency with a rate, in US dollars; and the currencies
    # without a rate, apart (adding them at any rate, or at none, would misstate the GMV).
    gmv_usd_total: Decimal = ZERO
    gmv_unconverted: dict[str, Decimal] = field(default_factory=dict)

    @property
    def gmv_usd(self) -> Decimal:
        """The amounts of USD conversions alone."""
        return self.gmv_by_currency.get(GMV_CURRENCY, ZERO)

    @property
    def click_through_rate(self) -> float | None:
        return _ratio(self.clicks, self.recommendations)

    @property
    def conversion_rate(self) -> float | None:
        return _ratio(self.conversions, self.clicks)

    def add_gmv(self, currency: str, amount: Decimal) -> None:
        self.gmv_by_currency[currency] = self.gmv_by_currency.get(currency, ZERO) + amount

    def add(self, other: "Figures") -> None:
        self.recommendations += other.recommendations
        self.clicks += other.clicks
        self.unique_clicks += other.unique_clicks
        self.match_sessions += other.match_sessions
        self.accepted_matches += other.accepted_matches
        self.conversions += other.conversions
        self.flagged_conversions += other.flagged_conversions
        for currency, amount in other.gmv_by_currency.items():
            self.add_gmv(currency, amount)

    def price(self, rates: Mapping[str, Decimal]) -> None:
        """Work out gmv_usd_total and gmv_unconverted from the GMV per currency and `rates`
        (US dollars per unit); sorts the currencies too."""
        self.gmv_by_currency = dict(sorted(self.gmv_by_currency.items()))
        total, apart = ZERO, {}
        for currency, amount in self.gmv_by_currency.items():
            rate = Decimal(1) if currency == GMV_CURRENCY else rates.get(currency)
            if rate is None:
                apart[currency] = amount
            else:
                total += amount * rate
        self.gmv_usd_total, self.gmv_unconverted = to_the_cent(total), apart

    def rank(self) -> tuple[Decimal, int, int, int]:
        """Best first when sorted descending: GMV in USD, then conversions, clicks, cards."""
        return (self.gmv_usd_total, self.conversions, self.clicks, self.recommendations)

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
            "gmv_by_currency": self.gmv_by_currency,
            "gmv_usd_total": self.gmv_usd_total,
            "gmv_unconverted": self.gmv_unconverted,
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
