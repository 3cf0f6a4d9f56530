"""A2A (the Agent2Agent protocol): the gateway's agent, its card and its server. Where it answers
(gateway/asgi.py routes these prefixes to agents/asgi.py)."""

A2A_JSONRPC_PATH = "/a2a/jsonrpc"  # A2A v1.0 JSON-RPC, and v0.3 JSON-RPC on the same URL
A2A_REST_PATH = "/a2a/rest"  # A2A v1.0 HTTP+JSON: {url}/message:send, {url}/tasks/{id}
# The paths a request to the A2A server begins with.
A2A_PREFIXES = (A2A_JSONRPC_PATH, A2A_REST_PATH + "/")
