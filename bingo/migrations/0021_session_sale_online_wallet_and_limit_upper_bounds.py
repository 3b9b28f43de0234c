"""Upper bounds of the numbers people set (issue 20; bingo.common.bounds): a session lasts a day at
most; a sale sells at most 1 000 cards, at a card price and for cash within bounds; an online
room's sales window and pause (R90), an online game's price (R92); a claimed card's number; a demo
game's cards (R102); a desk's deposit or withdrawal, a player's money limit and play-time limit
and reminder (R101). The services refuse beyond them with a message; the database holds them too.
"""

import datetime
import django.db.models.expressions
from decimal import Decimal
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('bingo', '0020_ledgers_refuse_truncate_postgres'),
    ]

    operations = [
        migrations.AddConstraint(
            model_name='claim',
            constraint=models.CheckConstraint(condition=models.Q(('card_number__gte', 1), ('card_number__lte', 1000000)), name='claim_card_number_in_range'),
        ),
        migrations.AddConstraint(
            model_name='demogame',
            constraint=models.CheckConstraint(condition=models.Q(('cards_mine__lte', 6)), name='demo_game_at_most_max_cards'),
        ),
        migrations.AddConstraint(
            model_name='game',
            constraint=models.CheckConstraint(condition=models.Q(('price__isnull', True), models.Q(('price__gt', 0), ('price__lte', Decimal('1000000.00'))), _connector='OR'), name='game_price_in_range'),
        ),
        migrations.AddConstraint(
            model_name='onlineroom',
            constraint=models.CheckConstraint(condition=models.Q(('sales_seconds__lte', 3600)), name='online_room_sales_window_at_most_an_hour'),
        ),
        migrations.AddConstraint(
            model_name='onlineroom',
            constraint=models.CheckConstraint(condition=models.Q(('pause_seconds__lte', 3600)), name='online_room_pause_at_most_an_hour'),
        ),
        migrations.AddConstraint(
            model_name='playerlimit',
            constraint=models.CheckConstraint(condition=models.Q(('amount__isnull', True), ('amount__lte', Decimal('1000000000.00')), _connector='OR'), name='player_limit_amount_at_most_max'),
        ),
        migrations.AddConstraint(
            model_name='playlimit',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('session_minutes__isnull', True), models.Q(('session_minutes__gte', 10), ('session_minutes__lte', 1440)), _connector='OR'), models.Q(('next_session_minutes__isnull', True), models.Q(('next_session_minutes__gte', 10), ('next_session_minutes__lte', 1440)), _connector='OR')), name='play_limit_minutes_in_range'),
        ),
        migrations.AddConstraint(
            model_name='playlimit',
            constraint=models.CheckConstraint(condition=models.Q(('reminder_minutes__isnull', True), ('reminder_minutes__in', (15, 30, 60)), _connector='OR'), name='play_limit_reminder_offered'),
        ),
        migrations.AddConstraint(
            model_name='sale',
            constraint=models.CheckConstraint(condition=models.Q(('quantity__lte', 1000)), name='sale_at_most_max_cards'),
        ),
        migrations.AddConstraint(
            model_name='sale',
            constraint=models.CheckConstraint(condition=models.Q(('unit_price__lte', Decimal('1000000.00'))), name='sale_price_at_most_max'),
        ),
        migrations.AddConstraint(
            model_name='sale',
            constraint=models.CheckConstraint(condition=models.Q(('cash_received__lte', Decimal('1000000000.00'))), name='sale_cash_received_at_most_max'),
        ),
        migrations.AddConstraint(
            model_name='session',
            constraint=models.CheckConstraint(condition=models.Q(('scheduled_end__lte', django.db.models.expressions.CombinedExpression(models.F('starts_at'), '+', models.Value(datetime.timedelta(seconds=93600))))), name='session_at_most_a_day'),
        ),
        migrations.AddConstraint(
            model_name='walletentry',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('kind__in', ['deposit', 'withdrawal']), _negated=True), models.Q(('amount__gte', Decimal('-1000000000.00')), ('amount__lte', Decimal('1000000000.00'))), _connector='OR'), name='wallet_cash_movement_at_most_max'),
        ),
    ]
