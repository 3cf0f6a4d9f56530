"""WSGI entry point (`gunicorn gateway.wsgi`): the synchronous way to serve the gateway, kept for
the serving comparison of docs/serving.md. The `web` role serves gateway.asgi."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gateway.settings")

application = get_wsgi_application()
