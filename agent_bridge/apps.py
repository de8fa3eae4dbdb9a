from django.apps import AppConfig


class AgentBridgeConfig(AppConfig):
    name = "agent_bridge"
