"""Charts of the supply pages, drawn on the server as SVG geometry (no script, no CDN).

The functions compute coordinates and words only; the template (reporting/chart.html) writes
the SVG elements, so every label passes through the template's escaping. Each chart plots one
measure on its own scale from 0: clicks and conversions are often a hundredth of the cards
issued, and on a shared axis they would hug the baseline.
"""

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.utils.translation import ngettext

WIDTH, HEIGHT = 760, 240
SMALL_HEIGHT = 150  # one of several charts side by side, e.g. the daily activity
LEFT, RIGHT, TOP, BOTTOM = 56, 12, 16, 28


@dataclass(frozen=True)
class Gridline:
    y: float
    label: str


@dataclass(frozen=True)
class Series:
    name: str
    css: str  # class name of the line
    points: str  # "x,y x,y ..." for <polyline>


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    title: str  # shown on hover (<title>)


@dataclass(frozen=True)
class AxisLabel:
    x: float
    text: str
    anchor: str = "middle"  # SVG text-anchor: the first and last labels of a line stay inside


@dataclass(frozen=True)
class Chart:
    key: str  # prefix of the ids its <title> and <desc> carry
    title: str  # what it plots, the SVG's accessible name
    summary: str  # the figures in words, the SVG's accessible description
    axis_name: str  # what the vertical axis counts
    width: int
    height: int
    gridlines: list[Gridline]
    series: list[Series]
    bars: list[Bar]
    x_labels: list[AxisLabel]
    left: int = LEFT
    right: int = WIDTH - RIGHT

    @property
    def baseline(self) -> int:
        return self.height - BOTTOM

    @property
    def middle(self) -> float:
        """Halfway down the plot, where the vertical axis's name is written."""
        return (TOP + self.baseline) / 2


def nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 times a power of ten that is at least `value` (1 for 0)."""
    if value <= 0:
        return 1.0
    power = 1.0
    while power * 10 <= value:
        power *= 10
    while power > value:
        power /= 10
    for step in (1, 2, 2.5, 5, 10):
        if step * power >= value:
            return step * power
    return 10 * power  # not reached


def _label(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:g}M"
    if value >= 1_000:
        return f"{value / 1_000:g}k"
    return f"{value:g}"


def _x_labels(days: list[date], slot: float, centre: bool) -> list[AxisLabel]:
    if not days:
        return []
    picks = sorted({0, len(days) // 2, len(days) - 1})
    offset = slot / 2 if centre else 0
    last = len(days) - 1

    def anchor(index: int) -> str:
        if centre or 0 < index < last or last == 0:
            return "middle"
        return "start" if index == 0 else "end"

    return [
        AxisLabel(round(LEFT + index * slot + offset, 1), f"{days[index]:%b %d}", anchor(index))
        for index in picks
    ]


def _grid(top_value: float, plot_height: float, prefix: str = "") -> list[Gridline]:
    return [
        Gridline(round(TOP + plot_height * (1 - share), 1), prefix + _label(top_value * share))
        for share in (0, 0.5, 1)
    ]


def _counted(value: int, noun: tuple[str, str]) -> str:
    """A count with its noun in the right number (1 click, 1,200 clicks); `noun` is the
    singular and the plural."""
    return f"{value:,} {ngettext(noun[0], noun[1], value)}"


def _span(days: list[date]) -> str:
    return _counted(len(days), ("day", "days"))


def _summary(days: list[date], values: list[int], noun: tuple[str, str]) -> str:
    total = sum(values)
    span = _span(days)
    if not total:
        return f"No {noun[1]} in {span}."
    peak = max(range(len(values)), key=lambda index: values[index])
    return (
        f"{_counted(total, noun)} in {span}; "
        f"the most on {days[peak]:%b %d}: {_counted(values[peak], noun)}."
    )


def line_chart(
    days: list[date],
    values: list[int],
    *,
    key: str,
    title: str,
    noun: tuple[str, str],
    css: str,
    height: int = HEIGHT,
) -> Chart:
    """One measure's daily values as a line, on its own scale from 0. `noun` names what is
    counted, singular and plural ("click", "clicks")."""
    plot_height = height - TOP - BOTTOM
    top_value = nice_ceiling(max(values, default=0))
    step = (WIDTH - LEFT - RIGHT) / max(1, len(days) - 1)
    points = " ".join(
        f"{LEFT + index * step:.1f},{TOP + plot_height * (1 - value / top_value):.1f}"
        for index, value in enumerate(values)
    )
    # Invisible columns, one per day, whose <title> tells that day's figure on hover.
    columns = [
        Bar(
            round(LEFT + index * step - step / 2, 1),
            TOP,
            round(step, 1),
            plot_height,
            f"{day:%a %b %d}: {_counted(values[index], noun)}",
        )
        for index, day in enumerate(days)
    ]
    return Chart(
        key,
        title,
        _summary(days, values, noun),
        noun[1],
        WIDTH,
        height,
        _grid(top_value, plot_height),
        [Series(noun[1].capitalize(), css, points)],
        columns,
        _x_labels(days, step, False),
    )


def bar_chart(
    days: list[date],
    values: list[Decimal],
    *,
    key: str,
    title: str,
    unit: str,
    labels: list[str] | None = None,
    total_label: str | None = None,
) -> Chart:
    """One bar per day from 0, e.g. GMV in US dollars (`unit` "$"). `labels` tell each day's
    value, `total_label` the window's, where the value alone would not (amounts left out of
    the bars); by default the value with its unit."""
    plot_height = HEIGHT - TOP - BOTTOM
    top_value = nice_ceiling(float(max(values, default=0)))
    slot = (WIDTH - LEFT - RIGHT) / max(1, len(days))
    gap = min(2.0, slot * 0.2)
    bars = []
    for index, (day, value) in enumerate(zip(days, values, strict=True)):
        height = plot_height * float(value) / top_value
        bars.append(
            Bar(
                round(LEFT + index * slot + gap / 2, 1),
                round(TOP + plot_height - height, 1),
                round(max(0.5, slot - gap), 1),
                round(height, 1),
                f"{day:%a %b %d}: {labels[index] if labels else f'{unit}{value:,.2f}'}",
            )
        )
    total = total_label or f"{unit}{sum(values, Decimal(0)):,.2f}"
    return Chart(
        key,
        title,
        f"{total} in {_span(days)}.",
        unit,
        WIDTH,
        HEIGHT,
        _grid(top_value, plot_height, unit),
        [],
        bars,
        _x_labels(days, slot, True),
    )
