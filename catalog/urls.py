from rest_framework.routers import SimpleRouter

from catalog.views import CardViewSet, CreatorViewSet, ProductViewSet

router = SimpleRouter(trailing_slash=False)
router.register("cards", CardViewSet, basename="card")
router.register("products", ProductViewSet, basename="product")
router.register("creators", CreatorViewSet, basename="creator")

urlpatterns = router.urls
