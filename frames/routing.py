"""The websocket routes of the frames app (combined in myrecall/asgi.py)."""

from django.urls import path

from frames.consumers import FramesLiveConsumer

websocket_urlpatterns = [path("ws/frames/", FramesLiveConsumer.as_asgi())]
