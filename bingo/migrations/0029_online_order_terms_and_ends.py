"""Standing orders, the review's fixes (issue 25):

* an order pins what the player saw: the card's ``price``, the ``variant`` and, on 75-ball
  cards, the ``pattern`` (R73 b)); a game that differs is skipped, never bought at another price;
* a fill row may record a game skipped for the operator's side (``skip``: the sales closed before
  the fill ran, another price, variant or pattern, the cards unavailable), the order going on;
* two new ends: ``barred`` (R101: a self-exclusion, a break, the operator's exclusion or the
  hall's break after a session's time limit) and ``skipped`` (skipped in too many games);
* only a refusal keeps its words (``end_text``): every other end is said from its code, in the
  reader's language (the room's closing was stored in the manager's);
* at most one open order per player and room.

Orders placed before take the room's variant and pattern and the price their first purchase paid,
else the room's latest game's, else the hall's next online series'; one with none to be found
(none is expected: the orders came with bingo/0027 just before) ends, saying why, at 0.01. Where
a player held several open orders in a room, the oldest stays open and the others end, saying why.
"""

from decimal import Decimal

from django.db import migrations, models
from django.db.models import Q
from django.utils import timezone

ONE_PER_ROOM = "Terminada: cada jogador tem no máximo uma encomenda aberta por sala."
NO_PRICE = "Terminada: o preço dos cartões da encomenda não pôde ser apurado."


def _price(apps, order):
    Game = apps.get_model("bingo", "Game")
    OnlineOrderFill = apps.get_model("bingo", "OnlineOrderFill")
    Series = apps.get_model("cards", "Series")
    fill = (
        OnlineOrderFill.objects.filter(order=order, sale__isnull=False).select_related("sale").order_by("pk").first()
    )
    if fill is not None:
        return fill.sale.unit_price
    game = (
        Game.objects.filter(session__room_id=order.online_room_id, price__isnull=False).order_by("-pk").first()
    )
    if game is not None:
        return game.price
    series = (
        Series.objects.filter(hall_id=order.online_room.room.hall_id, online=True).order_by("order_number").first()
    )
    return series.price if series is not None else None


def orders_backfill(apps, schema_editor):
    OnlineOrder = apps.get_model("bingo", "OnlineOrder")
    now = timezone.now()
    seen_open = set()
    for order in OnlineOrder.objects.select_related("online_room__room").order_by("created_at", "pk"):
        room = order.online_room
        order.variant = room.variant
        order.pattern = room.pattern if room.variant == "75" else ""
        price = _price(apps, order)
        if order.end_reason != "refused":
            order.end_text = ""  # said from the code from now on (the room's closing)
        if price is None:
            price = Decimal("0.01")
            if order.ended_at is None:
                order.ended_at, order.end_reason, order.end_text = now, "refused", NO_PRICE
        order.price = price
        if order.ended_at is None:
            if (order.player_id, order.online_room_id) in seen_open:
                order.ended_at, order.end_reason, order.end_text = now, "refused", ONE_PER_ROOM
            else:
                seen_open.add((order.player_id, order.online_room_id))
        order.save()


class Migration(migrations.Migration):

    dependencies = [
        ("bingo", "0028_online_room_pattern"),
        ("cards", "0009_series_size_letter_labels_grouped_the_portuguese_way"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="onlineorder",
            name="online_order_end_has_reason",
        ),
        migrations.RemoveConstraint(
            model_name="onlineorderfill",
            name="online_order_fill_sale_or_refusal",
        ),
        migrations.AddField(
            model_name="onlineorder",
            name="pattern",
            field=models.CharField(
                blank=True, default="", max_length=29, verbose_name="75-ball bingo pattern (R73 b))"
            ),
        ),
        migrations.AddField(
            model_name="onlineorder",
            name="price",
            field=models.DecimalField(decimal_places=2, max_digits=12, null=True, verbose_name="card price"),
        ),
        migrations.AddField(
            model_name="onlineorder",
            name="variant",
            field=models.CharField(default="90", max_length=2, verbose_name="variant"),
        ),
        migrations.AddField(
            model_name="onlineorderfill",
            name="skip",
            field=models.CharField(
                blank=True,
                choices=[
                    ("not_selling", "Sales closed before the order could buy"),
                    ("price", "Another card price"),
                    ("variant", "Another variant"),
                    ("pattern", "Another pattern"),
                    ("unavailable", "The cards could not be sold"),
                ],
                max_length=12,
                verbose_name="skipped because",
            ),
        ),
        migrations.AlterField(
            model_name="onlineorder",
            name="end_reason",
            field=models.CharField(
                blank=True,
                choices=[
                    ("completed", "Completed"),
                    ("cancelled", "Cancelled by the player"),
                    ("refused", "Refused"),
                    ("room_closed", "The room closed"),
                    ("barred", "Responsible gaming (R101)"),
                    ("skipped", "Skipped in too many games"),
                ],
                max_length=12,
                verbose_name="end reason",
            ),
        ),
        migrations.RunPython(orders_backfill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="onlineorder",
            name="price",
            field=models.DecimalField(decimal_places=2, max_digits=12, verbose_name="card price"),
        ),
        migrations.AlterField(
            model_name="onlineorder",
            name="variant",
            field=models.CharField(
                choices=[("90", "90 balls"), ("80", "80 balls"), ("75", "75 balls"), ("30", "30 balls")],
                max_length=2,
                verbose_name="variant",
            ),
        ),
        migrations.AddConstraint(
            model_name="onlineorder",
            constraint=models.UniqueConstraint(
                condition=Q(("ended_at__isnull", True)),
                fields=("player", "online_room"),
                name="online_order_one_open_per_room",
            ),
        ),
        migrations.AddConstraint(
            model_name="onlineorder",
            constraint=models.CheckConstraint(
                condition=Q(("price__gt", 0), ("price__lte", Decimal("1000000.00"))),
                name="online_order_price_bounds",
            ),
        ),
        migrations.AddConstraint(
            model_name="onlineorder",
            constraint=models.CheckConstraint(
                condition=Q(("pattern", ""), ("variant", "75"), _connector="OR"),
                name="online_order_pattern_only_75",
            ),
        ),
        migrations.AddConstraint(
            model_name="onlineorder",
            constraint=models.CheckConstraint(
                condition=Q(
                    ("pattern", ""),
                    (
                        "pattern__in",
                        [
                            "column_b", "column_g", "column_i", "column_n", "column_o", "diagonal_down",
                            "diagonal_up", "diamond", "four_corners", "frame", "letter_h", "letter_l",
                            "letter_t", "plus", "postage_stamp", "row_1", "row_2", "row_3", "row_4",
                            "row_5", "small_frame", "x",
                        ],
                    ),
                    ("pattern__regex", "^[X.]{5}(/[X.]{5}){4}$"),
                    _connector="OR",
                ),
                name="online_order_pattern_known",
            ),
        ),
        migrations.AddConstraint(
            model_name="onlineorder",
            constraint=models.CheckConstraint(
                condition=Q(("end_text", ""), ("end_reason", "refused"), _connector="OR"),
                name="online_order_end_text_refused",
            ),
        ),
        migrations.AddConstraint(
            model_name="onlineorder",
            constraint=models.CheckConstraint(
                condition=Q(
                    Q(("end_reason", ""), ("ended_at__isnull", True)),
                    Q(
                        (
                            "end_reason__in",
                            ["completed", "cancelled", "refused", "room_closed", "barred", "skipped"],
                        ),
                        ("ended_at__isnull", False),
                    ),
                    _connector="OR",
                ),
                name="online_order_end_has_reason",
            ),
        ),
        migrations.AddConstraint(
            model_name="onlineorderfill",
            constraint=models.CheckConstraint(
                condition=Q(
                    Q(("refusal", ""), ("sale__isnull", False), ("skip", "")),
                    Q(("sale__isnull", True), ("skip", ""), Q(("refusal", ""), _negated=True)),
                    Q(
                        ("sale__isnull", True),
                        ("skip__in", ["not_selling", "price", "variant", "pattern", "unavailable"]),
                        Q(("refusal", ""), ("skip", "unavailable"), _connector="OR"),
                    ),
                    _connector="OR",
                ),
                name="online_order_fill_sale_refusal_or_skip",
            ),
        ),
    ]
