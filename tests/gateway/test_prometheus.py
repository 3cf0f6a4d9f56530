"""A real Prometheus scrapes the gateway with the repository's configuration: the web role and
the Celery workers (beat embedded) of one host, each in processes of its own, writing to one
metrics directory; a recommend, an intent delivered to a merchant on loopback and a failed
engine call, each read back through Prometheus's HTTP API. The alert rules load there too."""

from contextlib import ExitStack

import pytest
from django.conf import settings

from gateway.celery import app
from merchants.models import MerchantAgent
from tests.support.engine import ScriptedEngine
from tests.support.prometheus import Prometheus, rendered_config
from tests.support.receiver import Receiver
from tests.support.web import WebServer
from tests.support.worker import Worker, purge, wait_until

pytestmark = pytest.mark.django_db(transaction=True)

SHOES = {"keywords": ["trail", "running"], "intent_tags": ["trail"], "categories": []}
# What the web role counts, what the workers count (a forked pool's processes and beat), each
# with the value it must reach.
WEB_SERIES = {
    "sum(gateway_recommends_total)": 1,
    'sum(gateway_engine_calls_total{outcome="server_error"})': 1,
    'sum(gen_ai_client_token_usage_sum{gen_ai_token_type="output"})': 20,
    'sum(django_http_responses_total_by_status_view_method_total{view="recommend-list", '
    'status="503"})': 1,
}
WORKER_SERIES = {
    'sum(gateway_webhook_attempts_total{kind="verification", outcome="succeeded"})': 1,
    'sum(gateway_webhook_deliveries_total{lane="webhooks", outcome="succeeded"})': 1,
    'sum(gateway_webhook_delivery_wait_seconds_count{lane="webhooks"})': 1,
    'sum(gateway_celery_tasks_total{task="merchants.tasks.sweep_deliveries"})': 1,
}


def test_prometheus_reads_every_process_of_the_host(tmp_path, shelf):
    host = {"METRICS_DIR": str(tmp_path / "metrics")}  # this host's processes, and theirs only
    broker = app.conf.broker_url
    purge(broker)
    with ExitStack() as running:
        engine = running.enter_context(ScriptedEngine())
        merchant = running.enter_context(Receiver())
        engine.answer("trail running shoes", normalized_query="trail running shoes", **SHOES)
        engine.fail("words the engine chokes on", "500")
        worker = Worker(tmp_path, broker, env={**host, "WEBHOOK_TIMEOUT_S": "5"}).start()
        running.callback(lambda: print(worker.log()))  # shown when the test failed
        running.callback(worker.stop)
        web_env = {
            **host,
            "INTENT_ENGINE_MODEL": "openai/scripted",
            "INTENT_ENGINE_API_BASE": engine.api_base,
            "INTENT_ENGINE_API_KEY": "sk-test",
            "INTENT_ENGINE_RETRIES": "0",
        }
        web = running.enter_context(WebServer(tmp_path, env=web_env))
        config = rendered_config(
            tmp_path, target=f"127.0.0.1:{web.port}", token=settings.METRICS_TOKEN
        )
        prometheus = running.enter_context(Prometheus(tmp_path, config))
        assert prometheus.wait_for('up{job="gateway"}') == 1

        assert web.get("/v1/recommend?intent=trail+running+shoes").status == 200
        assert web.get("/v1/recommend?intent=words+the+engine+chokes+on").status == 503
        registered = web.post_json(
            "/v1/merchant/register",
            {
                "merchant_id": "runner",
                "agent_endpoint": merchant.url,
                "subscription_tags": ["trail"],
            },
        )
        assert registered.status == 200, registered.body
        wait_until(
            lambda: MerchantAgent.objects.filter(endpoint_verified_at__isnull=False).exists(),
            what="the worker to verify the merchant's endpoint",
        )
        intent = {"raw_query": "trail shoes", "intent_tags": ["trail"]}
        assert web.post_json("/v1/intents", intent).status == 201
        merchant.wait_for(1, timeout=60)

        for expression, least in {**WEB_SERIES, **WORKER_SERIES}.items():
            assert prometheus.wait_for(expression, least) >= least
        # What the web role reads from the database and the cache as it is scraped.
        assert prometheus.query('gateway_webhook_deliveries_pending{lane="webhooks"}') == 0
        assert prometheus.query('gateway_merchants{status="active"}') == 1
        assert prometheus.query("gateway_engine_breaker_open") == 0
        assert prometheus.query("gateway_catalog_products") == 7
        groups = prometheus.api("rules")["groups"]
        assert {group["name"] for group in groups} == {
            "gateway-budgets",
            "gateway-engine",
            "gateway-delivery",
        }
        rules = [rule for group in groups for rule in group["rules"]]
        assert len(rules) == 21
        assert not [rule["name"] for rule in rules if rule["health"] == "err"]
