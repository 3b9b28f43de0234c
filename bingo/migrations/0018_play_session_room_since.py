from django.db import migrations, models


class Migration(migrations.Migration):
    """PT-806/70 b): when a play session began following its room; the games played there
    before do not count as the player's idle games."""

    dependencies = [
        ("bingo", "0017_player_protection"),
    ]

    operations = [
        migrations.AddField(
            model_name="playsession",
            name="room_since",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
