import atexit

from django.apps import AppConfig


class AgentBridgeConfig(AppConfig):
    name = "agent_bridge"

    def ready(self):
        from agent_bridge.services import AGENT, agent_stop, tool_results_scrub_on_deleting
        from chat.modes import answer_mode_register
        from frames.signals import frames_deleting

        answer_mode_register(AGENT)
        frames_deleting.connect(tool_results_scrub_on_deleting, dispatch_uid="agent_bridge.tool_results_scrub")
        atexit.register(agent_stop)
