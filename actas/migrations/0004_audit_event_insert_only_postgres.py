"""PostgreSQL-only: the audit trail is insert-only, like the sales ledger and the draw's records.

An audit event says who did what and when (R61); once written it is never changed or deleted,
not even by the application. UPDATE and DELETE are refused.
"""

from django.db import migrations

FORWARD = [
    """
    CREATE FUNCTION actas_audit_insert_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION '% rows are never changed or deleted', TG_TABLE_NAME
            USING ERRCODE = 'integrity_constraint_violation';
    END $$
    """,
    "CREATE TRIGGER actas_auditevent_insert_only BEFORE UPDATE OR DELETE ON actas_auditevent "
    "FOR EACH ROW EXECUTE FUNCTION actas_audit_insert_only()",
]
BACKWARD = [
    "DROP TRIGGER actas_auditevent_insert_only ON actas_auditevent",
    "DROP FUNCTION actas_audit_insert_only()",
]


def _run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql, None)

    return apply


class Migration(migrations.Migration):
    dependencies = [("actas", "0003_audit_event")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
