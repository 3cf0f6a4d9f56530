"""Attribution use cases: follow a card's buy link, record a conversion, report the figures."""

from reporting.services.clicks import (
    buy_link_follow,
    with_rec_id,
)
from reporting.services.conversions import (
    ConversionResult,
    conversion_record,
)
from reporting.services.report import (
    GMV_CURRENCY,
    ZERO,
    AttributionReport,
    CreatorFigures,
    Fact,
    Figures,
    ProductFigures,
    attribution_report,
)

__all__ = [
    "GMV_CURRENCY",
    "ZERO",
    "AttributionReport",
    "ConversionResult",
    "CreatorFigures",
    "Fact",
    "Figures",
    "ProductFigures",
    "attribution_report",
    "buy_link_follow",
    "conversion_record",
    "with_rec_id",
]
