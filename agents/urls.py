"""The protocols' routes on the REST side, each protocol's from its package."""

from django.urls import include, path

urlpatterns = [
    path("", include("agents.a2a.urls")),
    path("", include("agents.ucp.urls")),
]
