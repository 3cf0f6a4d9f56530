from rest_framework.routers import SimpleRouter

from reporting.views import BuyLinkViewSet

router = SimpleRouter(trailing_slash=False)
router.register("r", BuyLinkViewSet, basename="buy-link")

urlpatterns = router.urls
