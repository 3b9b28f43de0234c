"""The JSON API (Django REST Framework) and its OpenAPI schema."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
