from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"
    verbose_name = "Agent protocols (A2A, MCP)"

    def warm_up(self) -> None:
        """As a web worker starts: the operations' input schemas, read off the contract (its
        generation takes a second that no agent's first call should wait for)."""
        from agents import operations

        operations.catalog()
