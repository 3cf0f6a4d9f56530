"""MCP (the Model Context Protocol): the gateway's operations as tools. Where it answers
(gateway/asgi.py routes this path to agents/asgi.py)."""

MCP_PATH = "/mcp"  # MCP, streamable HTTP
