"""Every route of the gateway: the API under /v1, discovery documents, operations, admin."""

from django.contrib import admin
from django.urls import include, path

from gateway.documents import ProtocolDocumentView, guide
from gateway.health import LivenessView, ReadinessView
from gateway.landing import favicon, landing
from gateway.metrics import metrics_view
from kernel.schema import SchemaView, SwaggerView
from kernel.wellknown import JwksView

urlpatterns = [
    path("v1/", include("catalog.urls")),
    path("v1/", include("merchants.urls")),
    path("v1/", include("matching.urls")),
    path("", include("reporting.urls")),
    path("", include("agents.urls")),
    path("openapi.json", SchemaView.as_view(), name="openapi"),
    path(
        "docs/INTENT_MATCHING_PROTOCOL.md",
        ProtocolDocumentView.as_view(),
        name="protocol-document",
    ),
    path("docs/<str:name>", guide, name="guide"),
    path("docs/", SwaggerView.as_view(), name="swagger-ui"),
    path(".well-known/jwks.json", JwksView.as_view(), name="jwks"),
    path("healthz", LivenessView.as_view(), name="healthz"),
    path("readyz", ReadinessView.as_view(), name="readyz"),
    path("metrics", metrics_view, name="metrics"),
    path("admin/", admin.site.urls),
    path("favicon.ico", favicon, name="favicon"),
    path("", landing, name="landing"),
]

handler400 = "kernel.handlers.handler400"
handler403 = "kernel.handlers.handler403"
handler404 = "kernel.handlers.handler404"
handler500 = "kernel.handlers.handler500"
