import atexit

from django.apps import AppConfig


class AgentBridgeConfig(AppConfig):
    name = "agent_bridge"

    def ready(self):
        from agent_bridge.services import AGENT, agent_stop
        from chat.modes import answer_mode_register

        answer_mode_register(AGENT)
        atexit.register(agent_stop)
