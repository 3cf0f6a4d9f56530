from rest_framework.routers import SimpleRouter

from matching.views import (
    IntentMandateViewSet,
    IntentViewSet,
    MatchTokenViewSet,
    MatchViewSet,
    ProposalViewSet,
    RecommendViewSet,
)

router = SimpleRouter(trailing_slash=False)
router.register("recommend", RecommendViewSet, basename="recommend")
router.register("intents", IntentViewSet, basename="intent")
router.register("proposals", ProposalViewSet, basename="proposal")
router.register("match", MatchViewSet, basename="match")
router.register("match-tokens", MatchTokenViewSet, basename="match-token")
router.register("intent-mandates", IntentMandateViewSet, basename="intent-mandate")

urlpatterns = router.urls
