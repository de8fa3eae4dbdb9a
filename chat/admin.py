"""Chats are records of what was asked, answered and cited: the admin shows them and can delete
them, never add or edit them."""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from chat.models import ChatMessage, ChatSession, Citation


class CitationFrameMixin:
    """Columns that show the cited frame: its thumbnail and a link to the viewer at that moment."""

    @admin.display(description="frame")
    def thumbnail(self, citation: Citation) -> str:
        if citation.frame_id is None:
            return format_html("<span>no frame {}</span>", citation.frame_id_cited)
        return format_html(
            '<a href="{}"><img src="{}" alt="frame {}" width="160" loading="lazy"></a>',
            reverse("frame-view", args=[citation.frame_id]),
            reverse("frame-thumb", args=[citation.frame_id]),
            citation.frame_id,
        )

    @admin.display(description="viewer")
    def viewer(self, citation: Citation) -> str:
        if citation.frame_id is None:
            return "-"
        return format_html('<a href="{}">open frame {}</a>', reverse("frame-view", args=[citation.frame_id]), citation.frame_id)


class ReadOnlyMixin:
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class MessageInline(ReadOnlyMixin, admin.TabularInline):
    model = ChatMessage
    fields = ["created_at", "role", "mode", "status", "content", "start_time", "end_time", "model_name", "total_ms"]
    readonly_fields = fields
    show_change_link = True
    extra = 0


@admin.register(ChatSession)
class ChatSessionAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["id", "title", "timezone", "created_at", "updated_at"]
    list_filter = [("created_at", admin.DateFieldListFilter), "messages__mode", "messages__status"]
    search_fields = ["title", "messages__content"]
    date_hierarchy = "created_at"
    readonly_fields = ["title", "timezone", "created_at", "updated_at"]
    inlines = [MessageInline]


class CitationInline(CitationFrameMixin, ReadOnlyMixin, admin.TabularInline):
    model = Citation
    fields = ["thumbnail", "frame_id_cited", "viewer", "timestamp", "valid", "dropped_reason", "snippet"]
    readonly_fields = fields
    extra = 0


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["id", "session", "role", "mode", "status", "created_at", "model_name", "total_ms"]
    list_filter = ["mode", "status", "role", ("created_at", admin.DateFieldListFilter)]
    list_select_related = ["session"]
    search_fields = ["content", "raw_content"]
    date_hierarchy = "created_at"
    fields = [
        "session",
        "role",
        "mode",
        "status",
        "content",
        "raw_content",
        ("start_time", "end_time", "timezone"),
        "model_name",
        "error",
        ("retrieval_ms", "llm_ms", "total_ms"),
        "created_at",
    ]
    readonly_fields = [field.name for field in ChatMessage._meta.fields]
    inlines = [CitationInline]


@admin.register(Citation)
class CitationAdmin(CitationFrameMixin, ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["id", "thumbnail", "frame_id_cited", "message", "timestamp", "valid", "dropped_reason"]
    list_filter = ["valid", "dropped_reason", "message__mode", "message__status", ("created_at", admin.DateFieldListFilter)]
    list_select_related = ["message"]
    search_fields = ["snippet", "message__content"]
    fields = ["message", "thumbnail", "frame_id_cited", "viewer", "timestamp", "valid", "dropped_reason", "snippet", "created_at"]
    readonly_fields = fields
