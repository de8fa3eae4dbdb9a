"""The one module that talks to OCR engines: RapidOCR (default) and Tesseract.

Engines are created once per process, lazily, and warmed up by the worker.
Every engine returns the same thing: a list of OcrLine in image pixels. Which
parts of a screen go through an engine, and at what scale, is frames/reading.py's
to decide: nothing else calls an engine.
"""

import os
import threading
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
os.environ.setdefault("TESSDATA_PREFIX", "/usr/share/tesseract-ocr/5/tessdata")


@dataclass
class OcrWord:
    text: str
    box: tuple[int, int, int, int]  # x, y, w, h


@dataclass
class OcrLine:
    text: str
    box: tuple[int, int, int, int]
    confidence: float
    words: list[OcrWord] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "t": self.text,
            "b": list(self.box),
            "c": round(self.confidence, 3),
            "w": [[w.text, *w.box] for w in self.words],
        }

    def moved(self, *, dx: int = 0, dy: int = 0) -> "OcrLine":
        return OcrLine(
            text=self.text,
            box=_box_move(self.box, dx, dy),
            confidence=self.confidence,
            words=[OcrWord(text=w.text, box=_box_move(w.box, dx, dy)) for w in self.words],
        )

    @classmethod
    def from_json(cls, data: dict) -> "OcrLine":
        return cls(
            text=data["t"],
            box=tuple(data["b"]),
            confidence=data.get("c", 1.0),
            words=[OcrWord(text=w[0], box=tuple(w[1:5])) for w in data.get("w", [])],
        )


def _box_move(box, dx: int, dy: int) -> tuple[int, int, int, int]:
    x, y, w, h = box
    return int(x) + dx, int(y) + dy, int(w), int(h)


def _quad_to_box(quad) -> tuple[int, int, int, int]:
    pts = np.asarray(quad, dtype=float).reshape(-1, 2)
    x0, y0 = pts.min(axis=0)
    x1, y1 = pts.max(axis=0)
    return int(round(x0)), int(round(y0)), int(round(x1 - x0)), int(round(y1 - y0))


class RapidOcrEngine:
    name = "rapidocr"

    def __init__(self, threads: int):
        from rapidocr import RapidOCR
        from rapidocr.inference_engine.onnxruntime import main as onnxruntime_sessions

        # onnxruntime's threads spin between the steps of a call by default, waiting for work: on
        # two cores that is a tenth or more of the CPU OCR takes, taken from the web server and
        # everything else the user runs. rapidocr has no setting for it, so the session options
        # it builds are given the one entry while this engine's models are loaded (rapidocr
        # loads each on its first use; both are loaded here).
        options_made = onnxruntime_sessions.OrtInferSession._init_sess_opts

        def options_quiet(cfg):
            options = options_made(cfg)
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            return options

        onnxruntime_sessions.OrtInferSession._init_sess_opts = staticmethod(options_quiet)
        try:
            self._engine = RapidOCR(
                params={
                    "Global.use_cls": False,  # the orientation classifier flips normal lines and costs time
                    "Global.return_word_box": True,
                    "Global.log_level": "error",  # "no text detected" on a blank crop is normal, not a warning
                    "Global.max_side_len": 1 << 20,  # the reader picks the scale: the engine never shrinks the image
                    "Det.limit_type": "max",  # shrink the detection input, never the image
                    # A line is padded to at least this width for recognition: 48 (one line height), not the
                    # default 320, or a screen's hundreds of short boxes (numbers, columns) cost 320 each.
                    "Rec.rec_img_shape": [3, 48, 48],
                    "EngineConfig.onnxruntime.intra_op_num_threads": threads,
                    "EngineConfig.onnxruntime.inter_op_num_threads": 1,
                }
            )
            # The detector reads its input side on every call; one call at a time sets it.
            self._detector = self._engine._load_det_model()
            self._engine._load_rec_model()
        finally:
            onnxruntime_sessions.OrtInferSession._init_sess_opts = staticmethod(options_made)
        self._lock = threading.Lock()

    def recognize(self, image: np.ndarray, *, detect_side: int | None = None) -> list[OcrLine]:
        """Lines of the image; text detection runs on it shrunk to `detect_side` pixels on its
        longer side (its own size when smaller or None), recognition always at full resolution."""
        with self._lock:
            self._detector.limit_side_len = detect_side or max(image.shape[:2])
            result = self._engine(image, use_cls=False)
        if result.txts is None:
            return []
        word_results = result.word_results or [()] * len(result.txts)
        lines = []
        for text, score, quad, words in zip(result.txts, result.scores, result.boxes, word_results):
            text = text.strip()
            if not text:
                continue
            lines.append(
                OcrLine(
                    text=text,
                    box=_quad_to_box(quad),
                    confidence=float(score),
                    words=[OcrWord(text=w[0], box=_quad_to_box(w[2])) for w in words if w and w[0].strip()],
                )
            )
        return lines


class TesseractEngine:
    name = "tesseract"

    def __init__(self, threads: int):
        os.environ.setdefault("OMP_THREAD_LIMIT", "1")
        import tesserocr

        self._tesserocr = tesserocr
        self._api = tesserocr.PyTessBaseAPI(lang="eng+chi_sim", psm=tesserocr.PSM.AUTO)
        self._lock = threading.Lock()

    def recognize(self, image: np.ndarray, *, detect_side: int | None = None) -> list[OcrLine]:
        """Lines of the image (Tesseract finds its lines at the image's own scale)."""
        from PIL import Image

        from frames.text import CJK_RE

        tess = self._tesserocr
        with self._lock:
            self._api.SetImage(Image.fromarray(image))
            self._api.Recognize()
            iterator = self._api.GetIterator()
            lines: list[OcrLine] = []
            current: OcrLine | None = None
            current_box = None
            level = tess.RIL.WORD
            for word in tess.iterate_level(iterator, level):
                try:
                    text = word.GetUTF8Text(level)
                except RuntimeError:  # a page with no text still yields one empty element
                    continue
                word_box = word.BoundingBox(level)
                line_box = word.BoundingBox(tess.RIL.TEXTLINE)
                if not text or not text.strip() or word_box is None or line_box is None:
                    continue
                x0, y0, x1, y1 = word_box
                # The line's own box tells lines apart even when its first word was empty.
                if current is None or line_box != current_box:
                    lx0, ly0, lx1, ly1 = current_box = line_box
                    current = OcrLine(text="", box=(lx0, ly0, lx1 - lx0, ly1 - ly0), confidence=0.0)
                    lines.append(current)
                current.words.append(OcrWord(text=text.strip(), box=(x0, y0, x1 - x0, y1 - y0)))
                current.confidence += word.Confidence(level) / 100.0
        for line in lines:
            line.confidence /= max(len(line.words), 1)
            line.text = _join_words([w.text for w in line.words], CJK_RE)
        return [line for line in lines if line.text]


def _join_words(words: list[str], cjk_re) -> str:
    """Join Tesseract's words, dropping the spaces it puts between CJK characters."""
    out = ""
    for word in words:
        if out and not (cjk_re.match(word[0]) and cjk_re.match(out[-1])):
            out += " "
        out += word
    return out


ENGINES = {"rapidocr": RapidOcrEngine, "tesseract": TesseractEngine}
_engines: dict[str, object] = {}
_engines_lock = threading.Lock()


def ocr_engine(name: str | None = None):
    name = name or settings.OCR_ENGINE
    if name not in ENGINES:
        raise ValueError(f"Unknown OCR engine {name!r}; choose one of {sorted(ENGINES)}")
    with _engines_lock:
        if name not in _engines:
            _engines[name] = ENGINES[name](threads=settings.OCR_THREADS)
        return _engines[name]


def ocr_warm_up(name: str | None = None) -> None:
    """Models load on the first call: run one tiny image at start so the first frame is not slow."""
    blank = np.full((64, 256, 3), 255, dtype=np.uint8)
    ocr_engine(name).recognize(blank)
