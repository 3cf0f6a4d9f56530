"""Amounts in other currencies than the catalog's: one table of exchange rates (USD_RATES, US
dollars per unit of each currency), which recommend reads to judge a shopper's budget against
the catalog's prices and the reports read to add sales up in dollars (docs/configuration.md).

A currency the table does not price is never converted: the reports keep its sales apart, and
recommend does not apply a budget stated in it (its answer's `retrieval` says so)."""

from decimal import Decimal

from django.conf import settings

# The catalog's prices (Product.price_usd) and the reports' totals are in US dollars.
CATALOG_CURRENCY = "USD"


def usd_rate(currency: str | None) -> Decimal | None:
    """US dollars per unit of `currency`: 1 for dollars (and for an amount that names no
    currency, which is in dollars), the table's rate, or None where the table has none."""
    if currency is None or currency.upper() == CATALOG_CURRENCY:
        return Decimal(1)
    rate: Decimal | None = settings.USD_RATES.get(currency.upper())
    return rate


def in_usd(amount: Decimal, currency: str | None) -> Decimal | None:
    """`amount` of `currency` in US dollars, or None for a currency without a rate."""
    rate = usd_rate(currency)
    return amount * rate if rate is not None else None
