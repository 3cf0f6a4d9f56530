"""GET /v1/recommend as a pipeline of stages, each a module, each passing the offers on:

    resolve   the shopper's words through the intent engine (matching/engine)
    retrieve  the catalog's products for the resolution, tier by tier (catalog/search.py)
    rank      the two orders of an answer: the cards keep the retrieval's order, the match
              session ranks the same offers by proposal score (matching/ranking.py)
    compose   the cards, the catalog proposals, the rows and the answer with its shopper guide
    record    every row written at once, all or none (kernel/inserts.py)
    announce  Intent.Surge, written with the rows and sent after commit

`pipeline.py` runs them; REST, UCP, A2A and MCP enter through `recommend` (UCP's filters and
paging are `Options`). A stage imports only the stages before it (tests/architecture).
"""
