from datetime import date, datetime
from urllib.parse import parse_qs

from asgiref.sync import sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string
from django.utils import timezone

from frames import selectors
from frames.live import GROUP, frame_event, poller
from frames.timeline import app_color
from myrecall.timezones import DEFAULT_TZ, TZ_COOKIE, local_time, timezone_parse


class FramesLiveConsumer(AsyncWebsocketConsumer):
    """Pushes each new frame to open timeline pages as an htmx out-of-band card.

    The page names the newest frame it rendered (`?after=ID`), so frames stored between
    the render and the connection are sent first and none falls in the gap.
    """

    async def connect(self):
        if not self.scope["user"].is_authenticated:
            await self.close(code=4401)
            return
        self.zone = timezone_parse(self.scope.get("cookies", {}).get(TZ_COOKIE)) or timezone_parse(DEFAULT_TZ)
        query = parse_qs(self.scope.get("query_string", b"").decode())
        after = (query.get("after") or [""])[0]
        self.last_sent = int(after) if after.isdecimal() else None
        self.day = _day_parse((query.get("day") or [""])[0]) or datetime.now(self.zone).date()
        await self.channel_layer.group_add(GROUP, self.channel_name)
        await self.accept()
        poller.attach()
        if self.last_sent is not None:
            for frame in await sync_to_async(selectors.frames_newer_than)(frame_id=self.last_sent):
                await self.frame_created(frame_event(frame))

    async def disconnect(self, code):
        if self.scope["user"].is_authenticated:
            poller.detach()
            await self.channel_layer.group_discard(GROUP, self.channel_name)

    async def frame_created(self, event):
        if self.last_sent is not None and event["frame_id"] <= self.last_sent:
            return  # already sent while catching up
        self.last_sent = event["frame_id"]
        local = local_time(event["timestamp"], self.zone)
        card = {
            "frame_id": event["frame_id"],
            "local": local,
            # A frame of another local day than the page's (just after midnight, an import) shows its date.
            "other_day": local.date() != self.day,
            "app_name": event["app_name"],
            "window_name": event["window_name"],
            "color": app_color(event["app_name"]),
            "frames": 1,
        }
        with timezone.override(self.zone):
            html = render_to_string("frames/_live_card.html", {"card": card})
        await self.send(text_data=html)


def _day_parse(value: str) -> date | None:
    """The day the timeline page shows (?day=YYYY-MM-DD), if it names one."""
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None
