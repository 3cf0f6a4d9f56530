"""Attribution use cases: record a click on a card's buy link."""

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from catalog.models import Recommendation
from gateway.api import not_found
from reporting.models import Click


def with_rec_id(url: str, rec_id: str) -> str:
    """The shop URL with `rec_id` as a query parameter (replacing any rec_id it had)."""
    parts = urlsplit(url)
    query = [
        (key, value)
        for key, value in parse_qsl(parts.query, keep_blank_values=True)
        if key != "rec_id"
    ]
    query.append(("rec_id", rec_id))
    return urlunsplit(parts._replace(query=urlencode(query)))


def click_record(*, rec_id: str, user_agent: str, referrer: str) -> str:
    """Record one follow of the buy link of `rec_id`; return the shop URL to redirect to."""
    shop_url = (
        Recommendation.objects.filter(rec_id=rec_id).values_list("product__url", flat=True).first()
    )
    if shop_url is None:
        raise not_found("not found", "No card was issued under that rec_id.")
    Click.objects.create(
        recommendation_id=rec_id, user_agent=user_agent[:300], referrer=referrer[:500]
    )
    return with_rec_id(shop_url, rec_id)
