"""Attribution use cases: follow a card's buy link, record a conversion, report the figures
(and the channels they name)."""

from reporting.services.clicks import (
    buy_link_follow,
    with_rec_id,
)
from reporting.services.conversions import (
    ConversionResult,
    conversion_record,
)
from reporting.services.figures import (
    GMV_CURRENCY,
    ZERO,
    CreatorFigures,
    Figures,
    ProductFigures,
)
from reporting.services.report import (
    AttributionReport,
    Fact,
    attribution_report,
    report_channels,
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
    "report_channels",
    "with_rec_id",
]
