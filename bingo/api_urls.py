"""The JSON API (Django REST Framework) and its OpenAPI schema; docs/api.md tells how to use it."""

from django.urls import URLPattern, path, re_path
from drf_spectacular.views import SpectacularSwaggerView

from actas import api as acta_api
from actas.notes import api as acta_notes_api
from bingo.ballsets import api as ballset_api
from bingo.common.api import not_found
from bingo.common.schema_view import ApiIndexView, SchemaView
from bingo.complaints import api as complaints_api
from bingo.demo import api as demo_api
from bingo.draw import api as draw_api
from bingo.games import api as game_api
from bingo.jackpot import api as jackpot_api
from bingo.online import api as online_api
from bingo.players import api as players_api
from bingo.playtime import api as playtime_api
from bingo.protection import api as protection_api
from bingo.sales import api as sales_api
from cards import api as cards_api
from cards.printing import api as printing_api
from halls import api as halls_api

app_name = "api"

urlpatterns: list[URLPattern] = [
    # The two busiest routes first (a request tries the routes in order): an online purchase
    # and a desk's sale (issue 23). The routes do not overlap, so their order changes nothing else.
    path(
        "online/games/<int:game_id>/purchases/",
        online_api.PurchaseView.as_view(),
        name="online-game-purchases",
    ),
    path("games/<int:game_id>/sales/", sales_api.GameSalesView.as_view(), name="game-sales"),
    # The schema and its browsable docs are public: they describe the API, not the data; so is
    # the index at the API's root, which says where they are and lists every path.
    path("", ApiIndexView.as_view(), name="index"),
    path("schema/", SchemaView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    path("card-sets/", cards_api.CardSetListView.as_view(), name="card-set-list"),
    path("card-sets/<int:card_set_id>/", cards_api.CardSetDetailView.as_view(), name="card-set-detail"),
    path("card-sets/<int:card_set_id>/cards/", cards_api.CardListView.as_view(), name="card-set-cards"),
    path(
        "card-sets/<int:card_set_id>/cards/<int:number>/",
        cards_api.CardView.as_view(),
        name="card-set-card",
    ),
    path(
        "card-sets/<int:card_set_id>/compare/",
        cards_api.CardSetCompareView.as_view(),
        name="card-set-compare",
    ),
    path("series/", cards_api.SeriesListView.as_view(), name="series-list"),
    path("series/<int:series_id>/", cards_api.SeriesDetailView.as_view(), name="series-detail"),
    path("series/<int:series_id>/retire/", cards_api.SeriesRetireView.as_view(), name="series-retire"),
    path("series/<int:series_id>/pdf/", printing_api.SeriesPDFView.as_view(), name="series-pdf"),
    path("card-check/", cards_api.CardCheckView.as_view(), name="card-check"),
    # Halls, sessions, games and sales: access per hall (halls/access.py; bingo/games/api.py,
    # bingo/sales/api.py).
    path("halls/", halls_api.HallListView.as_view(), name="hall-list"),
    path("halls/<int:hall_id>/", halls_api.HallDetailView.as_view(), name="hall-detail"),
    path("halls/<int:hall_id>/rooms/", halls_api.RoomListView.as_view(), name="hall-rooms"),
    path("halls/<int:hall_id>/cash-desks/", halls_api.CashDeskListView.as_view(), name="hall-cash-desks"),
    path("rooms/<int:room_id>/", halls_api.RoomDetailView.as_view(), name="room-detail"),
    path("cash-desks/<int:desk_id>/", halls_api.CashDeskDetailView.as_view(), name="cash-desk-detail"),
    # Ball sets (R20-R26) and the progressive jackpot (R9-R13): bingo/ballsets/api.py, bingo/jackpot/api.py.
    path("halls/<int:hall_id>/ball-sets/", ballset_api.HallBallSetListView.as_view(), name="hall-ball-sets"),
    path("ball-sets/<int:ball_set_id>/", ballset_api.BallSetDetailView.as_view(), name="ball-set-detail"),
    path(
        "ball-sets/<int:ball_set_id>/checks/",
        ballset_api.BallSetCheckListView.as_view(),
        name="ball-set-checks",
    ),
    path(
        "ball-sets/<int:ball_set_id>/replacements/",
        ballset_api.BallSetReplacementListView.as_view(),
        name="ball-set-replacements",
    ),
    path(
        "ball-sets/<int:ball_set_id>/retire/", ballset_api.BallSetRetireView.as_view(), name="ball-set-retire"
    ),
    path("halls/<int:hall_id>/jackpot/", jackpot_api.JackpotView.as_view(), name="hall-jackpot"),
    path(
        "halls/<int:hall_id>/jackpot/movements/",
        jackpot_api.JackpotMovementListView.as_view(),
        name="hall-jackpot-movements",
    ),
    path("sessions/", game_api.SessionListView.as_view(), name="session-list"),
    path("sessions/<int:session_id>/", game_api.SessionDetailView.as_view(), name="session-detail"),
    path("sessions/<int:session_id>/close/", game_api.SessionCloseView.as_view(), name="session-close"),
    path("sessions/<int:session_id>/games/", game_api.SessionGamesView.as_view(), name="session-games"),
    # The acta's notes (R61 j), l), m)): actas/notes/api.py.
    path(
        "sessions/<int:session_id>/acta/notes/",
        acta_notes_api.SessionActaNoteListView.as_view(),
        name="session-acta-notes",
    ),
    # The acta as a self-contained file, checked with no database (docs/acta.md): actas/api.py.
    path(
        "sessions/<int:session_id>/acta/file/",
        acta_api.SessionActaFileView.as_view(),
        name="session-acta-file",
    ),
    path("games/<int:game_id>/", game_api.GameDetailView.as_view(), name="game-detail"),
    path("games/<int:game_id>/open-sales/", game_api.GameOpenSalesView.as_view(), name="game-open-sales"),
    path("games/<int:game_id>/close-sales/", game_api.GameCloseSalesView.as_view(), name="game-close-sales"),
    path(
        "games/<int:game_id>/play-doubles/", game_api.GamePlayDoublesView.as_view(), name="game-play-doubles"
    ),
    # The draw (R42-R57) and prize payment (R50): bingo/draw/api/ (one module per part of the draw).
    path("games/<int:game_id>/draw/", draw_api.DrawStateView.as_view(), name="game-draw"),
    path("games/<int:game_id>/draw/start/", draw_api.DrawStartView.as_view(), name="game-draw-start"),
    path("games/<int:game_id>/balls/", draw_api.BallCreateView.as_view(), name="game-balls"),
    path("games/<int:game_id>/manual/", draw_api.ManualView.as_view(), name="game-manual"),
    path("games/<int:game_id>/claims/", draw_api.ClaimCreateView.as_view(), name="game-claims"),
    path("games/<int:game_id>/prizes/", draw_api.PrizeCreateView.as_view(), name="game-prizes"),
    path("games/<int:game_id>/suspend/", draw_api.SuspendView.as_view(), name="game-suspend"),
    path("games/<int:game_id>/resume/", draw_api.ResumeView.as_view(), name="game-resume"),
    path("games/<int:game_id>/annul/", draw_api.AnnulView.as_view(), name="game-annul"),
    path("games/<int:game_id>/fault/", draw_api.FaultView.as_view(), name="game-fault"),
    path("prize-payments/", draw_api.PrizePaymentCreateView.as_view(), name="prize-payments"),
    # Online players and their wallets (R85-R103): bingo/players/api.py.
    path("players/register/", players_api.RegisterView.as_view(), name="player-register"),
    path("players/me/wallet/", players_api.MyWalletView.as_view(), name="player-wallet"),
    path("players/me/history/", players_api.MyHistoryView.as_view(), name="player-history"),
    # The player's play sessions (PT-806/67, PT-806/70-71, R101): bingo/playtime/api.py.
    path("players/me/sessions/", playtime_api.MySessionsView.as_view(), name="player-sessions"),
    path("players/me/playtime/", playtime_api.PlaytimeView.as_view(), name="player-playtime"),
    path(
        "players/me/playtime/continue/",
        playtime_api.PlaytimeContinueView.as_view(),
        name="player-playtime-continue",
    ),
    path("players/me/playtime/limit/", playtime_api.PlayLimitView.as_view(), name="player-playtime-limit"),
    path("players/me/history/pdf/", players_api.MyHistoryPDFView.as_view(), name="player-history-pdf"),
    # The player's complaints (R61 j)): bingo/complaints/api.py.
    path("players/me/complaints/", complaints_api.MyComplaintsView.as_view(), name="player-complaints"),
    path("complaints/", complaints_api.StaffComplaintListView.as_view(), name="complaint-list"),
    path(
        "complaints/<int:complaint_id>/decision/",
        complaints_api.StaffComplaintDecisionView.as_view(),
        name="complaint-decision",
    ),
    # Responsible gaming (R101): bingo/protection/api.py.
    path("players/me/limits/", protection_api.MyLimitsView.as_view(), name="player-limits"),
    path("players/me/exclusion/", protection_api.MyExclusionView.as_view(), name="player-exclusion"),
    path("players/me/pause/", protection_api.MyPauseView.as_view(), name="player-pause"),
    path("players/exclusions/", protection_api.ExclusionListView.as_view(), name="player-exclusions"),
    path(
        "players/exclusions/<int:exclusion_id>/lift/",
        protection_api.ExclusionLiftView.as_view(),
        name="player-exclusion-lift",
    ),
    path("players/", players_api.PlayerLookupView.as_view(), name="player-lookup"),
    path("players/<int:player_id>/deposits/", players_api.DepositView.as_view(), name="player-deposits"),
    path(
        "players/<int:player_id>/withdrawals/",
        players_api.WithdrawalView.as_view(),
        name="player-withdrawals",
    ),
    # Online play (R85-R97): bingo/online/api.py.
    path("online/rooms/", online_api.OnlineRoomListView.as_view(), name="online-room-list"),
    path("online/rooms/<int:room_id>/", online_api.OnlineRoomDetailView.as_view(), name="online-room-detail"),
    path(
        "online/rooms/<int:room_id>/sessions/",
        online_api.OnlineSessionListView.as_view(),
        name="online-room-sessions",
    ),
    path("online/lobby/", online_api.LobbyView.as_view(), name="online-lobby"),
    path(
        "online/games/<int:game_id>/state/",
        online_api.PlayerGameStateView.as_view(),
        name="online-game-state",
    ),
    path("online/marking/", online_api.MarkingView.as_view(), name="online-marking"),
    path("online/orders/", online_api.OrderListView.as_view(), name="online-orders"),
    path(
        "online/orders/<int:order_id>/cancel/",
        online_api.OrderCancelView.as_view(),
        name="online-order-cancel",
    ),
    # Demo mode (R102): bingo/demo/api.py. Demo credits only; nothing moves to or from the wallet.
    path("demo/balance/", demo_api.DemoBalanceView.as_view(), name="demo-balance"),
    path("demo/grants/", demo_api.DemoGrantView.as_view(), name="demo-grants"),
    path("demo/games/", demo_api.DemoGameListView.as_view(), name="demo-games"),
    path("demo/games/<int:game_id>/", demo_api.DemoGameStateView.as_view(), name="demo-game-state"),
    # Last: any other path under /api/ — an unknown route, a negative or malformed id
    # (/api/halls/-1/) — is a JSON 404 like an unknown object, in debug too (issue 26).
    re_path(r"^", not_found, name="not-found"),
]
