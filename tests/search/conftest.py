from datetime import datetime
from datetime import timezone as dt_timezone

import pytest

from frames.models import Frame, OcrResult, OcrStatus
from search.services import frame_index


@pytest.fixture
def frame_make(db):
    """Makes a frame with finished OCR, indexed the way the OCR worker does it; returns its id."""

    def make(text: str, *, at: float, app_name="Editor", window_name="notes.md", browser_url="", focused=True) -> int:
        frame = Frame.objects.create(
            timestamp=datetime.fromtimestamp(at, tz=dt_timezone.utc),
            app_name=app_name,
            window_name=window_name,
            browser_url=browser_url,
            focused=focused,
            image_path="frames/x.jpg",
            width=800,
            height=600,
            image_bytes=1000,
            phash=b"",
            ocr_status=OcrStatus.DONE,
        )
        OcrResult.objects.create(frame=frame, engine="test", text=text)
        frame_index(frame=frame)
        return frame.id

    return make
