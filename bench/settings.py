"""The gateway's settings as every measured gateway runs them, with one route more: the
reference view of bench/urls.py. Nothing else differs from gateway.settings."""

from gateway.settings import *  # noqa: F403 - the product's settings, whole

ROOT_URLCONF = "bench.urls"
