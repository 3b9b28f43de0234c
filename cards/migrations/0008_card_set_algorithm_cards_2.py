"""Card sets may record algorithm ``cards/2`` (issue 23; docs/cards.md), what new sets of plain
cards use; sets recorded as ``cards/1`` keep their name and regenerate as before. The database's
check of known algorithms follows ``bingo.engine.ALGORITHMS``.
"""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('cards', '0007_card_set_series_and_print_job_upper_bounds'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='cardset',
            name='card_set_known_algorithm',
        ),
        migrations.AlterField(
            model_name='cardset',
            name='algorithm',
            field=models.CharField(choices=[('cards/1', 'cards/1'), ('cards/2', 'cards/2'), ('strips/1', 'strips/1')], max_length=32, verbose_name='algorithm'),
        ),
        migrations.AddConstraint(
            model_name='cardset',
            constraint=models.CheckConstraint(condition=models.Q(('algorithm__in', ('cards/1', 'cards/2', 'strips/1'))), name='card_set_known_algorithm'),
        ),
    ]
