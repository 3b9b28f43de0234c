"""Pages of the draw: the caller's console, the hall's display. Prize payment at the cash desk
is a sales page (``sales:prize_pay``, bingo/sales/urls.py).

Paths are Portuguese (R54); names are English. The caller's dashboard keeps ``/locutor/``; the
games ready to draw are listed at ``/locutor/jogos/``.
"""

from django.urls import URLPattern, path

from bingo.draw import views as draw_views

app_name = "draw"
urlpatterns: list[URLPattern] = [
    path("locutor/jogos/", draw_views.caller_games, name="caller_games"),
    path("locutor/jogo/<int:pk>/", draw_views.console, name="console"),
    path("locutor/jogo/<int:pk>/painel/", draw_views.console_live, name="console_live"),
    path("locutor/jogo/<int:pk>/iniciar/", draw_views.draw_start, name="draw_start"),
    path("locutor/jogo/<int:pk>/bola/", draw_views.draw_ball, name="draw_ball"),
    path("locutor/jogo/<int:pk>/manual/", draw_views.draw_manual, name="draw_manual"),
    path("locutor/jogo/<int:pk>/reclamacao/", draw_views.claim, name="claim"),
    path("locutor/jogo/<int:pk>/premio/", draw_views.prize_award, name="prize_award"),
    path("locutor/jogo/<int:pk>/suspender/", draw_views.game_suspend, name="game_suspend"),
    path("locutor/jogo/<int:pk>/retomar/", draw_views.game_resume, name="game_resume"),
    path("locutor/jogo/<int:pk>/anular/", draw_views.game_annul, name="game_annul"),
    path("locutor/jogo/<int:pk>/avaria/", draw_views.game_fault, name="game_fault"),
    # A room's display (R28): public, for the hall's TV; the token is signed (draw_selectors).
    path("ecra/<str:token>/", draw_views.display, name="display"),
]
