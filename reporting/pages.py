"""Supply-team pages: the attribution report as HTML with charts, and as CSV.

Staff only, with the permission `reporting.view_attribution_report` (reporting/access.py). The
figures come from the same use case as GET /v1/report/attribution.
"""

import csv
import unicodedata
from collections.abc import Iterable
from datetime import date
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from reporting import charts, services
from reporting.access import reports_access
from reporting.serializers import CsvQuerySerializer, ReportQuerySerializer
from reporting.templatetags.report_format import gmv as gmv_text

PAGE_TOP = 10
WINDOW_CHOICES = (7, 30, 90, 365)
FIGURE_COLUMNS = (
    "recommendations",
    "clicks",
    "unique_clicks",
    "click_through_rate",
    "match_sessions",
    "accepted_matches",
    "conversions",
    "flagged_conversions",
    "gmv_usd",
    "conversion_rate",
    "gmv_usd_total",
)


def _query(
    serializer_class: type[ReportQuerySerializer], request: HttpRequest
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The page's filters, or the defaults and the errors to show beside the form. A filter
    given twice is an error, as on the API: which one was meant is anyone's guess."""
    serializer = serializer_class(data=request.GET)
    repeated = {
        key: ["Given more than once."] for key, values in request.GET.lists() if len(values) > 1
    }
    if not repeated and serializer.is_valid():
        return dict(serializer.validated_data), {}
    errors = repeated or {
        name: [str(message) for message in messages] for name, messages in serializer.errors.items()
    }
    defaults = serializer_class(data={})
    defaults.is_valid(raise_exception=True)
    return dict(defaults.validated_data), errors


def _activity(days: list[date], daily: list[services.Figures]) -> list[charts.Chart]:
    """Cards, clicks and conversions per day, each on its own chart and scale."""
    return [
        charts.line_chart(
            days,
            [getattr(figures, measure) for figures in daily],
            key=f"{measure}-chart",
            title=title,
            noun=noun,
            css=css,
            height=charts.SMALL_HEIGHT,
        )
        for measure, title, noun, css in (
            ("recommendations", "Cards issued per day", ("card", "cards"), "cards"),
            ("clicks", "Buy-link clicks per day", ("click", "clicks"), "clicks"),
            ("conversions", "Conversions per day", ("conversion", "conversions"), "conversions"),
        )
    ]


@require_GET
@reports_access
def attribution_page(request: HttpRequest) -> HttpResponse:
    query, errors = _query(ReportQuerySerializer, request)
    report = services.attribution_report(
        days=query["days"], channel=query["channel"], product_id=query["product_id"], top=PAGE_TOP
    )
    days = [day for day, _ in report.by_day]
    daily = [figures for _, figures in report.by_day]
    gmv = charts.bar_chart(
        days,
        [figures.gmv_usd_total for figures in daily],
        key="gmv-chart",
        title="GMV per day in US dollars",
        unit="$",
        labels=[gmv_text(figures) for figures in daily],  # with the currencies left out
        total_label=gmv_text(report.totals),
    )
    # The choice in effect stays listed, even without facts in this window.
    channels = services.report_channels(days=query["days"])
    if query["channel"] and query["channel"] not in channels:
        channels = sorted([*channels, query["channel"]])
    # The filters in effect (the defaults where the page refused one), never the refused ones.
    export = {name: query[name] for name in ("days", "channel", "product_id") if query[name]}
    return render(
        request,
        "reporting/attribution.html",
        {
            "report": report,
            "query": query,
            "errors": errors,
            "window_choices": sorted({*WINDOW_CHOICES, query["days"]}),
            "channel_choices": channels,
            "activity": _activity(days, daily),
            "gmv": gmv,
            "export_query": urlencode(export),
            "api_closed": not settings.SUPPLY_API_KEYS,
        },
        status=400 if errors else 200,
    )


# What makes a spreadsheet read a cell as a formula, once it has dropped invisible format
# characters (Unicode Cf: zero-width space, word joiner, byte order mark, bidi marks) and
# leading blanks, and read fullwidth forms (U+FF1D and its kin) as their ASCII selves.
FORMULA_STARTS = ("=", "+", "-", "@", "|", "%")


def _cell(value: Any) -> Any:
    """A CSV cell that a spreadsheet will not run as a formula (titles are merchant data)."""
    if value is None:
        return ""
    if isinstance(value, str):
        visible = "".join(ch for ch in value if unicodedata.category(ch) != "Cf")
        seen = unicodedata.normalize("NFKC", visible).lstrip()
        if visible[:1] in ("\t", "\r", "\n") or seen.startswith(FORMULA_STARTS):
            return "'" + value
    return value


def _rows(report: services.AttributionReport, breakdown: str) -> Iterable[list[Any]]:
    head: tuple[str, ...]
    if breakdown == "day":
        head = ("date",)
        keyed: Iterable[tuple[tuple[Any, ...], services.Figures]] = (
            ((day.isoformat(),), figures) for day, figures in report.by_day
        )
    elif breakdown == "channel":
        head = ("channel",)
        keyed = (((channel,), figures) for channel, figures in report.by_channel)
    elif breakdown == "product":
        head = ("product_id", "title", "creator")
        keyed = (
            ((row.product_id, row.title, row.creator), row.figures) for row in report.by_product
        )
    else:
        head = ("username", "display_name", "products")
        keyed = (
            ((row.username, row.display_name, row.products), row.figures)
            for row in report.by_creator
        )
    # Then the currencies without a rate, and one column per other currency of the window.
    others = [code for code in report.totals.gmv_by_currency if code != services.GMV_CURRENCY]
    yield [
        *head,
        *FIGURE_COLUMNS,
        "currencies_without_rate",
        *(f"gmv_{code.lower()}" for code in others),
    ]
    for key, figures in keyed:
        values = figures.as_dict()
        yield [
            _cell(value)
            for value in (
                *key,
                *(values[name] for name in FIGURE_COLUMNS),
                " ".join(figures.gmv_unconverted),
                *(figures.gmv_by_currency.get(code, services.ZERO) for code in others),
            )
        ]


@require_GET
@reports_access
def attribution_csv(request: HttpRequest) -> HttpResponse:
    query, errors = _query(CsvQuerySerializer, request)
    if errors:
        lines = "".join(f"{name}: {' '.join(messages)}\n" for name, messages in errors.items())
        return HttpResponse(
            "Invalid filters.\n" + lines, status=400, content_type="text/plain; charset=utf-8"
        )
    report = services.attribution_report(
        days=query["days"], channel=query["channel"], product_id=query["product_id"], top=None
    )
    filename = f"attribution-{query['breakdown']}-{query['days']}d-{_today():%Y%m%d}.csv"
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    csv.writer(response).writerows(_rows(report, query["breakdown"]))
    return response


def _today() -> date:
    return timezone.now().date()
