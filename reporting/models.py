"""Attribution facts: clicks on the buy links that cards hand to shoppers."""

from django.db import models

from catalog.models import Recommendation


class Click(models.Model):
    """One follow of a card's buy link (`/r/{rec_id}`)."""

    recommendation = models.ForeignKey(
        Recommendation, on_delete=models.PROTECT, related_name="clicks"
    )
    clicked_at = models.DateTimeField(auto_now_add=True, db_index=True)
    user_agent = models.CharField(max_length=300, blank=True, default="")
    referrer = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        ordering = ["-clicked_at"]

    def __str__(self) -> str:
        return f"{self.recommendation_id} at {self.clicked_at:%Y-%m-%d %H:%M:%S}"
