"""PostgreSQL-only: the acta (0002) and the audit trail (0004) refuse TRUNCATE too.

Their row triggers refuse UPDATE and DELETE, but TRUNCATE fires no row trigger: one statement
emptied the actas and their notes. A statement trigger on each refuses it, whoever asks, with the
row trigger's message. (The app's role may not TRUNCATE them at all: ``manage.py db_grant``,
docs/deploy.md.)
"""

from django.db import migrations

INSERT_ONLY = {
    "actas_acta": "an acta is never changed or deleted (R58)",
    "actas_actaentry": "a game recorded in the acta is never changed or deleted (R59-R61)",
    "actas_actanote": "a note recorded in the acta is never changed or deleted (R61)",
}

FORWARD = [
    *(
        f"CREATE TRIGGER {table}_refuse_truncate BEFORE TRUNCATE ON {table} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION actas_insert_only('{message}')"
        for table, message in INSERT_ONLY.items()
    ),
    "CREATE TRIGGER actas_auditevent_refuse_truncate BEFORE TRUNCATE ON actas_auditevent "
    "FOR EACH STATEMENT EXECUTE FUNCTION actas_audit_insert_only()",
]
BACKWARD = [
    "DROP TRIGGER actas_auditevent_refuse_truncate ON actas_auditevent",
    *(f"DROP TRIGGER {table}_refuse_truncate ON {table}" for table in INSERT_ONLY),
]


def _run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql, None)

    return apply


class Migration(migrations.Migration):
    dependencies = [("actas", "0006_session_closed_note")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
