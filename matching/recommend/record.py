"""Record: every row of a recommend written at once, all or none (kernel/inserts.py: one
statement on PostgreSQL), after everything was composed."""

from catalog.services import cards_rows
from kernel.inserts import insert_together
from matching.models import Intent, MatchSession, Proposal
from matching.recommend.offer import Offer
from matching.services import intent_tag_rows
from merchants.models import WebhookEvent


def record(
    intent: Intent,
    offers: list[Offer],
    proposals: list[Proposal],
    session: MatchSession,
    event: WebhookEvent | None,
) -> None:
    """Write the intent (and its tags), the cards, the proposals, the session and the event."""
    insert_together(
        [intent],
        intent_tag_rows(intent),
        cards_rows(
            products=[offer.product for offer in offers],
            cards=[offer.card for offer in offers],
            region=intent.region,
            intent_id=intent.intent_id,
        ),
        proposals,
        [session],
        [event] if event is not None else [],
    )
