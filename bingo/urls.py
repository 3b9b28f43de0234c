"""URL routes. Role dashboards live at Portuguese paths (R54); their names are in English."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from bingo import jackpot_calc_views, login_views, views
from bingo.forms import LoginForm
from bingo.roles import Role

urlpatterns = [
    path("", views.home, name="home"),
    path(
        "entrar/",
        auth_views.LoginView.as_view(authentication_form=LoginForm, redirect_authenticated_user=True),
        name="login",
    ),
    # Django's LogoutView accepts POST only, so a link or a prefetch cannot log anyone out.
    path("sair/", auth_views.LogoutView.as_view(), name="logout"),
    path("gerente/", views.DashboardView.as_view(role=Role.MANAGER), name=Role.MANAGER.dashboard_url_name),
    # Logins refused after too many failures (django-axes): the manager unlocks their staff.
    path("gerente/bloqueios/", login_views.login_lockout_list, name="login_lockouts"),
    path("gerente/bloqueios/desbloquear/", login_views.login_lockout_reset, name="login_lockout_reset"),
    path("caixa/", views.DashboardView.as_view(role=Role.CASHIER), name=Role.CASHIER.dashboard_url_name),
    path("locutor/", views.DashboardView.as_view(role=Role.CALLER), name=Role.CALLER.dashboard_url_name),
    path(
        "inspetor/",
        views.DashboardView.as_view(role=Role.INSPECTOR),
        name=Role.INSPECTOR.dashboard_url_name,
    ),
    path("jogador/", views.DashboardView.as_view(role=Role.PLAYER), name=Role.PLAYER.dashboard_url_name),
    path("", include("cards.urls")),
    path("salas/", include("halls.urls")),
    path("", include("bingo.game_urls")),
    path("", include("bingo.sale_urls")),
    path("", include("bingo.draw_urls")),
    path("jackpot/calculadora/", jackpot_calc_views.jackpot_calculator, name="jackpot_calculator"),
    path("api/", include("bingo.api_urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]
