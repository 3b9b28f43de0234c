"""The players' pages and the desk's wallet pages, at Portuguese paths (R54); names in English."""

from django.urls import path

from bingo.players import views

app_name = "players"

urlpatterns = [
    path("jogador/registo/", views.register, name="register"),
    path("jogador/carteira/", views.my_wallet, name="wallet"),
    path("jogador/email/enviar/", views.email_verification_send, name="email_verification_send"),
    path("jogador/email/verificar/<uidb64>/<token>/", views.email_verify, name="email_verify"),
    path("jogador/historico/", views.my_history, name="history"),
    path("jogador/historico/csv/", views.my_history_csv, name="history_csv"),
    path("jogador/historico/pdf/", views.my_history_pdf, name="history_pdf"),
    path("carteiras/", views.wallet_staff_search, name="staff_search"),
    path("carteiras/<int:player_id>/", views.wallet_staff_player, name="staff_player"),
]
