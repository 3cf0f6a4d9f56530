"""What fetching a UCP platform's profile may cost the gateway (agents/ucp/platforms.py): each
fetch ends at its deadline, its connection shut down however slowly the platform drips its head
or body, so platforms that drip never keep others out; a refusal that says nothing of the URL
(every fetch under way, its destination's minute spent) is not remembered under it; fetches have
a bound a destination of their own and spend nothing of what merchants' deliveries may send. The
profiles are served on loopback by real servers, which the gateway fetches."""

import threading
import time

import pytest

from agents.ucp import platforms as ucp_platforms
from kernel.errors import ApiError
from merchants.delivery.hosts import host_allows
from merchants.endpoints import endpoint_target
from tests.agents.test_ucp_releases import answered, stated
from tests.support.dripping import Dripping
from tests.support.minutes import a_whole_minute_ahead
from tests.support.worker import wait_until

pytestmark = pytest.mark.django_db

LOOKUP = "/ucp/catalog/lookup"
ONE_ID = {"ids": ["2001"]}


def fetch_all(urls: list[str]) -> list[str]:
    """Ask for each URL's release at once, each on a thread of its own; the error code of each
    that failed, or its release."""
    outcomes: list[str] = []

    def learn(url: str) -> None:
        try:
            outcomes.append(ucp_platforms.release_of(url))
        except ApiError as error:
            outcomes.append(error.code)

    threads = [threading.Thread(target=learn, args=(url,)) for url in urls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


@pytest.mark.parametrize("part", ["head", "body"])
def test_a_dripped_profile_is_given_up_at_the_deadline_and_its_connection_shut(
    client, shelf, loopback, monkeypatch, part
):
    monkeypatch.setattr(ucp_platforms, "FETCH_TIMEOUT_S", 1.0)
    with Dripping(part) as platform:
        started = time.monotonic()
        refused = answered(client, LOOKUP, ONE_ID, platform.url(path="/slow.json"), 424)
        took = time.monotonic() - started
        wait_until(lambda: platform.open == 0, timeout=3, what="the fetch's connection shut")

    assert refused["messages"][0]["code"] == "profile_unreachable"
    assert "within 1 s" in refused["messages"][0]["content"]
    assert took < 2


def test_24_dripping_profiles_leave_six_new_platforms_answered_within_5_s(client, shelf, platforms):
    with Dripping("head") as dripping:
        started = time.monotonic()
        dripped = fetch_all([dripping.url(path=f"/p{n}.json") for n in range(24)])
        urls = [platforms.platform("2026-08-25") for _ in range(6)]
        answers = [answered(client, LOOKUP, ONE_ID, url) for url in urls]
        took = time.monotonic() - started
        wait_until(lambda: dripping.open == 0, timeout=3, what="every dripping fetch shut")

    # The fetches a process may make at once took the first 8; the other 16 were refused at
    # once. The 8 ended at their deadline, and their places went to the new platforms.
    assert dripped == ["profile_unreachable"] * 24
    assert dripping.served == ucp_platforms.FETCHES_IN_FLIGHT
    for answer in answers:
        stated(answer, "2026-08-25")
    assert took < 5


def test_a_refusal_while_every_fetch_is_under_way_is_not_remembered_for_the_url(
    client, shelf, platforms, monkeypatch
):
    monkeypatch.setattr(ucp_platforms, "_slots", threading.BoundedSemaphore(1))
    ucp_platforms._slots.acquire()  # the one fetch this process may make is under way
    url = platforms.platform("2026-08-25")

    refused = answered(client, LOOKUP, ONE_ID, url, 424)
    ucp_platforms._slots.release()
    later = answered(client, LOOKUP, ONE_ID, url)

    assert refused["messages"][0]["code"] == "profile_unreachable"
    assert "as many platform profiles as it may" in refused["messages"][0]["content"]
    stated(later, "2026-08-25")  # asked again, fetched: the refusal said nothing of the URL
    assert platforms.fetches(url) == 1


def test_profile_fetches_have_a_destination_bound_of_their_own(
    client, shelf, platforms, settings, monkeypatch
):
    settings.WEBHOOK_HOST_PER_MINUTE = 2  # what merchants' deliveries may send the host
    monkeypatch.setattr(ucp_platforms, "FETCHES_PER_DESTINATION_PER_MINUTE", 4)
    a_whole_minute_ahead()  # the bounds count by the clock's minute: all in one of them
    urls = [platforms.platform("2026-08-25") for _ in range(5)]  # one destination

    statuses = [
        answered(client, LOOKUP, ONE_ID, url, 200 if n < 4 else 424) for n, url in enumerate(urls)
    ]
    refused = statuses[-1]["messages"][0]["content"]

    assert [platforms.fetches(url) for url in urls] == [1, 1, 1, 1, 0]
    assert "asked as often as it may be this minute" in refused
    # Four profiles fetched from the host spent nothing of what deliveries may send it.
    target = endpoint_target(urls[0])
    assert [host_allows(target) for _ in range(3)] == [True, True, False]
