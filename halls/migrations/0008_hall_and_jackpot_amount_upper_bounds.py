"""Upper bounds of what a hall's manager sets (issue 20; bingo.common.bounds): the card limit per
player (R35), the prize tax's threshold, the jackpot's base value and the operator's seeds and
adjustments (R11). The services refuse beyond them with a message; the database holds them too.
"""

from decimal import Decimal
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('halls', '0007_ledgers_refuse_truncate_postgres'),
    ]

    operations = [
        migrations.AddConstraint(
            model_name='hall',
            constraint=models.CheckConstraint(condition=models.Q(('card_limit_per_player__isnull', True), ('card_limit_per_player__lte', 10000), _connector='OR'), name='hall_card_limit_at_most_max'),
        ),
        migrations.AddConstraint(
            model_name='hall',
            constraint=models.CheckConstraint(condition=models.Q(('tax_threshold__lte', Decimal('1000000000.00'))), name='hall_tax_threshold_at_most_max'),
        ),
        migrations.AddConstraint(
            model_name='jackpot',
            constraint=models.CheckConstraint(condition=models.Q(('base_value__lte', Decimal('1000000000.00'))), name='jackpot_base_at_most_max'),
        ),
        migrations.AddConstraint(
            model_name='jackpotmovement',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('kind__in', ['seed', 'adjustment']), _negated=True), models.Q(('amount__gte', Decimal('-1000000000.00')), ('amount__lte', Decimal('1000000000.00'))), _connector='OR'), name='jackpot_operator_movement_at_most_max'),
        ),
    ]
