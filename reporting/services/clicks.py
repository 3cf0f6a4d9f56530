"""Buy links: /r/{rec_id} leads to the shop with the rec_id, and records a Click."""

from urllib.parse import unquote_plus, urlsplit, urlunsplit

from catalog.models import Recommendation
from gateway.errors import (
    CARD_NOT_FOUND,
)
from gateway.ids import REC, find_minted
from reporting.models import Click


def with_rec_id(url: str, rec_id: str) -> str:
    """The shop URL with `rec_id` as a query parameter, replacing any rec_id it had.

    The rest of the query is kept byte for byte: merchants' signed or affiliate parameters must
    reach the shop exactly as they were stored.
    """
    parts = urlsplit(url)
    kept = [
        pair
        for pair in parts.query.split("&")
        if pair and unquote_plus(pair.partition("=")[0]) != "rec_id"
    ]
    return urlunsplit(parts._replace(query="&".join([*kept, f"rec_id={rec_id}"])))


def buy_link_follow(*, rec_id: str, user_agent: str, referrer: str, count_click: bool) -> str:
    """The shop URL that the buy link of `rec_id` leads to; records a Click when `count_click`."""
    shop_urls = Recommendation.objects.values_list("product__url", flat=True)
    missing = CARD_NOT_FOUND()
    shop_url = find_minted(shop_urls, REC, rec_id, missing)
    if count_click:
        # Headers are the visitor's bytes: PostgreSQL text holds no NUL.
        Click.objects.create(
            recommendation_id=rec_id,
            user_agent=user_agent.replace("\x00", "\ufffd")[:300],
            referrer=referrer.replace("\x00", "\ufffd")[:500],
        )
    return with_rec_id(shop_url, rec_id)
