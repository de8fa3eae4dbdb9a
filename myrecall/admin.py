from django.contrib import admin

from myrecall.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "hint", "read_only", "created_at", "last_used_at"]
    readonly_fields = ["name", "hint", "read_only", "created_at", "last_used_at"]
    exclude = ["key_hash"]

    def has_add_permission(self, request):
        return False  # created with `manage.py token_create`, which shows the token once
