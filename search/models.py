from django.db import models

from frames.models import Frame


class VectorStatus(models.TextChoices):
    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"


class FrameVectors(models.Model):
    """Where a frame stands in the vector index. The index itself lives in Chroma and can be
    rebuilt from the database; this row says what is owed to it: a frame whose text changed is
    pending until its chunks are embedded and written."""

    frame = models.OneToOneField(Frame, on_delete=models.CASCADE, primary_key=True, related_name="+")
    status = models.CharField(max_length=16, choices=VectorStatus.choices, default=VectorStatus.PENDING)
    embedder = models.CharField(max_length=32, blank=True, default="", help_text="The embedder key it was written with.")
    chunks = models.PositiveSmallIntegerField(default=0)
    # Per chunk, its script and how near everyday questions come to it (search.relevance.chunk_stats):
    # what a search by meaning weighs it by. None for frames embedded before it was kept.
    relevance = models.BinaryField(null=True, blank=True, default=None)
    # Where each chunk's lines are in the frame's text (search.passages.spans_pack): the passage a
    # search by meaning matched is shown from it. None for frames embedded before it was kept.
    passages = models.BinaryField(null=True, blank=True, default=None)
    # The second model's reading of each chunk (search.crosscheck.passages_read). None for frames
    # embedded before it was kept, or when that model could not read them: searches read them then.
    crosscheck = models.BinaryField(null=True, blank=True, default=None)
    # Claims by a worker that did not finish (it died): past TASK_MAX_ATTEMPTS the frame fails.
    attempts = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        # The second: the frames another embedder wrote, newest first, as the move to a new one takes them.
        indexes = [models.Index(fields=["status", "frame"]), models.Index(fields=["status", "embedder", "frame"])]
        verbose_name_plural = "frame vectors"

    def __str__(self) -> str:
        return f"Frame {self.frame_id} vectors {self.status}"
