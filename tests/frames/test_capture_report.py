"""POST /api/v1/capture/report: a capture client's periodic report, kept per device (the latest
replaces the one before); a malformed one is refused whole, a read-only or missing token too."""

import json

import pytest
from django.test import Client
from django.utils import timezone

from frames.models import CaptureReport
from myrecall.services import api_token_create

pytestmark = pytest.mark.django_db

REPORT = {
    "device_name": "laptop",
    "period_s": 60,
    "sent": 17,
    "unchanged": 3,
    "excluded": 0,
    "spooled": 0,
    "paused": False,
    "client": "myrecall-capture/1",
}


def report_post(client, body, **headers):
    return client.post("/api/v1/capture/report", data=json.dumps(body), content_type="application/json", **headers)


def test_a_report_is_kept_as_the_devices_latest_and_the_next_one_replaces_it(api):
    before = timezone.now()
    response = report_post(api, REPORT)
    assert response.status_code == 200, response.content
    body = response.json()
    assert {k: body[k] for k in REPORT} == {**REPORT, "period_s": 60.0}
    stored = CaptureReport.objects.get(device_name="laptop")
    assert stored.received_at >= before and (stored.sent, stored.unchanged, stored.paused) == (17, 3, False)

    again = report_post(api, {**REPORT, "sent": 0, "unchanged": 20.0, "paused": True, "client": ""})  # 20.0: a JSON integer too
    assert again.status_code == 200, again.content
    stored = CaptureReport.objects.get(device_name="laptop")
    assert (stored.sent, stored.unchanged, stored.paused, stored.client) == (0, 20, True, "")
    assert report_post(api, {**REPORT, "device_name": "desktop"}).status_code == 200
    assert sorted(CaptureReport.objects.values_list("device_name", flat=True)) == ["desktop", "laptop"]
    # A client's last report says why it ended.
    last = report_post(api, {**REPORT, "stopped": "stopped by SIGINT"})
    assert last.status_code == 200 and last.json()["stopped"] == "stopped by SIGINT"
    assert CaptureReport.objects.get(device_name="laptop").stopped == "stopped by SIGINT"
    # A client whose screen is locked says so, and how it knows.
    locked = report_post(api, {**REPORT, "sent": 0, "locked": "the screen is locked (swaylock runs)"})
    assert locked.status_code == 200 and locked.json()["locked"] == "the screen is locked (swaylock runs)"
    assert report_post(api, REPORT).json()["locked"] == ""  # and no more in the next


@pytest.mark.parametrize(
    "body, field",
    [
        ({k: v for k, v in REPORT.items() if k != "sent"}, "sent"),
        ({**REPORT, "sent": -1}, "sent"),
        ({**REPORT, "sent": "17"}, "sent"),  # a number, not text
        ({**REPORT, "sent": True}, "sent"),
        ({**REPORT, "unchanged": 2.5}, "unchanged"),
        ({**REPORT, "paused": 0}, "paused"),  # true or false, not 0
        ({**REPORT, "period_s": 0.5}, "period_s"),
        ({**REPORT, "device_name": ""}, "device_name"),
        ({**REPORT, "device_name": "d" * 256}, "device_name"),
        ({**REPORT, "stopped": "x" * 201}, "stopped"),
        ({**REPORT, "locked": "x" * 201}, "locked"),
        ({**REPORT, "locked": True}, "locked"),
        ({**REPORT, "battery": 80}, "battery"),  # a field the report does not have
        ([REPORT], None),
    ],
)
def test_a_malformed_report_is_refused_with_the_reason_and_nothing_is_stored(api, body, field):
    response = report_post(api, body)
    assert response.status_code == 400, response.content
    answer = response.json()
    assert set(answer) == {"message", "extra"} and answer["message"].startswith("Invalid input, nothing was changed")
    if field:
        assert field in [error["field"] for error in answer["extra"]["errors"]], answer
    assert not CaptureReport.objects.exists()


def test_a_report_needs_a_token_that_may_write(client):
    _, read_only = api_token_create(name="agent", read_only=True)
    refused = report_post(client, REPORT, HTTP_AUTHORIZATION=f"Bearer {read_only}")
    assert refused.status_code == 403 and "read-only" in refused.json()["message"]
    assert report_post(Client(), REPORT).status_code == 401
    assert report_post(client, REPORT, HTTP_AUTHORIZATION="Bearer not-a-token").status_code == 401
    assert not CaptureReport.objects.exists()
