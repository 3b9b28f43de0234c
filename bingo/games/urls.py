"""Web pages of sessions and games (manager screens; callers may look; a game's results are for
all the hall's staff).

Paths are Portuguese (R54); names are English.
"""

from django.urls import URLPattern, path

from bingo.games import views as game_views

app_name = "games"
urlpatterns: list[URLPattern] = [
    path("sessoes/", game_views.session_list, name="session_list"),
    path("sessoes/nova/", game_views.session_create, name="session_create"),
    path("sessoes/<int:pk>/", game_views.session_detail, name="session_detail"),
    path("sessoes/<int:pk>/encerrar/", game_views.session_close, name="session_close"),
    path("sessoes/<int:pk>/jogadas/nova/", game_views.game_create, name="game_create"),
    path("jogadas/<int:pk>/", game_views.game_detail, name="game_detail"),
    # A finished or annulled game's results, for the hall's staff (managers, callers, cashiers, inspectors).
    path("jogadas/<int:pk>/resultados/", game_views.game_results, name="game_results"),
    path("jogadas/<int:pk>/abrir-vendas/", game_views.game_open_sales, name="game_open_sales"),
    path("jogadas/<int:pk>/fechar-vendas/", game_views.game_close_sales, name="game_close_sales"),
    path("jogadas/<int:pk>/cartoes-duplos/", game_views.game_play_doubles, name="game_play_doubles"),
]
