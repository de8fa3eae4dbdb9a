from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import RedirectView

from chat import views as chat_views
from frames import views as frame_views
from myrecall.api import api
from search import screenpipe

handler404 = "myrecall.error_pages.page_not_found"

urlpatterns = [
    path("", frame_views.timeline_page, name="timeline"),
    path("timeline/delete", frame_views.timeline_delete, name="timeline-delete"),
    path("timeline/devices", frame_views.timeline_devices, name="timeline-devices"),
    # The search page, and for API clients screenpipe's GET /search (search/screenpipe.py picks).
    path("search", screenpipe.search_or_page, name="search"),
    path("chat", chat_views.chat_page, name="chat"),
    path("settings", frame_views.settings_page, name="settings"),
    path("frames/<int:frame_id>/view", frame_views.frame_view, name="frame-view"),
    path("frames/<int:frame_id>/thumb", frame_views.frame_thumb, name="frame-thumb"),
    # screenpipe's clients fetch images at the bare path.
    path("frames/<str:frame_id>", frame_views.frame_image, name="frame-image"),  # any id: the view answers 400 or 404
    path("login/", auth_views.LoginView.as_view(template_name="myrecall/login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    # The docs are at /api/v1/docs; the slash people add by habit finds them too.
    path("api/v1/docs/", RedirectView.as_view(url="/api/v1/docs")),
    path("api/v1/", api.urls),
    # The rest of screenpipe's API at the root: /frames/{id}/ocr|metadata|context, /activity-summary, /health.
    path("", include((screenpipe.urls, "screenpipe"))),
]
