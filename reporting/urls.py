from django.urls import path
from rest_framework.routers import SimpleRouter

from reporting import pages
from reporting.views import AttributionReportViewSet, BuyLinkViewSet, ConversionViewSet

router = SimpleRouter(trailing_slash=False)
router.register("r", BuyLinkViewSet, basename="buy-link")
router.register("v1/attribution/conversions", ConversionViewSet, basename="conversion")
router.register("v1/report/attribution", AttributionReportViewSet, basename="attribution-report")

urlpatterns = [
    *router.urls,
    path("reports/", pages.attribution_page, name="reports-attribution"),
    path("reports/attribution.csv", pages.attribution_csv, name="reports-attribution-csv"),
]
