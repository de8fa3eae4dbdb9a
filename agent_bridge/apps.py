import atexit

from django.apps import AppConfig


class AgentBridgeConfig(AppConfig):
    name = "agent_bridge"

    def ready(self):
        from agent_bridge.services import (
            AGENT,
            agent_answers_erase_on_deleting,
            agent_stop,
            conversation_files_erase_on_erasing,
            tool_calls_erase_on_answers_erasing,
        )
        from chat.modes import answer_mode_register
        from chat.signals import answers_erasing
        from frames.signals import frames_deleting, frames_erasing

        answer_mode_register(AGENT)
        frames_deleting.connect(agent_answers_erase_on_deleting, dispatch_uid="agent_bridge.answers_erase")
        answers_erasing.connect(tool_calls_erase_on_answers_erasing, dispatch_uid="agent_bridge.tool_calls_erase")
        frames_erasing.connect(conversation_files_erase_on_erasing, dispatch_uid="agent_bridge.conversation_files_erase")
        atexit.register(agent_stop)
