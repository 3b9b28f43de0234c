"""Online rooms choose their 75-ball pattern (issue 25, R73 b)): ``OnlineRoom.pattern`` (blank:
the full card, which every room played until now; a library key; or a custom figure's cells),
refused by the database on another variant (R73 b)), when not a known figure, and beside a line
or four corners prize (R74). Demo games keep their winning rules, so a demo of a pattern room
plays its pattern. Existing rooms and demo games keep the full card.
"""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('bingo', '0027_online_order'),
        ('halls', '0010_hall_play_cooloff'),
    ]

    operations = [
        migrations.AddField(
            model_name='demogame',
            name='win_rules',
            field=models.JSONField(blank=True, default=dict, verbose_name='winning combinations'),
        ),
        migrations.AddField(
            model_name='onlineroom',
            name='pattern',
            field=models.CharField(blank=True, default='', max_length=29, verbose_name='75-ball bingo pattern (R73 b))'),
        ),
        migrations.AddConstraint(
            model_name='onlineroom',
            constraint=models.CheckConstraint(condition=models.Q(('pattern', ''), ('variant', '75'), _connector='OR'), name='online_room_pattern_only_75'),
        ),
        migrations.AddConstraint(
            model_name='onlineroom',
            constraint=models.CheckConstraint(condition=models.Q(('pattern', ''), ('pattern__in', ['column_b', 'column_g', 'column_i', 'column_n', 'column_o', 'diagonal_down', 'diagonal_up', 'diamond', 'four_corners', 'frame', 'letter_h', 'letter_l', 'letter_t', 'plus', 'postage_stamp', 'row_1', 'row_2', 'row_3', 'row_4', 'row_5', 'small_frame', 'x']), ('pattern__regex', '^[X.]{5}(/[X.]{5}){4}$'), _connector='OR'), name='online_room_pattern_known'),
        ),
        migrations.AddConstraint(
            model_name='onlineroom',
            constraint=models.CheckConstraint(condition=models.Q(('pattern', ''), models.Q(models.Q(('prize_plan__has_key', 'line'), _negated=True), models.Q(('prize_plan__has_key', 'four_corners'), _negated=True)), _connector='OR'), name='online_room_pattern_bingo_alone_r74'),
        ),
    ]
