"""Issue 21: a system fault's row (R98) keeps who declared it, when and from where; its reason,
which repeated the game's ``state_reason`` and the acta's equipment-failure note, is read from
there. Reversible: going back, the column is filled again from the game's ``state_reason``."""

from django.db import migrations, models


def reason_from_the_game(apps, schema_editor):
    GameFault = apps.get_model("bingo", "GameFault")
    for fault in GameFault.objects.select_related("game"):
        fault.reason = fault.game.state_reason or "-"
        fault.save(update_fields=["reason"])


class Migration(migrations.Migration):
    dependencies = [
        ("bingo", "0021_session_sale_online_wallet_and_limit_upper_bounds"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="gamefault", name="game_fault_reason_given"),
        migrations.AlterField(
            model_name="gamefault", name="reason", field=models.TextField(default="", verbose_name="reason")
        ),
        migrations.RunPython(migrations.RunPython.noop, reason_from_the_game),
        migrations.RemoveField(model_name="gamefault", name="reason"),
    ]
