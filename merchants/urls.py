from rest_framework.routers import SimpleRouter

from merchants.views import MerchantViewSet

router = SimpleRouter(trailing_slash=False)
router.register("merchant", MerchantViewSet, basename="merchant")

urlpatterns = router.urls
