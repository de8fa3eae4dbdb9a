"""The spool while the server cannot be reached for long: it stays within its size, the oldest
frames go first so the newest are kept, the log says so once (not once a frame) with the count,
and the client's period line counts what was dropped in that period."""

import logging
import os

from capture.client import Client, Config
from capture.spool import Spool

FRAME_BYTES = 200 * 1024


def _fill(spool: Spool, count: int) -> None:
    for i in range(count):
        spool.put(os.urandom(FRAME_BYTES), {"timestamp_ns": 1_700_000_000_000_000_000 + i, "client_frame_id": f"desk-{i}"})


def test_a_full_spool_keeps_the_newest_frames_within_its_size_and_says_so_once_with_the_count(tmp_path, caplog):
    spool = Spool(tmp_path / "spool", max_bytes=2**20)
    with caplog.at_level(logging.WARNING, logger="capture.spool"):
        _fill(spool, 12)
    assert spool.bytes() <= 2**20 and spool.count() == 5 and spool.dropped == 7
    kept = []
    while (item := spool.oldest()) is not None:
        kept.append(item.meta["client_frame_id"])
        spool.remove(item)
    assert kept == [f"desk-{i}" for i in range(7, 12)]  # the newest, in capture order
    lines = [record.getMessage() for record in caplog.records]
    assert lines == ["spool full (1 MB): the oldest frames are dropped to keep the newest; 1 dropped so far"], lines


def test_the_period_line_counts_the_frames_dropped_in_that_period(tmp_path):
    client = Client(Config(url="http://127.0.0.1:9", token="unused", state_dir=tmp_path / "state", spool_bytes=2**20))
    _fill(client.spool, 8)
    line = client.report_line(client.report_take())
    assert line.endswith("5 waiting in the spool, 3 oldest dropped as the spool was full"), line
    assert client.report_line(client.report_take()).endswith("5 waiting in the spool"), "counted again"
