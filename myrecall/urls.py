from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path

from frames import views as frame_views
from myrecall import views
from myrecall.api import api

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", auth_views.LoginView.as_view(template_name="myrecall/login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    # screenpipe's clients fetch images at the bare path.
    path("frames/<int:frame_id>", frame_views.frame_image, name="frame-image"),
]
