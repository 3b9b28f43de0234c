"""PostgreSQL-only: the insert-only records of 0004 refuse TRUNCATE too.

Their row triggers refuse UPDATE and DELETE, but TRUNCATE fires no row trigger: one statement
emptied the ball checks or the jackpot's movements. A statement trigger on each refuses it,
whoever asks, with the row trigger's message. (The app's role may not TRUNCATE them at all:
``manage.py db_grant``, docs/deploy.md.)
"""

from django.db import migrations

INSERT_ONLY = {
    "halls_ballsetcheck": "ball checks are never changed or deleted (R23)",
    "halls_ballreplacement": "ball replacements are never changed or deleted (R25-R26)",
    "halls_ballsetuse": "the games a ball set drew are never changed or deleted (R25)",
    "halls_jackpotmovement": "jackpot movements are never changed or deleted (R10-R11)",
}

FORWARD = [
    f"CREATE TRIGGER {table}_refuse_truncate BEFORE TRUNCATE ON {table} "
    f"FOR EACH STATEMENT EXECUTE FUNCTION halls_insert_only('{message}')"
    for table, message in INSERT_ONLY.items()
]
BACKWARD = [f"DROP TRIGGER {table}_refuse_truncate ON {table}" for table in INSERT_ONLY]


def _run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql, None)

    return apply


class Migration(migrations.Migration):
    dependencies = [("halls", "0006_ball_replacement_repeats")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
