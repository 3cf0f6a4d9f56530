from rest_framework.routers import SimpleRouter

from merchants.delivery_views import DeliveryViewSet
from merchants.views import MerchantViewSet

router = SimpleRouter(trailing_slash=False)
router.register("merchant", MerchantViewSet, basename="merchant")
router.register(
    r"merchant/(?P<merchantId>[^/]+)/deliveries", DeliveryViewSet, basename="merchant-delivery"
)

urlpatterns = router.urls
