from django.core.serializers.json import DjangoJSONEncoder
from django.db import models

from frames.text import TEXT_PACK_MIN, lines_pack, lines_unpack, text_pack, text_unpack


class CompactJSONEncoder(DjangoJSONEncoder):
    """Chinese text as UTF-8 (3 bytes a character), not \\uXXXX escapes (6): OCR boxes are most of a frame's row."""

    def __init__(self, *args, **kwargs):
        kwargs["ensure_ascii"] = False
        kwargs["separators"] = (",", ":")
        super().__init__(*args, **kwargs)


class PackedTextField(models.TextField):
    """Text that is a `str` in Python (attributes, values(), values_list()) and is stored packed
    (frames.text.text_pack): compressed when that is smaller. On SQLite a short text stays text (the
    column keeps its TEXT type: a BLOB is stored in it as it is, and rows of an older install stay
    readable as they were); other databases keep the column as bytes. Packed on save only (inserts,
    saves, QuerySet.update), not in lookups: compare with a stored text in Python, not in SQL."""

    def db_type(self, connection):
        if connection.vendor == "sqlite":
            return super().db_type(connection)
        return connection.data_types["BinaryField"]

    def get_db_prep_save(self, value, connection):
        value = super().get_db_prep_save(value, connection)
        if value is None:
            return None
        if connection.vendor == "sqlite" and len(value) < TEXT_PACK_MIN and len(value.encode()) < TEXT_PACK_MIN:
            return value
        return text_pack(value)

    def from_db_value(self, value, expression, connection):
        if value is None or isinstance(value, str):
            return value
        return text_unpack(bytes(value))


class OcrStatus(models.TextChoices):
    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"


class Frame(models.Model):
    """One screenshot with the context it was taken in. Times are UTC."""

    timestamp = models.DateTimeField(db_index=True)
    device_name = models.CharField(max_length=255, default="default")
    # Null, not "", when not said: a column that may be null is added to a table of millions of
    # frames in place (SQLite copies the whole table to add one that may not).
    monitor = models.CharField(
        max_length=100, null=True, blank=True,
        help_text="The device's monitor the screenshot is of, by the desktop's name for it (\"DP-1\"); null when not said. A device's monitors are separate screens: each frame is compared with and stored against frames of its own monitor.",
    )
    client_frame_id = models.CharField(max_length=255, null=True, blank=True)
    app_name = models.CharField(max_length=512, blank=True, default="")
    window_name = models.CharField(max_length=1024, blank=True, default="")
    browser_url = models.CharField(max_length=4096, blank=True, default="")
    focused = models.BooleanField(null=True)
    image_path = models.CharField(max_length=255, help_text="Relative to the data dir.")
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    image_bytes = models.PositiveIntegerField()
    image_base = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
        help_text="The frame stored whole that this frame's image is stored against (see frames.storage); null when stored whole.",
    )
    image_form = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="The storage form its image was written in (frames.storage.IMAGE_FORM); null: an older one, which `manage.py compact` stores again.",
    )
    ocr_status = models.CharField(max_length=16, choices=OcrStatus.choices, default=OcrStatus.PENDING)
    ocr_attempts = models.PositiveSmallIntegerField(default=0)
    ocr_error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            models.Index(fields=["device_name", "timestamp"]),
            # The frames waiting for OCR, by arrival: how far behind reading is, without a scan of every frame.
            models.Index(fields=["created_at"], condition=models.Q(ocr_status="pending"), name="frame_ocr_waiting_idx"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["device_name", "client_frame_id"],
                condition=models.Q(client_frame_id__isnull=False),
                name="frame_unique_client_id_per_device",
            )
        ]

    def __str__(self) -> str:
        return f"Frame {self.pk} {self.timestamp:%Y-%m-%d %H:%M:%S} {self.app_name}"


class FrameSignature(models.Model):
    """The perceptual signature of a device's recent frame (frames.imaging.image_hash: tile means of
    a 48x27 grey grid, compressed), which ingest compares the device's next frame with to skip a
    near-duplicate. Kept only for the frames within SIGNATURE_KEEP_S of the device's newest
    (frames.services prunes them on ingest); an older frame's is made again from its image when a
    frame that arrives out of order needs it."""

    frame = models.OneToOneField(Frame, on_delete=models.CASCADE, primary_key=True, related_name="signature")
    device_name = models.CharField(max_length=255)
    timestamp = models.DateTimeField()
    phash = models.BinaryField(max_length=2048)

    class Meta:
        indexes = [models.Index(fields=["device_name", "timestamp"])]


class OcrResultQuerySet(models.QuerySet):
    """Keeps text_length with the text in the writes that do not go through save()."""

    def update(self, **kwargs):
        if isinstance(kwargs.get("text"), str):
            kwargs.setdefault("text_length", len(kwargs["text"]))
        return super().update(**kwargs)

    def bulk_create(self, objs, *args, **kwargs):
        objs = list(objs)
        for obj in objs:
            obj.text_length = len(obj.text or "")
        return super().bulk_create(objs, *args, **kwargs)

    def bulk_update(self, objs, fields, *args, **kwargs):
        objs = list(objs)
        if "text" in fields:
            for obj in objs:
                obj.text_length = len(obj.text or "")
            fields = [*fields, "text_length"]
        return super().bulk_update(objs, fields, *args, **kwargs)


class OcrResult(models.Model):
    """The text read from a frame, with line and word boxes in image pixels.

    `lines` reads and sets them as [{"t": text, "b": [x, y, w, h], "c": confidence,
    "w": [[word, x, y, w, h], ...]}, ...]; they are stored packed (frames.text.lines_pack:
    about a third of the JSON, the text kept once). A row written before that keeps its JSON
    in `lines_json` until `manage.py compact` packs it. `text` is stored compressed
    (PackedTextField); `text_length`, its length in characters, is kept with it on every write,
    for the filters by length.
    """

    frame = models.OneToOneField(Frame, on_delete=models.CASCADE, primary_key=True, related_name="ocr")
    engine = models.CharField(max_length=32)
    text = PackedTextField(blank=True, default="")
    text_length = models.PositiveIntegerField(default=0, help_text="Characters in the text.")
    languages = models.CharField(max_length=32, blank=True, default="", help_text="Comma-separated, e.g. 'en,zh'.")
    lines_json = models.JSONField(default=list, encoder=CompactJSONEncoder, db_column="lines")
    lines_packed = models.BinaryField(null=True, blank=True)
    ocr_area = models.FloatField(default=1.0, help_text="Share of the image that was run through OCR; the rest was carried over.")
    carried_from = models.ForeignKey(Frame, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    elapsed_ms = models.PositiveIntegerField(default=0)
    reader = models.PositiveSmallIntegerField(
        default=1, help_text="The version of frames.reading that read the frame (1: the reader before versions)."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = OcrResultQuerySet.as_manager()

    _lines_pending: list[dict] | None = None

    @property
    def lines(self) -> list[dict]:
        if self._lines_pending is not None:
            return self._lines_pending
        if self.lines_packed is not None:
            return lines_unpack(bytes(self.lines_packed), text=self.text)
        return self.lines_json

    @lines.setter
    def lines(self, value: list[dict]) -> None:
        self._lines_pending = list(value)  # packed on save, with the text it goes with

    def save(self, *args, **kwargs):
        self.text_length = len(self.text or "")
        if kwargs.get("update_fields") is not None and "text" in kwargs["update_fields"]:
            kwargs["update_fields"] = {*kwargs["update_fields"], "text_length"}
        if self._lines_pending is not None:
            self.lines_packed = lines_pack(self._lines_pending, text=self.text)
            self.lines_json = []
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "lines_packed", "lines_json"}
            self._lines_pending = None
        super().save(*args, **kwargs)


class FrameDeletion(models.Model):
    """One deletion of the frames of a time range (optionally of one app), as a job that can be
    finished after an interruption. Frames go in batches, each batch's rows (and every index
    row and quote of them, through frames.signals.frames_deleting) in one transaction; the
    batch's files and its vectors are owed in `pending` until they are removed after the commit.
    Only frames that existed when the job began (id <= max_frame_id) are taken."""

    class Status(models.TextChoices):
        RUNNING = "running"
        DONE = "done"

    reason = models.CharField(max_length=32, help_text="'delete' (a user's range) or 'retention'.")
    start_time = models.DateTimeField(null=True, blank=True)
    end_time = models.DateTimeField(help_text="Frames before this time (UTC) and from start_time on.")
    app_name = models.CharField(max_length=512, blank=True, default="", help_text="Only this app's frames (any letter case), when set.")
    max_frame_id = models.BigIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING)
    pending = models.JSONField(
        default=dict, blank=True, help_text="What the last batch still owes: {'frames': [[id, ts_ms], ...], 'files': [...]}."
    )
    removed = models.JSONField(default=dict, blank=True, help_text="What was removed so far, by kind.")
    error = models.TextField(blank=True, default="", help_text="Why the last try stopped, if it did.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Deletion {self.pk} ({self.reason}, {self.status})"


class PrivacySettings(models.Model):
    """The user's privacy rules (one row): frames of excluded apps, window titles and URLs are
    refused at ingest from every source (and the capture client reads them to never send
    such frames); OCR text may have secrets redacted before it is stored and indexed. The
    rules' meaning is in myrecall.privacy_rules."""

    excluded_apps = models.JSONField(default=list, blank=True)
    excluded_windows = models.JSONField(default=list, blank=True)
    excluded_urls = models.JSONField(default=list, blank=True)
    redact_secrets = models.BooleanField(default=False, help_text="Replace e-mails, card numbers and API keys in OCR text.")
    capture_paused = models.BooleanField(default=False, help_text="Capture clients take no screenshots while set.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "privacy settings"

    def __str__(self) -> str:
        return "Privacy settings"


class CaptureReport(models.Model):
    """The latest report of each capture client (one row per device, replaced by the next): what
    its last period did. A client that reports is alive even when it sends no frame (the screen
    did not change, an excluded window has the focus, it is paused)."""

    device_name = models.CharField(max_length=255, unique=True)
    received_at = models.DateTimeField(help_text="When the server got it (its own clock, not the client's).")
    period_s = models.FloatField(help_text="The seconds the counts cover; the client reports this often.")
    sent = models.PositiveIntegerField(help_text="Frames sent in the period.")
    unchanged = models.PositiveIntegerField(help_text="Screenshots skipped: not a pixel changed.")
    excluded = models.PositiveIntegerField(help_text="Ticks not captured: an excluded app or window had the focus.")
    spooled = models.PositiveIntegerField(help_text="Frames waiting in the client's spool at the report.")
    paused = models.BooleanField()
    locked = models.CharField(max_length=200, blank=True, default="", help_text="Why the client takes no screenshots: the screen is locked, and how it knows; empty when not.")
    client = models.CharField(max_length=100, blank=True, default="", help_text="The reporting program and its version.")
    stopped = models.CharField(max_length=200, blank=True, default="", help_text="Why the client ended, in its last report; empty while it runs.")

    def __str__(self) -> str:
        return f"Capture report of {self.device_name} at {self.received_at:%Y-%m-%d %H:%M:%S}"


class BrowserTab(models.Model):
    """What a browser's extension said its active tab was (the active tab of its last focused window),
    from `started_at` until its last report, `seen_at` (both on the extension's clock, which is the
    capture client's: they run on the same desktop). A report that repeats the tab extends its span;
    one that differs starts the next. Frames of that browser's windows are paired with the span in
    effect at their time (frames.services.browser_tab_report). Spans are kept briefly (they hold URLs
    and titles): BROWSER_TAB_KEEP_S in frames.selectors."""

    class State(models.TextChoices):
        PAGE = "page"  # a page the privacy rules allow: its URL and title
        EXCLUDED = "excluded"  # a page the privacy rules exclude: no URL, no title
        PRIVATE = "private"  # a private (incognito) window the user did not allow: no URL, no title

    browser = models.CharField(max_length=32, help_text="The browser's key (myrecall.browsers), e.g. 'chromium', 'firefox'.")
    browser_name = models.CharField(max_length=100, help_text="The browser as the extension named it, e.g. 'Chromium 140'.")
    state = models.CharField(max_length=16, choices=State.choices)
    url = models.CharField(max_length=4096, blank=True, default="")
    title = models.CharField(max_length=1024, blank=True, default="")
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField()
    reports = models.PositiveIntegerField(default=1, help_text="Reports of this span: the first and its heartbeats.")
    received_at = models.DateTimeField(help_text="When the server got the last report (its own clock).")

    class Meta:
        indexes = [models.Index(fields=["browser", "started_at"]), models.Index(fields=["seen_at"])]

    def __str__(self) -> str:
        return f"{self.browser} {self.state} from {self.started_at:%H:%M:%S} to {self.seen_at:%H:%M:%S}"


class BrowserFrameHold(models.Model):
    """A frame of a browser window that came before the browser's extension reported its time: its
    OCR (and so every index) waits until a report settles which tab it showed, at most
    BROWSER_HOLD_MAX_S. `excluded`: a report found it showed an excluded page; it is being deleted."""

    frame = models.OneToOneField(Frame, on_delete=models.CASCADE, primary_key=True, related_name="browser_hold")
    app_class = models.CharField(max_length=512, help_text="The frame's app name in lower case: the browser's window class.")
    timestamp = models.DateTimeField(help_text="The frame's time.")
    excluded = models.BooleanField(default=False)

    class Meta:
        indexes = [models.Index(fields=["app_class", "timestamp"])]
