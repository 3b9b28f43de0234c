"""Pages of the cash desk (selling, receipts, the shift report, paying prizes) and the price
board. Paths are Portuguese (R54); names are English."""

from django.urls import URLPattern, path

from bingo.sales import views as sale_views

app_name = "sales"
urlpatterns: list[URLPattern] = [
    path("caixa/venda/", sale_views.cashier, name="cashier"),
    path("caixa/turno/", sale_views.shift_report, name="shift_report"),
    # Paying a winning card's prizes at the desk (R45, R50).
    path("caixa/premios/", sale_views.prize_pay, name="prize_pay"),
    # The slip of a prize payout, and finding one again by its code (R50).
    path("caixa/taloes/", sale_views.payout_slip_find, name="payout_slip_find"),
    path("caixa/taloes/<str:code>/", sale_views.payout_slip, name="payout_slip"),
    # The receipt of one sale request (its idempotency key), for the 80 mm printer or A4.
    path("caixa/recibo/<str:request_key>/", sale_views.receipt, name="receipt"),
    # The price board of a game (R29): public, shown on a TV in the hall.
    path("quadro/<int:game_id>/", sale_views.price_board, name="price_board"),
]
