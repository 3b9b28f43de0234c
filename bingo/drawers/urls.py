"""The drawer's pages at Portuguese paths (R54); names in English."""

from django.urls import URLPattern, path

from bingo.drawers import views

app_name = "drawers"
urlpatterns: list[URLPattern] = [
    # The cashier's drawer: open it with a float, see it live, close it with the cash counted.
    path("caixa/gaveta/", views.drawer, name="drawer"),
    path("caixa/gaveta/abrir/", views.drawer_open, name="drawer_open"),
    path("caixa/gaveta/<int:pk>/fechar/", views.drawer_close, name="drawer_close"),
    # The close-outs of the desks of one's halls (cashiers and managers), and any range.
    path("caixa/fechos/", views.closeout_list, name="closeout_list"),
    path("caixa/fechos/periodo/", views.range_report, name="range_report"),
    path("caixa/fechos/<int:pk>/", views.closeout_detail, name="closeout_detail"),
    path("caixa/fechos/<int:pk>/pdf/", views.closeout_pdf, name="closeout_pdf"),
]
