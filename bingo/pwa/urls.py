"""The web app's files, at the site's root (a service worker's scope is its own folder)."""

from django.urls import path

from bingo.pwa import views

app_name = "pwa"

urlpatterns = [
    path("manifest.webmanifest", views.manifest, name="manifest"),
    path("sw.js", views.service_worker, name="service_worker"),
    path("offline/", views.offline, name="offline"),
]
