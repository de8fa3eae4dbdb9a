from django.contrib import admin

from agent_bridge.models import AgentToolCall, AgentTurn


class AgentToolCallInline(admin.TabularInline):
    model = AgentToolCall
    extra = 0
    can_delete = False
    fields = ["started_at", "tool", "command", "is_error", "frame_ids", "result"]
    readonly_fields = fields


@admin.register(AgentTurn)
class AgentTurnAdmin(admin.ModelAdmin):
    list_display = ["id", "status", "created_at", "last_event_at", "tool_calls", "error"]
    list_filter = ["status"]
    readonly_fields = ["message", "status", "created_at", "started_at", "last_event_at", "finished_at", "events", "tool_calls", "error", "pi_pid"]
    inlines = [AgentToolCallInline]

    def has_add_permission(self, request):
        return False
