from django.contrib import admin

from frames.models import Frame, OcrResult
from myrecall.links import url_link


class OcrResultInline(admin.StackedInline):
    model = OcrResult
    fk_name = "frame"
    fields = ["engine", "languages", "text", "ocr_area", "carried_from", "elapsed_ms"]
    readonly_fields = fields
    can_delete = False


@admin.register(Frame)
class FrameAdmin(admin.ModelAdmin):
    list_display = ["id", "timestamp", "device_name", "app_name", "window_name", "ocr_status"]
    list_filter = ["ocr_status", "device_name", "app_name"]
    # Not the OCR text: it is stored compressed, where SQL cannot look (search it at /search).
    search_fields = ["app_name", "window_name", "browser_url"]
    date_hierarchy = "timestamp"
    fields = readonly_fields = ["browser_link" if f.name == "browser_url" else f.name for f in Frame._meta.fields]
    inlines = [OcrResultInline]

    @admin.display(description="browser URL")
    def browser_link(self, frame: Frame):
        return url_link(frame.browser_url) if frame.browser_url else None

    def has_add_permission(self, request):
        return False  # frames come in through the API or frames_import
