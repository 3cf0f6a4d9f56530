"""UCP (the Universal Commerce Protocol): the gateway as a UCP business for catalog discovery,
its profile at /.well-known/ucp, its REST binding (agents/ucp/views.py) and its MCP binding
(agents/ucp/tools.py)."""
