"""Reading the gateway's metrics back in tests: a scrape of `GET /metrics` and the value of one
series in it (prometheus_client's own parser of the text format)."""

from typing import Any

from django.conf import settings
from prometheus_client.parser import text_string_to_metric_families


def auth() -> dict[str, str]:
    """The Authorization header of a scrape, for Django's test client."""
    return {"HTTP_AUTHORIZATION": f"Bearer {settings.METRICS_TOKEN}"}


def scrape(client: Any) -> str:
    response = client.get("/metrics", **auth())
    assert response.status_code == 200, response.content
    return str(response.content.decode())


def value(text: str, name: str, **labels: str) -> float:
    """The sum of the samples named `name` (a sample's name: `x_total`, `x_count`, `x_bucket`)
    whose labels include `labels`; 0 when there are none."""
    total = 0.0
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                total += sample.value
    return total


class Scrapes:
    """Scrapes before and after what a test does: how much each series moved."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.before = scrape(client)

    def moved(self, name: str, **labels: str) -> float:
        return value(scrape(self.client), name, **labels) - value(self.before, name, **labels)
