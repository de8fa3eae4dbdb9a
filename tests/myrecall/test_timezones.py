"""How people write a time, read the same on every surface (myrecall.timezones.instant_parse)."""

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from myrecall.errors import ApplicationError
from myrecall.timezones import instant_parse


@pytest.mark.parametrize("zone", ["Asia/Shanghai", "America/New_York", "UTC"])
def test_today_and_yesterday_are_the_starts_of_those_local_days(zone):
    local = ZoneInfo(zone)
    midnight = datetime.now(local).replace(hour=0, minute=0, second=0, microsecond=0)
    assert instant_parse("today", zone=local) == midnight.timestamp()
    yesterday = datetime.combine(midnight.date() - timedelta(days=1), midnight.time(), tzinfo=local)
    assert instant_parse(" Yesterday ", zone=local) == yesterday.timestamp()


@pytest.mark.parametrize("text", ["last tuesday", "tomorrow", "yesterday-ish", "2 fortnights ago", ""])
def test_what_is_not_a_time_names_the_field_and_the_forms(text):
    with pytest.raises(ApplicationError) as caught:
        instant_parse(text, zone=ZoneInfo("UTC"), name="start_time")
    assert caught.value.message.startswith("start_time is not a time") and "yesterday" in caught.value.message
