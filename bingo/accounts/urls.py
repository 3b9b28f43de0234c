"""Logging in, the password reset by e-mail, the home router and the staff's dashboards, at
Portuguese paths (R54); their names are in English and unprefixed (``login``,
``manager_dashboard``…; the reset's are Django's own: ``password_reset``…). The logout and the
player's dashboard, whose views are bingo/playtime's and bingo/players's, keep their unprefixed
names in the project's routes (bingo/urls.py)."""

from django.contrib.auth import views as auth_views
from django.urls import path

from bingo.accounts import views
from bingo.accounts.forms import LoginForm
from bingo.common.roles import Role
from bingo.common.views import DashboardView

urlpatterns = [
    path("", views.home, name="home"),
    path(
        "entrar/",
        auth_views.LoginView.as_view(authentication_form=LoginForm, redirect_authenticated_user=True),
        name="login",
    ),
    # Password reset by e-mail (Django's views and tokens): ask, «sent», the mail's link, done.
    path("entrar/recuperar/", views.PasswordResetView.as_view(), name="password_reset"),
    path(
        "entrar/recuperar/enviado/",
        auth_views.PasswordResetDoneView.as_view(template_name="registration/password_reset_done.html"),
        name="password_reset_done",
    ),
    path(
        "entrar/recuperar/<uidb64>/<token>/",
        views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "entrar/recuperar/concluido/",
        auth_views.PasswordResetCompleteView.as_view(
            template_name="registration/password_reset_complete.html"
        ),
        name="password_reset_complete",
    ),
    path("gerente/", DashboardView.as_view(role=Role.MANAGER), name=Role.MANAGER.dashboard_url_name),
    # Logins refused after too many failures (django-axes): the manager unlocks their staff.
    path("gerente/bloqueios/", views.login_lockout_list, name="login_lockouts"),
    path("gerente/bloqueios/desbloquear/", views.login_lockout_reset, name="login_lockout_reset"),
    path("caixa/", DashboardView.as_view(role=Role.CASHIER), name=Role.CASHIER.dashboard_url_name),
    path("locutor/", DashboardView.as_view(role=Role.CALLER), name=Role.CALLER.dashboard_url_name),
    path(
        "inspetor/",
        DashboardView.as_view(role=Role.INSPECTOR),
        name=Role.INSPECTOR.dashboard_url_name,
    ),
]
