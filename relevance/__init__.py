"""`make relevance`: the gateway's recommendations judged on a real catalog (docs/relevance.md)."""
