"""Buy links: /r/{rec_id} leads to the shop with the rec_id, and records a Click that means
something: one per card and client address within CLICK_WINDOW_S, none for a HEAD (link
previews, prefetchers) or a known crawler's user agent. Every follow is redirected all the same;
the throttle of the `buy_link` scope bounds how fast one client may follow links at all.

The user agent is the client's own choice of words: it only tells crawlers apart, and never
makes one address several clients (40 user agents from one address are one click)."""

import hashlib
import hmac
import re
from datetime import timedelta
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from django.conf import settings
from django.utils import timezone

from catalog.models import Recommendation
from kernel.clients import client_network
from kernel.errors import (
    CARD_NOT_FOUND,
)
from kernel.ids import REC, find_minted
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


# User agents of crawlers, link unfurlers and previewers: they follow links no shopper clicked.
CRAWLER = re.compile(
    r"bot\b|bot/|crawl|spider|slurp|facebookexternalhit|facebookcatalog|embedly|preview|"
    r"whatsapp|skypeuripreview|headlesschrome|lighthouse|pingdom|uptime|monitor",
    re.IGNORECASE,
)


def client_key(address: str) -> str:
    """A client as the click count knows it: a keyed hash of its address's network
    (`client_network`), never the address itself."""
    message = client_network(address).encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()[:32]


def is_crawler(user_agent: str) -> bool:
    return bool(CRAWLER.search(user_agent))


def buy_link_follow(
    *, rec_id: str, user_agent: str, referrer: str, client_address: str, count_click: bool
) -> str:
    """The shop URL that the buy link of `rec_id` leads to. Records a Click when `count_click`
    (a GET), unless the user agent is a crawler's or this client address (an IPv6 /64 as one)
    clicked this card within CLICK_WINDOW_S, whatever user agent it gave."""
    shop_urls = Recommendation.objects.values_list("product__url", flat=True)
    missing = CARD_NOT_FOUND()
    shop_url = find_minted(shop_urls, REC, rec_id, missing)
    if count_click and not is_crawler(user_agent):
        key = client_key(client_address)
        since = timezone.now() - timedelta(seconds=settings.CLICK_WINDOW_S)
        seen = Click.objects.filter(
            recommendation_id=rec_id, client_key=key, clicked_at__gte=since
        ).exists()
        if not seen:
            # Headers are the visitor's bytes: PostgreSQL text holds no NUL.
            Click.objects.create(
                recommendation_id=rec_id,
                user_agent=user_agent.replace("\x00", "\ufffd")[:300],
                referrer=referrer.replace("\x00", "\ufffd")[:500],
                client_key=key,
            )
    return with_rec_id(shop_url, rec_id)
