from django.db import models

from chat.models import ChatMessage


class TurnStatus(models.TextChoices):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"
    TIMED_OUT = "timed_out"


class AgentTurn(models.Model):
    """One agent answer as it runs (seed 003's task state): where it is, when Pi last said
    anything, the tool calls it made, and why it ended badly; enough to diagnose a stuck turn."""

    message = models.OneToOneField(ChatMessage, on_delete=models.CASCADE, related_name="agent_turn")
    status = models.CharField(max_length=16, choices=TurnStatus.choices, default=TurnStatus.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True, help_text="When Pi took the question.")
    last_event_at = models.DateTimeField(null=True, blank=True, help_text="When Pi last sent an event for it.")
    finished_at = models.DateTimeField(null=True, blank=True)
    events = models.PositiveIntegerField(default=0)
    tool_calls = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    pi_pid = models.IntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"agent turn {self.pk} ({self.status})"


class AgentToolCall(models.Model):
    """A tool call the agent made in a turn (the audit log): the command it ran and a short view
    of what came back, with the frames that result returned (the only ones it may cite)."""

    turn = models.ForeignKey(AgentTurn, on_delete=models.CASCADE, related_name="calls")
    call_id = models.CharField(max_length=200)
    tool = models.CharField(max_length=50)
    command = models.TextField(help_text="The bash command, or the path read.")
    result = models.TextField(blank=True, help_text="The start of what came back.")
    result_chars = models.PositiveIntegerField(default=0)
    is_error = models.BooleanField(default=False)
    frame_ids = models.JSONField(default=list, blank=True)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["started_at", "id"]

    def __str__(self) -> str:
        return f"{self.tool}: {self.command[:60]}"


class AgentSlot(models.Model):
    """The one agent question in progress across every web process that shares this database
    (several servers, or several machines): which process holds it, and when it last said it
    still does. One row (pk 1); a holder silent for AGENT_SLOT_STALE_S (its process died) no longer
    holds it."""

    holder = models.CharField(max_length=200, blank=True, default="")
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"agent slot ({self.holder or 'free'})"
