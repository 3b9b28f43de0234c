"""Pages of online play. Paths are Portuguese (R54), names English; bingo/urls.py mounts them
under online/ in the "online" namespace."""

from django.urls import URLPattern, path

from bingo.online import views

app_name = "online"

urlpatterns: list[URLPattern] = [
    # Players: the lobby and the game screen (R94-R97).
    path("", views.lobby, name="lobby"),
    path("jogo/<int:game_id>/", views.game_page, name="game"),
    path("jogo/<int:game_id>/comprar/", views.buy, name="buy"),
    path("sala/<int:room_id>/comprar/", views.buy_ahead, name="buy_ahead"),
    path("encomendas/<int:order_id>/cancelar/", views.order_cancel, name="order_cancel"),
    path("marcacao/", views.marking, name="marking"),
    # Anyone: the rules, the rooms' prices and prize plans, how to complain (R103, PT-806/66).
    path("regras/", views.rules, name="rules"),
    # Managers: online rooms and their sessions (R88-R93).
    path("salas/", views.room_list, name="room_list"),
    path("salas/nova/", views.room_create, name="room_create"),
    path("salas/<int:room_id>/", views.room_detail, name="room_detail"),
    path("salas/<int:room_id>/sessoes/", views.session_schedule, name="session_schedule"),
]
