"""A match session as staff read it: its ranking (why each proposal placed where it did) and
its summary (what was considered, left out and weighed), as tables rather than JSON."""

from typing import Any

from django.contrib.admin.utils import quote
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from kernel.admin_display import grouped
from matching import ranking
from matching.models import MatchSession
from merchants.models import MerchantAgent

# Who offered a proposal of the gateway's own catalog (provenance "catalog"): no merchant.
CATALOG = "Catalog (gateway)"


def link(model: str, pk: Any, text: Any) -> SafeString:
    """A link to the admin page of the `model` ("app_model") record `pk`."""
    return format_html(
        '<a href="{}">{}</a>', reverse(f"admin:{model}_change", args=[quote(pk)]), text
    )


def ranking_table(session: MatchSession) -> SafeString:
    """The session's ranking as staff read it, best first: each proposal with its merchant and
    product, the score, the components that made it (each with its weight) and the reasons, in
    a table that fits the page (the reasons wrap in the widest column)."""
    merchants = dict(
        MerchantAgent.objects.filter(
            merchant_id__in={item.get("merchant_agent_id") for item in session.ranked_proposals}
        ).values_list("merchant_id", "pk")
    )
    rows = []
    for item in session.ranked_proposals:
        merchant = item.get("merchant_agent_id") or "catalog"
        product = item.get("product_id")
        components = item.get("components") or {}
        who = format_html(
            "{}<small>{} &middot; product {}</small>",
            link("matching_proposal", item["proposal_id"], item["proposal_id"]),
            link("merchants_merchantagent", merchants[merchant], merchant)
            if merchant in merchants
            else (CATALOG if merchant == "catalog" else merchant),
            link("catalog_product", product, product) if product is not None else "-",
        )
        parts = format_html_join(
            "",
            '<span title="weight {}">{} {}</span>',
            (
                (weight, name, _component(components.get(name)))
                for name, weight in ranking.WEIGHTS.items()
            ),
        )
        reasons = format_html_join(
            "", '<div class="reason">{}</div>', ((r,) for r in item.get("reasons") or [])
        )
        rows.append(
            format_html(
                '<tr><td>{}</td><td>{}</td><td><b>{}</b></td><td class="parts">{}</td>'
                "<td>{}</td></tr>",
                item.get("rank"),
                who,
                f"{item.get('score', 0):.3f}",
                parts,
                reasons,
            )
        )
    return format_html(
        '<table class="ranking"><colgroup><col class="rank"><col class="who"><col class="score">'
        '<col class="parts"><col class="reasons"></colgroup><thead><tr><th>#</th>'
        "<th>proposal</th><th>score</th><th>components</th><th>reasons</th></tr></thead>"
        "<tbody>{}</tbody></table>",
        format_html_join("", "{}", ((row,) for row in rows)),
    )


def _component(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, int | float) else "-"


def summary_table(session: MatchSession) -> SafeString:
    """The session's summary (matching/services/sessions.py session_ranking) as a table of
    labelled rows: the counts, the proposals left out and why, the weights, the tie-break and
    what the intent asked. Keys it does not know are shown too, as they were stored."""
    summary = dict(session.summary or {})
    rows: list[tuple[str, Any]] = []
    if {"considered", "ranked", "returned"} <= summary.keys():
        rows.append(
            (
                "proposals",
                f"{grouped(summary.pop('considered'))} considered, "
                f"{grouped(summary.pop('ranked'))} live and ranked, "
                f"{grouped(summary.pop('returned'))} returned"
                + (f" (limit {grouped(summary.pop('limit'))})" if "limit" in summary else ""),
            )
        )
    excluded = summary.pop("excluded", None)
    if excluded is not None:
        rows.append(("left out", _excluded(excluded)))
    weights = summary.pop("weights", None)
    if isinstance(weights, dict):
        rows.append(
            (
                "weights",
                format_html_join(", ", "{} {}", _in_ranking_order(weights)),
            )
        )
    for key, label in (("tie_break", "ties broken by"), ("intent_tags", "intent tags")):
        if key in summary:
            rows.append((label, _plain(summary.pop(key))))
    if "budget_range" in summary:
        rows.append(("budget", _budget(summary.pop("budget_range"))))
    rows += [(key.replace("_", " "), _plain(value)) for key, value in summary.items()]
    if not rows:
        return format_html("{}", "-")
    return format_html(
        '<table class="summary"><tbody>{}</tbody></table>',
        format_html_join("", "<tr><th>{}</th><td>{}</td></tr>", rows),
    )


def _in_ranking_order(weights: dict[str, Any]) -> list[tuple[str, Any]]:
    """The weights in the order the ranking states them (PostgreSQL's jsonb keeps its own
    order of keys), any it does not know after."""
    known = [name for name in ranking.WEIGHTS if name in weights]
    return [(name, weights[name]) for name in [*known, *sorted(set(weights) - set(known))]]


def _excluded(excluded: Any) -> SafeString | str:
    if not isinstance(excluded, list) or not excluded:
        return "none"
    return format_html_join(
        ", ",
        "{} ({})",
        (
            (
                link("matching_proposal", item["proposal_id"], item["proposal_id"])
                if isinstance(item, dict) and "proposal_id" in item
                else _plain(item),
                item.get("reason", "-") if isinstance(item, dict) else "-",
            )
            for item in excluded
        ),
    )


def _budget(budget: Any) -> str:
    if not isinstance(budget, dict) or not budget:
        return "none given"
    low, high, currency = budget.get("min"), budget.get("max"), budget.get("currency") or ""
    if low is not None and high is not None:
        return f"{low} to {high} {currency}".strip()
    if high is not None:
        return f"up to {high} {currency}".strip()
    if low is not None:
        return f"from {low} {currency}".strip()
    return _plain(budget)


def _plain(value: Any) -> str:
    """A stored value in words: lists as commas, nothing as "none"."""
    if value in (None, "", [], {}):
        return "none"
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    if isinstance(value, dict):
        return ", ".join(f"{key} {item}" for key, item in value.items())
    return str(value)
