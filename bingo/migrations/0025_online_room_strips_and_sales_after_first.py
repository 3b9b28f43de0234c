"""Online rooms (issue 25, point 2): a continuous room's minimum sales time after a game's first
purchase (0, the default, keeps the sales window alone deciding, as before; at most an hour), and
whether the room sells 90-ball strips of six (only a 90-ball room may)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("bingo", "0024_drawer_shifts_and_wallet_desk"),
    ]

    operations = [
        migrations.AddField(
            model_name="onlineroom",
            name="sales_after_first_seconds",
            field=models.PositiveIntegerField(
                default=0, verbose_name="minimum sales time after the first purchase (seconds)"
            ),
        ),
        migrations.AddField(
            model_name="onlineroom",
            name="strips",
            field=models.BooleanField(default=False, verbose_name="sells strips of six"),
        ),
        migrations.AddConstraint(
            model_name="onlineroom",
            constraint=models.CheckConstraint(
                condition=models.Q(("sales_after_first_seconds__lte", 3600)),
                name="online_room_sales_after_first_at_most_an_hour",
            ),
        ),
        migrations.AddConstraint(
            model_name="onlineroom",
            constraint=models.CheckConstraint(
                condition=models.Q(("strips", False), ("variant", "90"), _connector="OR"),
                name="online_room_strips_only_90",
            ),
        ),
    ]
