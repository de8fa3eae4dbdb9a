"""Live frames for open timeline pages.

Frames are written by other processes than the one holding the websocket (the
importer, a second web process) and Channels' in-memory layer does not cross
processes. So, with the embedded defaults, each web process runs one poller that
reads new frame rows from the shared database every second and fans them out on
its own in-memory layer: no extra service, and the database is already the
source of truth. With REDIS_URL set, the channel layer is channels-redis and the
process that stores a frame publishes it directly; no poller runs.
"""

import asyncio
import logging

from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings

from frames import selectors
from frames.models import Frame

logger = logging.getLogger(__name__)

GROUP = "frames.live"
POLL_INTERVAL_S = 1.0


def frame_event(frame: Frame) -> dict:
    return {
        "type": "frame.created",
        "frame_id": frame.id,
        "timestamp": frame.timestamp.timestamp(),
        "app_name": frame.app_name,
        "window_name": frame.window_name,
    }


def frame_created_publish(*, frame: Frame) -> None:
    """Called on commit of a new frame; only a shared (Redis) layer needs it."""
    if settings.REDIS_URL:
        async_to_sync(get_channel_layer().group_send)(GROUP, frame_event(frame))


class FramePoller:
    """One per web process: started by the first live page, runs while pages are open."""

    def __init__(self):
        self._task: asyncio.Task | None = None
        self.listeners = 0

    def attach(self) -> None:
        self.listeners += 1
        if not settings.REDIS_URL and (self._task is None or self._task.done()):
            self._task = asyncio.get_running_loop().create_task(self._run())

    def detach(self) -> None:
        self.listeners = max(0, self.listeners - 1)

    async def _run(self) -> None:
        layer = get_channel_layer()
        last_id = await sync_to_async(selectors.frame_latest_id)()
        while self.listeners:
            await asyncio.sleep(POLL_INTERVAL_S)
            try:
                frames = await sync_to_async(selectors.frames_newer_than)(frame_id=last_id)
            except Exception:  # a locked or missing database must not kill the poller
                logger.exception("Live frame poll failed")
                continue
            for frame in frames:
                await layer.group_send(GROUP, frame_event(frame))
                last_id = frame.id


poller = FramePoller()
