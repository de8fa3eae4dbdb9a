import io
import json
import os
import time
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from PIL import Image

from tests.conftest import render_text_image

from frames.importing import name_timestamp_parse
from frames.models import Frame

pytestmark = pytest.mark.django_db

SHANGHAI = "Asia/Shanghai"  # UTC+8 all year: no DST to reason about


def _screen(seed: int, fmt: str = "PNG") -> bytes:
    """A small image of coloured blocks, different enough per seed that dedup keeps each one."""
    blocks = np.random.default_rng(seed).integers(0, 255, (12, 16, 3), dtype=np.uint8)
    out = io.BytesIO()
    Image.fromarray(blocks).resize((320, 240), Image.Resampling.NEAREST).save(out, format=fmt)
    return out.getvalue()


def _write(folder: Path, name: str, image: bytes, sidecar: dict | str | None = None) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(image)
    if sidecar is not None:
        text = sidecar if isinstance(sidecar, str) else json.dumps(sidecar)
        path.with_suffix(".json").write_text(text)
    return path


def _import(folder: Path, *args: str) -> str:
    out = io.StringIO()
    call_command("frames_import", str(folder), "--timezone", SHANGHAI, *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def _utc(*parts) -> datetime:
    return datetime(*parts, tzinfo=timezone.utc)


def _utc_text(stored: str | datetime) -> str:
    """A stored time as SQLite keeps it, 'YYYY-MM-DD HH:MM:SS...' in UTC (PostgreSQL gives a datetime)."""
    return stored if isinstance(stored, str) else stored.astimezone(timezone.utc).isoformat(" ")


def _frame(name: str) -> Frame:
    return Frame.objects.get(client_frame_id=name)


def _stored_files(data_dir: Path) -> list[Path]:
    return [p for p in (data_dir / "frames").rglob("*") if p.is_file() and ".tmp" not in p.parts]


def test_sidecar_metadata_with_fallbacks_for_missing_fields(tmp_path):
    folder = tmp_path / "shots"
    _write(folder, "a.png", _screen(1), {
        "timestamp": "2026-03-14T10:00:00+02:00", "app_name": "Firefox", "window_name": "Budget - Docs",
        "browser_url": "https://docs.example.org/budget", "focused": False, "device_name": "laptop",
        "unknown_key": "ignored",
    })
    _write(folder, "b.jpg", _screen(2, "JPEG"), {"timestamp": 1773482400, "window_name": "Only a window"})
    _write(folder, "c.webp", _screen(3, "WEBP"), {"timestamp": "2026-03-14 10:10:00", "focused": "true"})
    _write(folder, "Screenshot_20260314_100500.png", _screen(4), {"app_name": "Slack"})

    output = _import(folder, "--app-name", "Preview")

    a = _frame("a.png")
    assert (a.timestamp, a.app_name, a.window_name, a.browser_url, a.focused, a.device_name) == (
        _utc(2026, 3, 14, 8, 0, 0), "Firefox", "Budget - Docs", "https://docs.example.org/budget", False, "laptop"
    )
    b = _frame("b.jpg")
    assert (b.timestamp, b.app_name, b.window_name, b.browser_url, b.focused, b.device_name) == (
        datetime.fromtimestamp(1773482400, tz=timezone.utc), "Preview", "Only a window", "", None, "shots"
    )
    c = _frame("c.webp")
    assert c.timestamp == _utc(2026, 3, 14, 2, 10, 0)  # naive ISO time is local to --timezone
    assert c.focused is True
    slack = _frame("Screenshot_20260314_100500.png")
    assert (slack.timestamp, slack.app_name) == (_utc(2026, 3, 14, 2, 5, 0), "Slack")
    assert "created:            4" in output
    assert "3 from sidecar JSON" in output and "1 from file name" in output


NAMES = {
    "2026-03-14_09-26-53.png": _utc(2026, 3, 14, 1, 26, 53),
    "20260314-092654.png": _utc(2026, 3, 14, 1, 26, 54),
    "20260314_092655.jpg": _utc(2026, 3, 14, 1, 26, 55),
    "Screenshot 2026-03-14 at 09.26.56.png": _utc(2026, 3, 14, 1, 26, 56),
    "Screen Shot 2026-03-14 at 9.26.57 PM.png": _utc(2026, 3, 14, 13, 26, 57),
    "Screenshot from 2026-03-14 09-26-58.png": _utc(2026, 3, 14, 1, 26, 58),
    "Screenshot_20260314_092659.webp": _utc(2026, 3, 14, 1, 26, 59),
    "capture-1773451620.png": datetime.fromtimestamp(1773451620, tz=timezone.utc),
    "capture_1773451621250.jpeg": datetime.fromtimestamp(1773451621.25, tz=timezone.utc),
    "2026-03-14T09-27-05+0100.png": _utc(2026, 3, 14, 8, 27, 5),
    "deeper/2026-03-14T09:27:06Z.png": _utc(2026, 3, 14, 9, 27, 6),
}


def test_time_from_each_common_screenshot_name_local_unless_offset(tmp_path):
    folder = tmp_path / "names"
    for seed, name in enumerate(NAMES):
        fmt = {".jpg": "JPEG", ".jpeg": "JPEG", ".webp": "WEBP"}.get(Path(name).suffix, "PNG")
        _write(folder, name, _screen(seed, fmt))

    output = _import(folder)

    assert {f.client_frame_id: f.timestamp for f in Frame.objects.all()} == NAMES
    assert f"{len(NAMES)} from file name" in output


def test_file_mtime_when_neither_sidecar_nor_name_gives_a_time(tmp_path):
    folder = tmp_path / "holiday"
    path = _write(folder, "beach.png", _screen(1))
    os.utime(path, (1773400000.5, 1773400000.5))
    _write(folder, "Screenshot (12).png", _screen(2))
    os.utime(folder / "Screenshot (12).png", (1773400100, 1773400100))

    output = _import(folder)

    assert _frame("beach.png").timestamp == datetime.fromtimestamp(1773400000.5, tz=timezone.utc)
    assert _frame("Screenshot (12).png").timestamp == datetime.fromtimestamp(1773400100, tz=timezone.utc)
    assert "2 from file mtime" in output


def test_reimport_is_idempotent(tmp_path, data_dir):
    folder = tmp_path / "shots"
    for seed in range(4):
        _write(folder, f"sub/2026-03-14_10-00-0{seed}.png", _screen(seed))

    first = _import(folder)
    files_after_first = _stored_files(data_dir)
    second = _import(folder)

    assert "created:            4" in first
    assert "created:            0" in second and "already there:      4" in second
    assert Frame.objects.count() == 4
    assert _stored_files(data_dir) == files_after_first
    assert set(Frame.objects.values_list("client_frame_id", flat=True)) == {
        f"sub/2026-03-14_10-00-0{seed}.png" for seed in range(4)
    }


def test_files_are_ingested_oldest_first_so_dedup_compares_the_right_neighbour(tmp_path):
    folder = tmp_path / "shots"
    # Alphabetical order is a, b, c; time order is b, a, c. a.png is the same screen as b.png, shown just after it.
    _write(folder, "b.png", _screen(7), {"timestamp": 1773450000})
    _write(folder, "a.png", _screen(7), {"timestamp": 1773450003})
    _write(folder, "c.png", _screen(8), {"timestamp": 1773450006})

    output = _import(folder)

    assert "duplicates skipped: 1" in output
    assert sorted(Frame.objects.values_list("client_frame_id", flat=True)) == ["b.png", "c.png"]
    # Run again: the skipped duplicate is still a duplicate, nothing new is stored.
    again = _import(folder)
    assert "already there:      2" in again and "duplicates skipped: 1" in again


def test_bad_files_are_reported_and_skipped_and_nothing_is_half_written(tmp_path, data_dir):
    folder = tmp_path / "mixed"
    good = _screen(1, "JPEG")
    _write(folder, "2026-03-14_11-00-00.png", _screen(0))
    _write(folder, "2026-03-14_11-00-01.png", b"this is not an image")
    _write(folder, "2026-03-14_11-00-02.jpg", good[: len(good) // 2])
    _write(folder, "2026-03-14_11-00-03.png", _screen(2), "{not json")
    _write(folder, "2026-03-14_11-00-04.png", _screen(3), {"timestamp": 1773450000000})
    _write(folder, "2026-03-14_11-00-05.png", _screen(4))
    (folder / "notes.txt").write_text("not a screenshot")
    (folder / "._2026-03-14_11-00-06.png").write_bytes(b"\x00\x05\x16\x07 AppleDouble")

    output = _import(folder)

    assert sorted(Frame.objects.values_list("client_frame_id", flat=True)) == [
        "2026-03-14_11-00-00.png", "2026-03-14_11-00-05.png"
    ]
    assert "created:            2" in output and "failed:             4" in output
    failures = dict(line.strip().split(": ", 1) for line in output.splitlines() if line.startswith("    "))
    assert "does not decode" in failures["2026-03-14_11-00-01.png"]
    assert "does not decode" in failures["2026-03-14_11-00-02.jpg"]
    assert "not valid JSON" in failures["2026-03-14_11-00-03.png"]
    assert "milliseconds" in failures["2026-03-14_11-00-04.png"]
    assert len(_stored_files(data_dir)) == 2
    assert not any((data_dir / "frames" / ".tmp").glob("*"))
    for frame in Frame.objects.all():
        assert (data_dir / frame.image_path).is_file()


def test_summary_says_ocr_runs_in_the_background(tmp_path):
    folder = tmp_path / "shots"
    _write(folder, "2026-03-14_12-00-00.png", _screen(1))
    assert "runs in the background while `manage.py serve` is running" in _import(folder)


def test_unknown_timezone_and_missing_folder_are_clear_errors(tmp_path):
    with pytest.raises(CommandError, match="Unknown timezone"):
        call_command("frames_import", str(tmp_path), "--timezone", "Mars/Olympus")
    with pytest.raises(CommandError, match="not a folder"):
        call_command("frames_import", str(tmp_path / "nowhere"))


@pytest.mark.parametrize("name", ["Screenshot (12)", "IMG_1234", "2026-13-45_10-00-00", "report-2026", "12345678901"])
def test_names_without_a_time_give_none(name):
    assert name_timestamp_parse(name, tz=ZoneInfo(SHANGHAI)) is None



def test_a_watched_folder_takes_screenshots_as_they_appear(tmp_path):
    """`frames_import --watch` on its own data dir: files saved later (one still being written, one
    with a sidecar, one overwritten in place) become frames with the import's metadata."""
    import subprocess
    import sys

    from tests import databases
    from tests.server import REPO

    data_dir = tmp_path / "data"
    env = {**os.environ, **databases.env_for(data_dir), "MYRECALL_DATA_DIR": str(data_dir), "MYRECALL_DEDUP_MAX_DISTANCE": "-1"}
    folder = tmp_path / "Screenshots"
    folder.mkdir()
    (folder / "before-2026-11-20_09-00-00.png").write_bytes(render_text_image(["Already there when watching began"]))
    watcher = subprocess.Popen(
        [sys.executable, "manage.py", "frames_import", str(folder), "--watch", "--device-name", "shots", "--timezone", "UTC"],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )

    def stored() -> list[tuple]:
        try:
            found = databases.rows(data_dir, "SELECT timestamp, app_name, window_name, client_frame_id FROM frames_frame ORDER BY id")
        except databases.NotReady:  # not migrated yet
            return []
        # The UTC time as SQLite stores it (text); PostgreSQL gives a datetime.
        return [(_utc_text(at), *rest) for at, *rest in found]

    def wait_for(count: int) -> list[tuple]:
        deadline = time.time() + 60
        while len(rows := stored()) < count and time.time() < deadline:
            time.sleep(0.2)
        return rows

    try:
        assert len(wait_for(1)) == 1
        # A file written slowly: taken only once it stops growing.
        slow = folder / "Screenshot from 2026-11-20 10-15-30.png"
        data = render_text_image(["Written in two parts"])
        with open(slow, "wb") as fh:
            fh.write(data[: len(data) // 2])
            fh.flush()
            time.sleep(1.5)
            fh.write(data[len(data) // 2 :])
        # One with a sidecar giving its app and window.
        (folder / "capture-1.json").write_text(json.dumps({"timestamp": "2026-11-20T11:00:00Z", "app_name": "Firefox", "window_name": "Docs"}))
        (folder / "capture-1.png").write_bytes(render_text_image(["A page about watched folders"]))
        rows = wait_for(3)
        by_time = {row[0][:19]: row for row in rows}
        assert set(by_time) == {"2026-11-20 09:00:00", "2026-11-20 10:15:30", "2026-11-20 11:00:00"}, rows
        assert by_time["2026-11-20 11:00:00"][1:3] == ("Firefox", "Docs")
        # A tool that always saves to the same name: each new image is a new frame.
        same = folder / "latest.png"
        same.write_bytes(render_text_image(["First version of latest"]))
        assert len(wait_for(4)) == 4
        time.sleep(1.2)
        same.write_bytes(render_text_image(["Second and different version of latest", "with more lines"], size=(900, 200)))
        rows = wait_for(5)
        assert len(rows) == 5 and rows[4][3].startswith("latest.png@"), rows
    finally:
        watcher.terminate()
        output = watcher.communicate(timeout=30)[0]
    assert "Watching" in output and "created" in output and len(stored()) == 5, output
