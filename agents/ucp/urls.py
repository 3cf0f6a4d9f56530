"""UCP's routes: the business profiles (the current release's and each earlier one's), and the
catalog's REST binding."""

from django.urls import path

from agents.ucp.profile import PROFILE_PATHS
from agents.ucp.views import (
    CatalogLookupView,
    CatalogProductView,
    CatalogSearchView,
    UcpEarlierProfileView,
    UcpProfileView,
)

CREATE = {"post": "create"}

urlpatterns = [
    path(".well-known/ucp", UcpProfileView.as_view(), name="ucp-profile"),
    path(
        PROFILE_PATHS[UcpEarlierProfileView.release].removeprefix("/"),
        UcpEarlierProfileView.as_view(),
        name="ucp-profile-earlier",
    ),
    path("ucp/catalog/search", CatalogSearchView.as_view(CREATE), name="ucp-catalog-search"),
    path("ucp/catalog/lookup", CatalogLookupView.as_view(CREATE), name="ucp-catalog-lookup"),
    path("ucp/catalog/product", CatalogProductView.as_view(CREATE), name="ucp-catalog-product"),
]
