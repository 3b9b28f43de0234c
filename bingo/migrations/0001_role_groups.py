"""Create one auth group per role (bingo.common.roles.Role): manager, cashier, caller, inspector, player.

The role names are written out here rather than imported, so this migration keeps doing the
same thing whatever later becomes of bingo.common.roles.
"""

from django.db import migrations

ROLE_GROUPS = ("manager", "cashier", "caller", "inspector", "player")


def create_role_groups(apps, schema_editor):
    group_model = apps.get_model("auth", "Group")
    for name in ROLE_GROUPS:
        group_model.objects.using(schema_editor.connection.alias).get_or_create(name=name)


def delete_role_groups(apps, schema_editor):
    group_model = apps.get_model("auth", "Group")
    group_model.objects.using(schema_editor.connection.alias).filter(name__in=ROLE_GROUPS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.RunPython(create_role_groups, delete_role_groups),
    ]
