"""frames.storage owns how a frame's image is kept: a frame stored in another format than today's
keeps opening everywhere (the API, thumbnails, OCR, an assistant's preview), and a missing file is
a clear 404, never a crash."""

import io
import random
import time
from datetime import datetime
from datetime import timezone as dt_timezone
from zoneinfo import ZoneInfo

import numpy as np

import pytest
from django.contrib.auth import get_user_model
from PIL import Image

from frames import services, storage
from frames.services import frames_delete
from frames.models import Frame, OcrStatus
from frames.tools import FrameImageIn
from myrecall.errors import ApplicationError
from myrecall.tools import Context, tool_get
from tests.conftest import post_frame, render_text_image
from tests.screens import new_screen, render

pytestmark = pytest.mark.django_db


def _restore_as(frame: Frame, fmt: str, suffix: str) -> Image.Image:
    """Rewrite the frame's file in another format under a path of that suffix, as an older
    install or an archive might hold it; returns the pixels written."""
    pixels = storage.image_pixels(frame.image_path)
    old = storage.image_location(frame.image_path)
    relpath = frame.image_path.rsplit(".", 1)[0] + suffix
    out = io.BytesIO()
    pixels.save(out, format=fmt)
    storage.image_location(relpath).write_bytes(out.getvalue())
    old.unlink()
    Frame.objects.filter(id=frame.id).update(image_path=relpath)
    return pixels


@pytest.mark.parametrize("fmt, suffix, content_type", [("PNG", ".png", "image/png"), ("JPEG", ".jpg", "image/jpeg")])
def test_a_frame_stored_in_another_format_keeps_opening(api, client, fmt, suffix, content_type):
    image = render_text_image(["Invoice from the dentist", "due on Friday"], size=(700, 120))
    frame_id = post_frame(api, image).json()["frame_id"]
    frame = Frame.objects.get(id=frame_id)
    assert frame.image_path.endswith(storage.IMAGE_SUFFIX)
    pixels = _restore_as(frame, fmt, suffix)
    frame.refresh_from_db()

    served = api.get(f"/api/v1/frames/{frame_id}")
    assert served.status_code == 200
    assert served["Content-Type"] == content_type
    with Image.open(io.BytesIO(b"".join(served.streaming_content))) as back:
        assert back.format == fmt and back.size == pixels.size

    assert services.frame_ocr_run(frame_id=frame_id) == "done"
    frame.refresh_from_db()
    assert frame.ocr_status == OcrStatus.DONE
    assert "dentist" in frame.ocr.text.lower()

    user = get_user_model().objects.create_user("viewer", password="pw")
    client.force_login(user)
    thumb = client.get(f"/frames/{frame_id}/thumb")
    assert thumb.status_code == 200
    with Image.open(io.BytesIO(b"".join(thumb.streaming_content))) as small:
        assert small.width == 320


def test_new_frames_are_stored_in_todays_format_and_their_files_listed_for_removal(api):
    frame_id = post_frame(api, render_text_image(["storage"])).json()["frame_id"]
    frame = Frame.objects.get(id=frame_id)
    files = storage.frame_relpaths(frame.id, frame.timestamp, frame.image_path)
    assert files[0] == frame.image_path and storage.image_location(files[0]).is_file()
    assert storage.image_content_type(frame.image_path) == "image/webp"
    assert storage.image_bytes(frame.image_path) == storage.image_location(frame.image_path).read_bytes()
    assert frame.image_bytes == len(storage.image_bytes(frame.image_path))


def test_a_missing_image_is_a_404_in_the_error_shape(api):
    frame_id = post_frame(api, render_text_image(["gone"])).json()["frame_id"]
    storage.image_location(Frame.objects.get(id=frame_id).image_path).unlink()
    for url in (f"/api/v1/frames/{frame_id}", f"/frames/{frame_id}"):  # the API, and screenpipe's bare path
        resp = api.get(url)
        assert resp.status_code == 404, url
        assert set(resp.json()) == {"message", "extra"}
        assert "missing" in resp.json()["message"]
    with pytest.raises(ApplicationError) as raised:  # an assistant's preview (MCP's frame_image)
        tool_get("frame_image").run(FrameImageIn(), Context(zone=ZoneInfo("UTC")), frame_id=frame_id)
    assert raised.value.status_code == 404
    with pytest.raises(storage.ImageMissing):
        storage.image_pixels(Frame.objects.get(id=frame_id).image_path)


# Frames of a screen that barely changed are stored as the tiles that changed ----------------


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _typing(count: int, *, seed: int = 3) -> list[Image.Image]:
    """A screen typed into: each capture one word longer than the one before."""
    rng = random.Random(seed)
    screen = new_screen(rng, "editor", zh_share=0.0)
    images = []
    for number in range(count):
        screen.lines[2 + number % 5] += f" word{number}"
        images.append(render(screen))
    return images


def _post_all(api, images, *, start: float, step: float = 5.0, app_name="Code") -> list[int]:
    ids = []
    for number, image in enumerate(images):
        resp = post_frame(api, _png(image), timestamp=start + number * step, app_name=app_name, client_frame_id=f"t{start}-{number}")
        assert resp.status_code == 201, resp.content
        ids.append(resp.json()["frame_id"])
    return ids


def _served_pixels(api, frame_id: int) -> np.ndarray:
    storage._cache.clear()  # read from the files, as a process that never saw the frames does
    resp = api.get(f"/api/v1/frames/{frame_id}")
    frame = Frame.objects.get(id=frame_id)
    # A frame stored whole is served as its file; a delta as a PNG of its pixels, made quickly.
    assert resp.status_code == 200 and resp["Content-Type"] == ("image/png" if frame.image_base_id else "image/webp")
    with Image.open(io.BytesIO(b"".join(resp.streaming_content))) as image:
        return np.asarray(image.convert("RGB"))


def _depths(frames: dict[int, Frame]) -> dict[int, int]:
    def depth(frame_id: int) -> int:
        base = frames[frame_id].image_base_id
        return 0 if base is None else 1 + depth(base)

    return {frame_id: depth(frame_id) for frame_id in frames}


def test_a_base_stored_again_while_a_frame_is_stored_against_it_is_not_built_on(api, monkeypatch):
    """The frame just before is a delta; while the next frame is staged against it, a deletion of
    the frame under it stores it again (a new file): the next frame does not name its old file."""
    images = _typing(3, seed=13)
    start = time.time() - 900
    ids = _post_all(api, images[:2], start=start)
    assert Frame.objects.get(id=ids[1]).image_base_id == ids[0]
    real_stage = storage.image_stage

    def stage_then_base_restaged(image, **kwargs):
        staged = real_stage(image, **kwargs)
        if staged.base == ids[1]:
            frames_delete(start=datetime.fromtimestamp(start - 1, tz=dt_timezone.utc), end=datetime.fromtimestamp(start + 1, tz=dt_timezone.utc))
        return staged

    monkeypatch.setattr(storage, "image_stage", stage_then_base_restaged)
    third = _post_all(api, images[2:], start=start + 10)[0]
    kept = Frame.objects.get(id=ids[1])
    assert kept.image_base_id is None  # stored again whole when its base went
    frame = Frame.objects.get(id=third)
    assert frame.image_base_id is None or storage.delta_base(storage.image_location(frame.image_path).read_bytes()) == kept.image_path
    assert np.array_equal(_served_pixels(api, third), np.asarray(images[2]))
    assert np.array_equal(_served_pixels(api, ids[1]), np.asarray(images[1]))


def test_a_screen_typed_into_is_stored_as_its_changed_tiles_and_reads_back_exactly(api):
    images = _typing(storage.CHAIN_MAX + 4)
    ids = _post_all(api, images, start=time.time() - 600)
    frames = {frame.id: frame for frame in Frame.objects.filter(id__in=ids)}
    first = frames[ids[0]]
    assert first.image_base_id is None and first.image_path.endswith(storage.IMAGE_SUFFIX)
    deltas = [frames[frame_id] for frame_id in ids[1:]]
    assert all(frame.image_path.endswith(storage.DELTA_SUFFIX) for frame in deltas)
    # Each against the capture before it (a word more), in a chain no deeper than CHAIN_MAX: past
    # it, the next is stored against the screen stored whole, and a new chain starts there.
    assert [frame.image_base_id for frame in deltas[: storage.CHAIN_MAX]] == ids[: storage.CHAIN_MAX]
    depths = _depths(frames)
    assert max(depths.values()) == storage.CHAIN_MAX and depths[ids[storage.CHAIN_MAX + 1]] == 1
    # Much smaller than whole: a line of a 1920x1080 screen changed.
    assert max(frame.image_bytes for frame in deltas) * 4 < first.image_bytes
    for frame_id, image in zip(ids, images):
        assert np.array_equal(_served_pixels(api, frame_id), np.asarray(image)), frame_id
        assert np.array_equal(np.asarray(storage.image_pixels(frames[frame_id].image_path)), np.asarray(image))
    # OCR reads a delta's own pixels: the word typed last is in its text.
    assert services.frame_ocr_run(frame_id=ids[-1]) == "done"
    assert "word5" in Frame.objects.get(id=ids[-1]).ocr.text


def test_another_screen_or_size_is_stored_whole(api):
    rng = random.Random(5)
    one, other = new_screen(rng, "editor"), new_screen(rng, "browser")
    ids = _post_all(api, [render(one), render(other), render(one, size=(1280, 800))], start=time.time() - 600)
    assert [Frame.objects.get(id=frame_id).image_base_id for frame_id in ids] == [None, None, None]
    # Back to the first window: stored against it, the closest of the device's recent whole frames.
    back = _post_all(api, [render(one)], start=time.time() - 400)[0]
    assert Frame.objects.get(id=back).image_base_id == ids[0]


def test_deleting_a_base_stores_the_frames_that_stay_again_without_it(api):
    images = _typing(5, seed=8)
    start = time.time() - 3600
    ids = _post_all(api, images, start=start)
    base = Frame.objects.get(id=ids[0])
    base_file = storage.image_location(base.image_path)
    old_files = [storage.image_location(Frame.objects.get(id=frame_id).image_path) for frame_id in ids[1:]]
    job = frames_delete(start=datetime.fromtimestamp(start - 1, tz=dt_timezone.utc), end=datetime.fromtimestamp(start + 1, tz=dt_timezone.utc))
    assert job.status == "done" and not Frame.objects.filter(id=ids[0]).exists()
    assert not base_file.exists()
    assert not any(path.exists() for path in old_files)  # their old deltas went with their base
    kept = {frame.id: frame for frame in Frame.objects.filter(id__in=ids[1:])}
    assert kept[ids[1]].image_base_id is None  # the first that stays is stored whole now
    assert [kept[frame_id].image_base_id for frame_id in ids[2:]] == ids[1:-1]  # each against the one before
    for frame_id, image in zip(ids[1:], images[1:]):
        assert np.array_equal(_served_pixels(api, frame_id), np.asarray(image)), frame_id
    referenced = {storage.delta_base(storage.image_location(frame.image_path).read_bytes()) for frame in kept.values()}
    assert base.image_path not in referenced
    # Every file of the data dir's frames folder belongs to a frame that stays.
    on_disk = {p.relative_to(storage.image_location("")).as_posix() for p in storage.frames_root().rglob("*") if p.is_file()}
    assert on_disk == {frame.image_path for frame in kept.values()}


def test_deleting_frames_in_the_middle_of_a_chain_in_small_batches_keeps_every_frame_left_exact(api, monkeypatch):
    """A chain cut anywhere: the frames after the cut are stored again, and between the deletion's
    batches every frame left (deleted later or staying) still opens; nothing of a deleted frame
    stays on disk."""
    monkeypatch.setattr(services, "DELETE_BATCH", 2)
    images = _typing(storage.CHAIN_MAX, seed=12)
    start = time.time() - 3600
    ids = _post_all(api, images, start=start, step=10)
    assert _depths({frame.id: frame for frame in Frame.objects.filter(id__in=ids)})[ids[-1]] == storage.CHAIN_MAX - 1
    opened_between = []
    real_batch = services._deletion_batch

    def batch_then_open(job_id):
        done = real_batch(job_id)
        for frame in Frame.objects.filter(id__in=ids):  # before the batch's old files go
            opened_between.append(np.array_equal(np.asarray(storage.image_pixels(frame.image_path)), np.asarray(images[ids.index(frame.id)])))
        return done

    monkeypatch.setattr(services, "_deletion_batch", batch_then_open)
    # Frames 2, 3 and 4 of six go (the base and frame 1 stay; 5 and 6 were stored against 4).
    job = frames_delete(start=datetime.fromtimestamp(start + 15, tz=dt_timezone.utc), end=datetime.fromtimestamp(start + 45, tz=dt_timezone.utc))
    assert job.status == "done" and opened_between and all(opened_between)
    kept = {frame.id: frame for frame in Frame.objects.filter(id__in=ids)}
    assert sorted(kept) == [ids[0], ids[1], ids[5]]
    for frame_id in kept:
        assert np.array_equal(_served_pixels(api, frame_id), np.asarray(images[ids.index(frame_id)])), frame_id
    on_disk = {p.relative_to(storage.image_location("")).as_posix() for p in storage.frames_root().rglob("*") if p.is_file()}
    assert on_disk == {frame.image_path for frame in kept.values()}


def test_deleting_one_apps_frames_keeps_another_apps_frames_stored_against_them_whole(api):
    images = _typing(4, seed=9)
    start = time.time() - 7200
    ids = _post_all(api, images[:1], start=start, app_name="Code") + _post_all(api, images[1:], start=start + 10, app_name="Notes")
    assert Frame.objects.get(id=ids[1]).image_base_id == ids[0]
    frames_delete(start=datetime.fromtimestamp(start - 1, tz=dt_timezone.utc), end=datetime.fromtimestamp(start + 100, tz=dt_timezone.utc), app_name="Code")
    assert list(Frame.objects.filter(id__in=ids).order_by("id").values_list("id", flat=True)) == ids[1:]
    for frame_id, image in zip(ids[1:], images[1:]):
        assert np.array_equal(_served_pixels(api, frame_id), np.asarray(image))


def test_a_base_deleted_while_a_frame_is_stored_against_it_leaves_the_frame_whole(api, monkeypatch):
    images = _typing(2, seed=11)
    start = time.time() - 900
    first = _post_all(api, images[:1], start=start)[0]
    real_stage = storage.image_stage

    def stage_then_base_goes(image, **kwargs):
        staged = real_stage(image, **kwargs)
        if staged.base is not None:
            frames_delete(start=datetime.fromtimestamp(start - 1, tz=dt_timezone.utc), end=datetime.fromtimestamp(start + 1, tz=dt_timezone.utc))
        return staged

    monkeypatch.setattr(storage, "image_stage", stage_then_base_goes)
    second = _post_all(api, images[1:], start=start + 5)[0]
    assert not Frame.objects.filter(id=first).exists()
    frame = Frame.objects.get(id=second)
    assert frame.image_base_id is None and frame.image_path.endswith(storage.IMAGE_SUFFIX)
    assert np.array_equal(_served_pixels(api, second), np.asarray(images[1]))
    assert len([p for p in storage.frames_root().rglob("*") if p.is_file()]) == 1


# A screen is stored lossy only when it is mostly photos or video -------------------------------


def _dense_text_screen() -> Image.Image:
    """A 1920x1080 screen packed with small English and Chinese text, as documentation is."""
    from PIL import ImageDraw

    from tests.screens import font

    rng = random.Random(11)
    image = Image.new("RGB", (1920, 1080), "white")
    draw = ImageDraw.Draw(image)
    words = "storage index vector query frame window device capture budget invoice 索引 向量 查询 设备 截图 预算 发票 部署".split()
    for row in range(62):
        line = " ".join(rng.choice(words) for _ in range(40))
        draw.text((8, 4 + row * 17), line, font=font(13), fill=(20, 20, 20) if row % 7 else (30, 60, 160))
    return image


def _photo_screen(seed: int = 4) -> Image.Image:
    """A photo viewer: a smooth, many-coloured picture with a camera's noise over half the screen."""
    rng = np.random.default_rng(seed)
    coarse = Image.fromarray(rng.integers(0, 256, (12, 18, 3), dtype=np.uint8)).resize((700, 450), Image.BICUBIC)
    picture = np.clip(np.asarray(coarse).astype(np.int16) + rng.normal(0, 2.5, (450, 700, 3)), 0, 255).astype(np.uint8)
    screen = Image.new("RGB", (960, 540), (32, 32, 32))
    screen.paste(Image.fromarray(picture), (130, 45))
    return screen


def _metadata(api, frame_id: int) -> dict:
    resp = api.get(f"/api/v1/frames/{frame_id}/metadata")
    assert resp.status_code == 200, resp.content
    return resp.json()


def test_a_dense_screen_of_text_is_stored_exactly_however_large(api):
    dense = _dense_text_screen()
    out = io.BytesIO()
    dense.save(out, format="WEBP", lossless=True, quality=50, method=4)
    assert out.tell() > 80 * 1024  # past the size that once sent a screen to the lossy coder
    assert storage.photo_share(np.asarray(dense)) < storage.PHOTO_SHARE
    frame_id = _post_all(api, [dense], start=time.time() - 600)[0]
    assert np.array_equal(_served_pixels(api, frame_id), np.asarray(dense))
    assert _metadata(api, frame_id)["image_exact"] is True


def test_a_screen_of_photos_is_stored_lossy_and_says_so_unless_the_user_wants_every_screen_exact(api, settings):
    photo = _photo_screen()
    assert storage.photo_share(np.asarray(photo)) >= storage.PHOTO_SHARE
    frame_id = _post_all(api, [photo], start=time.time() - 600)[0]
    served = _served_pixels(api, frame_id).astype(np.int16)
    assert not np.array_equal(served, np.asarray(photo)) and np.abs(served - np.asarray(photo)).mean() < 4  # close, not exact
    assert _metadata(api, frame_id)["image_exact"] is False
    settings.IMAGE_EXACT = True
    exact = _post_all(api, [_photo_screen(seed=5)], start=time.time() - 500)[0]
    assert np.array_equal(_served_pixels(api, exact), np.asarray(_photo_screen(seed=5)))
    assert _metadata(api, exact)["image_exact"] is True


def test_a_frame_of_random_noise_is_no_photo_and_reads_back_exactly(api):
    noise = Image.fromarray(np.random.default_rng(2).integers(0, 256, (600, 800, 3), dtype=np.uint8))
    assert storage.photo_share(np.asarray(noise)) == 0.0  # every colour, but nothing smooth
    frame_id = _post_all(api, [noise], start=time.time() - 600)[0]
    assert np.array_equal(_served_pixels(api, frame_id), np.asarray(noise))
    assert _metadata(api, frame_id)["image_exact"] is True
    # A 1x1 frame, and a frame whose image file went missing, are answered too.
    tiny = _post_all(api, [Image.new("RGB", (1, 1), (9, 9, 9))], start=time.time() - 500)[0]
    assert np.array_equal(_served_pixels(api, tiny), np.full((1, 1, 3), 9, dtype=np.uint8))
    storage.image_location(Frame.objects.get(id=frame_id).image_path).unlink()
    assert _metadata(api, frame_id)["image_exact"] is None


def _reading(count: int, *, step: int = 80) -> list[Image.Image]:
    """A long page read on in a window with a fixed toolbar: each capture scrolled `step` px further."""
    from PIL import ImageDraw

    from tests.screens import font

    rng = random.Random(8)
    words = "the storage index keeps every frame exact while the page scrolls on and new lines arrive below".split()
    page = Image.new("RGB", (1920, 3000), "white")
    draw = ImageDraw.Draw(page)
    for row in range(110):
        draw.text((40, 10 + row * 27), f"{row:03d} " + " ".join(rng.choice(words) for _ in range(24)), font=font(17), fill="black")
    screens = []
    for number in range(count):
        screen = Image.new("RGB", (1920, 1080), (235, 235, 240))
        ImageDraw.Draw(screen).text((20, 20), f"Documentation - reading, page {number // 100}", font=font(20), fill="black")
        screen.paste(page.crop((0, 300 + number * step, 1920, 300 + number * step + 1000)), (0, 80))
        screens.append(screen)
    return screens


def test_a_scrolled_page_is_stored_as_its_new_lines_against_the_page_before_and_reads_back_exactly(api):
    images = _reading(4)
    start = time.time() - 600
    ids = _post_all(api, images, start=start, app_name="Chromium")
    frames = {frame.id: frame for frame in Frame.objects.filter(id__in=ids)}
    first = frames[ids[0]]
    assert first.image_base_id is None
    for frame_id in ids[1:]:
        frame = frames[frame_id]
        data = storage.image_location(frame.image_path).read_bytes()
        assert data.startswith(storage.DELTA_BOXED_MAGIC) and b'"shift":' in data[:4096] and frame.image_base_id == ids[ids.index(frame_id) - 1], frame_id
        # What scrolled in (80 px more each time), not the whole page moved.
        assert frame.image_bytes < first.image_bytes * 0.6, (frame.image_bytes, first.image_bytes)
    assert frames[ids[1]].image_bytes * 3 < first.image_bytes
    for frame_id, image in zip(ids, images):
        assert np.array_equal(_served_pixels(api, frame_id), np.asarray(image)), frame_id
        assert storage.image_exact(frames[frame_id].image_path)
    # Deleting the page the scrolled ones are stored against stores them again, still exact.
    frames_delete(start=datetime.fromtimestamp(start - 1, tz=dt_timezone.utc), end=datetime.fromtimestamp(start + 1, tz=dt_timezone.utc))
    assert not Frame.objects.filter(id=ids[0]).exists() and not storage.image_location(first.image_path).exists()
    for frame_id, image in zip(ids[1:], images[1:]):
        assert np.array_equal(_served_pixels(api, frame_id), np.asarray(image)), frame_id


@pytest.mark.parametrize("form", ["MRD1", "MRD2 box"])
def test_a_delta_written_in_an_earlier_form_keeps_opening(api, form):
    """Deltas written before the patch was cut to its box (MRD1: a patch the size of the screen),
    or before it held only the rows of changed tiles (MRD2 with a box, no rows), read back as they
    did."""
    import json
    import struct

    images = _typing(2)
    ids = _post_all(api, images, start=time.time() - 600)
    base, delta = (Frame.objects.get(id=frame_id) for frame_id in ids)
    assert delta.image_base_id == base.id
    pixels = np.asarray(images[1])
    mask = storage.changes.tiles_changed(np.asarray(images[0]), pixels, storage.TILE)
    where = storage.changes.tiles_pixels(mask, storage.TILE, pixels.shape)
    patch = np.zeros_like(pixels)
    patch[where] = pixels[where]
    header = {"base": base.image_path, "tile": storage.TILE, "size": [pixels.shape[1], pixels.shape[0]], "mask": storage._mask_pack(mask)}
    magic = storage.DELTA_MAGIC
    if form == "MRD2 box":
        rows, cols = np.nonzero(mask.any(axis=1))[0], np.nonzero(mask.any(axis=0))[0]
        box = [int(cols[0]) * storage.TILE, int(rows[0]) * storage.TILE, (int(cols[-1]) + 1) * storage.TILE, (int(rows[-1]) + 1) * storage.TILE]
        patch, header["box"], magic = patch[box[1] : box[3], box[0] : box[2]], box, storage.DELTA_BOXED_MAGIC
    out = io.BytesIO()
    Image.fromarray(patch).save(out, format="WEBP", lossless=True)
    head = json.dumps(header).encode()
    storage.image_location(delta.image_path).write_bytes(magic + struct.pack("<I", len(head)) + head + out.getvalue())
    assert np.array_equal(_served_pixels(api, delta.id), pixels)


# Frames stored in an older form, stored again by `manage.py compact` ---------------------------


def test_compact_stores_old_frames_again_smaller_exact_and_goes_on_where_it_stopped(api, monkeypatch):
    """Frames an older MyRecall stored (each whole: no chains), and a lossy one: `manage.py
    compact` stores them again as chains, a tree of frames at a time, every frame opening exactly
    between its steps; the old files go, a lossy frame stays as it is, a second run does nothing."""
    from io import StringIO

    from django.core.management import call_command

    images = _typing(8, seed=31)
    start = time.time() - 3 * 3600
    with monkeypatch.context() as patched:
        patched.setattr(services, "_image_bases", lambda *args: [])  # as before deltas: each whole
        ids = _post_all(api, images, start=start, step=10)
        photo_id = _post_all(api, [_photo_screen(seed=6)], start=start + 200)[0]
    Frame.objects.filter(id__in=ids + [photo_id]).update(image_form=None)
    before = {frame.id: (frame.image_path, frame.image_bytes) for frame in Frame.objects.all()}
    assert all(path.endswith(storage.IMAGE_SUFFIX) for path, _ in before.values())
    assert not storage.image_exact(before[photo_id][0])
    # A recent frame is left alone: a new one may still be stored against it.
    recent = _post_all(api, images[:1], start=time.time() - 60)[0]
    Frame.objects.filter(id=recent).update(image_form=None)

    steps = 0
    while services.images_compact(1):  # one tree at a time, as if stopped after each
        steps += 1
        for frame in Frame.objects.filter(id__in=ids):
            assert np.array_equal(np.asarray(storage.image_pixels(frame.image_path)), np.asarray(images[ids.index(frame.id)]))
    assert steps >= 1
    frames = {frame.id: frame for frame in Frame.objects.filter(id__in=ids)}
    assert all(frame.image_form == storage.IMAGE_FORM for frame in frames.values())
    assert frames[ids[0]].image_base_id is None  # then each against the one before, as far as a chain goes
    assert [frames[i].image_base_id for i in ids[1 : storage.CHAIN_MAX + 1]] == ids[: storage.CHAIN_MAX]
    assert max(_depths(frames).values()) == storage.CHAIN_MAX
    assert sum(frame.image_bytes for frame in frames.values()) * 2 < sum(before[i][1] for i in ids)
    for frame_id in ids:
        assert np.array_equal(_served_pixels(api, frame_id), np.asarray(images[ids.index(frame_id)])), frame_id
    kept_photo = Frame.objects.get(id=photo_id)
    assert kept_photo.image_path == before[photo_id][0] and kept_photo.image_form == storage.IMAGE_FORM
    assert Frame.objects.get(id=recent).image_form is None
    on_disk = {p.relative_to(storage.image_location("")).as_posix() for p in storage.frames_root().rglob("*") if p.is_file()}
    assert on_disk == set(Frame.objects.values_list("image_path", flat=True))

    out = StringIO()
    call_command("compact", stdout=out)
    assert "0 (images)" in out.getvalue()
