"""Upper bounds of what the card stock's manager sets (issue 20; bingo.common.bounds): a card
set's size (R19, bingo.engine's MAX_CARDS), a series' order number and card price (R18), and a
print job's last card. The services refuse beyond them with a message; the database holds them too.
"""

from decimal import Decimal
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('cards', '0006_series_online'),
    ]

    operations = [
        migrations.AddConstraint(
            model_name='cardset',
            constraint=models.CheckConstraint(condition=models.Q(('size__lte', 1000000)), name='card_set_size_at_most_max'),
        ),
        migrations.AddConstraint(
            model_name='printjob',
            constraint=models.CheckConstraint(condition=models.Q(('last__lte', 1000000)), name='print_job_last_at_most_max'),
        ),
        migrations.AddConstraint(
            model_name='series',
            constraint=models.CheckConstraint(condition=models.Q(('order_number__lte', 999999)), name='series_order_number_at_most_max'),
        ),
        migrations.AddConstraint(
            model_name='series',
            constraint=models.CheckConstraint(condition=models.Q(('price__lte', Decimal('1000000.00'))), name='series_price_at_most_max'),
        ),
    ]
