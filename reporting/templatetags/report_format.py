"""Number formats of the supply pages."""

from decimal import Decimal

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
