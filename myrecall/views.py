from django.shortcuts import render
from django.views.decorators.http import require_GET

from frames.models import Frame, OcrStatus


@require_GET
def home(request):
    counts = {status: Frame.objects.filter(ocr_status=status).count() for status in OcrStatus.values}
    latest = Frame.objects.order_by("-timestamp").first()
    return render(request, "myrecall/home.html", {"counts": counts, "total": sum(counts.values()), "latest": latest})
