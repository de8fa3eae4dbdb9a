from django.shortcuts import render
from django.views.decorators.http import require_GET

from myrecall.timezones import request_timezone


@require_GET
def chat_page(request):
    return render(request, "chat/placeholder.html", {"zone": request_timezone(request).key})
