"""Lossless image coders compared on real captured screens (issue 42, "a better lossless coder
where it pays"): bytes, encode CPU and decode time per frame, and whether every decode is exact.

Two sets of images, both 1920x1080 screens of real programs:
- whole: every --every-th frame of each captured working session (bench/sessions, cached under
  ~/.cache/myrecall-bench/sessions/<name>/NNN.png; five sessions: docs-en, docs-zh, vim-code,
  terminal-dark, chat-mail) and the 45 unrelated screens of bench/quality/captured (lossless WebP);
- delta: for each two consecutive frames of a session, the later one with every unchanged 32x32
  tile black (a tile is changed when any of its pixels differs), the patch a delta is stored as
  today (frames/storage.py), computed here with numpy so that this bench does not follow the
  store's changes.

Per coder and set: bytes per frame (median, mean), encode CPU per frame (time.process_time, p50 and
p95; one thread where the coder has a thread option, and rows marked "2 threads" give that figure
with the encode wall time beside it), decode wall time to RGB pixels (p50, p95) and how many decodes
are bit-exact. Coders far too slow for the goals run on every --slow-stride-th image only (their n
says so). With --video, a session's frames as lossless video (PyAV): libx264rgb qp 0 (inter
prediction, medium and ultrafast), bytes per frame, encode CPU per frame, and what opening one frame
costs (decoding from the keyframe before it). The trial coders (imagecodecs, pillow-jxl-plugin,
pyoxipng, qoi, zstandard) are bench-only: a coder whose package is missing is skipped, and said so.
One process, one thread per coder unless said. Prints figures, asserts nothing.

    .venv/bin/python bench/coders.py                          # both sets, every coder
    .venv/bin/python bench/coders.py --sets delta --coders webp,jxl --video
    .venv/bin/python bench/coders.py --json /tmp/coders.json
"""

import os

os.environ.setdefault("RAYON_NUM_THREADS", "1")  # oxipng and pillow-jxl-plugin (Rust) on one thread

import argparse
import io
import json
import statistics
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Callable

import numpy as np
from PIL import Image, features

ROOT = Path(__file__).resolve().parent.parent
SESSIONS_DIR = Path.home() / ".cache" / "myrecall-bench" / "sessions"
SESSIONS = ["docs-en", "docs-zh", "vim-code", "terminal-dark", "chat-mail"]
CAPTURED_DIR = ROOT / "bench" / "quality" / "captured"
TILE = 32


@dataclass
class Coder:
    label: str
    encode: Callable[[np.ndarray], bytes]
    decode: Callable[[bytes], np.ndarray]
    slow: bool = False  # run on every --slow-stride-th image only


def _pillow_decode(data: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image.convert("RGB"))


def _pillow_encode(**options) -> Callable[[np.ndarray], bytes]:
    def encode(pixels: np.ndarray) -> bytes:
        out = io.BytesIO()
        Image.fromarray(pixels).save(out, **options)
        return out.getvalue()

    return encode


def coders_available() -> tuple[list[Coder], list[str]]:
    """Every candidate whose package is installed, and a line per package (its version, or why not)."""
    found: list[Coder] = []
    notes = [f"Pillow {Image.__version__} (libwebp {features.version('webp')}, zlib {features.version('zlib')})"]
    for method, quality in [(0, 50), (0, 100), (1, 50), (1, 90), (4, 50), (4, 75), (4, 90), (4, 100), (6, 90), (6, 100)]:
        label = f"webp m{method} q{quality}" + (" (today)" if (method, quality) == (4, 50) else "")
        encode = _pillow_encode(format="WEBP", lossless=True, method=method, quality=quality)
        found.append(Coder(label, encode, _pillow_decode, slow=(method == 6 and quality == 100)))
    try:
        import imagecodecs

        notes.append(f"imagecodecs {imagecodecs.__version__} (libjxl {imagecodecs.jpegxl_version()})")

        def jxl(effort: int, threads: int) -> Coder:
            return Coder(
                f"jxl e{effort}" + (f" {threads} threads" if threads > 1 else ""),
                lambda p: bytes(imagecodecs.jpegxl_encode(p, lossless=True, effort=effort, numthreads=threads)),
                lambda d: imagecodecs.jpegxl_decode(d, numthreads=threads),
                slow=effort >= 4,
            )

        found += [jxl(effort, 1) for effort in (1, 2, 3, 4, 5, 7)] + [jxl(7, 2)]
    except ImportError:
        notes.append("imagecodecs: not installed (JPEG XL skipped)")
    try:
        import pillow_jxl  # noqa: F401  (registers JXL with Pillow)
        from importlib.metadata import version

        notes.append(f"pillow-jxl-plugin {version('pillow-jxl-plugin')}")
        found.append(Coder("jxl e7 (pillow-jxl-plugin)", _pillow_encode(format="JXL", lossless=True, effort=7, num_threads=1),
                           _pillow_decode, slow=True))
    except ImportError:
        notes.append("pillow-jxl-plugin: not installed")
    for level in (1, 6, 9):
        found.append(Coder(f"png level {level}", _pillow_encode(format="PNG", compress_level=level), _pillow_decode, slow=level == 9))
    found.append(Coder("png optimize", _pillow_encode(format="PNG", optimize=True), _pillow_decode, slow=True))
    try:
        import oxipng
        from importlib.metadata import version

        notes.append(f"pyoxipng {version('pyoxipng')}")

        def oxi(level: int) -> Coder:
            def encode(pixels: np.ndarray) -> bytes:
                raw = oxipng.RawImage(pixels.tobytes(), pixels.shape[1], pixels.shape[0], color_type=oxipng.ColorType.rgb())
                return raw.create_optimized_png(level=level)

            return Coder(f"oxipng level {level}", encode, _pillow_decode, slow=level >= 2)

        found += [oxi(0), oxi(2)]
    except ImportError:
        notes.append("pyoxipng: not installed")
    try:
        import qoi
        from importlib.metadata import version

        notes.append(f"qoi {version('qoi')}")
        found.append(Coder("qoi", lambda p: qoi.encode(p), lambda d: qoi.decode(d)))
        try:
            import zstandard

            notes.append(f"zstandard {zstandard.__version__}")
            for level in (3, 9):
                compressor, decompressor = zstandard.ZstdCompressor(level=level), zstandard.ZstdDecompressor()
                found.append(Coder(f"qoi + zstd {level}", lambda p, c=compressor: c.compress(qoi.encode(p)),
                                   lambda d, z=decompressor: qoi.decode(z.decompress(d))))
        except ImportError:
            notes.append("zstandard: not installed")
    except ImportError:
        notes.append("qoi: not installed")
    return found, notes


# The images -------------------------------------------------------------------------------------


def _rgb(path: Path) -> np.ndarray:
    with Image.open(path) as image:
        return np.ascontiguousarray(np.asarray(image.convert("RGB")))


def session_frames(name: str) -> list[Path]:
    folder = SESSIONS_DIR / name
    manifest = json.loads((folder / "manifest.json").read_text())
    return [folder / frame["file"] for frame in manifest["frames"]]


def whole_set(every: int) -> list[np.ndarray]:
    images = [_rgb(path) for name in SESSIONS for path in session_frames(name)[::every]]
    return images + [_rgb(path) for path in sorted(CAPTURED_DIR.glob("*.webp"))]


def patch(before: np.ndarray, after: np.ndarray) -> tuple[np.ndarray, float]:
    """after with every 32x32 tile that is the same in before black, and the share of tiles changed."""
    height, width = after.shape[:2]
    rows, cols = -(-height // TILE), -(-width // TILE)
    differs = np.zeros((rows * TILE, cols * TILE), dtype=bool)
    differs[:height, :width] = (before != after).any(axis=2)
    changed = differs.reshape(rows, TILE, cols, TILE).any(axis=(1, 3))
    keep = np.repeat(np.repeat(changed, TILE, axis=0), TILE, axis=1)[:height, :width]
    out = np.zeros_like(after)
    out[keep] = after[keep]
    return out, float(changed.mean())


def delta_set() -> tuple[list[np.ndarray], list[float]]:
    patches, shares = [], []
    for name in SESSIONS:
        frames = session_frames(name)
        previous = _rgb(frames[0])
        for path in frames[1:]:
            current = _rgb(path)
            image, share = patch(previous, current)
            patches.append(image)
            shares.append(share)
            previous = current
    return patches, shares


# Measuring --------------------------------------------------------------------------------------


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(coder: Coder, images: list[np.ndarray], slow_stride: int) -> dict:
    chosen = images[::slow_stride] if coder.slow else images
    sizes, cpu, wall, decode, exact = [], [], [], [], 0
    for pixels in chosen:
        began_cpu, began_wall = time.process_time(), time.perf_counter()
        data = coder.encode(pixels)
        cpu.append(time.process_time() - began_cpu)
        wall.append(time.perf_counter() - began_wall)
        began = time.perf_counter()
        back = coder.decode(data)
        decode.append(time.perf_counter() - began)
        sizes.append(len(data))
        exact += bool(np.array_equal(np.asarray(back)[..., :3], pixels))
    return {
        "coder": coder.label,
        "n": len(chosen),
        "kb_median": statistics.median(sizes) / 1000,
        "kb_mean": statistics.fmean(sizes) / 1000,
        "encode_cpu_ms_p50": 1000 * _pct(cpu, 0.5),
        "encode_cpu_ms_p95": 1000 * _pct(cpu, 0.95),
        "encode_wall_ms_p50": 1000 * _pct(wall, 0.5),
        "decode_ms_p50": 1000 * _pct(decode, 0.5),
        "decode_ms_p95": 1000 * _pct(decode, 0.95),
        "exact": exact,
    }


def table(title: str, rows: list[dict]) -> None:
    print(f"\n{title}\n")
    print("| coder | n | KB/frame median | mean | encode CPU ms p50 | p95 | enc wall p50 | decode ms p50 | p95 | exact |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['coder']} | {r['n']} | {r['kb_median']:.1f} | {r['kb_mean']:.1f} | {r['encode_cpu_ms_p50']:.0f} | "
              f"{r['encode_cpu_ms_p95']:.0f} | {r['encode_wall_ms_p50']:.0f} | {r['decode_ms_p50']:.1f} | {r['decode_ms_p95']:.1f} | "
              f"{r['exact']}/{r['n']} |")
    sys.stdout.flush()


def serve_cost(images: list[np.ndarray]) -> dict:
    """What the viewer pays on top of decoding for a frame not stored as WebP or PNG: the store
    serves such a frame as a lossless WebP made on the way (method 1, quality 0, as a delta is)."""
    encode = _pillow_encode(format="WEBP", lossless=True, method=1, quality=0)
    wall = []
    for pixels in images:
        began = time.perf_counter()
        encode(pixels)
        wall.append(time.perf_counter() - began)
    return {"n": len(images), "ms_p50": 1000 * _pct(wall, 0.5), "ms_p95": 1000 * _pct(wall, 0.95)}


def video(name: str, codec: str, options: dict[str, str], gop: int) -> dict:
    """A session's frames as one lossless video stream: bytes and encode CPU per frame, exactness,
    the decode time per frame and what opening the frame furthest from its keyframe costs."""
    import av

    images = [_rgb(path) for path in session_frames(name)]
    ctx = av.CodecContext.create(codec, "w")
    ctx.width, ctx.height = images[0].shape[1], images[0].shape[0]
    ctx.pix_fmt = "rgb24" if codec == "libx264rgb" else "bgr0"  # this FFmpeg's FFV1 refuses gbrp
    ctx.time_base = Fraction(1, 1000)
    ctx.framerate = Fraction(1, 3)
    ctx.gop_size = gop
    ctx.thread_count = 1
    ctx.options = options
    packets: list[av.Packet] = []
    began = time.process_time()
    for number, pixels in enumerate(images):
        frame = av.VideoFrame.from_ndarray(pixels, format="rgb24")
        if ctx.pix_fmt != "rgb24":
            frame = frame.reformat(format=ctx.pix_fmt)
        frame.pts = number * 3000
        packets += ctx.encode(frame)
    packets += ctx.encode(None)
    cpu = time.process_time() - began
    data = [(bytes(p), p.is_keyframe) for p in packets]
    decoder = av.CodecContext.create("h264" if codec == "libx264rgb" else codec, "r")
    decoder.thread_count = 1
    decoded, times = [], []
    for payload, _ in data:
        began_wall = time.perf_counter()
        frames = [f.to_ndarray(format="rgb24") for f in decoder.decode(av.Packet(payload))]
        times.append(time.perf_counter() - began_wall)
        decoded += frames
    decoded += [f.to_ndarray(format="rgb24") for f in decoder.decode(None)]
    # opening frame k: decode every packet from the keyframe before it up to k
    opens, since_key = [], 0.0
    for (payload, key), spent in zip(data, times):
        since_key = spent if key else since_key + spent
        opens.append(since_key)
    return {
        "session": name, "codec": codec, "gop": gop, "frames": len(images),
        "kb_per_frame": sum(len(p) for p, _ in data) / len(images) / 1000,
        "encode_cpu_ms_per_frame": 1000 * cpu / len(images),
        "decode_ms_p50": 1000 * _pct(times, 0.5),
        "open_ms_p95": 1000 * _pct(opens, 0.95), "open_ms_max": 1000 * max(opens),
        "exact": sum(np.array_equal(a, b) for a, b in zip(decoded, images)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="whole,delta", help="whole, delta or both (comma-separated)")
    parser.add_argument("--coders", default="", help="only coders whose label contains one of these (comma-separated)")
    parser.add_argument("--every", type=int, default=5, help="whole set: every n-th frame of a session")
    parser.add_argument("--slow-stride", type=int, default=4, help="slow coders: every n-th image of a set")
    parser.add_argument("--video", action="store_true", help="also lossless video of each session (PyAV)")
    parser.add_argument("--gop", type=int, default=10, help="video: frames from one keyframe to the next")
    parser.add_argument("--json", type=Path, help="write every figure here too")
    args = parser.parse_args()

    coders, notes = coders_available()
    if args.coders:
        wanted = [word.strip() for word in args.coders.split(",") if word.strip()]
        coders = [c for c in coders if any(word in c.label for word in wanted)]
    print("Coders from:", "; ".join(notes))
    out: dict = {"notes": notes, "command": " ".join(sys.argv)}
    sets = {s.strip() for s in args.sets.split(",")}
    if "whole" in sets:
        images = whole_set(args.every)
        print(f"\nwhole: {len(images)} screens (every {args.every}th frame of {len(SESSIONS)} sessions, and bench/quality/captured)")
        rows = []
        for coder in coders:
            rows.append(measure(coder, images, args.slow_stride))
            print(f"  {coder.label}: {rows[-1]['kb_mean']:.1f} KB, {rows[-1]['encode_cpu_ms_p95']:.0f} ms p95", file=sys.stderr)
        table("Whole frames", rows)
        serve = serve_cost(images)
        print(f"\nServing a whole frame not stored as WebP or PNG (decode, then lossless WebP m1 q0): "
              f"+{serve['ms_p50']:.0f} ms p50, +{serve['ms_p95']:.0f} ms p95 (n={serve['n']})")
        out["whole"], out["serve"] = rows, serve
    if "delta" in sets:
        patches, shares = delta_set()
        print(f"\ndelta: {len(patches)} patches (consecutive frames of {len(SESSIONS)} sessions); tiles changed: "
              f"median {100 * statistics.median(shares):.0f} %, {sum(s > 0.6 for s in shares)} over 60 % (stored whole today)")
        rows = []
        for coder in coders:
            rows.append(measure(coder, patches, args.slow_stride))
            print(f"  {coder.label}: {rows[-1]['kb_mean']:.1f} KB, {rows[-1]['encode_cpu_ms_p95']:.0f} ms p95", file=sys.stderr)
        table("Delta patches (unchanged tiles black)", rows)
        out["delta"] = rows
    if args.json:  # the sets so far, should the video fail
        args.json.write_text(json.dumps(out, indent=1))
    if args.video:
        rows = []
        for name in SESSIONS:
            for codec, options in [("libx264rgb", {"qp": "0", "preset": "medium"}), ("libx264rgb", {"qp": "0", "preset": "ultrafast"})]:
                try:
                    row = video(name, codec, options, args.gop)
                except Exception as exc:  # an FFmpeg build without this encoder or pixel format
                    print(f"  {codec} {options}: {exc}", file=sys.stderr)
                    continue
                row["preset"] = options.get("preset", "")
                rows.append(row)
        print(f"\nLossless video, a session a stream (keyframe every {args.gop} frames, one thread)\n")
        print("| session | codec | KB/frame | encode CPU ms/frame | decode ms/frame p50 | open a frame ms p95 | max | exact |")
        print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['session']} | {r['codec']} {r['preset']} | {r['kb_per_frame']:.1f} | {r['encode_cpu_ms_per_frame']:.0f} | "
                  f"{r['decode_ms_p50']:.1f} | {r['open_ms_p95']:.0f} | {r['open_ms_max']:.0f} | {r['exact']}/{r['frames']} |")
        out["video"] = rows
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
