"""UCP's routes: the business profile, and the catalog's REST binding."""

from django.urls import path

from agents.ucp.views import (
    CatalogLookupView,
    CatalogProductView,
    CatalogSearchView,
    UcpProfileView,
)

CREATE = {"post": "create"}

urlpatterns = [
    path(".well-known/ucp", UcpProfileView.as_view(), name="ucp-profile"),
    path("ucp/catalog/search", CatalogSearchView.as_view(CREATE), name="ucp-catalog-search"),
    path("ucp/catalog/lookup", CatalogLookupView.as_view(CREATE), name="ucp-catalog-lookup"),
    path("ucp/catalog/product", CatalogProductView.as_view(CREATE), name="ucp-catalog-product"),
]
