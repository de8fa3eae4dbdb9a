"""Bad input for the image store (issue 42): screens no one would design for (random noise, a
single pixel, a line one pixel high), a device that flips between two windows every capture or
changes its screen size, and files of a chain removed or damaged on disk. Each frame stores and
reads back exactly, or fails with a clear error for that frame alone; nothing else is lost.

Everything goes through the API, as a capture client and the viewer use it. `_served_pixels`
forgets the decoded frames this process keeps (storage._cache) before it reads, as a server
started again would."""

import io
import random
import time
from datetime import datetime
from datetime import timezone as dt_timezone

import numpy as np
import pytest
from PIL import Image

from frames import services, storage
from frames.models import Frame
from frames.services import frames_delete
from tests.conftest import post_frame
from tests.frames.test_storage import _depths, _png, _post_all, _served_pixels, _typing
from tests.screens import new_screen, render

pytestmark = pytest.mark.django_db


def _post_each(api, images, *, start: float, device: str = "laptop", app_name: str = "Code", windows=None) -> list[int]:
    """Post each image as a capture of its own (window titles `windows`, when given), 5 s apart."""
    ids = []
    for number, image in enumerate(images):
        fields = {"timestamp": start + number * 5, "device_name": device, "app_name": app_name, "client_frame_id": f"{device}-{start}-{number}"}
        if windows:
            fields["window_name"] = windows[number]
        resp = post_frame(api, _png(image), **fields)
        assert resp.status_code == 201, resp.content
        ids.append(resp.json()["frame_id"])
    return ids


def _assert_exact(api, ids, images) -> None:
    for frame_id, image in zip(ids, images):
        assert np.array_equal(_served_pixels(api, frame_id), np.asarray(image.convert("RGB"))), frame_id


def _on_disk() -> set[str]:
    root = storage.image_location("")
    return {p.relative_to(root).as_posix() for p in storage.frames_root().rglob("*") if p.is_file() and ".tmp" not in p.parts}


def _utc(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, tz=dt_timezone.utc)


def _assert_error_shape(resp, frame_id: int, status: int | None = None) -> None:
    """A clear answer in the one error shape, about this frame; never the server's 500."""
    assert 400 <= resp.status_code < 500 and (status is None or resp.status_code == status), (resp.status_code, resp.content)
    body = resp.json()
    assert set(body) == {"message", "extra"} and body["extra"].get("frame_id") == frame_id, body


# Screens no one would design for ----------------------------------------------------------------


def test_noise_after_noise_and_tiny_frames_on_one_device_read_back_exactly(api, settings):
    """test_storage covers one frame of noise and one 1x1 frame. Here each comes again on the same
    device, where the frame before is a candidate base: noise after other noise (every tile
    changed: whole), noise with a box of it changed (a delta may pay), a single pixel after
    another, and frames a pixel thin or not a whole number of tiles."""
    settings.DEDUP_MAX_DISTANCE = -1  # near-identical frames are the point here
    rng = np.random.default_rng(7)
    first = rng.integers(0, 256, (600, 800, 3), dtype=np.uint8)
    second = rng.integers(0, 256, (600, 800, 3), dtype=np.uint8)
    third = first.copy()
    third[100:164, 200:296] = rng.integers(0, 256, (64, 96, 3), dtype=np.uint8)
    noise = [Image.fromarray(pixels) for pixels in (first, second, third)]
    ids = _post_each(api, noise, start=time.time() - 900)
    frames = {frame.id: frame for frame in Frame.objects.filter(id__in=ids)}
    assert frames[ids[1]].image_base_id is None  # nothing in common with the noise before
    assert frames[ids[2]].image_base_id in (None, ids[0])  # the noise it is nearly, or whole
    if frames[ids[2]].image_base_id is not None:
        assert frames[ids[2]].image_bytes < frames[ids[0]].image_bytes * storage.DELTA_MAX_SHARE
    _assert_exact(api, ids, noise)

    thin = []
    for size in [(1, 1), (1, 1), (1, 1), (1000, 1), (1000, 1), (1, 700), (1, 700), (33, 65), (33, 65)]:
        pixels = np.full((size[1], size[0], 3), 200, dtype=np.uint8)
        pixels.reshape(-1, 3)[len(thin) % pixels[..., 0].size] = (len(thin) * 20, 0, 255)  # one pixel differs each time
        thin.append(Image.fromarray(pixels))
    thin_ids = _post_each(api, thin, start=time.time() - 600)
    frames = {frame.id: frame for frame in Frame.objects.filter(id__in=thin_ids)}
    for frame_id, image in zip(thin_ids, thin):
        frame = frames[frame_id]
        assert (frame.width, frame.height) == image.size
        if frame.image_base_id is not None:
            assert frame.image_base_id in frames and (frames[frame.image_base_id].width, frames[frame.image_base_id].height) == image.size
    _assert_exact(api, thin_ids, thin)


# A device that flips between screens, or changes its screen size --------------------------------


def test_frames_alternating_between_two_screens_are_each_stored_against_their_own_screen(api):
    """12 captures, a chat and an editor by turns, a word typed into each every time it shows:
    each frame is stored against a frame of its own screen (its last one, or one stored whole),
    never the other's, reads back exactly, and the twelve take well under twelve whole screens."""
    rng = random.Random(21)
    screens = [new_screen(rng, "editor", zh_share=0.0), new_screen(rng, "chat", zh_share=0.3)]
    images, owner = [], []
    for number in range(12):
        screen = screens[number % 2]
        screen.lines[3 + number // 2] += f" typed{number}"
        images.append(render(screen))
        owner.append(number % 2)
    start = time.time() - 1200
    ids = []
    for number, image in enumerate(images):
        screen = screens[owner[number]]
        ids += _post_each(api, [image], start=start + number * 3, app_name=screen.app_name, windows=[screen.window_name])
    frames = {frame.id: frame for frame in Frame.objects.filter(id__in=ids)}
    assert frames[ids[0]].image_base_id is None and frames[ids[1]].image_base_id is None
    for number, frame_id in enumerate(ids[2:], start=2):
        base = frames[frame_id].image_base_id
        assert base is not None, number  # a screen shown 3 s before, a word apart: never whole
        own = [ids[k] for k in range(number) if owner[k] == owner[number]]
        assert base in own and (base == own[-1] or frames[base].image_base_id is None), (number, ids.index(base))
    assert max(_depths(frames).values()) <= storage.CHAIN_MAX
    _assert_exact(api, ids, images)
    whole = frames[ids[0]].image_bytes + frames[ids[1]].image_bytes  # one of each, stored whole
    stored = sum(frame.image_bytes for frame in frames.values())
    assert stored < whole * 6 * 0.3, (stored, whole * 6)


def test_a_device_whose_screen_size_changes_mid_session_stores_no_delta_across_sizes(api):
    """1920x1080, then 1280x800 (a display unplugged), then 1920x1080 again, a word typed at
    every capture: every frame reads back exactly, and no frame is stored against one of
    another size."""
    rng = random.Random(22)
    screen = new_screen(rng, "editor", zh_share=0.0)
    sizes = [(1920, 1080)] * 3 + [(1280, 800)] * 3 + [(1920, 1080)] * 3
    images = []
    for number, size in enumerate(sizes):
        screen.lines[2 + number % 4] += f" word{number}"
        images.append(render(screen, size=size))
    ids = _post_each(api, images, start=time.time() - 900, app_name=screen.app_name, windows=[screen.window_name] * len(images))
    frames = {frame.id: frame for frame in Frame.objects.filter(id__in=ids)}
    for frame_id, size in zip(ids, sizes):
        frame = frames[frame_id]
        assert (frame.width, frame.height) == size
        if frame.image_base_id is not None:
            base = frames[frame.image_base_id]
            assert (base.width, base.height) == size, (ids.index(frame_id), ids.index(base.id))
    assert frames[ids[3]].image_base_id is None  # the first of its size
    # Within one size, the captures after the first are deltas; back at 1920x1080, against 1920x1080.
    assert all(frames[ids[k]].image_base_id is not None for k in (1, 2, 4, 5, 6, 7, 8))
    _assert_exact(api, ids, images)


# Files of a chain removed or damaged on disk ----------------------------------------------------


def test_a_removed_base_file_is_a_404_for_its_chain_alone_and_the_device_goes_on_storing(api):
    """The file of a frame others are stored against is removed (by a user, or a disk fault),
    and the server starts again (nothing of it kept in memory): each frame whose chain lost the
    file is a 404 in the error shape, every other frame opens, the device's next frames are
    stored (whole or against a frame that opens) and read back exactly, and deleting the broken
    frames works and leaves nothing of them on disk."""
    images = _typing(6, seed=31)
    start = time.time() - 3000
    ids = _post_all(api, images[:4], start=start)
    other = _post_each(api, _typing(2, seed=32), start=start + 100, device="desktop")
    assert [Frame.objects.get(id=frame_id).image_base_id for frame_id in ids[1:]] == ids[:3]
    storage.image_location(Frame.objects.get(id=ids[0]).image_path).unlink()
    storage._cache.clear()  # the server started again

    for frame_id in ids[:4]:
        for url in (f"/api/v1/frames/{frame_id}", f"/frames/{frame_id}"):
            resp = api.get(url)
            _assert_error_shape(resp, frame_id, 404)
            assert "missing" in resp.json()["message"]
    assert api.get(f"/api/v1/frames/{ids[1]}/metadata").status_code == 200
    _assert_exact(api, other, _typing(2, seed=32))

    later = _post_all(api, images[4:], start=start + 20)
    for frame_id in later:
        base = Frame.objects.get(id=frame_id).image_base_id
        assert base is None or base in later, base  # never against a frame that does not open
    _assert_exact(api, later, images[4:])

    gone = api.delete(f"/api/v1/frames?start_time={start - 1}&end_time={start + 16}")
    assert gone.status_code == 200, gone.content
    assert not Frame.objects.filter(id__in=ids).exists()
    assert all(api.get(f"/api/v1/frames/{frame_id}").status_code == 404 for frame_id in ids)
    _assert_exact(api, later, images[4:])
    _assert_exact(api, other, _typing(2, seed=32))
    assert _on_disk() == {frame.image_path for frame in Frame.objects.all()}


def test_a_base_file_removed_while_the_server_runs_is_not_built_on(api):
    """The base's file goes while this process still holds its pixels (it stored or opened the
    frames just now): the device's next frame must not be stored against a chain that reaches
    the missing file, or it opens only until the server starts again."""
    images = _typing(4, seed=33)
    start = time.time() - 2400
    ids = _post_all(api, images[:3], start=start)
    assert Frame.objects.get(id=ids[2]).image_base_id == ids[1]
    storage.image_location(Frame.objects.get(id=ids[0]).image_path).unlink()  # its pixels stay in storage._cache
    new = _post_all(api, images[3:], start=start + 15)[0]
    _assert_exact(api, [new], images[3:])  # after a restart (_served_pixels forgets the cache)


def test_a_removed_file_in_the_middle_of_a_chain_lets_its_frames_be_deleted(api):
    """A file in the middle of a chain removed: deleting the frame stored whole above it, or the
    frame whose file is gone, works (the frames below it cannot be stored again, as nothing
    reads them: they stay a 404), and the frames that open keep opening."""
    images = _typing(5, seed=34)
    start = time.time() - 3600
    ids = _post_all(api, images, start=start, step=10)
    assert _depths({frame.id: frame for frame in Frame.objects.filter(id__in=ids)})[ids[-1]] == 4
    storage.image_location(Frame.objects.get(id=ids[2]).image_path).unlink()
    storage._cache.clear()
    _assert_exact(api, ids[:2], images[:2])

    job = frames_delete(start=_utc(start + 15), end=_utc(start + 25))  # the frame whose file is gone
    assert job.status == "done" and not Frame.objects.filter(id=ids[2]).exists()
    _assert_exact(api, ids[:2], images[:2])
    for frame_id in ids[3:]:
        _assert_error_shape(api.get(f"/api/v1/frames/{frame_id}"), frame_id, 404)

    job = frames_delete(start=_utc(start - 1), end=_utc(start + 1))  # the frame stored whole at the top
    assert job.status == "done" and list(Frame.objects.filter(id__in=ids).order_by("id").values_list("id", flat=True)) == [ids[1], ids[3], ids[4]]
    _assert_exact(api, ids[1:2], images[1:2])
    job = frames_delete(start=_utc(start - 1), end=_utc(start + 100))
    assert job.status == "done" and not Frame.objects.exists() and _on_disk() == set()


DAMAGES = ["truncated", "header cut", "magic only", "garbage", "magic then garbage"]


def _damage(frame: Frame, how: str) -> None:
    """Damage the frame's file on disk, as a failing disk or a stray program might."""
    path = storage.image_location(frame.image_path)
    data = path.read_bytes()
    garbage = random.Random(5).randbytes(len(data))
    path.write_bytes(
        {
            "truncated": data[: len(data) // 2],
            "header cut": data[:12],  # a delta's magic and part of its header's length and header
            "magic only": data[:6],
            "garbage": garbage,
            "magic then garbage": data[:4] + garbage[4:],
        }[how]
    )


def _damaged_chain(api, how: str, *, seed: int) -> tuple[list[int], list[Image.Image], float]:
    """A device's chain of three captures (whole, then two deltas) whose middle delta is damaged;
    the server started again since. Returns the frames' ids, the images of five captures and
    the first's time."""
    images = _typing(5, seed=seed)
    start = time.time() - 3000
    ids = _post_all(api, images[:3], start=start)
    assert [Frame.objects.get(id=frame_id).image_base_id for frame_id in ids] == [None, ids[0], ids[1]]
    _damage(Frame.objects.get(id=ids[1]), how)
    storage._cache.clear()
    return ids, images, start


@pytest.mark.parametrize("how", DAMAGES)
def test_opening_a_frame_whose_delta_file_is_damaged_is_a_clear_error_for_its_chain_alone(api, how):
    """A delta's file truncated or overwritten: opening it, and the frame stored against it, is
    a clear error in the one error shape, never a 500; the frame above it and another device's
    frame open, and the frames' metadata answers."""
    other = _post_each(api, _typing(1, seed=36), start=time.time() - 2000, device="desktop")
    ids, images, _ = _damaged_chain(api, how, seed=35)
    for frame_id in ids[1:]:
        for url in (f"/api/v1/frames/{frame_id}", f"/frames/{frame_id}"):
            _assert_error_shape(api.get(url), frame_id)
    _assert_exact(api, ids[:1], images[:1])
    _assert_exact(api, other, _typing(1, seed=36))
    assert api.get(f"/api/v1/frames/{ids[1]}/metadata").status_code == 200


@pytest.mark.parametrize("how", DAMAGES)
def test_the_next_frames_of_a_device_whose_last_delta_is_damaged_are_stored_exactly(api, how):
    """The device's frame just before is a delta whose chain is damaged: its next captures are
    stored (whole, or against a frame that opens) and read back exactly."""
    ids, images, start = _damaged_chain(api, how, seed=37)
    later = _post_all(api, images[3:], start=start + 15)
    for frame_id in later:
        assert Frame.objects.get(id=frame_id).image_base_id not in ids[1:]
    _assert_exact(api, later, images[3:])


@pytest.mark.parametrize("how", DAMAGES)
def test_deleting_the_frames_above_a_damaged_delta_works(api, how):
    """Deleting the frame stored whole and the damaged delta stored against it works; the delta
    stored against the damaged one stays a clear error (nothing can read it), nothing of the
    deleted frames stays on disk, and deleting the rest works too."""
    ids, images, start = _damaged_chain(api, how, seed=38)
    gone = api.delete(f"/api/v1/frames?start_time={start - 1}&end_time={start + 6}")
    assert gone.status_code == 200, gone.content
    assert list(Frame.objects.values_list("id", flat=True)) == ids[2:]
    assert _on_disk() == {Frame.objects.get(id=ids[2]).image_path}
    gone = api.delete(f"/api/v1/frames?start_time={start - 1}&end_time={start + 60}")
    assert gone.status_code == 200 and not Frame.objects.exists() and _on_disk() == set()


@pytest.mark.parametrize("how", ["truncated", "garbage"])
def test_a_damaged_whole_frame_under_a_chain_is_a_clear_error_and_the_device_goes_on(api, how):
    """The file stored whole at a chain's top damaged: the delta stored against it is a clear
    error (the damaged file itself is served as it is, as every whole file is), and the device's
    next frames are stored and read back exactly."""
    images = _typing(4, seed=39)
    start = time.time() - 2800
    ids = _post_all(api, images[:2], start=start)
    _damage(Frame.objects.get(id=ids[0]), how)
    storage._cache.clear()
    later = _post_all(api, images[2:], start=start + 10)
    _assert_exact(api, later, images[2:])
    _assert_error_shape(api.get(f"/api/v1/frames/{ids[1]}"), ids[1])


# Deleting chains across batches and devices ------------------------------------------------------


def test_deleting_a_range_across_two_devices_chains_in_small_batches_keeps_every_frame_left_exact(api, monkeypatch):
    """Two devices capture at once, each its own chain; a range deleted in batches of 3 (ordered
    by id: each batch holds frames of both devices) cuts both chains in the middle: between the
    batches every frame left opens, after it every frame kept reads back exactly, each device's
    frames stay stored against its own, and nothing of a deleted frame stays on disk."""
    monkeypatch.setattr(services, "DELETE_BATCH", 3)
    laptop, desktop = _typing(storage.CHAIN_MAX + 1, seed=41), _typing(storage.CHAIN_MAX + 1, seed=42)
    start = time.time() - 3600
    ids: dict[int, tuple[str, Image.Image]] = {}
    for number in range(storage.CHAIN_MAX + 1):
        for device, images in (("laptop", laptop), ("desktop", desktop)):
            frame_id = _post_each(api, [images[number]], start=start + number * 10, device=device, windows=["notes"])[0]
            ids[frame_id] = (device, images[number])
    frames = {frame.id: frame for frame in Frame.objects.filter(id__in=ids)}
    assert max(_depths(frames).values()) >= 3
    opened_between = []
    real_batch = services._deletion_batch

    def batch_then_open(job_id):
        done = real_batch(job_id)
        storage._cache.clear()
        for frame in Frame.objects.filter(id__in=ids):
            opened_between.append(np.array_equal(np.asarray(storage.image_pixels(frame.image_path)), np.asarray(ids[frame.id][1])))
        return done

    monkeypatch.setattr(services, "_deletion_batch", batch_then_open)
    gone = api.delete(f"/api/v1/frames?start_time={start + 5}&end_time={start + 35}")  # captures 1, 2 and 3 of each
    assert gone.status_code == 200 and gone.json()["removed"]["frames"] == 6, gone.content
    assert opened_between and all(opened_between)
    kept = {frame.id: frame for frame in Frame.objects.filter(id__in=ids)}
    assert len(kept) == 2 * (storage.CHAIN_MAX + 1) - 6
    for frame in kept.values():
        if frame.image_base_id is not None:
            assert frame.image_base_id in kept and ids[frame.image_base_id][0] == ids[frame.id][0]
    for frame_id in kept:
        assert np.array_equal(_served_pixels(api, frame_id), np.asarray(ids[frame_id][1])), frame_id
    assert _on_disk() == {frame.image_path for frame in kept.values()}
