"""The online rooms' caller, «sistema-online» (bingo/autodraw/services.py ``system_user``): created
now, inactive and with no usable password, so that no one can register its name before the first
online game needs it."""

from django.contrib.auth.hashers import make_password
from django.db import migrations

USERNAME = "sistema-online"


def create(apps, schema_editor):
    User = apps.get_model("auth", "User")
    User.objects.get_or_create(
        username=USERNAME,
        defaults={
            "first_name": "Sistema",
            "last_name": "online",
            "is_active": False,
            "password": make_password(None),  # unusable: no one logs in as the system
        },
    )


class Migration(migrations.Migration):
    dependencies = [
        ("bingo", "0011_wallet_ledger_invariants_postgres"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(create, migrations.RunPython.noop)]
