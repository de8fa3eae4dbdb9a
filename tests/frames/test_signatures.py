"""Screen signatures (what tells a new screen from a near-duplicate of the one before) are kept in
a side table only for each device's recent frames: ingest still skips a near-duplicate, the table
stays small, a deleted frame takes its signature with it, and the migration moves the recent ones
over from the frames' rows."""

import io
import time
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from PIL import Image

from frames.imaging import SIGNATURE_BYTES, hash_unpack, image_hash
from frames.models import Frame, FrameSignature
from frames.services import SIGNATURE_KEEP_S, frames_delete
from tests.conftest import post_frame, render_text_image

T0 = time.time() - 5 * 86400


def _screen(words: str) -> bytes:
    return render_text_image([words, "weekly budget review"], size=(800, 300))


def _post(api, words: str, at: float, device: str = "laptop"):
    response = post_frame(api, _screen(words), timestamp=at, device_name=device)
    assert response.status_code in (200, 201), response.content
    return response.json()


def _kept(device: str = "laptop") -> list[int]:
    return list(FrameSignature.objects.filter(device_name=device).order_by("timestamp").values_list("frame_id", flat=True))


@pytest.mark.django_db
def test_a_near_duplicate_of_the_frame_before_is_skipped_by_its_kept_signature(api):
    first = _post(api, "harbour timetable", T0)
    assert first["status"] == "created" and _kept() == [first["frame_id"]]
    again = _post(api, "harbour timetable", T0 + 5)
    assert again["status"] == "duplicate" and again["duplicate_of"] == first["frame_id"]
    assert _kept() == [first["frame_id"]]  # a skipped frame keeps nothing
    other = _post(api, "a different screen altogether", T0 + 10)
    assert other["status"] == "created" and _kept() == [first["frame_id"], other["frame_id"]]


@pytest.mark.django_db
def test_only_the_last_hour_of_each_device_is_kept(api):
    steps = [0, 600, 1800, 3000, 4200, 6000]
    ids = [_post(api, f"screen number {n}", T0 + step)["frame_id"] for n, step in enumerate(steps)]
    desk = _post(api, "the desktop's own screen", T0, device="desktop")["frame_id"]
    newest = T0 + steps[-1]
    assert _kept() == [frame_id for frame_id, step in zip(ids, steps) if T0 + step >= newest - SIGNATURE_KEEP_S]
    assert _kept() == ids[3:]
    assert _kept("desktop") == [desk]  # another device's are its own
    assert Frame.objects.count() == len(steps) + 1  # the frames themselves stay

    # A frame that comes late, older than the hour kept: compared with the frame before it all the
    # same (its signature is made again from its image), and it keeps none itself.
    late = _post(api, "screen number 1", T0 + 700)
    assert late["status"] == "duplicate" and late["duplicate_of"] == ids[1]
    stored = _post(api, "a late screen nobody saw", T0 + 700)
    assert stored["status"] == "created" and _kept() == ids[3:]


@pytest.mark.django_db(transaction=True)
def test_a_deleted_frame_leaves_no_signature(api):
    ids = [_post(api, f"screen to delete {n}", T0 + n * 60)["frame_id"] for n in range(3)]
    keep = _post(api, "the screen that stays", T0 + 600)["frame_id"]
    assert sorted(_kept()) == sorted([*ids, keep])
    at = datetime.fromtimestamp(T0, tz=dt_timezone.utc)
    job = frames_delete(start=at - timedelta(seconds=1), end=at + timedelta(seconds=300))
    assert job.removed["frames"] == 3
    assert _kept() == [keep] and FrameSignature.objects.count() == 1


def _table_columns(table: str) -> set[str]:
    with connection.cursor() as cursor:
        return {column.name for column in connection.introspection.get_table_description(cursor, table)}


def _table_root() -> int | None:
    """Where SQLite's frames table starts in its file (a rebuilt table starts elsewhere); None on
    PostgreSQL, whose DROP COLUMN never rewrites a table."""
    if connection.vendor != "sqlite":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT rootpage FROM sqlite_master WHERE name = 'frames_frame'")
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_the_migration_moves_each_devices_recent_signatures_and_drops_the_column():
    raw = Image.open(io.BytesIO(_screen("signature to move"))).convert("L").resize((48, 27), Image.Resampling.BOX).tobytes()
    assert len(raw) == SIGNATURE_BYTES
    moments = {  # (device, seconds before its newest frame)
        "laptop": [7200, 3700, 3500, 60, 0],
        "desktop": [90000, 0],
    }
    frames = {}
    for device, befores in moments.items():
        for before in befores:
            frame = Frame.objects.create(
                timestamp=datetime.fromtimestamp(T0 - before, tz=dt_timezone.utc), device_name=device,
                image_path="x.webp", width=10, height=10, image_bytes=1,
            )
            frames[frame.id] = (device, before)
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    executor.migrate([("frames", "0011_ocrresult_text_packed")])
    try:
        assert "phash" in _table_columns("frames_frame")
        with connection.cursor() as cursor:
            for frame_id in frames:  # rows as written before: raw signatures (packed ones stay as they are)
                cursor.execute("UPDATE frames_frame SET phash = %s WHERE id = %s", [raw, frame_id])
        rootpage = _table_root()
        MigrationExecutor(connection).migrate(latest)
    finally:
        MigrationExecutor(connection).migrate(latest)
    assert "phash" not in _table_columns("frames_frame")
    assert _table_root() == rootpage  # the column dropped, the table not rebuilt
    want = {frame_id for frame_id, (_, before) in frames.items() if before <= SIGNATURE_KEEP_S}
    assert set(FrameSignature.objects.values_list("frame_id", flat=True)) == want and len(want) == 4
    for signature in FrameSignature.objects.all():
        assert len(bytes(signature.phash)) < SIGNATURE_BYTES and hash_unpack(signature.phash) == raw
        assert signature.device_name == frames[signature.frame_id][0]
    assert image_hash(Image.open(io.BytesIO(_screen("signature to move"))).convert("RGB")) == signature.phash
