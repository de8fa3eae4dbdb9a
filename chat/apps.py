from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "chat"

    def ready(self):
        from chat.modes import answer_mode_register
        from chat.services import SUMMARY

        answer_mode_register(SUMMARY)
