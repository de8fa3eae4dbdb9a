from django.contrib import admin

from myrecall.models import ApiToken, WorkerHeartbeat
from myrecall.selectors import workers_dead


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "hint", "read_only", "created_at", "last_used_at"]
    readonly_fields = ["name", "hint", "read_only", "created_at", "last_used_at"]
    exclude = ["key_hash"]

    def has_add_permission(self, request):
        return False  # created with `manage.py token_create`, which shows the token once


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin):
    """Background workers as they last reported themselves; written by the workers only."""

    list_display = ["worker_id", "hostname", "pid", "alive", "started_at", "beat_at", "swept_at"]
    ordering = ["-started_at"]

    @admin.display(boolean=True, description="alive")
    def alive(self, heartbeat: WorkerHeartbeat) -> bool:
        return not workers_dead(worker_ids=[heartbeat.worker_id])

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
