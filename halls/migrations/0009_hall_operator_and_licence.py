"""The operator holding a hall's concession and the concession's number (R17: «salas de jogo
concessionadas»), printed on the sale receipts and the payout slips (issue 24). Blank for the
halls already there until their manager fills them in."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('halls', '0008_hall_and_jackpot_amount_upper_bounds'),
    ]

    operations = [
        migrations.AddField(
            model_name='hall',
            name='licence_number',
            field=models.CharField(blank=True, max_length=60, verbose_name='concession or licence n.º'),
        ),
        migrations.AddField(
            model_name='hall',
            name='operator_name',
            field=models.CharField(blank=True, max_length=160, verbose_name='operator (concession holder)'),
        ),
    ]
