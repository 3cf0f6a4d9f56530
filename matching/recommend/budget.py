"""Retrieve, the shopper's budget in the catalog's money: a budget stated in another currency is
converted with the one table of exchange rates (kernel/money.py) before it filters, and one in a
currency the table does not price is not applied at all, rather than read as dollars. The
answer's `retrieval.budget` says which, with the converted figures."""

from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any

from kernel.money import CATALOG_CURRENCY, usd_rate
from matching.engine.resolution import Budget

CENT = Decimal("0.01")
# A rate written as a fraction (INR=1/82.5) is a repeating decimal: its product is settled to
# this first, so 8,250 rupees are $100.00 and not 99.99999...
SETTLED = Decimal("0.000001")


@dataclass(frozen=True)
class Priced:
    """A budget as the shopper stated it and, at `rate` US dollars per unit of its currency,
    in the catalog's dollars; `rate` None when the table has no rate for the currency."""

    stated: Budget
    rate: Decimal | None

    @property
    def applied(self) -> bool:
        return self.rate is not None

    def _in_usd(self, amount: float | None, rounding: str) -> float | None:
        """To the cent, rounded inward: the catalog's prices are in cents, so a price is
        within the converted figure exactly when it is within the stated one."""
        if amount is None or self.rate is None:
            return None
        settled = (Decimal(str(amount)) * self.rate).quantize(SETTLED)
        return float(settled.quantize(CENT, rounding=rounding))

    @property
    def min_usd(self) -> float | None:
        return self._in_usd(self.stated.min, ROUND_CEILING)

    @property
    def max_usd(self) -> float | None:
        return self._in_usd(self.stated.max, ROUND_FLOOR)

    @property
    def in_dollars(self) -> bool:
        """Stated in the catalog's own money (or in none, which means it)."""
        return self.stated.currency in (None, CATALOG_CURRENCY)

    def field(self) -> dict[str, Any] | None:
        """`retrieval.budget`: None when the shopper stated no budget."""
        if self.stated.min is None and self.stated.max is None:
            return None
        return {
            "min": self.stated.min,
            "max": self.stated.max,
            "currency": self.stated.currency or CATALOG_CURRENCY,
            "applied": self.applied,
            "usd_per_unit": float(self.rate) if self.rate is not None else None,
            "min_usd": self.min_usd,
            "max_usd": self.max_usd,
        }


def priced(budget: Budget) -> Priced:
    return Priced(budget, usd_rate(budget.currency))
