"""The space the memory takes: by part and by day, in GET /api/v1/status and on the settings
page, with what a retention would free; measured from the real files and database."""

import time
from datetime import datetime, timedelta

import pytest
from django.contrib.auth import get_user_model

from frames import storage
from frames.models import Frame
from frames.services import frames_delete
from myrecall.space import space_forget
from tests.conftest import post_frame, render_text_image

pytestmark = pytest.mark.django_db(transaction=True)

DAY = 86_400


@pytest.fixture(autouse=True)
def fresh_figures():
    space_forget()
    yield
    space_forget()


def _frames(api, ages_days: list[float]) -> list[int]:
    ids = []
    for number, age in enumerate(ages_days):
        image = render_text_image([f"screen {number} about the space on disk", "x" * (number + 3)], size=(800, 200))
        resp = post_frame(api, image, timestamp=time.time() - age * DAY, client_frame_id=f"s{number}")
        assert resp.status_code == 201, resp.content
        ids.append(resp.json()["frame_id"])
    return ids


def test_status_says_what_each_part_and_each_day_takes_and_what_keeping_fewer_days_frees(api, settings):
    ids = _frames(api, [0, 0, 40, 400])
    files = {frame.id: storage.image_location(frame.image_path).stat().st_size for frame in Frame.objects.all()}

    storage_out = api.get("/api/v1/status").json()["storage"]
    parts = {part["name"]: part for part in storage_out["parts"]}
    assert set(parts) == {"database", "images", "thumbnails", "vectors"}
    assert parts["images"]["bytes"] == sum(files.values())
    assert parts["images"]["per_day"] == "exact" and parts["database"]["per_day"] == "estimated"
    assert parts["database"]["bytes"] > 100_000  # the schema alone is more
    assert storage_out["total_bytes"] == sum(part["bytes"] for part in parts.values())
    assert storage_out["frames"] == 4

    days = storage_out["days"]
    assert [day["frames"] for day in days] == [2, 1, 1]  # newest first
    assert days[0]["day"] > days[1]["day"] > days[2]["day"]
    assert days[0]["images_bytes"] == files[ids[0]] + files[ids[1]]
    assert days[2]["images_bytes"] == files[ids[3]]
    # The other parts are shared among the days by their frames: the days add up to the whole.
    assert abs(sum(day["bytes"] for day in days) - storage_out["total_bytes"]) <= len(days) * len(parts)

    freed = {choice["days"]: choice["frees_bytes"] for choice in storage_out["if_kept"]}
    assert freed[30] == days[1]["bytes"] + days[2]["bytes"]
    assert freed[90] == freed[365] == days[2]["bytes"]
    assert freed[7] == freed[30]
    assert storage_out["retention"] == {"days": None, "frees_bytes": 0}

    # A range delete gives the bytes back, and the figures say so at once.
    frames_delete(end=datetime.now().astimezone() - timedelta(days=30))
    after = api.get("/api/v1/status").json()["storage"]
    assert after["frames"] == 2
    assert {part["name"]: part["bytes"] for part in after["parts"]}["images"] == files[ids[0]] + files[ids[1]]
    assert [choice["frees_bytes"] for choice in after["if_kept"]] == [0, 0, 0, 0]


def test_the_settings_page_shows_the_space_and_what_the_retention_frees(api, client, settings):
    settings.RETENTION_DAYS = 90
    _frames(api, [0, 100])
    images = sum(frame.image_bytes for frame in Frame.objects.all())
    old = Frame.objects.order_by("timestamp").first()
    client.force_login(get_user_model().objects.create_user("owner", password="pw"))
    page = client.get("/settings").content.decode()
    assert "Space on disk" in page
    assert "Screen images" in page and "Search-by-meaning index" in page
    assert "The retention of 90 days will free about" in page
    assert 'href="/?date=' in page  # each day links to its timeline
    status = api.get("/api/v1/status").json()["storage"]
    assert status["retention"]["days"] == 90
    assert status["retention"]["frees_bytes"] >= old.image_bytes
    assert status["retention"]["frees_bytes"] < status["total_bytes"]
    assert images == {part["name"]: part["bytes"] for part in status["parts"]}["images"]
