"""A flood of health probes of merchants that never answer, through the Procfile's `web` role:
the gateway never pings more merchants at once than its probe pool allows, and the waiting
callers hold none of the threads that serve everything else."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.protocol import prove_ownership
from tests.support.receiver import Receiver
from tests.support.web import WebServer
from tests.support.worker import wait_until

pytestmark = pytest.mark.django_db(transaction=True)

PROBES_AT_ONCE = 3


def test_a_flood_of_probes_of_hanging_merchants_is_bounded_and_holds_no_thread(tmp_path):
    env = {
        "WEB_THREADS": "2",
        "MERCHANT_PROBE_CONCURRENCY": str(PROBES_AT_ONCE),
        "WEBHOOK_TIMEOUT_S": "5",
    }
    with Receiver() as hanging, WebServer(tmp_path, env=env) as web:
        hanging.default = "hang:30"
        ids = [f"hanging-{n}" for n in range(12)]
        for merchant_id in ids:
            registered = web.post_json(
                "/v1/merchant/register",
                {"merchant_id": merchant_id, "agent_endpoint": f"{hanging.url}?m={merchant_id}"},
            )
            assert registered.status == 200, registered.body
            prove_ownership(merchant_id)  # probes go to proven endpoints only
        with ThreadPoolExecutor(len(ids)) as pool:
            asked = [pool.submit(web.get, f"/v1/merchant/{mid}/health", 30) for mid in ids]
            wait_until(lambda: hanging.held == PROBES_AT_ONCE, what="the probe pool to fill")

            # Twelve callers wait on hanging merchants; two threads still serve the rest.
            liveness = web.get("/healthz")
            lookup = web.get("/v1/merchant/hanging-0")

            assert (liveness.status, lookup.status) == (200, 200)
            assert not any(answer.done() for answer in asked)
            hanging.release.set()  # the merchants hang up without answering
            answers = [answer.result() for answer in asked]

    assert hanging.most_held == PROBES_AT_ONCE  # never more pings at once than the pool
    assert {answer.status for answer in answers} == {503}
    assert {answer.json()["error"] for answer in answers} == {"merchant_unhealthy"}
