"""A2A's routes on the REST side: the live agent card (its server is mounted by agents/asgi.py)."""

from django.urls import path

from agents.a2a.card import AgentCardView, LegacyAgentCardView

urlpatterns = [
    path(".well-known/agent-card.json", AgentCardView.as_view(), name="agent-card"),
    path(".well-known/agent.json", LegacyAgentCardView.as_view(), name="agent-card-legacy"),
]
