"""Issue 25 point 2, standing orders: a player's order for a room's next N games, filled as each
game's sales open for everyone (R93) through the one purchase path, nothing held before.

PostgreSQL holds its invariants: one order per player and key (a form sent twice orders once),
never more games filled than wanted, a purchase's bounds, an end always with its reason, a
completed order filled in full; and one fill per order and game, bought (a sale) or refused
(why), so a fill run twice, or by two workers at once, buys once.
"""


import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('bingo', '0026_player_email_verified_and_pause'),
    ]

    operations = [
        migrations.CreateModel(
            name='OnlineOrder',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('quantity', models.PositiveIntegerField(verbose_name='cards per game')),
                ('games_wanted', models.PositiveSmallIntegerField(verbose_name='games wanted')),
                ('games_filled', models.PositiveSmallIntegerField(default=0, verbose_name='games filled')),
                ('key', models.CharField(max_length=40, verbose_name='key')),
                ('fills_after', models.DateTimeField(blank=True, null=True, verbose_name='fills games opening after')),
                ('created_at', models.DateTimeField(verbose_name='placed at')),
                ('cancelled_at', models.DateTimeField(blank=True, null=True, verbose_name='cancelled at')),
                ('ended_at', models.DateTimeField(blank=True, null=True, verbose_name='ended at')),
                ('end_reason', models.CharField(blank=True, choices=[('completed', 'Completed'), ('cancelled', 'Cancelled by the player'), ('refused', 'Refused'), ('room_closed', 'The room closed')], max_length=12, verbose_name='end reason')),
                ('end_text', models.TextField(blank=True, verbose_name='why it ended')),
                ('online_room', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='orders', to='bingo.onlineroom', verbose_name='online room')),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='online_orders', to='bingo.player', verbose_name='player')),
            ],
            options={
                'verbose_name': 'standing order',
                'verbose_name_plural': 'standing orders',
            },
        ),
        migrations.CreateModel(
            name='OnlineOrderFill',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('refusal', models.TextField(blank=True, verbose_name='refusal')),
                ('created_at', models.DateTimeField(verbose_name='at')),
                ('game', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='order_fills', to='bingo.game', verbose_name='game')),
                ('order', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='fills', to='bingo.onlineorder', verbose_name='standing order')),
                ('sale', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='order_fill', to='bingo.sale', verbose_name='sale')),
            ],
            options={
                'verbose_name': "standing order's game",
                'verbose_name_plural': "standing orders' games",
            },
        ),
        migrations.AddIndex(
            model_name='onlineorder',
            index=models.Index(fields=['online_room', 'ended_at'], name='online_order_room_open'),
        ),
        migrations.AddConstraint(
            model_name='onlineorder',
            constraint=models.UniqueConstraint(fields=('player', 'key'), name='online_order_key_unique'),
        ),
        migrations.AddConstraint(
            model_name='onlineorder',
            constraint=models.CheckConstraint(condition=models.Q(('games_filled__lte', models.F('games_wanted'))), name='online_order_filled_at_most_wanted'),
        ),
        migrations.AddConstraint(
            model_name='onlineorder',
            constraint=models.CheckConstraint(condition=models.Q(('quantity__gte', 1), ('quantity__lte', 1000)), name='online_order_quantity_bounds'),
        ),
        migrations.AddConstraint(
            model_name='onlineorder',
            constraint=models.CheckConstraint(condition=models.Q(('games_wanted__gte', 1), ('games_wanted__lte', 10)), name='online_order_games_bounds'),
        ),
        migrations.AddConstraint(
            model_name='onlineorder',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('end_reason', ''), ('ended_at__isnull', True)), models.Q(('end_reason__in', ['completed', 'cancelled', 'refused', 'room_closed']), ('ended_at__isnull', False)), _connector='OR'), name='online_order_end_has_reason'),
        ),
        migrations.AddConstraint(
            model_name='onlineorder',
            constraint=models.CheckConstraint(condition=models.Q(('cancelled_at__isnull', True), ('end_reason', 'cancelled'), _connector='OR'), name='online_order_cancelled_reason'),
        ),
        migrations.AddConstraint(
            model_name='onlineorder',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('end_reason', 'completed'), _negated=True), ('games_filled', models.F('games_wanted')), _connector='OR'), name='online_order_completed_all_filled'),
        ),
        migrations.AddConstraint(
            model_name='onlineorderfill',
            constraint=models.UniqueConstraint(fields=('order', 'game'), name='online_order_fill_once_per_game'),
        ),
        migrations.AddConstraint(
            model_name='onlineorderfill',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('refusal', ''), ('sale__isnull', False)), models.Q(('sale__isnull', True), models.Q(('refusal', ''), _negated=True)), _connector='OR'), name='online_order_fill_sale_or_refusal'),
        ),
    ]
