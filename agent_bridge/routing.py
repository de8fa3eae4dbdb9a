"""The websocket routes of the agent bridge (combined in myrecall/asgi.py)."""

from django.urls import path

from agent_bridge.consumers import AgentChatConsumer

websocket_urlpatterns = [path("ws/chat/agent/", AgentChatConsumer.as_asgi())]
