"""A device's monitors are separate screens: a frame says which monitor it shows, is skipped as a
near-duplicate only of that monitor's frame before it (not of the other monitor's, taken between),
and is stored against that monitor's frames; the metadata names the monitor, and a monitor name
the server cannot take is refused with the field named."""

import time

import pytest

from frames.models import Frame
from tests.conftest import post_frame, render_text_image

pytestmark = pytest.mark.django_db

T0 = time.time() - 2 * 86400


def _screen(*lines: str) -> bytes:
    return render_text_image([*lines, "quarterly figures and the weekly review"], size=(1000, 400))


def _post(api, image: bytes, at: float, monitor: str | None, **fields) -> dict:
    extra = {"monitor": monitor} if monitor is not None else {}
    response = post_frame(api, image, timestamp=at, **extra, **fields)
    assert response.status_code in (200, 201), response.content
    return response.json()


def test_each_monitors_frame_is_compared_with_and_stored_against_that_monitors_frames(api):
    left, right = _screen("harbour timetable", "ferries at dawn"), _screen("invoice 2291 overdue", "pay by friday")
    a1 = _post(api, left, T0, "DP-1", window_name="Timetable")
    b1 = _post(api, right, T0 + 1, "HDMI-1", window_name="Timetable")  # the same title on the other monitor
    assert (a1["status"], b1["status"]) == ("created", "created")
    # The left screen again: its monitor's frame before is a1, though b1 came in between.
    a2 = _post(api, left, T0 + 3, "DP-1", window_name="Timetable")
    assert a2["status"] == "duplicate" and a2["duplicate_of"] == a1["frame_id"], a2
    b2 = _post(api, right, T0 + 4, "HDMI-1", window_name="Timetable")
    assert b2["status"] == "duplicate" and b2["duplicate_of"] == b1["frame_id"], b2
    # A change on the left is stored against the left screen's frame, not the right's just before it.
    a3 = _post(api, _screen("harbour timetable", "ferries at dusk"), T0 + 6, "DP-1", window_name="Timetable")
    assert a3["status"] == "created"
    stored = Frame.objects.get(id=a3["frame_id"])
    assert stored.monitor == "DP-1" and stored.image_base_id == a1["frame_id"]
    metadata = api.get(f"/api/v1/frames/{a3['frame_id']}/metadata").json()
    assert metadata["monitor"] == "DP-1" and metadata["device_name"] == "laptop"


def test_a_frame_that_names_no_monitor_is_its_devices_one_screen_as_before(api):
    screen = _screen("garden plans", "tomatoes by the wall")
    first = _post(api, screen, T0, None)
    assert Frame.objects.get(id=first["frame_id"]).monitor is None
    assert api.get(f"/api/v1/frames/{first['frame_id']}/metadata").json()["monitor"] == ""
    again = _post(api, screen, T0 + 2, "")  # empty: no monitor said either
    assert again["status"] == "duplicate" and again["duplicate_of"] == first["frame_id"]
    named = _post(api, screen, T0 + 4, "eDP-1")  # another screen of the device: not a duplicate of the first
    assert named["status"] == "created"


@pytest.mark.parametrize("monitor", ["m" * 101, "DP\x001"])
def test_a_monitor_name_the_server_cannot_take_is_refused_and_nothing_is_stored(api, monitor):
    response = post_frame(api, _screen("refused screen"), timestamp=T0, monitor=monitor)
    assert response.status_code == 400, response.content
    assert "monitor" in [error["field"] for error in response.json()["extra"]["errors"]]
    assert not Frame.objects.exists()
