from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "chat"

    def ready(self):
        from chat.modes import answer_mode_register
        from chat.services import SUMMARY, answers_erase_on_deleting, citations_scrub_on_deleting
        from frames.signals import frames_deleting

        answer_mode_register(SUMMARY)
        frames_deleting.connect(citations_scrub_on_deleting, dispatch_uid="chat.citations_scrub")
        frames_deleting.connect(answers_erase_on_deleting, dispatch_uid="chat.answers_erase")

        # The app's read tools, offered through the REST API, MCP and the agent's skill.
        from chat.tools import RANGE_SUMMARY
        from myrecall.tools import tool_register

        tool_register(RANGE_SUMMARY)
