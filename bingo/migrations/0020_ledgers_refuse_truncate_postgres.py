"""PostgreSQL-only: the insert-only ledgers refuse TRUNCATE too.

Their row triggers (0003, 0005, 0011, 0013, 0017) refuse UPDATE and DELETE, but TRUNCATE fires
no row trigger: one statement emptied the wallets, the sales or the exclusions. A statement
trigger on each refuses it, whoever asks, with the message of the table's row trigger. (The app's
role may not TRUNCATE them at all: ``manage.py db_grant``, docs/deploy.md.)
"""

from django.db import migrations

# Each table with the function its row trigger calls.
TABLES = {
    "bingo_sale": "bingo_sale_insert_only",
    **{
        table: "bingo_draw_insert_only"
        for table in (
            "bingo_ball",
            "bingo_claim",
            "bingo_prize",
            "bingo_prizewinner",
            "bingo_prizepayment",
            "bingo_refund",
            "bingo_walletentry",
            "bingo_democreditentry",
            "bingo_playerlimit",
            "bingo_playerexclusion",
            "bingo_playerexclusionlift",
        )
    },
}

FORWARD = [
    f"CREATE TRIGGER {table}_refuse_truncate BEFORE TRUNCATE ON {table} "
    f"FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
    for table, function in TABLES.items()
]
BACKWARD = [f"DROP TRIGGER {table}_refuse_truncate ON {table}" for table in TABLES]


def _run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql, None)

    return apply


class Migration(migrations.Migration):
    dependencies = [("bingo", "0019_online_room_idle_reason")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
