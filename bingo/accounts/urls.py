"""Logging in and out, the home router and the role dashboards, at Portuguese paths (R54); their
names are in English and unprefixed (``login``, ``manager_dashboard``…)."""

from django.contrib.auth import views as auth_views
from django.urls import path

from bingo.accounts import views
from bingo.accounts.forms import LoginForm
from bingo.common.roles import Role
from bingo.players.views import PlayerDashboardView
from bingo.playtime.views import LogoutView

urlpatterns = [
    path("", views.home, name="home"),
    path(
        "entrar/",
        auth_views.LoginView.as_view(authentication_form=LoginForm, redirect_authenticated_user=True),
        name="login",
    ),
    # Django's LogoutView accepts POST only, so a link or a prefetch cannot log anyone out; a
    # player then sees the summary of the play session just ended (bingo/playtime, PT-806/67).
    path("sair/", LogoutView.as_view(), name="logout"),
    path("gerente/", views.DashboardView.as_view(role=Role.MANAGER), name=Role.MANAGER.dashboard_url_name),
    # Logins refused after too many failures (django-axes): the manager unlocks their staff.
    path("gerente/bloqueios/", views.login_lockout_list, name="login_lockouts"),
    path("gerente/bloqueios/desbloquear/", views.login_lockout_reset, name="login_lockout_reset"),
    path("caixa/", views.DashboardView.as_view(role=Role.CASHIER), name=Role.CASHIER.dashboard_url_name),
    path("locutor/", views.DashboardView.as_view(role=Role.CALLER), name=Role.CALLER.dashboard_url_name),
    path(
        "inspetor/",
        views.DashboardView.as_view(role=Role.INSPECTOR),
        name=Role.INSPECTOR.dashboard_url_name,
    ),
    # The player's dashboard shows the wallet's balance first (bingo/players/views.py).
    path("jogador/", PlayerDashboardView.as_view(role=Role.PLAYER), name=Role.PLAYER.dashboard_url_name),
]
