"""Stored chats: sessions, their messages, and the frames each answer cited (kept or dropped)."""

from django.db import models

from frames.models import Frame


class ChatSession(models.Model):
    title = models.CharField(max_length=200, blank=True, default="")
    timezone = models.CharField(max_length=64, default="UTC", help_text="IANA name, e.g. 'Europe/Berlin'.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at", "-id"]

    def __str__(self) -> str:
        return self.title or f"Chat {self.pk}"


class ChatRole(models.TextChoices):
    USER = "user"
    ASSISTANT = "assistant"


class ChatMode(models.TextChoices):
    SUMMARY = "summary"
    AGENT = "agent"


class ChatStatus(models.TextChoices):
    PENDING = "pending"
    STREAMING = "streaming"
    DONE = "done"
    FAILED = "failed"


class ChatMessage(models.Model):
    """One turn. The time range is absolute (UTC); `timezone` is the zone the user picked it in
    and the one local times in the answer are written in."""

    session = models.ForeignKey(ChatSession, on_delete=models.CASCADE, related_name="messages")
    role = models.CharField(max_length=16, choices=ChatRole.choices)
    content = models.TextField(blank=True, default="", help_text="Markdown, as shown to the user.")
    raw_content = models.TextField(
        blank=True, default="", help_text="The answer as written, before dropped citations were removed."
    )
    mode = models.CharField(max_length=16, choices=ChatMode.choices, default=ChatMode.SUMMARY)
    start_time = models.DateTimeField(null=True, blank=True)
    end_time = models.DateTimeField(null=True, blank=True)
    timezone = models.CharField(max_length=64, default="UTC", help_text="IANA name.")
    status = models.CharField(max_length=16, choices=ChatStatus.choices, default=ChatStatus.PENDING)
    model_name = models.CharField(
        max_length=200, blank=True, default="", help_text="The LLM that answered, or 'offline' for the built-in summariser."
    )
    error = models.TextField(blank=True, default="")
    retrieval_ms = models.PositiveIntegerField(null=True, blank=True, help_text="Retrieval and sampling.")
    llm_ms = models.PositiveIntegerField(null=True, blank=True)
    total_ms = models.PositiveIntegerField(null=True, blank=True)
    evidence_deleted = models.BooleanField(
        default=False, help_text="Frames it cited were deleted since: its claims can no longer be checked against them."
    )
    erased_at = models.DateTimeField(
        null=True, blank=True, help_text="When its text was erased: frames it drew on were deleted (it may have quoted them)."
    )
    sources_known = models.BooleanField(
        default=True, help_text="Its AnswerSource rows name every frame it was given (false for answers stored before they were kept)."
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.role} message {self.pk} ({self.status})"


class AnswerSource(models.Model):
    """A frame an answer was given to read (a summary's sampled and found frames, what an agent's
    searches returned, those of the earlier answers it was shown): its text may quote that frame,
    so deleting the frame erases the answer. The id is kept after the frame is gone."""

    message = models.ForeignKey(ChatMessage, on_delete=models.CASCADE, related_name="sources")
    frame_id = models.BigIntegerField(db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["message", "frame_id"], name="answer_source_once")]

    def __str__(self) -> str:
        return f"message {self.message_id} read frame {self.frame_id}"


class DroppedReason(models.TextChoices):
    NOT_FOUND = "not found"
    OUTSIDE_RANGE = "outside range"
    NOT_IN_CONTEXT = "not in context"
    NOT_RETURNED = "not returned by a search"  # agent mode: no tool result of that turn returned it


class Citation(models.Model):
    """A frame an answer cited. Dropped citations are kept with `valid` false and the reason, and
    `frame_id_cited` keeps the id even when no such frame exists (or it was deleted later)."""

    message = models.ForeignKey(ChatMessage, on_delete=models.CASCADE, related_name="citations")
    frame = models.ForeignKey(Frame, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    frame_id_cited = models.BigIntegerField()
    timestamp = models.DateTimeField(null=True, blank=True, help_text="The frame's time (UTC), when it exists.")
    snippet = models.TextField(
        blank=True, default="", help_text="The OCR snippet the answer was given (emptied when the frame is deleted)."
    )
    frame_deleted = models.BooleanField(default=False, help_text="The frame was deleted after the answer.")
    valid = models.BooleanField()
    dropped_reason = models.CharField(max_length=32, choices=DroppedReason.choices, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["message_id", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(valid=True, dropped_reason="") | models.Q(valid=False) & ~models.Q(dropped_reason=""),
                name="citation_dropped_has_reason",
            )
        ]

    def __str__(self) -> str:
        state = "valid" if self.valid else f"dropped: {self.dropped_reason}"
        return f"Citation of frame {self.frame_id_cited} ({state})"
