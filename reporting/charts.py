"""Charts of the supply pages, drawn on the server as SVG geometry (no script, no CDN).

The functions compute coordinates only; the template writes the SVG elements, so every label
passes through the template's escaping.
"""

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

WIDTH, HEIGHT = 760, 240
LEFT, RIGHT, TOP, BOTTOM = 56, 12, 16, 28
PLOT_WIDTH, PLOT_HEIGHT = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM


@dataclass(frozen=True)
class Gridline:
    y: float
    label: str


@dataclass(frozen=True)
class Series:
    name: str
    css: str  # class name of the line and of its legend swatch
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
    width: int
    height: int
    gridlines: list[Gridline]
    series: list[Series]
    bars: list[Bar]
    x_labels: list[AxisLabel]
    left: int = LEFT
    right: int = WIDTH - RIGHT
    baseline: int = TOP + PLOT_HEIGHT


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


def _grid(top_value: float, prefix: str = "") -> list[Gridline]:
    return [
        Gridline(round(TOP + PLOT_HEIGHT * (1 - share), 1), prefix + _label(top_value * share))
        for share in (0, 0.5, 1)
    ]


def line_chart(days: list[date], series: list[tuple[str, str, list[int]]]) -> Chart:
    """One polyline per (name, css class, daily values), on a shared scale from 0."""
    top_value = nice_ceiling(max((max(values, default=0) for _, _, values in series), default=0))
    step = PLOT_WIDTH / max(1, len(days) - 1)

    def point(index: int, value: int) -> str:
        return f"{LEFT + index * step:.1f},{TOP + PLOT_HEIGHT * (1 - value / top_value):.1f}"

    drawn = [
        Series(name, css, " ".join(point(index, value) for index, value in enumerate(values)))
        for name, css, values in series
    ]
    # Invisible columns, one per day, whose <title> tells that day's figures on hover.
    columns = [
        Bar(
            round(LEFT + index * step - step / 2, 1),
            TOP,
            round(step, 1),
            PLOT_HEIGHT,
            f"{day:%a %b %d}: "
            + ", ".join(f"{values[index]:,} {name.lower()}" for name, _, values in series),
        )
        for index, day in enumerate(days)
    ]
    return Chart(WIDTH, HEIGHT, _grid(top_value), drawn, columns, _x_labels(days, step, False))


def bar_chart(days: list[date], values: list[Decimal], *, unit: str) -> Chart:
    """One bar per day from 0, e.g. GMV in USD."""
    top_value = nice_ceiling(float(max(values, default=0)))
    slot = PLOT_WIDTH / max(1, len(days))
    gap = min(2.0, slot * 0.2)
    bars = []
    for index, (day, value) in enumerate(zip(days, values, strict=True)):
        height = PLOT_HEIGHT * float(value) / top_value
        bars.append(
            Bar(
                round(LEFT + index * slot + gap / 2, 1),
                round(TOP + PLOT_HEIGHT - height, 1),
                round(max(0.5, slot - gap), 1),
                round(height, 1),
                f"{day:%a %b %d}: {unit}{value:,.2f}",
            )
        )
    return Chart(WIDTH, HEIGHT, _grid(top_value, unit), [], bars, _x_labels(days, slot, True))
