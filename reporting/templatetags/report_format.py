"""Number formats of the supply pages."""

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django import template

register = template.Library()


@register.filter
def percent(value: float | None) -> str:
    """A rate as a percentage with one decimal; an en dash when there is no rate."""
    return "\u2013" if value is None else f"{value * 100:.1f}%"


@register.filter
def count(value: int) -> str:
    return f"{value:,}"


@register.filter
def money(value: Decimal | float) -> str:
    return f"{value:,.2f}"


@register.filter
def gmv(figures: Any) -> str:
    """A slice's GMV: its US dollar total, and apart each currency without a rate. Sales in a
    currency the gateway cannot convert never read as "$0.00"."""
    parts = [f"{code} {amount:,.2f}" for code, amount in figures.gmv_unconverted.items()]
    if figures.gmv_usd_total or not parts:
        parts.insert(0, f"${figures.gmv_usd_total:,.2f}")
    return " + ".join(parts)


@register.filter
def gmv_detail(figures: Any, rates: Mapping[str, Decimal]) -> str:
    """Each currency's GMV as reported, with the rate it was converted at or the word that it
    was not: "USD 24.00 · EUR 50.00 at $1.08 · JPY 900.00 (no rate)"."""
    parts = []
    for code, amount in figures.gmv_by_currency.items():
        if code in figures.gmv_unconverted:
            parts.append(f"{code} {amount:,.2f} (no rate)")
        elif code in rates:
            parts.append(f"{code} {amount:,.2f} at ${rates[code]}")
        else:
            parts.append(f"{code} {amount:,.2f}")
    return " · ".join(parts) or "No sales"
